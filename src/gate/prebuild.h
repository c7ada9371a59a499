/*
 * prebuild.h - building what a comparison will measure before anything is
 * measured, several compilers at once, into the build cache: the measuring
 * that follows takes every build from it, and no compiler runs beside it.
 *
 * What needs no compiler is told here first: a benchmark whose problem
 * and reached builds are all in the cache, under keys told from what the
 * compiler said before (pg_affected_key_kept), gets its keys and no
 * worker, so that a warm run of forty benchmarks forks none.  Each other
 * benchmark is one task of pg_proc_run_parallel (proc.h): a
 * supervised child that builds its problem and each side the change
 * reaches, and says over the message channel "k KEY KEY" (its keys, "-"
 * for none) and "c KEY" for each build it compiled.  What a worker could
 * not build (a failure, a project build) is built again in turn by
 * pg_benchmark_run, so that its messages are the run's own.
 */
#ifndef PG_PREBUILD_H
#define PG_PREBUILD_H

#include "benchmark.h"

/*
 * Builds benchmarks `which[0..n)` of c->cfg with up to `jobs` workers at
 * once, filling c->keys, c->known and c->compiled.  Negative only when
 * perfgate itself failed or was interrupted.
 */
int pg_prebuild(pg_bench_ctx *c, const size_t *which, size_t n, int jobs);

#endif
