/*
 * measure.c - the timing loop.  Everything between two clock reads is the
 * solution and the harness's fixed cost; everything else (bookkeeping, the
 * watchdog, progress) happens outside the timed region.
 */
#include "measure.h"
#include "str.h"
#include "timer.h"
#include "clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "banned.h"

#define MAX_INNER (1ULL << 30)

/*
 * The empty solution, called through the problem's run() exactly as a real
 * one is, to measure the harness's own cost.  run() calls it with the
 * problem's arguments, which it ignores (harmless in the C calling
 * conventions perfgate supports: the caller owns the argument area), and
 * it returns zero in every register a result comes back in (an integer, a
 * pointer: NULL, a float or double: 0), so that a run() that keeps or
 * frees what the last call returned finds nothing to free.
 */
#if defined(__x86_64__)
void pg_empty_solution(void) __attribute__((visibility("hidden")));
__asm__(".text\n"
        ".p2align 4\n"
        ".globl pg_empty_solution\n"
        ".hidden pg_empty_solution\n"
        ".type pg_empty_solution, @function\n"
        "pg_empty_solution:\n"
        "    xorl %eax, %eax\n"
        "    xorl %edx, %edx\n"
        "    pxor %xmm0, %xmm0\n"
        "    pxor %xmm1, %xmm1\n"
        "    ret\n"
        ".size pg_empty_solution, .-pg_empty_solution\n");
#define empty_solution pg_empty_solution
#elif defined(__aarch64__)
void pg_empty_solution(void) __attribute__((visibility("hidden")));
__asm__(".text\n"
        ".p2align 4\n"
        ".globl pg_empty_solution\n"
        ".hidden pg_empty_solution\n"
        ".type pg_empty_solution, %function\n"
        "pg_empty_solution:\n"
        "    mov x0, #0\n"
        "    mov x1, #0\n"
        "    movi d0, #0\n"
        "    movi d1, #0\n"
        "    ret\n"
        ".size pg_empty_solution, .-pg_empty_solution\n");
#define empty_solution pg_empty_solution
#else
static long empty_solution_impl(void)
{
    __asm__ __volatile__("" ::: "memory");
    return 0;
}
#define empty_solution ((void (*)(void))empty_solution_impl)
#endif

#define TIMED_LOOP(read_begin, read_end)                                       \
    do {                                                                       \
        start = read_begin;                                                    \
        for (i = 0; i < n; i++)                                                \
            run(state, fn);                                                    \
        end = read_end;                                                        \
    } while (0)

/* Times `n` calls, in ns; the only code inside the clock reads is the
 * loop. */
static __attribute__((noinline)) double
time_batch(const pg_target *t, pg_fn fn, uint64_t n, const pg_clock_info *clk)
{
    void (*run)(void *, pg_fn) = t->problem->run;
    void *state = t->state;
    uint64_t start, end, i;

    switch (clk->id) {
    case PG_CLOCK_TSC:
        TIMED_LOOP(pg_tsc_begin(), pg_tsc_end());
        return (double)(end - start) / clk->ticks_per_ns;
    case PG_CLOCK_MONOTONIC_RAW:
        TIMED_LOOP(pg_clock_read(1), pg_clock_read(1));
        break;
    default:
        TIMED_LOOP(pg_clock_read(0), pg_clock_read(0));
        break;
    }
    return (double)(end - start);
}

typedef struct engine {
    const pg_measure_opts *opts;
    const pg_clock_info *clock;
    int cold;             /* caches evicted before each sample */
    unsigned char *evict; /* cold here: the buffer written between samples */
    int slots;            /* placements the rounds take in turn (1: one) */
    int shift;            /* round r runs at slot (r + shift) % slots */
    int failed;           /* opts->remote could not take a sample */
} engine;

/* Writing every line of a buffer larger than the last-level cache leaves
 * nothing of the solution's data or code in any cache. */
static void evict_caches(unsigned char *evict, size_t bytes)
{
    volatile unsigned char *p = evict;
    size_t i;

    for (i = 0; i < bytes; i += 64)
        p[i]++;
}

