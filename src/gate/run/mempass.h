/*
 * mempass.h - the memory pass: what each side's calls ask of the
 * allocator, counted exactly, apart from the timing.
 *
 * The heap is counted in the check that comes before the timing (a
 * perfgate-measure with both sides loaded and set up: split.c), with
 * libperfgate-memory.so preloaded there (src/measurer/memshim.c) and
 * "memory N" in its spec: after the check, one call of each case
 * uncounted, then N counted (src/measurer/memcount.c).  Where no such
 * check counted it (a side alone, a run both sides timed in one process,
 * counts under valgrind), pg_mempass_run counts each side in a
 * perfgate-measure of its own.  The timed rounds never run with the
 * library: their figures are the allocator's own.
 */
#ifndef PG_MEMPASS_H
#define PG_MEMPASS_H

#include "result.h"
#include "runspec.h"

/* Calls counted per case and side, after one uncounted. */
#define PG_MEMPASS_CALLS 8

/* The heap forgotten: nothing counted, in every case. */
void pg_mempass_forget(pg_bench_result *out);

/*
 * Why a side's count failed, where `m` says how ("the head side's pass:
 * killed by SIGSEGV ..."): a new string, for out->memory.skipped.
 */
char *pg_mempass_failure(const pg_bench_result *m, int side);

/*
 * Counts the heap of `timed`'s sides into the cases of `out`, where a
 * check has not counted every case of every side present (run specs at
 * spec_path.memN), and makes the figures per call of the function
 * (`batch` calls a timed call; 0 or 1: one).  What could not be counted is said
 * in out->memory.skipped.  Negative only when perfgate failed or was
 * interrupted.
 */
int pg_mempass_run(pg_bench_result *out, const pg_run_spec *timed,
                   const char *spec_path, int batch);

#endif
