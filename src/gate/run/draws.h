/*
 * draws.h - a benchmark measured in several fresh measuring processes, each
 * one a draw of the luck that one process has and keeps: where its code
 * and its pages landed, its address-space layout.  No number of rounds in
 * one process averages that out, and the next run draws it afresh.
 *
 * The processes run one after another, each a whole run (run.h) on a
 * share of the budget, base and head interleaved inside it; their rounds
 * are pooled into one estimate with one interval (estimate.h: processes,
 * then placements, then rounds), which says when to stop and what the
 * verdict is.  At least two processes are measured; more while the
 * interval is unclear and the budget allows.
 *
 * A count (deterministic, laid out alike every time), a CUDA benchmark
 * (the device's clock, and a context to create per process), a check
 * without timing and a side alone take one process, as a plain run.
 */
#ifndef PG_DRAWS_H
#define PG_DRAWS_H

#include "result.h"
#include "runspec.h"

/* The most measuring processes one benchmark takes. */
#define PG_DRAWS_MAX 8

/*
 * Measures the benchmark of `spec` (written to `spec_path` for each
 * process) as pg_run_bench() does, in as many processes as the header
 * says, into `out`: its cases' times and intervals are the pooled
 * estimate's, its rounds, calls and seconds the processes' sums,
 * out->processes their number and out->stop why the last one was the
 * last ("clear", "max_time", or "too_few_rounds" when fewer than two
 * processes saw every placement twice).  A process that fails ends the
 * benchmark with its failure, charged as pg_run_bench() charges it.
 * Negative only when perfgate itself failed or was interrupted.
 */
int pg_draws_run(pg_bench_result *out, const pg_run_spec *spec,
                 const char *spec_path);

#endif
