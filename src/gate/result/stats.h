/*
 * stats.h - the decision rule (README.md, "How perfgate measures").
 *
 * A side's total is the sum of its cases' times (estimate.h).  The change
 * is head_total / base_total - 1, and its label is its interval's, the
 * one the measurement stopped on: a regression when the whole interval
 * lies above the noise floor, an improvement when below minus the floor,
 * unchanged when within both, and otherwise inconclusive (the budget ran
 * out first).  A case is labelled by its own interval the same way.
 * Under gate: cases, any case that is a regression makes the benchmark
 * one, and any case left inconclusive leaves it inconclusive.  The gate
 * fails on any regression, on an inconclusive verdict under
 * `inconclusive: fail` (pass by default), and on a head side that is
 * incorrect, crashed, timed out or failed to build.  A failure on the
 * base side alone is reported and does not fail the gate.
 *
 * A case too small to resolve (pg_stats_unresolved) is unresolved, with
 * no label, and a benchmark made only of such cases is unresolved too.
 * A self-check fails when a case it resolves reads beyond the floor on
 * identical code.
 *
 * This file owns every label and the gate's rule.  The stages record only
 * what happened (a side that failed, and how; a benchmark skipped, or new);
 * a result is judged once where it enters (the end of a compare, a saved
 * result read back, a merge), and renderers read what was decided.
 */
#ifndef PG_STATS_H
#define PG_STATS_H

#include "result.h"

/*
 * Sums b's cases into base_ns/head_ns, sets each case's change and b's,
 * and sets b->status by the rule above.  Call on a fully measured
 * benchmark.
 */
void pg_stats_decide(pg_bench_result *b, double noise_floor);

/*
 * Fills in r->verdict and every benchmark's slower_case from the statuses
 * already decided: after the last pg_stats_decide(), and on a result read
 * back from JSON (whose own "verdict" is not trusted).  Call before the
 * result is written or rendered.
 */
void pg_stats_judge(pg_result *r);

/* 1 when a compare's own noise (pg_verdict's noise, after
 * pg_stats_judge()) is more than half its floor. */
int pg_stats_noisy_run(const pg_result *r);

/*
 * Under gate: total, the case that got slower beyond the floor (its whole
 * interval above it) while the benchmark's verdict does not say so: the
 * slowest such, or NULL.  Said on the verdict line, in the comment and as
 * a CI annotation, so that a case 3x slower cannot hide under the total.
 */
const pg_result_case *pg_stats_hidden_regression(const pg_bench_result *b);

/*
 * 1 when case `c` is below what this machine resolves at `noise_floor`
 * (pg_estimate_unresolved): on both sides a call is so short that
 * PG_ESTIMATE_PLACEMENT_JITTER of the
 * harness's own cost (measured apart and discounted) is more than the
 * floor of it, so that where the code lies and the discount's error alone
 * can carry it across the floor (a 4 ns call at 4 ns of harness, a few
 * tenths of a nanosecond: tens of percent).  No label can be trusted.
 */
int pg_stats_unresolved(const pg_result_case *c, double noise_floor);

/* 1 when `b`'s budget ran out before every placement of its measuring
 * processes was seen twice (PG_STOP_TOO_FEW): inconclusive, whatever its
 * interval. */
int pg_stats_too_few(const pg_bench_result *b);

/* The status for `change` against `noise_floor`, its interval unknown. */
pg_status pg_stats_classify(double change, double noise_floor);

/*
 * The label a change's interval [lo, hi] earns against `noise_floor`:
 * regression when the whole interval lies above the floor, improvement
 * when below minus the floor, unchanged when within both, else
 * inconclusive.  An interval not known (NAN): pg_stats_classify().
 */
pg_status pg_stats_label(double change, double lo, double hi,
                         double noise_floor);

/*
 * 1 when `b` fails the gate.  A regression may gate unless it is a count
 * taken on another code path than the machine runs (path_check: warn,
 * pathcheck.h); under measure: all, the count beside the time gates too,
 * unless it ran on another code path or the time itself found the head
 * faster beyond its floor (the count is a stand-in for the time, and here
 * the time answered: more work that runs faster, a disagreement that is
 * said).  pg_stats_judge() stores what this decides in the result (fails_
 * gate, gates, count_gates, counts_as), for everything after it to read.
 */
int pg_stats_fails_gate(const pg_bench_result *b);

/*
 * The one label given without measuring: both sides load identical code,
 * or build from the same files (the change does not reach them):
 * unchanged, by a change of 0.
 */
void pg_stats_same_code(pg_bench_result *b);

#endif
