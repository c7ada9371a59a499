/*
 * measure.c - the timing loop.  Everything between two clock reads is the
 * solution and the harness's fixed cost; everything else (bookkeeping, the
 * watchdog, progress) happens outside the timed region.
 */
#define _GNU_SOURCE
#include "measure.h"
#include "str.h"
#include "timer.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
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
    if (!w)
        return;
    w->side = -1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
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

#define TIMED_LOOP(read_begin, read_end)                                       \
    do {                                                                       \
        start = read_begin;                                                    \
        for (i = 0; i < n; i++)                                                \
            run(state, fn);                                                    \
        end = read_end;                                                        \
    } while (0)

/* Times `n` calls, in ns; the only code inside the clock reads is the
 * loop. */
static __attribute__((noinline)) double time_batch(const pg_target *t,
                                                   pg_fn fn, uint64_t n,
                                                   const pg_clock_info *clk)
{
    void (*run)(void *, pg_fn) = t->problem->run;
    void *state = t->state;
    uint64_t start, end, i;

    switch (clk->id) {
    case PG_CLOCK_TSC:
        TIMED_LOOP(pg_tsc_begin(), pg_tsc_end());
        return (double)(end - start) / clk->ticks_per_ns;
    case PG_CLOCK_MONOTONIC_RAW:
        TIMED_LOOP(pg_clock_read(1),
                   pg_clock_read(1));
        break;
    default:
        TIMED_LOOP(pg_clock_read(0),
                   pg_clock_read(0));
        break;
    }
    return (double)(end - start);
}

typedef struct engine {
    const pg_measure_opts *opts;
    const pg_clock_info *clock;
    unsigned char *evict; /* cold caches: the buffer written between samples */
} engine;

/* Writing every line of a buffer larger than the last-level cache leaves
 * nothing of the solution's data or code in any cache. */
static void evict_caches(const engine *e)
{
    volatile unsigned char *p = e->evict;
    size_t i;

    for (i = 0; i < e->opts->evict_bytes; i += 64)
        p[i]++;
}

static double time_side(const engine *e, const pg_target *t, int side,
                        uint64_t n, int round)
{
    const pg_device_clock *dev = e->opts->device;
    pg_fn fn = t->nplaced ? t->placed[(size_t)round % t->nplaced] : t->fn;
    double ns;

    if (e->opts->sides)
        side = e->opts->sides[side];
    if (dev) {
        pg_watch_enter(e->opts->watch, side);
        ns = dev->time(dev->ctx, t, n, e->opts->device_cold);
        pg_watch_leave(e->opts->watch);
        return ns;
    }
    if (e->evict)
        evict_caches(e);
    pg_watch_enter(e->opts->watch, side);
    /* A warm batch starts warm: one untimed call first. */
    if (n > 1 && !e->evict)
        t->problem->run(t->state, fn);
    ns = time_batch(t, fn, n, e->clock);
    pg_watch_leave(e->opts->watch);
    return ns;
}

/* The same count for both sides: the smallest n whose sample is long enough
 * on the faster side.  Cold caches take one call per sample: a second call
 * would find them warm.  The accepted pass is a sample like any other (base
 * then head, as in an even round): first[side] keeps it for round 0, or
 * INFINITY. */
static uint64_t calibrate(const engine *e, pg_target *targets, int nsides,
                          double *first)
{
    const pg_device_clock *dev = e->opts->device;
    double sample_ns = e->opts->sample_ns, ns[2];
    uint64_t n = 1, limit = MAX_INNER;
    int s;

    first[0] = first[1] = INFINITY;
    if (e->evict)
        return 1;
    if (dev) {
        limit = dev->max_inner ? dev->max_inner : 1;
        /* Cold, a batch may not call a copy twice: the second call would
         * find its data in the cache. */
        for (s = 0; e->opts->device_cold && s < nsides; s++)
            if (targets[s].ncopies < limit)
                limit = targets[s].ncopies ? targets[s].ncopies : 1;
    }
    if (sample_ns <= 0) {
        /* A thousand times the timer's error keeps it under 0.1%. */
        sample_ns = 1000 * (dev ? dev->error_ns
                                : pg_timer_error_ns(e->clock));
        if (sample_ns < 5000)
            sample_ns = 5000;
        if (sample_ns > 1e6)
            sample_ns = 1e6;
    }
    for (;;) {
        double shortest = INFINITY;
        if (n > limit)
            n = limit;
        for (s = 0; s < nsides; s++) {
            ns[s] = time_side(e, &targets[s], s, n, 0);
            if (ns[s] < shortest)
                shortest = ns[s];
        }
        if (shortest >= sample_ns || n == limit) {
            for (s = 0; s < nsides; s++)
                first[s] = ns[s];
            break;
        }
        if (shortest * 4 < sample_ns && shortest > 0) {
            /* Jump close, then let the next pass confirm. */
            double want = (double)n * sample_ns / shortest;
            uint64_t next = (uint64_t)want;
            n = next > n * 2 ? next : n * 2;
        } else {
            n *= 2;
        }
    }
    return n;
}

