/*
 * gbench_count.h - what callgrind counts of a Google Benchmark program's
 * timed loop.
 *
 * Run under pg_gbench_count_tool()'s valgrind, a Google Benchmark program
 * leaves a callgrind dump at each edge of its timer's stretches: after
 * State::StartKeepRunning (the loop starts) and ResumeTiming, before
 * PauseTiming and FinishKeepRunning (the loop ends).  Each dump holds what
 * ran since the one before, so the stretches that a start or a resume
 * opens and a pause or the end closes are exactly what the harness times:
 * neither the program's start nor a benchmark's set-up, nor what it pauses
 * the timer for.
 */
#ifndef PG_GBENCH_COUNT_H
#define PG_GBENCH_COUNT_H

#include "counter.h"
#include "strvec.h"

/* valgrind's command line that counts `metric` so, its dumps at
 * `dump`.1, .2, ... (the program's end at `dump`), pushed to `tool`. */
void pg_gbench_count_tool(pg_strvec *tool, pg_metric metric, const char *dump);

/* The same for a profile: instructions, dumps as profile.h reads them
 * (positions uncompressed, C++ names demangled). */
void pg_gbench_profile_tool(pg_strvec *tool, const char *dump);

/*
 * The count of the last run of the timed loop (the harness's last
 * repetition) in the dumps at `prefix`, into *total; the dumps removed,
 * whatever the answer.  `keep` (NULL: none) receives the text of the dumps
 * counted, one after another: one callgrind output of what the loop ran,
 * per function.  0; 1 when no run of the loop was seen (no Google
 * Benchmark loop, or its library stripped of its symbols); -1 when a dump
 * could not be read, or kept.
 */
int pg_gbench_loop_count(double *total, const char *prefix, pg_metric metric,
                         const char *keep);

#endif
