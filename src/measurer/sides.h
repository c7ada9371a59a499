/*
 * sides.h - the two sides in the measuring child (sides.c), for its modes
 * (main.c).  Each step returns 0, or REPORTED when it reported a failure
 * (child.h).
 */
#ifndef PG_SIDES_H
#define PG_SIDES_H

#include "child.h"
#include "counter.h"

/*
 * Loads each side's library (head first: when a case cannot even be set
 * up, the head is blamed) and finds its solution, places its copies, and
 * opens the GPU.
 */
int pg_sides_load(child_ctx *ctx, sides *st);

/* Each side's own set-up of every case, to be verified on. */
int pg_sides_set_up_own(child_ctx *ctx, sides *st);

/*
 * Runs each side present (head first) once on every case, on its own
 * set-up, and checks it (`when`: "" before timing, " (after timing)").
 * A head found right is said at once ("verified head").
 */
int pg_sides_verify(child_ctx *ctx, const pg_problem *p, pg_case *cases,
                    pg_target (*own)[2], const char *when);

/* Both sides timed on the same memory: a third set-up of each case,
 * which both call in turn (or each its own, with side_setup). */
int pg_sides_set_up_shared(child_ctx *ctx, sides *st);

/* What each side executed under callgrind, every case once, dumped per
 * side to count_dump.pathN. */
void pg_sides_trace(child_ctx *ctx, sides *st, pg_counter *counter);

/* Natively, where each side's calls spend their time, into the spec's
 * sample file. */
int pg_sides_sample(child_ctx *ctx, sides *st);

/* Counts the heap of each side's calls on its own set-ups (memcount.c),
 * as "memory" events. */
int pg_sides_memory(child_ctx *ctx, sides *st);

/* Times the shared set-ups, interleaved (or counts them). */
int pg_sides_time(child_ctx *ctx, sides *st, pg_timing *timing,
                  pg_measure_summary *summary);

/* The work one call of case `c` does, by the problem (`pc` its set-up):
 * *flops and *bytes, left as they are where the problem says nothing. */
void pg_sides_work(child_ctx *ctx, const pg_problem *p, const pg_case *pc,
                   size_t c, double *flops, double *bytes);

/* The figures, to perfgate: "case" per case, "samples", "gpu", "done". */
void pg_sides_send_figures(child_ctx *ctx, const sides *st,
                           const pg_timing *timing,
                           const pg_measure_summary *summary);

/* teardown(state), named as the problem's call on case `c`. */
void pg_sides_tear_down_one(child_ctx *ctx, const pg_problem *p, void *state,
                            int side, size_t c);

/* The problem's teardown() for every set-up there is, the last first. */
void pg_sides_tear_down(child_ctx *ctx, const sides *st);

#endif
