/*
 * profile.h - where the time went: a regression's worst case, both sides,
 * under a profiler that is on the machine.
 *
 * Each side is built again with -g (the measured builds are not touched),
 * and its worst case is run once, checked as perfgate-measure checks it,
 * under valgrind's callgrind, which counts instructions (which, unlike
 * times, do not vary from run to run).  For each function of the side's
 * library: its inclusive cost (its own instructions and those of all it
 * called, libc's included, so that work a change moves into strchr or
 * malloc still shows where it was asked for) and its own.  For the
 * functions that cost most, each source line's, paired across the sides
 * by the line's text (a line added above moves the numbers, not the
 * pairing).  And what the user's code spent outside itself: every call
 * into another object, in all and per function called.  Without valgrind
 * there is no profile, and the result says so.
 */
#ifndef PG_PROFILE_H
#define PG_PROFILE_H

#include "casespec.h"
#include "config.h"
#include "result.h"

/*
 * Profiles case `c` of `b` on both sides (trees side_dir[0] and [1]) into
 * out->profile, working in `work_dir`, each run within `timeout` seconds:
 * under callgrind, or under ncu when `gpu` (a CUDA solution, its inputs
 * cold when `cold`, as measured).  A side that cannot be profiled (no
 * profiler, a build or run that fails) leaves the profile's `skipped`
 * saying why.  Negative only when interrupted.
 */
int pg_profile_bench(pg_bench_result *out, const pg_bench_config *b,
                     const char *const side_dir[2], const char *problem_lib,
                     const pg_casespec *c, const char *work_dir, double timeout,
                     int gpu, int cold);

/* Whether callgrind can profile here: 1; else 0 with p->skipped saying
 * why (no valgrind; a perfgate built with AddressSanitizer). */
int pg_profile_callgrind_ready(pg_profile *p);

/*
 * Reads callgrind's outputs of both sides (path[0] the base's) into p's
 * rows, as pg_profile_bench() does once each side has run: the functions
 * of lib[s], their source lines read from the tree side_dir[s], and their
 * calls out of it.  0, or -1 when an output cannot be read.  For tests.
 */
int pg_profile_read(pg_profile *p, const char *const path[2],
                    const char *const lib[2], const char *const side_dir[2]);

/*
 * How many rows (functions of `lib`, and their lines) --profile reads from
 * the callgrind output at `path`; 0 when it cannot be read.  For tests:
 * the reading is linear in the output's size.
 */
size_t pg_profile_rows(const char *path, const char *lib, const char *side_dir);

#endif