const char *pg_stop_name(pg_stop stop)
{
    switch (stop) {
    case PG_STOP_CLEAR:
        return "clear";
    case PG_STOP_SETTLED:
        return "settled";
    case PG_STOP_MAX_TIME:
        return "max_time";
    default:
        return "running";
    }
}

void pg_measure_opts_init(pg_measure_opts *opts, int min_rounds,
                          double max_time, double noise_floor)
{
    memset(opts, 0, sizeof(*opts));
    opts->min_rounds = min_rounds;
    opts->max_time = max_time;
    /* Long enough for a load that comes and goes to show itself in the
     * rounds, and so in the interval; the rule does the rest. */
    opts->min_time = max_time / 20 < 0.25 ? max_time / 20 : 0.25;
    opts->settle = 0.002;
    opts->noise_floor = noise_floor;
    /* A minimum that moves less than a tenth of the floor cannot change the
     * verdict: it has settled. */
    if (noise_floor / 10 > opts->settle)
        opts->settle = noise_floor / 10;
    opts->margin = noise_floor / 5;
}

int pg_change_is_clear(const pg_measure_opts *opts, const pg_interval *c)
{
    double f = opts->noise_floor, m = opts->margin;

    if (isnan(c->change) || isnan(c->lo) || isnan(c->hi))
        return 0;
    if (c->lo > f)
        return c->change - f >= m;
    if (c->hi < -f)
        return -f - c->change >= m;
    if (c->lo > -f && c->hi < f)
        return f - fabs(c->change) >= m;
    return 0;
}

pg_stop pg_measure_should_stop(const pg_measure_opts *opts, int rounds,
                               int last_improved, double elapsed,
                               const pg_interval *change)
{
    if (elapsed >= opts->max_time)
        return PG_STOP_MAX_TIME;
    if (rounds < opts->min_rounds || elapsed < opts->min_time)
        return PG_STOP_NO;
    /* Settled: no minimum has moved in the latter half of the rounds. */
    if (rounds < 2 * last_improved)
        return PG_STOP_NO;
    if (!change)
        return PG_STOP_SETTLED;
    return pg_change_is_clear(opts, change) ? PG_STOP_CLEAR : PG_STOP_NO;
}

/* xorshift64*: the bootstrap's resampling, reproducible from its seed. */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1DULL;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* head / base - 1, of per-call times with the overhead discounted. */
static double ratio_change(double base, double head)
{
    if (base > 0)
        return head / base - 1;
    /* Two totals of zero (an empty function on both sides) are equal. */
    return head > 0 ? INFINITY : 0;
}

/* head / base - 1 of the sums of minimums over the rounds in `pick`
 * (NULL: every round); with `cases`, each case's own change too. */
static double change_of(const double *samples, const double *overhead,
                        size_t ncases, size_t rounds, const uint32_t *pick,
                        double *min_buf, double *cases)
{
    double sum[2] = {0, 0};
    size_t r, c;
    int s;

    for (c = 0; c < ncases * 2; c++)
        min_buf[c] = INFINITY;
    for (r = 0; r < rounds; r++) {
        const double *row = samples + (pick ? pick[r] : r) * ncases * 2;
        for (c = 0; c < ncases * 2; c++)
            if (row[c] < min_buf[c])
                min_buf[c] = row[c];
    }
    for (c = 0; c < ncases; c++) {
        double ns[2];
        for (s = 0; s < 2; s++) {
            ns[s] = min_buf[c * 2 + s] - overhead[c];
            ns[s] = ns[s] > 0 ? ns[s] : 0;
            sum[s] += ns[s];
        }
        if (cases)
            cases[c] = ratio_change(ns[0], ns[1]);
    }
    return ratio_change(sum[0], sum[1]);
}

/* The 95% interval of `n` sorted-in-place estimates around `point`. */
static void percentile_interval(pg_interval *out, double point, double *est,
                                int n)
{
    qsort(est, (size_t)n, sizeof(*est), compare_doubles);
    out->change = point;
    out->lo = est[(size_t)(0.025 * (n - 1) + 0.5)];
    out->hi = est[(size_t)(0.975 * (n - 1) + 0.5)];
    /* A resampled minimum is never below the sample's own: keep the point
     * estimate inside its interval. */
    if (point < out->lo)
        out->lo = point;
    if (point > out->hi)
        out->hi = point;
}

