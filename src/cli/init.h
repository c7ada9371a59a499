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

/* The same for an entry whose lines (after "- name: NAME") are `body`. */
int pg_init_add_entry(pg_str *out, const char *text, size_t len,
                      const char *display, const char *dir,
                      const char *const *builtins, const char *name,
                      const char *body);

/*
 * Appends the lines of a benchmark entry for the function `prototype` on
 * `sources` (pg_init_add_entry's body): `function`, `sources`, `args`
 * guessed from the prototype (the size parameter named as the cases'
 * parameter, each pointer a buffer of that many elements, text for bytes
 * read) with a "# TODO" where nothing can be guessed, and three cases.
 * PG_ERR_USAGE when the prototype does not parse.
 */
int pg_init_function_entry(pg_str *out, const char *prototype,
                           const char *const *sources, size_t nsources);

/*
 * Appends a problem file for the function `prototype`, to be written at
 * `path` (for its messages): each input a buffer of n random elements,
 * each output one of n, and a verify() that fails until it is written.
 */
int pg_init_function_problem(pg_str *out, const char *prototype,
                             const char *path);

#endif
