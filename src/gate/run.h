/*
 * run.h - running one benchmark, in perfgate-measure (src/measurer/main.c).
 *
 * That process loads the problem plugin and each side's library, sets up every
 * case on each side, runs each side once and verifies it, then measures
 * both interleaved (measure.h) and verifies again.  Whatever the user's code
 * does (crash, hang, exit, flood its output, exhaust memory) ends in a
 * status for the benchmark, charged to the side that was running, and
 * perfgate goes on with the next benchmark.
 *
 * With spec->gpu, memory from pg_alloc() is the device's and the device
 * times the samples (gpu.h); the rest is the same.
 */
#ifndef PG_RUN_H
#define PG_RUN_H

#include <stddef.h>

#include "result.h"
#include "runspec.h"

/*
 * Runs the benchmark in perfgate-measure, its spec written to `spec_path`,
 * and fills `out`: on success its cases, rounds and calls (status still to
 * be decided by pg_stats_decide()); on failure its status, side, message and
 * log.  Returns negative only when perfgate itself failed or was interrupted.
 */
int pg_run_bench(pg_bench_result *out, const pg_run_spec *spec,
                 const char *spec_path);

/*
 * The measuring executable: $PERFGATE_MEASURE, else perfgate-measure beside
 * this executable, else in ../libexec/perfgate, else the one of the build
 * tree this was built in, else looked up in PATH.
 */
const char *pg_run_program_path(void);

/* Sets the error for a measuring executable that cannot be run; returns
 * PG_ERR_GENERIC. */
int pg_run_program_missing(void);

#endif