void pg_change_interval(pg_interval *out, pg_interval *cases,
                        const double *samples, const double *overhead,
                        size_t ncases, size_t rounds, int resamples)
{
    double *est, *min_buf, *point, *row;
    uint32_t *pick;
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    size_t r, c, ncols = cases ? ncases + 1 : 1;
    int b;

    out->change = out->lo = out->hi = NAN;
    for (c = 0; cases && c < ncases; c++)
        cases[c] = *out;
    if (!rounds || !ncases)
        return;
    min_buf = pg_malloc(ncases * 2 * sizeof(*min_buf));
    point = pg_malloc(ncols * sizeof(*point));
    point[0] = change_of(samples, overhead, ncases, rounds, NULL, min_buf,
                         cases ? point + 1 : NULL);
    if (resamples < 2) {
        for (c = 0; c < ncols; c++) {
            pg_interval *iv = c ? &cases[c - 1] : out;
            iv->change = iv->lo = iv->hi = point[c];
        }
        free(point);
        free(min_buf);
        return;
    }
    /* est[c * resamples + b]: column c (the total, then each case). */
    est = pg_malloc(ncols * (size_t)resamples * sizeof(*est));
    row = pg_malloc(ncols * sizeof(*row));
    pick = pg_malloc(rounds * sizeof(*pick));
    for (b = 0; b < resamples; b++) {
        for (r = 0; r < rounds; r++)
            pick[r] = (uint32_t)(next_random(&seed) % rounds);
        row[0] = change_of(samples, overhead, ncases, rounds, pick, min_buf,
                           cases ? row + 1 : NULL);
        for (c = 0; c < ncols; c++)
            est[c * (size_t)resamples + (size_t)b] = row[c];
    }
    for (c = 0; c < ncols; c++)
        percentile_interval(c ? &cases[c - 1] : out, point[c],
                            est + c * (size_t)resamples, resamples);
    free(est);
    free(row);
    free(pick);
    free(point);
    free(min_buf);
}

#define RESAMPLES 200

/* Under gate: cases, every case must be clear of the floor as well. */
static int cases_clear(const pg_measure_opts *opts, const pg_interval *cases,
                       size_t ncases)
{
    size_t c;

    for (c = 0; opts->gate_cases && c < ncases; c++)
        if (!pg_change_is_clear(opts, &cases[c]))
            return 0;
    return 1;
}

/* The settle threshold of the total and, under gate: cases, of the case
 * nearest the floor. */
static double settle_threshold(const pg_measure_opts *opts,
                               const pg_interval *change,
                               const pg_interval *cases, size_t ncases)
{
    double t = pg_settle_threshold(opts, change);
    size_t c;

    for (c = 0; opts->gate_cases && c < ncases; c++)
        t = fmin(t, pg_settle_threshold(opts, &cases[c]));
    return t;
}

double pg_settle_threshold(const pg_measure_opts *opts,
                           const pg_interval *change)
{
    double f = opts->noise_floor, d;

    if (!change || isnan(change->change))
        return opts->settle;
    d = fmin(fabs(change->change - f), fabs(change->change + f));
    return d / 2 > opts->settle ? d / 2 : opts->settle;
}

/* The last round (1-based) in which a minimum improved by more than
 * `threshold`; 0 if none. */
static int last_gain(const double *gain, int rounds, double threshold)
{
    int r;

    for (r = rounds; r > 0; r--)
        if (gain[r - 1] > threshold)
            return r;
    return 0;
}

