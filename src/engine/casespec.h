/*
 * casespec.h - input cases: "key=value,key=value" parameters.
 */
#ifndef PG_CASESPEC_H
#define PG_CASESPEC_H

#include <stddef.h>

/* A position in perfgate.yml, 1-based; line 0 when not from the file. */
typedef struct pg_mark {
    int line, col;
} pg_mark;

/* One input case: parameters as key=value pairs. */
typedef struct pg_casespec {
    char *name; /* canonical: "m=64,n=64,k=64" */
    size_t nparams;
    char **keys;
    long long *values;
    pg_mark mark;
} pg_casespec;

/*
 * Parses one "key=value,key=value" case (as in a problem's default_cases)
 * into `out`.  0, or -1 when malformed, and `out` then empty (nothing to
 * clear).
 */
int pg_casespec_parse(pg_casespec *out, const char *text);

/*
 * Parses a problem's default_cases ("...; ...") into a new array of
 * *count cases, each to pg_casespec_clear() and the array to free().  0,
 * or -1 when malformed, and *out and *count then untouched.
 */
int pg_casespecs_parse(pg_casespec **out, size_t *count, const char *text);

/* Sets out->name to the canonical "key=value,..." form of its params. */
void pg_casespec_name(pg_casespec *spec);

/* Appends a parameter; pg_casespec_has() says whether `key` is there. */
void pg_casespec_add(pg_casespec *spec, const char *key, long long value);
int pg_casespec_has(const pg_casespec *spec, const char *key);

void pg_casespec_clear(pg_casespec *spec);

#endif
