/*
 * init.h - what `perfgate init` writes: a starter solution for a problem,
 * and the config with a benchmark added.
 */
#ifndef PG_INIT_H
#define PG_INIT_H

#include <stddef.h>

#include "str.h"

/*
 * Appends a C starter solution for `problem` (whose solution has
 * `signature`) to `out`: the signature, and a body that only marks its
 * parameters used.  -1 when the signature has no parameter list, and
 * `out` is then as it was.
 */
int pg_init_starter_c(pg_str *out, const char *problem, const char *signature);

/*
 * The same in CUDA: an empty __global__ kernel taking the solution's
 * parameters, and the extern "C" solution launching it.
 */
int pg_init_starter_cuda(pg_str *out, const char *problem,
                         const char *signature);

/*
 * Appends a benchmark NAME on PROBLEM with one SOURCE to the config `text`
 * (NULL: a new config) into `out`, for `perfgate init`.  The config must
 * parse, must not have a benchmark NAME yet, and must end with its block
 * list of benchmarks (the usual layout), or PG_ERR_USAGE says what to add
 * by hand: perfgate does not rewrite a config it cannot edit safely.
 * On error `out` may hold part of the text: the caller discards it.
 */
int pg_init_add_benchmark(pg_str *out, const char *text, size_t len,
                          const char *display, const char *dir,
                          const char *const *builtins, const char *name,
                          const char *problem, const char *source);

#endif
