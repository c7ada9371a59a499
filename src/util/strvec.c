/*
 * strvec.c - a growable list of owned strings.
 */
#include "strvec.h"
#include "str.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void pg_strvec_push_owned(pg_strvec *sv, char *s)
{
    sv->v = pg_realloc(sv->v, (sv->n + 2) * sizeof(*sv->v));
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
}

void pg_strvec_push(pg_strvec *sv, const char *s)
{
    pg_strvec_push_owned(sv, pg_strdup(s));
}

void pg_strvec_pushf(pg_strvec *sv, const char *fmt, ...)
{
    pg_str s = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&s, fmt, ap);
    va_end(ap);
    pg_strvec_push_owned(sv, pg_str_detach(&s));
}

void pg_strvec_append(pg_strvec *sv, const pg_strvec *from)
{
    size_t i;

    for (i = 0; i < from->n; i++)
        pg_strvec_push(sv, from->v[i]);
}

int pg_strvec_has(const pg_strvec *sv, const char *s)
{
    size_t i;

    for (i = 0; i < sv->n; i++)
        if (!strcmp(sv->v[i], s))
            return 1;
    return 0;
}

const char *const *pg_strvec_list(const pg_strvec *sv)
{
    static const char *const empty[1] = {NULL};

    return sv->v ? (const char *const *)sv->v : empty;
}

void pg_strvec_clear(pg_strvec *sv)
{
    size_t i;

    for (i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = 0;
}
