/*
 * stats.h - the decision rule (README.md, "How perfgate measures").
 *
 * A side's total is the sum of its cases' minimum times.  The change is
 * head_total / base_total - 1: a regression when it is above the noise
 * floor, an improvement below minus the floor, else unchanged.  Under
 * gate: cases, any case whose own change is above the floor makes the
 * benchmark a regression too.  The gate
 * fails on any regression, and on a head side that is incorrect, crashed,
 * timed out or failed to build.  A failure on the base side alone is
 * reported and does not fail the gate.
 */
#ifndef PG_STATS_H
#define PG_STATS_H

#include "result.h"

/*
 * Sums b's cases into base_ns/head_ns, sets each case's change and b's,
 * and sets b->status by the rule above.  Call on a fully measured result.
 */
void pg_decide(pg_bench_result *b, double noise_floor);

/*
 * Under gate: total, the case that got slower beyond the floor (its whole
 * interval above it) while the benchmark's verdict does not say so: the
 * slowest such, or NULL.  Said on the verdict line, in the comment and as
 * a CI annotation, so that a case 3x slower cannot hide under the total.
 */
const pg_case_result *pg_bench_hidden_regression(const pg_bench_result *b);

/* The status for `change` against `noise_floor`. */
pg_status pg_classify(double change, double noise_floor);

/* 1 when `b` fails the gate. */
int pg_bench_fails_gate(const pg_bench_result *b);

/* 1 when no benchmark fails the gate; for a self-check (r->aa), when every
 * benchmark was measured and the noise is within half the floor. */
int pg_result_passed(const pg_result *r);

/* 1 when the gate passes with a warning: some benchmark has a case slower
 * beyond the floor that its verdict does not say (pg_bench_hidden_regression). */
int pg_result_warned(const pg_result *r);

/* How many benchmarks have `status`. */
size_t pg_result_count(const pg_result *r, pg_status status);

#endif
