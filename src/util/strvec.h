/*
 * strvec.h - a growable list of strings that the list owns, always
 * NULL-terminated once it has one (git's strvec): argument vectors and
 * lists of names.
 */
#ifndef PG_STRVEC_H
#define PG_STRVEC_H

#include <stddef.h>

typedef struct pg_strvec {
    char **v; /* v[n] is NULL; NULL itself while empty */
    size_t n;
} pg_strvec;

#define PG_STRVEC_INIT                                                         \
    {                                                                          \
        NULL, 0                                                                \
    }

/* Appends a copy of `s`. */
void pg_strvec_push(pg_strvec *sv, const char *s);

/* Appends `s` itself, which the list then owns (and frees). */
void pg_strvec_push_owned(pg_strvec *sv, char *s);

/* Appends a formatted string. */
void pg_strvec_pushf(pg_strvec *sv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends a copy of each string of `from`, in order. */
void pg_strvec_append(pg_strvec *sv, const pg_strvec *from);

/* 1 when the list holds a string equal to `s`. */
int pg_strvec_has(const pg_strvec *sv, const char *s);

/* The list as a NULL-terminated array, never NULL (empty: {NULL}). */
const char *const *pg_strvec_list(const pg_strvec *sv);

/* Frees the strings and the array; the list is empty again and reusable. */
void pg_strvec_clear(pg_strvec *sv);

#endif
