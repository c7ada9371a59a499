/*
 * timer.h - choosing the clock that times samples.
 *
 * At start-up perfgate measures each candidate clock's cost per read and
 * the smallest step it can show, and picks the one whose error on a sample
 * is smallest: the invariant TSC (read with rdtsc fenced by lfence, then
 * rdtscp) where the CPU has one and the kernel trusts it, else
 * clock_gettime(CLOCK_MONOTONIC_RAW), else CLOCK_MONOTONIC.  The choice and
 * its figures go into the JSON report.  PERFGATE_TIMER=tsc|raw|monotonic
 * forces a candidate, for experiments.
 */
#ifndef PG_TIMER_H
#define PG_TIMER_H

#include <stddef.h>
#include <stdint.h>

#include "machine.h"

typedef struct pg_timer {
    pg_clock_info chosen;
    pg_clock_info candidates[PG_CLOCK_COUNT];
    const char *why; /* why the TSC was not a candidate, or NULL */
} pg_timer;

/* "tsc", "clock_monotonic_raw", "clock_monotonic". */
const char *pg_clock_name(pg_clock_id id);

/*
 * Measures the candidates (about 30 ms) and makes the best one current for
 * this process and the children it forks.  Fills `out` when not NULL.
 */
void pg_timer_select(pg_timer *out);

/*
 * Makes `chosen` current without measuring: the measuring executable times
 * with the clock perfgate chose and reported.
 */
void pg_timer_use(const pg_clock_info *chosen);

/* The current clock; selects one first when none has been. */
const pg_timer *pg_timer_current(void);

/*
 * The error a sample of this clock carries, in ns: a read's cost plus one
 * step.  Samples are made long against it (measure.c).
 */
double pg_timer_error_ns(const pg_clock_info *c);

/*
 * The index of the best of `n` candidates (lowest pg_timer_error_ns among
 * the usable ones); -1 when none is usable.
 */
int pg_timer_best(const pg_clock_info *c, size_t n);

/* Reads, for the timing loop: ticks of clock `id` (ns unless the TSC). */
#if defined(__x86_64__) || defined(__i386__)
#define PG_HAVE_TSC 1
static inline uint64_t pg_tsc_begin(void)
{
    uint32_t lo, hi;

    /* lfence: earlier instructions finish before the read. */
    __asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t pg_tsc_end(void)
{
    uint32_t lo, hi, aux;

    /* rdtscp waits for the timed code; lfence keeps later code out. */
    __asm__ __volatile__("rdtscp\n\tlfence"
                         : "=a"(lo), "=d"(hi), "=c"(aux)::"memory");
    return ((uint64_t)hi << 32) | lo;
}
#else
#define PG_HAVE_TSC 0
static inline uint64_t pg_tsc_begin(void)
{
    return 0;
}
static inline uint64_t pg_tsc_end(void)
{
    return 0;
}
#endif

/* ns of CLOCK_MONOTONIC_RAW (`raw`) or CLOCK_MONOTONIC. */
uint64_t pg_clock_read(int raw);

#endif
