/*
 * split.h - a benchmark's two sides timed each in a measuring process of
 * its own, perfgate asking for every sample.
 *
 * In one process the head's code could reach everything of the run: the
 * base's code and set-ups, the channel the figures go back on, the
 * token that marks them.  Here each side runs alone (`perfgate-measure
 * --side`, in a box of its own, with only its own library shown), and
 * perfgate itself runs the measurement (measure.h with a pg_remote): it
 * calibrates, interleaves base and head sample by sample, keeps the
 * minimums, pools the rounds and decides when to stop.  A side's process
 * answers only "how long did these calls take"; the head's answers are
 * held against perfgate's own clock around each request, so that a head
 * that claims less time than its process took is refused (docs/security.md
 * says what remains possible).
 *
 * Both sides are first checked in one process, on the same inputs, as
 * before (the problem's compare() needs both outputs); a failure that
 * process charges to the base is believed only when the base alone fails
 * too (run.c).
 */
#ifndef PG_SPLIT_H
#define PG_SPLIT_H

#include "result.h"
#include "runspec.h"

/*
 * Whether `spec` is measured this way: two sides, timed on the CPU or
 * counted (each side's process then counts its own samples, under a
 * valgrind of its own), not sampled, only checked, or on a GPU.
 * PERFGATE_SPLIT=0 keeps both sides in one process, for comparisons.
 */
int pg_split_applies(const pg_run_spec *spec);

/* Measures `spec` as pg_run_bench() does (run.h), each side in its own
 * process.  Negative only when perfgate itself failed or was interrupted. */
int pg_split_run(pg_bench_result *out, const pg_run_spec *spec,
                 const char *spec_path);

/* One measuring run of `spec`: pg_split_run() where it applies, else
 * pg_run_bench(). */
int pg_split_or_run(pg_bench_result *out, const pg_run_spec *spec,
                    const char *spec_path);

#endif
