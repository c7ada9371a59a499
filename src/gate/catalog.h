/*
 * catalog.h - the problems perfgate knows: where they come from and what
 * they say about themselves.
 *
 * A problem is a built-in one (problems/NAME.c in perfgate's data
 * directory) or a file the config names.  What cases it runs is asked of
 * the problem itself, in perfgate-measure (problem code is not trusted to
 * leave perfgate standing, nor loaded beside perfgate's libraries).
 */
#ifndef PG_CATALOG_H
#define PG_CATALOG_H

#include <stddef.h>

#include "config.h"

/*
 * Where perfgate's headers (include/) and built-in problems (problems/)
 * are: $PERFGATE_DATA_DIR, else ../share/perfgate beside the executable,
 * else the source tree it was built from.  Static storage.
 */
const char *pg_catalog_data_dir(void);

/* The built-in problem names, sorted (NULL-terminated; static). */
const char *const *pg_catalog_builtin(void);

/* The source file of a benchmark's problem (a new string). */
char *pg_catalog_source(const pg_bench_config *b);

/*
 * The cases to run for benchmark `b` whose problem is built as
 * `problem_lib`: the configured ones, checked against the problem's
 * parameters and against this machine's memory, or else the problem's
 * defaults (its device_cases for a CUDA benchmark, when it has them).
 * On success *cases holds *ncases cases, which the caller frees with
 * pg_casespec_clear() and free() when *owned is 1 (they are b's own when
 * 0).  On error, PG_ERR_USAGE with a message naming `config_path`'s line
 * or the problem, and nothing to free.
 */
int pg_catalog_cases(pg_casespec **cases, size_t *ncases, int *owned,
                     const pg_bench_config *b, const char *config_path,
                     const char *problem_lib);

#endif