double pg_measure_sample(const pg_target *t, pg_fn fn, uint64_t n, int warm,
                         unsigned char *evict, size_t evict_bytes)
{
    if (!fn)
        fn = empty_solution;
    /* What the last batch kept (a function's owned results) is freed
     * before the clock starts. */
    if (t->problem->between)
        t->problem->between(t->state);
    if (evict)
        evict_caches(evict, evict_bytes);
    /* A warm batch starts warm: one untimed call first. */
    if (warm && !evict)
        t->problem->run(t->state, fn);
    return time_batch(t, fn, n, &pg_timer_current()->chosen);
}

double pg_measure_sample_on(const pg_device_clock *dev, const pg_target *t,
                            pg_fn fn, uint64_t n, int cold)
{
    pg_target x = *t;

    x.fn = fn ? fn : empty_solution;
    return dev->time(dev->ctx, &x, n, cold);
}

/* Whether samples are a device's (a GPU, a counter, here or in another
 * process): no warm calls, no placements, calibration's pass kept; and
 * that clock's error and most calls a sample. */
static int device_like(const pg_measure_opts *o)
{
    return o->device || (o->remote && o->remote->error_ns > 0);
}

static double device_error(const pg_measure_opts *o)
{
    return o->device ? o->device->error_ns : o->remote->error_ns;
}

static uint64_t device_max_inner(const pg_measure_opts *o)
{
    return o->device ? o->device->max_inner : o->remote->max_inner;
}

/* Whether each sample is a process of its own (pg_remote's fresh). */
static int fresh(const pg_measure_opts *o)
{
    return o->remote && o->remote->fresh;
}

/* A sample another process takes (pg_remote); a failure ends the
 * measurement, and reads as infinitely long until it does. */
static double time_remote(engine *e, size_t c, int k, uint64_t n, size_t slot,
                          int warm)
{
    const pg_remote *remote = e->opts->remote;
    double ns;

    if (e->failed)
        return INFINITY;
    ns = remote->time(remote->ctx, c, k, n, slot, warm && !e->cold);
    if (isnan(ns)) {
        e->failed = 1;
        return INFINITY;
    }
    return ns;
}

static double time_side(engine *e, const pg_target *t, size_t c, int side,
                        uint64_t n, int round, int warm)
{
    const pg_device_clock *dev = e->opts->device;
    /* A side with fewer copies than slots runs one of them in each. */
    size_t slot =
        t->nplaced > 1 && e->slots > 1
            ? (size_t)(round + e->shift) % (size_t)e->slots % t->nplaced
            : 0;
    pg_fn fn;
    double ns;

    if (e->opts->remote)
        return time_remote(e, c, side, n, slot, warm);
    fn = slot ? t->placed[slot] : t->fn;
    if (e->opts->sides)
        side = e->opts->sides[side];
    if (dev) {
        pg_watch_enter(e->opts->watch, side);
        ns = dev->time(dev->ctx, t, n, e->opts->device_cold);
        pg_watch_leave(e->opts->watch);
        return ns;
    }
    pg_watch_enter(e->opts->watch, side);
    ns = pg_measure_sample(t, fn, n, warm, e->evict, e->opts->evict_bytes);
    pg_watch_leave(e->opts->watch);
    return ns;
}

/* The same count for both sides: the smallest n whose sample is long enough
 * on the faster side.  Cold caches take one call per sample: a second call
 * would find them warm.  On a GPU the accepted pass is a sample like any
 * other (base then head, as in an even round): first[side] keeps it for
 * round 0, or INFINITY; on the CPU pg_measure() drops it. */
