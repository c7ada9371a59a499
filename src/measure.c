/*
 * measure.c - the timing loop.  Everything between two clock reads is the
 * solution and the harness's fixed cost; everything else (bookkeeping, the
 * watchdog, progress) happens outside the timed region.
 */
#define _GNU_SOURCE
#include "measure.h"
#include "util.h"

#include <math.h>
#include <string.h>
#include <time.h>

#define MAX_INNER (1ULL << 30)

void pg_watch_enter(pg_watch *w, int side)
{
    if (!w)
        return;
    w->since_ns = pg_now_ns();
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    w->side = side;
}

void pg_watch_leave(pg_watch *w)
{
    int side;

    if (!w || (side = w->side) < 0)
        return;
    w->side = -1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    w->used_ns[side] += pg_now_ns() - w->since_ns;
}

/*
 * The empty solution, called through the problem's run() exactly as a real
 * one is, to measure the harness's own cost.  run() calls it with the
 * problem's arguments, which it ignores (harmless in the C calling
 * conventions perfgate supports: the caller owns the argument area).
 */
static void empty_solution(void)
{
    __asm__ __volatile__("" ::: "memory");
}

static inline int64_t clock_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Times `n` calls; the only code inside the clock reads is the loop. */
static __attribute__((noinline)) double time_batch(const pg_target *t,
                                                   pg_fn fn, uint64_t n)
{
    void (*run)(void *, pg_fn) = t->problem->run;
    void *state = t->state;
    int64_t start, end;
    uint64_t i;

    start = clock_ns();
    for (i = 0; i < n; i++)
        run(state, fn);
    end = clock_ns();
    return (double)(end - start);
}

static double time_side(const pg_measure_opts *opts, const pg_target *t,
                        int side, uint64_t n)
{
    double ns;

    pg_watch_enter(opts->watch, side);
    /* A short batch starts warm: one untimed call first. */
    if (n > 1)
        t->problem->run(t->state, t->fn);
    ns = time_batch(t, t->fn, n);
    pg_watch_leave(opts->watch);
    return ns;
}

/* The same count for both sides: the smallest n whose sample is long enough
 * on the faster side. */
static uint64_t calibrate(const pg_measure_opts *opts, pg_target *targets,
                          int nsides)
{
    uint64_t n = 1;

    while (n < MAX_INNER) {
        double shortest = INFINITY;
        int s;
        for (s = 0; s < nsides; s++) {
            double ns = time_side(opts, &targets[s], s, n);
            if (ns < shortest)
                shortest = ns;
        }
        if (shortest >= opts->sample_ns)
            break;
        if (shortest * 4 < opts->sample_ns && shortest > 0) {
            /* Jump close, then let the next pass confirm. */
            double want = (double)n * opts->sample_ns / shortest;
            uint64_t next = (uint64_t)want;
            n = next > n * 2 ? next : n * 2;
        } else {
            n *= 2;
        }
    }
    return n < MAX_INNER ? n : MAX_INNER;
}

void pg_measure_opts_init(pg_measure_opts *opts, int min_rounds,
                          double max_time)
{
    memset(opts, 0, sizeof(*opts));
    opts->min_rounds = min_rounds;
    opts->max_time = max_time;
    /* A tenth of the budget, at most a second: enough rounds for the
     * minimum to find a quiet moment, without spending the budget on
     * calls whose minimum settled long ago. */
    opts->min_time = max_time / 10 < 1.0 ? max_time / 10 : 1.0;
    opts->sample_ns = 20000;
    opts->settle = 0.002;
}

int pg_measure_should_stop(const pg_measure_opts *opts, int rounds,
                           int last_improved, double elapsed)
{
    if (elapsed >= opts->max_time)
        return 1;
    if (rounds < opts->min_rounds || elapsed < opts->min_time)
        return 0;
    /* Settled: no minimum has moved in the latter half of the rounds. */
    return rounds >= 2 * last_improved;
}

int pg_measure(pg_case_timing *out, pg_measure_summary *summary,
               pg_target (*targets)[2], size_t ncases, int nsides,
               const pg_measure_opts *opts)
{
    int64_t start = pg_now_ns();
    double elapsed = 0;
    int round, last_improved = 0;
    size_t c;

    memset(summary, 0, sizeof(*summary));
    for (c = 0; c < ncases; c++) {
        memset(&out[c], 0, sizeof(out[c]));
        out[c].ns[0] = out[c].ns[1] = INFINITY;
        out[c].raw_ns[0] = out[c].raw_ns[1] = INFINITY;
        out[c].overhead_ns = INFINITY;
        out[c].inner = calibrate(opts, targets[c], nsides);
    }

    for (round = 0;; round++) {
        for (c = 0; c < ncases; c++) {
            pg_case_timing *r = &out[c];
            pg_target empty = targets[c][0];
            double overhead;
            int k;

            empty.fn = empty_solution;
            overhead = time_batch(&empty, empty.fn, r->inner);
            if (overhead < r->overhead_ns)
                r->overhead_ns = overhead;

            for (k = 0; k < nsides; k++) {
                /* ABBA: base first in even rounds, head first in odd. */
                int side = nsides == 2 ? (k ^ (round & 1)) : k;
                double ns = time_side(opts, &targets[c][side], side, r->inner);

                if (ns < r->raw_ns[side]) {
                    if (ns < r->raw_ns[side] * (1.0 - opts->settle))
                        last_improved = round + 1;
                    r->raw_ns[side] = ns;
                }
            }
            r->samples++;
        }
        /* Rounds always complete, so every case has as many samples. */
        elapsed = (double)(pg_now_ns() - start) / 1e9;
        summary->rounds = round + 1;
        if (opts->on_round)
            opts->on_round(opts->payload, round + 1, elapsed);
        if (pg_measure_should_stop(opts, round + 1, last_improved, elapsed))
            break;
    }

    for (c = 0; c < ncases; c++) {
        pg_case_timing *r = &out[c];
        double n = (double)r->inner, overhead = r->overhead_ns / n;
        int s;

        r->overhead_ns = overhead;
        for (s = 0; s < nsides; s++) {
            double raw = r->raw_ns[s] / n;
            r->raw_ns[s] = raw;
            r->ns[s] = raw > r->overhead_ns ? raw - r->overhead_ns : 0;
            summary->calls[s] += r->samples * r->inner;
        }
    }
    summary->seconds = (double)(pg_now_ns() - start) / 1e9;
    return 0;
}
