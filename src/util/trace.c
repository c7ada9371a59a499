/*
 * trace.c - see trace.h.
 */
#include "trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>
#include "str.h"

#include "banned.h"

static int tracing;

void pg_trace_enable(int on)
{
    tracing = on;
}

int pg_tracing(void)
{
    return tracing;
}

void pg_trace(const char *fmt, ...)
{
    pg_str line = PG_STR_INIT;
    va_list ap;

    if (!tracing)
        return;
    va_start(ap, fmt);
    pg_str_vprintf(&line, fmt, ap);
    va_end(ap);
    /* One write, so that lines from several processes do not mix. */
    fprintf(stderr, "%sperfgate: %s\n", isatty(2) ? "\r\033[K" : "",
            pg_str_cstr(&line));
    fflush(stderr);
    pg_str_clear(&line);
}