static uint64_t calibrate(engine *e, pg_target *targets, size_t c, int nsides,
                          double *first)
{
    int dev = device_like(e->opts);
    double sample_ns = e->opts->sample_ns, ns[2];
    uint64_t n = 1, limit = MAX_INNER;
    int s;

    first[0] = first[1] = INFINITY;
    if (e->cold)
        return 1;
    if (dev) {
        limit = device_max_inner(e->opts) ? device_max_inner(e->opts) : 1;
        /* Cold, a batch may not call a copy twice: the second call would
         * find its data in the cache. */
        for (s = 0; e->opts->device_cold && s < nsides; s++)
            if (targets[s].ncopies < limit)
                limit = targets[s].ncopies ? targets[s].ncopies : 1;
    }
    if (sample_ns <= 0) {
        /* A thousand times the timer's error keeps it under 0.1%. */
        sample_ns =
            1000 * (dev ? device_error(e->opts) : pg_timer_error_ns(e->clock));
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
            ns[s] = time_side(e, &targets[s], c, s, n, 0, n > 1);
            if (ns[s] < shortest)
                shortest = ns[s];
        }
        if (shortest >= sample_ns || n == limit || e->failed) {
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

/*
 * Whether every sample of a case starts warm, with one untimed call of the
 * same side (and placement) first: a batch of several calls always does;
 * a single call when the faster side's takes less than opts->warm_ns.
 * Otherwise a call timed alone ran right after the other side's, and paid
 * for what that one left in the caches and the branch predictors: zlib-ng's
 * deflate of 1 MiB, 290 us a call in a loop outside perfgate, read 7-12%
 * slower timed after the other side's (issue 48, docs/accuracy.md): some
 * 25 us, a percent or so of a 2 ms call.  Above the limit a second call
 * would double the cost of a round for little (4 ms calls beside a busy
 * neighbour took twice as long to decide).  Cold caches (evict) and a
 * device's clock choose for themselves.
 */
static int starts_warm(const engine *e, const pg_timing *t, const double *first,
                       int nsides)
{
    double shortest = INFINITY;
    int s;

    if (t->inner > 1)
        return 1;
    if (e->cold || device_like(e->opts))
        return 0;
    for (s = 0; s < nsides; s++)
        if (first[s] < shortest)
            shortest = first[s];
    return shortest < e->opts->warm_ns;
}

void pg_measure_opts_init(pg_measure_opts *opts, int min_rounds,
                          double max_time, double noise_floor)
{
    memset(opts, 0, sizeof(*opts));
    pg_estimate_rule_init(&opts->rule, min_rounds, max_time, noise_floor);
    opts->jitter = PG_ESTIMATE_PLACEMENT_JITTER;
    opts->warm_ns = PG_MEASURE_WARM_NS;
}

/* What one measurement keeps between rounds. */
typedef struct rounds {
    double *samples;  /* [round][case][side]: time per call, raw */
    double *gain;     /* [round]: the largest relative gain of a minimum */
    size_t cap;       /* rounds allocated */
    double *overhead; /* [case]: the harness's cost per call */
    double *first;    /* [case][side]: calibration's last sample, or INF */
    pg_interval *case_change; /* [case] */
    double *ns;               /* [case][side]: the estimate (estimate.h) */
    int next_check; /* the round after which the interval is computed */
} rounds;

/* Times the harness alone through the same path: its cost per call. */
static void time_overhead(engine *e, pg_timing *r, const pg_target *base,
                          size_t c, double *overhead)
{
    const pg_measure_opts *opts = e->opts;
    pg_target empty = *base;
    double ns;

    empty.fn = empty_solution;
    /* Any crash or hang here is the problem's run(): no side's code runs
     * (the watch's clock starts for the per-call timeout). */
    pg_watch_call(opts->watch, PG_CALL_STAND_IN, (int)c);
    pg_watch_enter(opts->watch, -1);
    if (opts->remote)
        ns = time_remote(e, c, -1, r->inner, 0, 0);
    else if (opts->device)
        ns = opts->device->time(opts->device->ctx, &empty, r->inner,
                                opts->device_cold);
    else
        ns = pg_measure_sample(&empty, empty.fn, r->inner, 0, e->evict,
                               opts->evict_bytes);
    pg_watch_leave(opts->watch);
    if (ns < r->overhead_ns)
        r->overhead_ns = ns;
    *overhead = r->overhead_ns / (double)r->inner;
}

/* One round: every case, each side once, in ABBA order. */
static void run_round(engine *e, rounds *rs, pg_timing *out,
                      pg_target (*targets)[2], size_t ncases, int nsides,
                      int round)
{
    double *row;
    size_t c;

    if ((size_t)round >= rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 64;
        rs->samples = pg_realloc(rs->samples,
                                 rs->cap * ncases * 2 * sizeof(*rs->samples));
        rs->gain = pg_realloc(rs->gain, rs->cap * sizeof(*rs->gain));
    }
    row = rs->samples + (size_t)round * ncases * 2;
    /* The first samples are all news. */
    rs->gain[round] = round ? 0 : INFINITY;
    for (c = 0; c < ncases; c++) {
        pg_timing *r = &out[c];
        double n = (double)r->inner, ns;
        int k;

        time_overhead(e, r, &targets[c][0], c, &rs->overhead[c]);
        pg_watch_call(e->opts->watch, PG_CALL_RUN, (int)c);
        row[c * 2 + 1] = INFINITY;
        for (k = 0; k < nsides; k++) {
            /* ABBA: base first in even rounds, head first in odd. */
            int side = nsides == 2 ? (k ^ (round & 1)) : k;
            /* Round 0 is calibration's last pass, when it has one: a
             * 20 ms call need not be run again to be timed. */
            if (round == 0 && isfinite(rs->first[c * 2 + side]))
                ns = rs->first[c * 2 + side];
            else
                ns = time_side(e, &targets[c][side], c, side, r->inner, round,
                               r->warm);
            row[c * 2 + side] = ns / n;
            if (ns < r->raw_ns[side]) {
                double g = 1 - ns / r->raw_ns[side];
                /* A lucky process moves no median: only the interval
                 * says when processes' figures have settled. */
                if (isfinite(r->raw_ns[side]) && g > rs->gain[round] &&
                    !fresh(e->opts))
                    rs->gain[round] = g;
                r->raw_ns[side] = ns;
            }
        }
        r->samples++;
    }
}

/* The rounds so far as one process's run (estimate.h). */
static pg_estimate_run as_run(const engine *e, const rounds *rs, int nrounds)
{
    pg_estimate_run run;

    memset(&run, 0, sizeof(run));
    run.samples = rs->samples;
    run.rounds = (size_t)nrounds;
    run.overhead = rs->overhead;
    run.slots = e->slots;
    run.shift = e->shift;
    return run;
}

/*
 * The estimate after `nrounds` rounds: each case's time per side into
 * rs->ns, the change into `total` and rs->case_change, each interval
 * widened by one sample's error spread over its calls (a minimum is no
 * better known than that, however many rounds repeat it: where they all
 * tie, the bootstrap alone would say zero) and, for a case below what the
 * machine resolves, by the jitter of where its code lies.  The stopping
 * rule asks this interval, and it is the one reported.
 */
static void estimate_now(const engine *e, rounds *rs, pg_timing *out,
                         size_t ncases, int nrounds, pg_interval *total)
{
    double err = device_like(e->opts) ? device_error(e->opts)
                                      : pg_timer_error_ns(e->clock);
    double *quantum = pg_malloc(ncases * sizeof(*quantum));
    pg_estimate_run run = as_run(e, rs, nrounds), *runs = &run;
    size_t c, nruns = 1, r;

    for (c = 0; c < ncases; c++)
        quantum[c] = out[c].quantum_ns =
            err / (double)(out[c].inner ? out[c].inner : 1);
    if (fresh(e->opts)) {
        /* Each round's samples came from processes of their own. */
        runs = pg_calloc((size_t)nrounds + 1, sizeof(*runs));
        for (r = 0; r < (size_t)nrounds; r++) {
            runs[r] = run;
            runs[r].samples = rs->samples + r * ncases * 2;
            runs[r].rounds = 1;
        }
        nruns = (size_t)nrounds;
    }
    pg_estimate_pooled(total, rs->case_change, rs->ns, runs, nruns, ncases,
                       PG_ESTIMATE_RESAMPLES);
    if (runs != &run)
        free(runs);
    pg_estimate_widen_all(total, rs->case_change, rs->ns, rs->overhead, quantum,
                          ncases, e->opts->jitter, e->opts->rule.noise_floor);
    free(quantum);
}

/* Per-call figures from the estimate, the overhead discounted. */
static void finish(pg_timing *out, pg_measure_summary *summary,
                   const rounds *rs, size_t ncases, int nsides)
{
    size_t c;

    for (c = 0; c < ncases; c++) {
        pg_timing *r = &out[c];
        int s;

        r->overhead_ns = rs->overhead[c];
        r->change = rs->case_change[c];
        for (s = 0; s < nsides; s++) {
            r->ns[s] = rs->ns[c * 2 + s];
            r->raw_ns[s] = r->ns[s] + r->overhead_ns;
            summary->calls[s] += r->samples * r->inner;
        }
    }
}

/* Whether to stop after `r` rounds, `elapsed` seconds in. */
static pg_stop after_round(const engine *e, rounds *rs, pg_timing *out,
                           pg_interval *change, size_t ncases, int nsides,
                           int r, double elapsed)
{
    const pg_measure_opts *opts = e->opts;
    pg_estimate_run run = as_run(e, rs, r);
    /* First the budget and the minimums of rounds and time (with no
     * improvement to wait for, "settled" means only that they passed);
     * whether the minimums have settled is judged below. */
    pg_stop stop = pg_estimate_should_stop(&opts->rule, r, 0, elapsed, NULL);

    if (stop == PG_STOP_MAX_TIME && nsides == 2 && !pg_estimate_run_ready(&run))
        return PG_STOP_TOO_FEW;
    if (stop != PG_STOP_SETTLED)
        return stop;
    if (nsides == 1)
        return pg_estimate_should_stop(
            &opts->rule, r,
            pg_estimate_last_gain(rs->gain, r, opts->rule.settle), elapsed,
            NULL);
    /* Not before every placement was seen twice; and the interval costs
     * rounds x resamples: recompute it as the rounds grow by a quarter,
     * not every round. */
    if (!pg_estimate_run_ready(&run) || r < rs->next_check)
        return PG_STOP_NO;
    rs->next_check = r + (r / 4 > 1 ? r / 4 : 1);
    estimate_now(e, rs, out, ncases, r, change);
    return pg_estimate_check(&opts->rule, change, rs->case_change, ncases,
                             rs->gain, r, elapsed, 1);
}

/*
 * How many placements the rounds take in turn: every copy there is, but
 * no more than leave time, within an eighth of the budget, for each to be
 * seen twice (a call of 20 ms and more, or many cases, gets fewer: the
 * processes draw where the code lies as well, draws.h).  One round lasts
 * about `round_ns`, from calibration.
 */
static int choose_slots(const pg_measure_opts *opts, pg_target (*targets)[2],
                        size_t ncases, int nsides, double round_ns)
{
    size_t most = 1;
    double fit;
    int s;

    if (device_like(opts) || !ncases)
        return 1;
    for (s = 0; s < nsides; s++)
        if (targets[0][s].nplaced > most)
            most = targets[0][s].nplaced;
    if (!(round_ns > 0) || !isfinite(round_ns))
        return (int)most;
    fit = opts->rule.max_time * 1e9 / 8 / (2 * round_ns);
    if (fit < 1)
        return 1;
    return fit < (double)most ? (int)fit : (int)most;
}

/* The rounds' tables for `ncases` cases, nothing measured yet. */
static void rounds_init(rounds *rs, size_t ncases)
{
    pg_interval none = {NAN, NAN, NAN};
    size_t c;

    rs->overhead = pg_calloc(ncases, sizeof(*rs->overhead));
    rs->case_change = pg_calloc(ncases, sizeof(*rs->case_change));
    for (c = 0; c < ncases; c++)
        rs->case_change[c] = none;
    rs->first = pg_calloc(ncases * 2, sizeof(*rs->first));
    rs->ns = pg_malloc(ncases * 2 * sizeof(*rs->ns));
    for (c = 0; c < ncases * 2; c++)
        rs->ns[c] = INFINITY;
}

/* Each case's calls per sample, and whether its samples start warm; how
 * long a round of them all will take (0: calibration timed nothing). */
static double calibrate_cases(engine *e, rounds *rs, pg_timing *out,
                              pg_target (*targets)[2], size_t ncases,
                              int nsides)
{
    double round_ns = 0;
    size_t c;

    for (c = 0; c < ncases; c++) {
        memset(&out[c], 0, sizeof(out[c]));
        out[c].ns[0] = out[c].ns[1] = INFINITY;
        out[c].raw_ns[0] = out[c].raw_ns[1] = INFINITY;
        out[c].overhead_ns = INFINITY;
        pg_watch_call(e->opts->watch, PG_CALL_RUN, (int)c);
        out[c].inner = calibrate(e, targets[c], c, nsides, rs->first + c * 2);
        out[c].warm = starts_warm(e, &out[c], rs->first + c * 2, nsides);
    }
    /* A warm sample costs one call more than it times. */
    for (c = 0; c < ncases * 2; c++)
        if (isfinite(rs->first[c]))
            round_ns += rs->first[c] *
                        (1 + (out[c / 2].warm ? 1.0 / out[c / 2].inner : 0));
    return round_ns;
}

/* What is reported once the rounds stop (`stop` says why): what the
 * stopping rule asked, of every round; the samples, when kept. */
static void summarize(engine *e, rounds *rs, pg_timing *out,
                      pg_measure_summary *summary, size_t ncases, int nsides,
                      pg_stop stop)
{
    pg_interval change = {NAN, NAN, NAN};

    estimate_now(e, rs, out, ncases, summary->rounds, &change);
    if (nsides == 1)
        change.change = change.lo = change.hi = NAN;
    summary->stop = stop;
    summary->slots = e->slots;
    summary->shift = e->shift;
    finish(out, summary, rs, ncases, nsides);
    summary->change = change;
    if (e->opts->keep_samples) {
        *e->opts->keep_samples = rs->samples;
        rs->samples = NULL;
    }
}

int pg_measure(pg_timing *out, pg_measure_summary *summary,
               pg_target (*targets)[2], size_t ncases, int nsides,
               const pg_measure_opts *opts)
{
    int64_t start;
    double elapsed = 0, round_ns = 0;
    size_t c;
    int round;
    pg_interval change = {NAN, NAN, NAN};
    pg_stop stop = PG_STOP_NO;
    engine e;
    rounds rs;

    memset(&e, 0, sizeof(e));
    memset(&rs, 0, sizeof(rs));
    e.opts = opts;
    e.clock = &pg_timer_current()->chosen;
    e.cold = opts->evict_bytes > 0;
    if (e.cold && !opts->remote)
        e.evict = pg_calloc(opts->evict_bytes, 1);

    memset(summary, 0, sizeof(*summary));
    rounds_init(&rs, ncases);
    start = pg_now_ns();
    round_ns = calibrate_cases(&e, &rs, out, targets, ncases, nsides);
    e.slots = choose_slots(opts, targets, ncases, nsides, round_ns);
    /*
     * On the CPU, no sample is taken while what calibration left behind
     * lasts: its pass is not kept, and the rounds start at the next
     * placement, so that no placement runs again before the others have
     * run (each sample then finds its code as a whole turn left it).
     * Calibration's placement run twice in a row found its code and data
     * warm as no later call did: on identical code calling memcpy and
     * qsort, the base's first sample read 4-8% under every later one,
     * and as its minimum failed 5 of 8 self-checks (the timed libc rows of
     * bench/counting.py --floor-study).  A GPU's clock is brought up and
     * watched apart (gpu.c); cold samples each start from an evicted
     * cache.
     */
    if (!device_like(opts) && !e.cold) {
        for (c = 0; c < ncases * 2; c++)
            rs.first[c] = INFINITY;
        e.shift = 1;
    }

    for (round = 0; stop == PG_STOP_NO && !e.failed; round++) {
        int64_t began = pg_now_ns();
        run_round(&e, &rs, out, targets, ncases, nsides, round);
        /* Cold, calibration timed nothing: the first round says how long
         * one lasts.  (Its placement stays its slot's.) */
        if (!round && !(round_ns > 0))
            e.slots = choose_slots(opts, targets, ncases, nsides,
                                   (double)(pg_now_ns() - began));
        /* Rounds always complete, so every case has as many samples. */
        elapsed = (double)(pg_now_ns() - start) / 1e9;
        summary->rounds = round + 1;
        if (opts->on_round)
            opts->on_round(opts->payload, round + 1, elapsed);

        if (!e.failed)
            stop = after_round(&e, &rs, out, &change, ncases, nsides, round + 1,
                               elapsed);
    }
    if (e.failed)
        goto done;

    summarize(&e, &rs, out, summary, ncases, nsides, stop);
    summary->seconds = (double)(pg_now_ns() - start) / 1e9;
done:
    free(rs.samples);
    free(rs.gain);
    free(rs.overhead);
    free(rs.case_change);
    free(rs.first);
    free(rs.ns);
    free(e.evict);
    return e.failed ? -1 : 0;
}
