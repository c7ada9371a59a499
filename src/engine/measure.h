/*
 * measure.h - the measurement engine (README.md, "How perfgate measures").
 *
 * Both sides of every case are timed interleaved: in each round and case,
 * base then head, and head then base in the next round (ABBA), so that a
 * load that comes and goes hits both alike.  Each case keeps its minimum per
 * side: noise only ever adds time.  Calls too short to time one by one run
 * in a calibrated inner loop, the same count for both sides; the harness's
 * own cost per call (the loop, the indirect call through the problem's
 * run(), the clock reads) is measured with an empty solution through the
 * same path and discounted.
 */
#ifndef PG_MEASURE_H
#define PG_MEASURE_H

#include <stdint.h>

#include "estimate.h"
#include "watch.h"
#include "perfgate/problem.h"

enum { PG_BASE = 0, PG_HEAD = 1 };

/* One side of one case: what to call. */
typedef struct pg_target {
    const pg_problem *problem;
    void *state;
    pg_fn fn;
    /* The same function at other addresses (copies of its library), which
     * the rounds take in turn so that where a side's code lies is drawn
     * afresh rather than fixed; NULL with nplaced 0 when there is only
     * `fn`. */
    const pg_fn *placed;
    size_t nplaced;
    /* Identical set-ups of the case (copies[0] is `state`), for a device
     * that rotates through them so that a batch of calls runs cold; NULL
     * with ncopies 0 when there is only `state`. */
    void **copies;
    size_t ncopies;
} pg_target;

/*
 * A clock on another device (a GPU, timing with its own events).  It runs
 * and times `n` calls of `t` itself, on the device's own terms: with
 * `cold`, it empties the device's caches before the sample and rotates
 * through t->copies.  Returns the sample's nanoseconds.
 */
typedef struct pg_device_clock {
    double (*time)(void *ctx, const pg_target *t, uint64_t n, int cold);
    void *ctx;
    double error_ns;    /* one sample's error: calibration aims at 1000x */
    uint64_t max_inner; /* the most calls in one sample */
} pg_device_clock;

/*
 * Samples taken in other processes (src/gate/run/split.c: each side measured
 * in a process of its own).  time() times `n` calls of target index k's
 * side of case c (k < 0: the empty stand-in, for the harness's cost) at
 * placement `slot` of that side, after one untimed call when `warm`, and
 * returns the sample's ns as that process's clock read it; NAN when it
 * could not (the process failed), which ends the measurement.  Every other
 * choice (calibration, warm starts, placements, cold caches, the stopping
 * rule) is pg_measure()'s, as for samples taken here.
 */
typedef struct pg_remote {
    double (*time)(void *ctx, size_t c, int k, uint64_t n, size_t slot,
                   int warm);
    void *ctx;
    /* A count taken there (counter.h), as a pg_device_clock takes it:
     * its error per sample and the most calls in one (0: any); error_ns 0
     * means time, on the same clock as this process's. */
    double error_ns;
    uint64_t max_inner;
    /* 1: each sample is a process of its own (a suite's program run once
     * per sample, suite.h), whose luck (where its code and pages landed)
     * is its own: the rounds are pooled as processes are (estimate.h),
     * each side's time the median over them, not their minimum. */
    int fresh;
} pg_remote;

typedef struct pg_measure_opts {
    pg_estimate_rule rule; /* when to stop */
    double sample_ns;      /* calibration: the shortest sample worth timing;
                              0: a thousand times the timer's error */
    size_t evict_bytes;    /* cold caches: bytes written before each sample, one
                              call per sample; 0: warm */
    double warm_ns;        /* a call timed alone that takes less starts warm
                              (PG_MEASURE_WARM_NS); 0: only batches do */
    const pg_device_clock *device; /* NULL: the CPU's clock times samples */
    const pg_remote *remote;       /* NULL: samples are taken here */
    int device_cold; /* with `device`: its caches cold for each sample */
    /* How much a case below the machine's resolution moves with where
     * its code lies, as a share of the harness's cost: its interval is
     * widened by it (PG_ESTIMATE_PLACEMENT_JITTER; 0 for a count, which
     * has none). */
    double jitter;
    pg_watch *watch;  /* may be NULL */
    const int *sides; /* the side the watch is told for each target
                         index; NULL: the index itself */
    /* Called after each round; may be NULL. */
    void (*on_round)(void *payload, int round, double elapsed);
    void *payload;
    /* When set, the samples: [round][case][target index], each the raw
     * time per call (summary.rounds rounds); the caller free()s them. */
    double **keep_samples;
} pg_measure_opts;

/* A call timed alone (inner 1) that takes less than this starts warm, with
 * an untimed call of its side first, as every batch of several calls does
 * (measure.c); pg_measure_opts_init's warm_ns. */
#define PG_MEASURE_WARM_NS 2e6

/* The result for one case. */
typedef struct pg_timing {
    double ns[2];       /* minimum per call, overhead discounted */
    double raw_ns[2];   /* the same, as measured (overhead included) */
    double overhead_ns; /* the harness's cost per call */
    uint64_t inner;     /* calls per sample */
    int warm;           /* each sample starts with an untimed call of its
                           side (measure.c: PG_MEASURE_WARM_NS) */
    uint64_t samples;   /* samples per side */
    double quantum_ns;  /* one sample's timer error over its calls: what no
                           figure per call is known better than */
    pg_interval change; /* this case's own change; two sides only */
} pg_timing;

typedef struct pg_measure_summary {
    int rounds;
    double seconds;
    uint64_t calls[2];  /* calls per side, all cases together */
    pg_interval change; /* two sides only; else NAN */
    pg_stop stop;
    int slots, shift; /* round r ran at placement slot (r + shift) % slots
                         (pg_estimate_run) */
} pg_measure_summary;

/* Fills `opts` with the defaults for a given budget and noise floor
 * (pg_estimate_rule_init), and nothing else set. */
void pg_measure_opts_init(pg_measure_opts *opts, int min_rounds,
                          double max_time, double noise_floor);

/*
 * Times `ncases` cases.  targets[i][side] for side < nsides: nsides is 2
 * for a comparison, 1 to time the base side alone (then it is PG_BASE).
 * Fills out[i] and `summary`.  Returns 0, or -1 when opts->remote failed
 * to take a sample (nothing is filled then).
 */
int pg_measure(pg_timing *out, pg_measure_summary *summary,
               pg_target (*targets)[2], size_t ncases, int nsides,
               const pg_measure_opts *opts);

/*
 * One sample on this process's clock, as pg_measure() takes it: the
 * caches evicted first when `evict` is not NULL (evict_bytes of it), then
 * one untimed call when `warm`, then `n` calls of `fn` on t->state timed;
 * `fn` NULL times the empty stand-in.  For a process that takes the
 * samples another one asks for (pg_remote).  Returns ns.
 */
double pg_measure_sample(const pg_target *t, pg_fn fn, uint64_t n, int warm,
                         unsigned char *evict, size_t evict_bytes);

/* The same on a device's clock (a counter): `n` calls of `fn` (NULL: the
 * empty stand-in) on t->state, as dev->time() takes them. */
double pg_measure_sample_on(const pg_device_clock *dev, const pg_target *t,
                            pg_fn fn, uint64_t n, int cold);

#endif
