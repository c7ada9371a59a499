/*
 * progress.h - the one line that says how far a comparison has come:
 * which benchmark of how many, what it is doing, and, across many, about
 * how long is left at the pace so far.
 */
#ifndef PG_PROGRESS_H
#define PG_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct pg_progress {
    /* Receives each line; NULL: nothing is said. */
    void (*on_line)(void *payload, const char *line);
    void *payload;
    size_t index, count;      /* benchmark index + 1 of count */
    size_t measured, skipped; /* benchmarks done so far, by kind */
    const char *bench;        /* the current one; NULL between them */
    int64_t loop_start;       /* when the first benchmark began (ns) */
    int64_t bench_start;      /* when the current one began (ns) */
} pg_progress;

/*
 * Seconds left, at the pace so far: `done` benchmarks of `count` took
 * `spent` seconds, and the current one (the next) has run `current`.
 * Each to come is given the mean of those done, less what the current
 * one has taken of its share: the figure never rises while a benchmark
 * measures.  0 when none is done (nothing to go by).
 */
double pg_progress_left(double spent, size_t done, size_t count,
                        double current);

/* Says `what` ("measuring, round 3, 0.4 s"), with the benchmark's place
 * before it and, across many, how many are done and about how long is
 * left after it, now being `now` (pg_now_ns()). */
void pg_progress_say(const pg_progress *p, const char *what, int64_t now);

/* pg_progress_say with `what` formatted, now; nothing when `p` is NULL or
 * has no on_line. */
void pg_progress_sayf(const pg_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
