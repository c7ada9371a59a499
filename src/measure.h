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

#include "perfgate/problem.h"

enum { PG_BASE = 0, PG_HEAD = 1 };

/*
 * Shared with the supervising parent (it lives in shared memory): which
 * side is running user code now and since when, so that a hang or a crash
 * is charged to the right side.  The timeout is for one stretch in user
 * code (a call, or one batch of calls), not the sum of them: a long
 * max_time must not make correct code time out.
 */
typedef struct pg_watch {
    volatile int side;          /* PG_BASE, PG_HEAD, or -1: neither */
    volatile int64_t since_ns;  /* pg_now_ns() when `side` was entered */
} pg_watch;

void pg_watch_enter(pg_watch *w, int side);
void pg_watch_leave(pg_watch *w);

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

typedef struct pg_measure_opts {
    int min_rounds;
    double max_time;    /* seconds for the whole measurement */
    double min_time;    /* seconds measured at least, unless max_time ends it */
    double sample_ns;   /* calibration: the shortest sample worth timing;
                           0: a thousand times the timer's error */
    double settle;      /* a minimum that improves less than this has settled */
    double noise_floor; /* the verdict's floor, for the stopping margin */
    double margin;      /* stop once the change is this far from the floor */
    int gate_cases;     /* gate: cases: every case must be clear to stop */
    size_t evict_bytes; /* cold caches: bytes written before each sample, one
                           call per sample; 0: warm */
    const pg_device_clock *device; /* NULL: the CPU's clock times samples */
    int device_cold;    /* with `device`: its caches cold for each sample */
    pg_watch *watch;    /* may be NULL */
    const int *sides;   /* the side the watch is told for each target
                           index; NULL: the index itself */
    /* Called after each round; may be NULL. */
    void (*on_round)(void *payload, int round, double elapsed);
    void *payload;
} pg_measure_opts;

/* A change (head / base - 1) with its 95% interval. */
typedef struct pg_interval {
    double change, lo, hi;
} pg_interval;

/* The result for one case. */
typedef struct pg_case_timing {
    double ns[2];        /* minimum per call, overhead discounted */
    double raw_ns[2];    /* minimum per call, as measured */
    double overhead_ns;  /* the harness's cost per call */
    uint64_t inner;      /* calls per sample */
    uint64_t samples;    /* samples per side */
    pg_interval change;  /* this case's own change; two sides only */
} pg_case_timing;

typedef enum {
    PG_STOP_NO = 0,
    PG_STOP_CLEAR,   /* settled, and the change is clear of the floor */
    PG_STOP_SETTLED, /* settled (one side: nothing to compare) */
    PG_STOP_MAX_TIME /* the budget ran out first */
} pg_stop;

typedef struct pg_measure_summary {
    int rounds;
    double seconds;
    uint64_t calls[2];   /* calls per side, all cases together */
    pg_interval change;  /* two sides only; else NAN */
    pg_stop stop;
} pg_measure_summary;

/* "clear", "settled", "max_time". */
const char *pg_stop_name(pg_stop stop);

/* Fills `opts` with the defaults for a given budget and noise floor. */
void pg_measure_opts_init(pg_measure_opts *opts, int min_rounds,
                          double max_time, double noise_floor);

/*
 * Times `ncases` cases.  targets[i][side] for side < nsides: nsides is 2
 * for a comparison, 1 to time the base side alone (then it is PG_BASE).
 * Fills out[i] and `summary`.  Returns 0.
 */
int pg_measure(pg_case_timing *out, pg_measure_summary *summary,
               pg_target (*targets)[2], size_t ncases, int nsides,
               const pg_measure_opts *opts);

/*
 * The change between the sums of per-case minimums, and its interval from
 * the paired rounds: `resamples` bootstrap resamples of whole rounds (both
 * sides and every case of a round stay together, so what hit a round hits
 * both sides of it), percentiles 2.5 and 97.5, from a fixed seed so that
 * the same samples always give the same interval.  With `cases` (NULL:
 * not wanted), each case's own change and interval too, from the same
 * resamples.
 *
 * samples[(r * ncases + c) * 2 + side] is round r's time per call for case
 * c and side (raw); overhead[c] is discounted from every case-c figure.
 */
void pg_change_interval(pg_interval *out, pg_interval *cases,
                        const double *samples, const double *overhead,
                        size_t ncases, size_t rounds, int resamples);

/*
 * The stopping rule, alone so that it can be tested.  `rounds` rounds are
 * complete, a minimum last improved by more than opts->settle in round
 * `last_improved`, `elapsed` seconds have passed; `change` is the change so
 * far (NULL with one side, or when not computed yet).
 */
pg_stop pg_measure_should_stop(const pg_measure_opts *opts, int rounds,
                               int last_improved, double elapsed,
                               const pg_interval *change);

/*
 * How much a minimum may still improve and count as settled, given the
 * change so far: half its distance to the nearer of +-floor (a smaller
 * move cannot carry the estimate across), and at least opts->settle.
 */
double pg_settle_threshold(const pg_measure_opts *opts,
                           const pg_interval *change);

/* 1 when `change` lies clear of +-opts->noise_floor by opts->margin. */
int pg_change_is_clear(const pg_measure_opts *opts, const pg_interval *change);

#endif
