/*
 * profile.h - where the time went: a regression's worst case, both sides,
 * under a profiler that is on the machine.
 *
 * Each side is built again with -g (the measured builds are not touched),
 * and its worst case is run once, checked as perfgate-measure checks it,
 * under valgrind's callgrind.  What is kept is the user's code only: the
 * instructions each function of the side's library executed itself (its
 * "self" cost; callgrind counts instructions, which, unlike times, do not
 * vary from run to run), and for the functions that cost most, each source
 * line's.  Without valgrind there is no profile, and the result says so.
 */
#ifndef PG_PROFILE_H
#define PG_PROFILE_H

#include "casespec.h"
#include "config.h"
#include "result.h"

/*
 * Profiles case `c` of `b` on both sides (trees side_dir[0] and [1]) into
 * out->profile, working in `work_dir`, each run within `timeout` seconds.
 * A side that cannot be profiled (no valgrind, a build or run that fails)
 * leaves the profile's `skipped` saying why.  Negative only when
 * interrupted.
 */
int pg_profile_bench(pg_bench_result *out, const pg_bench_config *b,
                     const char *const side_dir[2], const char *problem_lib,
                     const pg_case_spec *c, const char *work_dir,
                     double timeout);

/*
 * How many rows (functions of `lib`, and their lines) --profile reads from
 * the callgrind output at `path`; 0 when it cannot be read.  For tests:
 * the reading is linear in the output's size.
 */
size_t pg_profile_rows(const char *path, const char *lib, const char *side_dir);

#endif
