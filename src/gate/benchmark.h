/*
 * benchmark.h - one benchmark of a comparison: what the change reaches,
 * both sides built (or taken from the cache), checked against the
 * problem, measured, and the verdict settled from what the builds said.
 *
 * compare.c walks the config and calls pg_benchmark_run() for each
 * benchmark to run; prebuild.c builds ahead into the cache with the same
 * context.  What the benchmarks of one run share (a project build run once
 * a side, a problem built once, cases checked once) lives in the context.
 */
#ifndef PG_BENCHMARK_H
#define PG_BENCHMARK_H

#include "cache.h"
#include "config.h"
#include "progress.h"
#include "result.h"
#include "revision.h"
#include "strvec.h"
#include "system.h"

struct pg_build;

/* What a side's build is kept under: its key, when it has one. */
typedef struct pg_bench_keys {
    char key[2][PG_CACHE_ID];
    int keyed[2]; /* 0: perfgate cannot know what the side reads */
} pg_bench_keys;

typedef struct pg_bench_ctx {
    /* Set by the caller, and not changed here. */
    const pg_config *cfg;
    const pg_rev *rev; /* the two sides: base, head */
    const char *build_dir;
    pg_cache *cache;
    const pg_system *system;
    int aa;      /* a self-check: identical code is measured too */
    double precision; /* pg_compare_opts' */
    int profile; /* --profile: each C regression's worst case profiled */
    pg_progress *progress; /* NULL: nothing is said (a build worker) */
    /* Where each benchmark's time building and the GPU go. */
    pg_result *result;

    /* Kept across the run's benchmarks, freed by pg_bench_ctx_clear. */
    pg_strvec built[2];         /* project build commands run, per side */
    struct pg_build *builds[2]; /* their builds, in the same order */
    pg_strvec problem_srcs, problem_libs; /* problems built so far */
    /* Configured cases already checked against their problem ("PROBLEM
     * LANGUAGE CASE;CASE..."): not asked of the problem again. */
    pg_strvec checked;
    /* Keys of the builds that build workers compiled in this run (a hit on
     * one is still a build of this run's). */
    pg_strvec compiled;
    /* Per benchmark of the config: its keys as the build workers found
     * them (known[i] set), so that they are not worked out again; NULL
     * when nothing was built ahead. */
    pg_bench_keys *keys;
    unsigned char *known;
} pg_bench_ctx;

/*
 * Benchmark `index` of the config, into `out`: a failed build, a wrong
 * head, a missing GPU and the like are its status, not errors.  Returns
 * negative only when perfgate itself failed or was interrupted.
 */
int pg_benchmark_run(pg_bench_ctx *c, size_t index, pg_bench_result *out);

/*
 * Side s's project build for `b`, run once a side and command (or put
 * back from the build cache, project.h): NULL when `b` has none; else the
 * build, failed or not.  *err negative only when perfgate failed.
 */
const struct pg_build *pg_benchmark_project(pg_bench_ctx *c,
                                            const pg_bench_config *b, int s,
                                            int *err);

/* The keys of both sides' builds of `b`; negative only when interrupted. */
int pg_benchmark_keys(pg_bench_ctx *c, const pg_bench_config *b,
                      pg_bench_keys *k);

/* 1 when a change cannot reach a benchmark with keys `k`: both sides read
 * the same files.  A self-check measures whatever it is given. */
int pg_benchmark_unreached(const pg_bench_ctx *c, const pg_bench_keys *k);

/* A measuring run's progress (pg_run_spec's on_progress; `payload` the
 * pg_bench_ctx) said on its progress line. */
void pg_benchmark_progress(void *payload, const char *stage, int round,
                           double elapsed);

/* `out` failed to build on `side`, as `build` says. */
void pg_benchmark_build_failure(pg_bench_result *out,
                                const struct pg_build *build, pg_side side);

/* How `out` is judged: its inconclusive: rule, and the accept: entry for
 * `b` (the config's, or a Perf-Accepted: trailer's); one that has run out
 * is said, and accepts nothing. */
void pg_benchmark_rules(pg_bench_ctx *c, const pg_bench_config *b,
                        pg_bench_result *out);

/* The settings `b` is measured with: the run's, or a copy in `own` with
 * its own noise_floor: (said in `out`) unless --noise-floor gave one. */
const pg_settings *pg_benchmark_settings(const pg_bench_ctx *c,
                                         const pg_bench_config *b,
                                         pg_bench_result *out,
                                         pg_settings *own);

/* What `b` measures: a pg_metric, or PG_MEASURE_ALL. */
int pg_benchmark_measure(const pg_bench_ctx *c, const pg_bench_config *b);

/* The floor `out` is judged against: its metric's, or its own. */
double pg_benchmark_floor(const pg_bench_ctx *c, const pg_bench_result *out);

/* measure: all: when the time `t` and the count `k` of one benchmark
 * disagree (one beyond its floor and the other not, or opposite ways),
 * what that likely means, into t->disagreement. */
void pg_benchmark_say_disagreement(pg_bench_result *t, const pg_bench_result *k,
                                   const pg_settings *st);

void pg_bench_ctx_clear(pg_bench_ctx *c);

#endif
