/*
 * measure.h - the measurement engine (seeds 000, 002, 003, 004).
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
 * side is running user code now and since when, and each side's total time
 * in user code, so that a hang is charged to the right side.
 */
typedef struct pg_watch {
    volatile int side;          /* PG_BASE, PG_HEAD, or -1: neither */
    volatile int64_t since_ns;  /* pg_now_ns() when `side` was entered */
    volatile int64_t used_ns[2];
} pg_watch;

void pg_watch_enter(pg_watch *w, int side);
void pg_watch_leave(pg_watch *w);

/* One side of one case: what to call. */
typedef struct pg_target {
    const pg_problem *problem;
    void *state;
    pg_fn fn;
} pg_target;

typedef struct pg_measure_opts {
    int min_rounds;
    double max_time;  /* seconds for the whole measurement */
    double min_time;  /* seconds measured at least, unless max_time ends it */
    double sample_ns; /* calibration: the shortest sample worth timing */
    double settle;    /* a minimum that improves less than this has settled */
    pg_watch *watch;  /* may be NULL */
    /* Called after each round; may be NULL. */
    void (*on_round)(void *payload, int round, double elapsed);
    void *payload;
} pg_measure_opts;

/* The result for one case. */
typedef struct pg_case_timing {
    double ns[2];        /* minimum per call, overhead discounted */
    double raw_ns[2];    /* minimum per call, as measured */
    double overhead_ns;  /* the harness's cost per call */
    uint64_t inner;      /* calls per sample */
    uint64_t samples;    /* samples per side */
} pg_case_timing;

typedef struct pg_measure_summary {
    int rounds;
    double seconds;
    uint64_t calls[2]; /* calls per side, all cases together */
} pg_measure_summary;

/* Fills `opts` with the defaults for a given budget. */
void pg_measure_opts_init(pg_measure_opts *opts, int min_rounds,
                          double max_time);

/*
 * Times `ncases` cases.  targets[i][side] for side < nsides: nsides is 2
 * for a comparison, 1 to time the base side alone (then it is PG_BASE).
 * Fills out[i] and `summary`.  Returns 0.
 */
int pg_measure(pg_case_timing *out, pg_measure_summary *summary,
               pg_target (*targets)[2], size_t ncases, int nsides,
               const pg_measure_opts *opts);

/*
 * The stopping rule, alone so that it can be tested: 1 when `round`
 * completed rounds are enough, given the round in which a minimum last
 * improved by more than opts->settle and the seconds spent.
 */
int pg_measure_should_stop(const pg_measure_opts *opts, int rounds,
                           int last_improved, double elapsed);

#endif
