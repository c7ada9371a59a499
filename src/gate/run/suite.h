/*
 * suite.h - a benchmark suite that a project's own build makes (a Google
 * Benchmark binary), run as its harness runs it, measured perfgate's way.
 *
 * Its benchmarks are listed (--benchmark_list_tests), each argument set
 * (BM_copy/1024) a case.  A sample is one process of a side's binary
 * restricted to one benchmark (--benchmark_filter=^NAME$), three
 * repetitions (the least kept: the first pays for what the loop touches
 * first) of a given number of iterations (--benchmark_min_time=Nx, Google
 * Benchmark 1.8 and later) or, where the binary takes no count, of the
 * time those iterations take (its own loop then chooses the count), its
 * JSON read back for the time per iteration.  perfgate itself runs the
 * measurement (measure.h with a pg_remote), base and head processes
 * interleaved, so that calibration, the interval, the stopping rule and the
 * verdict are those of every other benchmark.  Each process is new: where its
 * code and pages land is drawn afresh for every sample, and the samples are
 * pooled as processes are (pg_remote's fresh: each side's median over them).
 */
#ifndef PG_SUITE_H
#define PG_SUITE_H

#include "result.h"
#include "runspec.h"
#include "settings.h"
#include "strvec.h"

/* Both sides' binaries of one suite. */
typedef struct pg_suite {
    pg_suite_kind kind;
    const char *bin[2];  /* each side's binary */
    const char *dir[2];  /* where each runs: its side's tree (read-only) */
    const char *scratch; /* where perfgate has the outputs written */
    /* 1: both take an iteration count (--benchmark_min_time=Nx), and do
     * the same work in every sample; 0: a time, as older ones do. */
    int fixed;
    /* A pg_metric: 0 timed; else counted, and pg_suite_probe() runs
     * under callgrind as the count will. */
    int metric;
} pg_suite;

/* The most a benchmark's JSON output may take. */
#define PG_SUITE_MAX_OUTPUT ((size_t)16 << 20)

/*
 * The benchmarks side `side` of `s` registers, those `filter` (NULL: any)
 * matches, into `names`, in the binary's order; *fixed 1 when the binary
 * takes an iteration count.  0 when listed (perhaps none); 1 with *why
 * (a new string) when it could not be, or does not list as a Google
 * Benchmark binary does; negative only when perfgate was interrupted.
 * Boxed, as the side's code (box.h), for at most `timeout` seconds.
 */
int pg_suite_list(pg_strvec *names, int *fixed, char **why, const pg_suite *s,
                  int side, const char *filter, double timeout);

/*
 * Measures `spec`'s cases (benchmark names both sides list) on both sides
 * of `s`, interleaved, into `out` (its cases added): its figures, or,
 * when a side's process failed (crashed, hung, reported an error, wrote
 * no JSON), the status charged to that side.  Google Benchmark's
 * bytes_per_second becomes each case's bytes per call.  Negative only
 * when perfgate itself failed or was interrupted.
 */
int pg_suite_measure(pg_bench_result *out, const pg_run_spec *spec,
                     const pg_suite *s);

/*
 * Counts `metric` (a pg_metric: instructions, or cycles by callgrind's
 * cache model) per iteration of `spec`'s cases on both sides of `s`,
 * into `out` (its cases added) as pg_suite_measure times them: each case
 * in two processes per side under callgrind, base and head interleaved,
 * each process running the benchmark twice (as few iterations as the
 * harness runs) and keeping the second, and only the stretches between
 * the harness's timer starting and stopping (State::StartKeepRunning,
 * ResumeTiming, PauseTiming, FinishKeepRunning) counted: neither the
 * program's start nor a benchmark's set-up is.  Failures are charged to
 * their side as pg_suite_measure's are; negative only when perfgate
 * itself failed or was interrupted.
 */
int pg_suite_count(pg_bench_result *out, const pg_run_spec *spec,
                   const pg_suite *s, int metric);

/*
 * --profile: benchmark `name` run once per side under callgrind (two
 * repetitions of as few iterations as the harness runs, the last kept),
 * and what its timed loop ran, per function, into out[side]: a callgrind
 * output that profile.h reads (new paths in `s`'s scratch directory).  0;
 * 1 with *why (a new string) when a side could not be profiled; negative
 * only when perfgate was interrupted.
 */
int pg_suite_profile(char *out[2], char **why, const pg_suite *s,
                     const char *name, double timeout);

/*
 * One run of benchmark `name` on side `side`, one iteration (under
 * callgrind when `s` is counted): 1 with *error (a new string) when the
 * benchmark reports an error of its own (Google Benchmark's
 * SkipWithError, as a benchmark of an instruction set the CPU lacks
 * does); counted, 2 with *error when it runs on several threads (each
 * runs the loop, and one count cannot tell them apart); 0 when it does
 * not, or fails otherwise (which its measurement reports); negative only
 * when perfgate was interrupted.
 */
int pg_suite_probe(char **error, const pg_suite *s, int side, const char *name,
                   double timeout);

/* `name` as a regex that matches it alone ("^BM_x/8$", its
 * metacharacters escaped): a new string. */
char *pg_suite_exact_filter(const char *name);

#endif
