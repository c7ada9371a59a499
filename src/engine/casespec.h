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
typedef struct pg_case_spec {
    char *name; /* canonical: "m=64,n=64,k=64" */
    size_t nparams;
    char **keys;
    long long *values;
    pg_mark mark;
} pg_case_spec;

/*
 * Parses one "key=value,key=value" case (as in a problem's default_cases)
 * into `out`.  0, or -1 when malformed, and `out` then empty (nothing to
 * clear).
 */
int pg_case_spec_parse(pg_case_spec *out, const char *text);

/*
 * Parses a problem's default_cases ("...; ...") into a new array of
 * *count cases, each to pg_case_spec_clear() and the array to free().  0,
 * or -1 when malformed, and *out and *count then untouched.
 */
int pg_case_specs_parse(pg_case_spec **out, size_t *count, const char *text);

/* Sets out->name to the canonical "key=value,..." form of its params. */
void pg_case_spec_name(pg_case_spec *spec);

/* Appends a parameter; pg_case_spec_has() says whether `key` is there. */
void pg_case_spec_add(pg_case_spec *spec, const char *key, long long value);
int pg_case_spec_has(const pg_case_spec *spec, const char *key);

void pg_case_spec_clear(pg_case_spec *spec);

#endif
