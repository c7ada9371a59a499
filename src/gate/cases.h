/*
 * cases.h - a benchmark's cases, asked of its problem itself, in
 * perfgate-measure (problem code is not trusted to leave perfgate
 * standing, nor loaded beside perfgate's libraries).
 */
#ifndef PG_CASES_H
#define PG_CASES_H

#include <stddef.h>

#include "config.h"

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
int pg_cases_of(pg_casespec **cases, size_t *ncases, int *owned,
                const pg_bench_config *b, const char *config_path,
                const char *problem_lib);

#endif