int pg_measure(pg_case_timing *out, pg_measure_summary *summary,
               pg_target (*targets)[2], size_t ncases, int nsides,
               const pg_measure_opts *opts)
{
    int64_t start;
    double elapsed = 0, *samples = NULL, *overhead, *first;
    size_t cap = 0, c;
    double *gain = NULL;
    int round, next_check = 0, changed_at = 0;
    pg_interval change = {NAN, NAN, NAN}, *case_change;
    pg_stop stop = PG_STOP_NO;
    engine e;

    memset(&e, 0, sizeof(e));
    e.opts = opts;
    e.clock = &pg_timer_current()->chosen;
    if (opts->evict_bytes)
        e.evict = pg_calloc(opts->evict_bytes, 1);

    memset(summary, 0, sizeof(*summary));
    overhead = pg_calloc(ncases, sizeof(*overhead));
    case_change = pg_calloc(ncases, sizeof(*case_change));
    for (c = 0; c < ncases; c++)
        case_change[c] = change;
    first = pg_calloc(ncases * 2, sizeof(*first));
    start = pg_now_ns();
    for (c = 0; c < ncases; c++) {
        memset(&out[c], 0, sizeof(out[c]));
        out[c].ns[0] = out[c].ns[1] = INFINITY;
        out[c].raw_ns[0] = out[c].raw_ns[1] = INFINITY;
        out[c].overhead_ns = INFINITY;
        out[c].inner = calibrate(&e, targets[c], nsides, first + c * 2);
    }

    for (round = 0; stop == PG_STOP_NO; round++) {
        double *row;

        if ((size_t)round >= cap) {
            cap = cap ? cap * 2 : 64;
            samples = pg_realloc(samples, cap * ncases * 2 * sizeof(*samples));
            gain = pg_realloc(gain, cap * sizeof(*gain));
        }
        row = samples + (size_t)round * ncases * 2;
        /* The first samples are all news. */
        gain[round] = round ? 0 : INFINITY;
        for (c = 0; c < ncases; c++) {
            pg_case_timing *r = &out[c];
            double n = (double)r->inner;
            pg_target empty = targets[c][0];
            double ns;
            int k;

            empty.fn = empty_solution;
            if (opts->device) {
                ns = opts->device->time(opts->device->ctx, &empty, r->inner,
                                        opts->device_cold);
            } else {
                if (e.evict)
                    evict_caches(&e);
                ns = time_batch(&empty, empty.fn, r->inner, e.clock);
            }
            if (ns < r->overhead_ns)
                r->overhead_ns = ns;
            overhead[c] = r->overhead_ns / n;

            row[c * 2 + 1] = INFINITY;
            for (k = 0; k < nsides; k++) {
                /* ABBA: base first in even rounds, head first in odd. */
                int side = nsides == 2 ? (k ^ (round & 1)) : k;
                /* Round 0 is calibration's last pass, when it has one: a
                 * 20 ms call need not be run again to be timed. */
                if (round == 0 && isfinite(first[c * 2 + side]))
                    ns = first[c * 2 + side];
                else
                    ns = time_side(&e, &targets[c][side], side, r->inner,
                                   round);
                row[c * 2 + side] = ns / n;
                if (ns < r->raw_ns[side]) {
                    double g = 1 - ns / r->raw_ns[side];
                    if (isfinite(r->raw_ns[side]) && g > gain[round])
                        gain[round] = g;
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

        /* First the budget and the minimums of rounds and time (with no
         * improvement to wait for, "settled" means only that they passed);
         * whether the minimums have settled is judged below. */
        stop = pg_measure_should_stop(opts, round + 1, 0, elapsed, NULL);
        if (stop == PG_STOP_SETTLED && nsides == 1) {
            stop = pg_measure_should_stop(
                opts, round + 1, last_gain(gain, round + 1, opts->settle),
                elapsed, NULL);
        } else if (stop == PG_STOP_SETTLED) {
            /* The interval costs rounds x resamples: recompute it as the
             * rounds grow by a quarter, not every round. */
            stop = PG_STOP_NO;
            if (round + 1 >= next_check) {
                int r = round + 1;
                pg_change_interval(&change, case_change, samples, overhead,
                                   ncases, (size_t)r, RESAMPLES);
                changed_at = r;
                next_check = r + (r / 4 > 1 ? r / 4 : 1);
                stop = pg_measure_should_stop(
                    opts, r,
                    last_gain(gain, r,
                              settle_threshold(opts, &change, case_change,
                                               ncases)),
                    elapsed, &change);
                if (stop == PG_STOP_CLEAR &&
                    !cases_clear(opts, case_change, ncases))
                    stop = PG_STOP_NO;
            }
        }
    }

    /* The interval of the last check is final when no round came after. */
    if (nsides == 2 && changed_at != summary->rounds)
        pg_change_interval(&change, case_change, samples, overhead, ncases,
                           (size_t)summary->rounds, RESAMPLES);
    summary->change = change;
    summary->stop = stop;

    for (c = 0; c < ncases; c++) {
        pg_case_timing *r = &out[c];
        double n = (double)r->inner;
        int s;

        r->overhead_ns = overhead[c];
        r->change = case_change[c];
        for (s = 0; s < nsides; s++) {
            double raw = r->raw_ns[s] / n;
            r->raw_ns[s] = raw;
            r->ns[s] = raw > r->overhead_ns ? raw - r->overhead_ns : 0;
            summary->calls[s] += r->samples * r->inner;
        }
    }
    summary->seconds = (double)(pg_now_ns() - start) / 1e9;
    free(samples);
    free(gain);
    free(overhead);
    free(case_change);
    free(first);
    free(e.evict);
    return 0;
}
