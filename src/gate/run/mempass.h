/*
 * mempass.h - the memory pass: what each side's calls ask of the
 * allocator, counted exactly, apart from the timing.
 *
 * After a C benchmark is measured, each side runs once more in a
 * perfgate-measure of its own, with libperfgate-memory.so preloaded
 * (src/measurer/memshim.c) and "memory N" in its spec: one call of each
 * case uncounted, then N counted (src/measurer/memcount.c).  The timed
 * rounds never run with it: their figures are the allocator's own.
 */
#ifndef PG_MEMPASS_H
#define PG_MEMPASS_H

#include "result.h"
#include "runspec.h"

/* Calls counted per case and side, after one uncounted. */
#define PG_MEMPASS_CALLS 8

/*
 * Counts the heap of `timed`'s sides (run specs at spec_path.memN) into
 * the cases of `out`, per call of the function (`batch` calls a timed
 * call; 0 or 1: one).  What could not be counted is said in
 * out->memory.skipped.  Negative only when perfgate failed or was
 * interrupted.
 */
int pg_mempass_run(pg_bench_result *out, const pg_run_spec *timed,
                   const char *spec_path, int batch);

#endif
