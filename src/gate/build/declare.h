/*
 * declare.h - a function's prototype read from the header that declares
 * it (perfgate.yml's `header:` beside `function:`), down to C's types.
 *
 *     - name: xxh3
 *       function: XXH3_64bits        # or its prototype, macros and all
 *       header: xxhash.h
 *
 * The header is run through the preprocessor as the benchmark's files are
 * compiled (its cflags and include:), in the head's tree (the base's when
 * the head's lacks it), after the project's own build when there is one
 * (a header may include what the build generates).  In what comes out,
 * attributes and the like are set aside (__attribute__, __declspec, asm
 * labels, [[...]], __extension__, _Nonnull ...), the function's last
 * declaration is taken (a prototype written in function: comes after the
 * header's, so it wins), and each typedef name in it is replaced by what
 * the header defines it as, down to the types perfgate knows
 * (prototype.h).  A typedef of a struct, union or enum is said to be one;
 * one of a function pointer, an array or a qualified pointer is refused.
 */
#ifndef PG_DECLARE_H
#define PG_DECLARE_H

#include "config.h"
#include "revision.h"

/*
 * The prototype of function `name` as the preprocessed header `text`
 * declares it, in C's own types, into *prototype (a new string).  0; or 1
 * with *why (a new string): not declared (with the nearest name it does
 * declare), or a type that cannot be told.  `header` names the header in
 * messages.
 */
int pg_declare_read(char **prototype, char **why, const char *text,
                    const char *name, const char *header);

/* The side whose tree has `header`: the head (1), else the base (0); -1
 * when neither has it. */
int pg_declare_side(const pg_rev rev[2], const char *header);

/*
 * Benchmark `b`'s function (its `header:` set, not yet declared): read
 * from the header in rev[1]'s tree, else rev[0]'s, preprocessing in
 * `out_dir`; then checked and its problem made (pg_config_function_ready).
 * 0; PG_ERR_USAGE with "CONFIG:LINE:COL: ..." when the header is in neither
 * tree, does not preprocess, or does not declare it; negative otherwise
 * only when perfgate failed.
 */
int pg_declare_function(pg_bench_config *b, const char *display,
                        const pg_rev rev[2], const char *out_dir,
                        double timeout);

#endif
