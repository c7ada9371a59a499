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
 * times the samples (gpu.h); the rest is the same.  Two sides timed on the
 * CPU or counted are measured each in a process of its own instead
 * (split.h, which checks them here first).
 */
#ifndef PG_RUN_H
#define PG_RUN_H

#include <stddef.h>

#include "measure.h"
#include "result.h"
#include "runspec.h"
#include "str.h"

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

/* libperfgate-memory.so beside it (a new string), for the memory pass
 * (mempass.h); NULL when it is not there, as in a sanitizer's build. */
char *pg_run_memory_library(void);

/* Sets the error for a measuring executable that cannot be run; returns
 * PG_ERR_GENERIC. */
int pg_run_program_missing(void);

/*
 * The base failed (`out`): the head is run alone, checked, and timed too
 * when `timed` (as long as both would have been), so that a head as
 * broken as its base still fails the gate; its failure, if any, replaces
 * the base's.  Negative only when perfgate failed or was interrupted.
 */
int pg_run_head_alone(pg_bench_result *out, const pg_run_spec *spec,
                      const char *spec_path, int timed);

/*
 * A count taken under callgrind (`counted`, whose count_dump.path0 and
 * .path1 hold what each side executed): the same calls run natively,
 * sampled, to tell whether callgrind saw the code the machine runs
 * (pathcheck.h); code that fails natively fails the benchmark.  Negative
 * only when perfgate failed or was interrupted.
 */
int pg_run_check_path(pg_bench_result *out, const pg_run_spec *counted,
                      const char *spec_path);

/* For the runs of split.c, as run.c's own: the cases in `out`, named,
 * nothing measured yet. */
void pg_run_add_cases(pg_bench_result *out, const pg_run_spec *spec);

/* A measurement taken in this process (pg_measure(), its samples in
 * `samples`, may be NULL) into `out`'s `ncases` cases (pg_run_add_cases)
 * and totals, as a measuring child's events would have put them. */
void pg_run_fill(pg_bench_result *out, const pg_timing *timing,
                 const pg_measure_summary *sum, const double *samples,
                 size_t ncases);

/* Who a measuring process was running when it ended, before what
 * happened ("head side: ", "problem P: setup() on case C: ", or ""), and
 * where, after it (" in run() on case C ..."); `w` is its watch. */
struct pg_watch;
void pg_run_describe_who(pg_str *out, const pg_run_spec *spec,
                         const struct pg_watch *w, int side);
void pg_run_describe_where(pg_str *out, const pg_run_spec *spec,
                           const struct pg_watch *w, int side);

/* Whether the call the watch names (a side's, or the problem's own) has
 * run longer than `timeout` seconds. */
int pg_run_watch_expired(const struct pg_watch *w, double timeout);

#endif
