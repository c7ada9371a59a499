/*
 * error.c - the last error message.
 */
#include "error.h"
#include "str.h"

#include <stdarg.h>
#include <stdlib.h>

#include "banned.h"

static char *last_message;

int pg_error_set(int code, const char *fmt, ...)
{
    pg_str s = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&s, fmt, ap);
    va_end(ap);
    free(last_message);
    last_message = pg_str_detach(&s);
    return code;
}

const char *pg_error_last(void)
{
    return last_message;
}

void pg_error_clear(void)
{
    free(last_message);
    last_message = NULL;
}

int pg_error_exit_code(int err)
{
    switch (err) {
    case PG_ERR_USAGE:
        return PG_EXIT_USAGE;
    case PG_ERR_INTERRUPTED:
        return PG_EXIT_INTERRUPTED;
    default:
        return PG_EXIT_INTERNAL;
    }
}
