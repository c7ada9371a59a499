/*
 * bench_suite.h - one suite: benchmark of a comparison (config.h's
 * `suite`): the project's build run on each side, the binary's benchmarks
 * listed on both and paired by name, those both have measured
 * interleaved (suite.h), and the verdict.
 */
#ifndef PG_BENCH_SUITE_H
#define PG_BENCH_SUITE_H

#include "benchmark.h"

/*
 * Benchmark `index` of c->cfg, a suite, into `out`: as pg_benchmark_run()
 * does for a function or a problem.  A benchmark one side lists and the
 * other does not is said (new, gone) and not measured; a suite cannot
 * check the head's results, and says so.  Negative only when perfgate
 * itself failed or was interrupted.
 */
int pg_bench_suite_run(pg_bench_ctx *c, size_t index, pg_bench_result *out);

#endif
