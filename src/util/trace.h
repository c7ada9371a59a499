/*
 * trace.h - what perfgate is doing, step by step, for people debugging a
 * config or a problem.
 */
#ifndef PG_TRACE_H
#define PG_TRACE_H

/*
 * Tracing (compare -v): when on,
 * pg_trace() writes "perfgate: LINE" to stderr (on a terminal, over the
 * progress line).  Off by default.
 */
void pg_trace_enable(int on);
int pg_tracing(void);
void pg_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
