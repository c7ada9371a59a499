/*
 * build.h - compiling the user's sources and the problem plugins.
 *
 * Each benchmark is built per side into one shared library from its
 * sources, in that side's directory (so the compiler's messages name the
 * files as the user knows them).  The compiler runs without a shell, under
 * supervision, with its output capped.
 */
#ifndef PG_BUILD_H
#define PG_BUILD_H

#include "cache.h"
#include "config.h"
#include "strvec.h"

typedef struct pg_build {
    int ok;        /* 1: built */
    int missing;   /* 1: a source is not in this side's tree */
    char *lib;     /* the library, when built */
    char *message; /* why not, in one line */
    char *log;     /* the compiler's last lines */
    double seconds;
    int cached; /* 1: taken from the build cache */
} pg_build;

/*
 * How long one build may take: ten times what a side may run (600 s at
 * the default timeout of 60 s), so that --timeout moves both.
 */
double pg_build_limit(const pg_settings *settings);

/*
 * Builds benchmark `b` from the tree at `side_dir` into a directory named
 * `tag` in `out_dir`, naming the library after `tag` too: its sources (globs
 * resolved in that tree), the files file_cflags names compiled apart with their
 * flags, its adapters, the library its project build made (an archive or object
 * linked in; a shared library is taken as it is), and its ldflags.  The
 * compiler runs in the box (box.h), writing only there, and may take `timeout`
 * seconds (0: 600) and half the machine's memory.  A failed build is not an
 * error: it is reported in `out`.  Returns negative only when perfgate itself
 * failed (interrupted, or the compiler could not be started); `out` is to be
 * pg_build_clear()ed either way.
 */
int pg_build_solution(pg_build *out, const pg_bench_config *b,
                      const char *side_dir, const char *out_dir,
                      const char *tag, double timeout);

/*
 * Runs `source` (C text) through the preprocessor as the benchmark's files
 * are compiled (its compiler, cflags and include: resolved in `side_dir`,
 * from that directory, in the box writing only `out_dir`), the result
 * into *text (a new string).  A source that does not preprocess is
 * reported in `out` (its message and the compiler's log), *text NULL.
 * Negative only when perfgate itself failed.
 */
int pg_build_preprocess(pg_build *out, char **text, const pg_bench_config *b,
                        const char *side_dir, const char *out_dir,
                        const char *source, double timeout);

/*
 * Takes the build of `b` kept under `key` from `cache`, as the library
 * pg_build_solution would have made in `out_dir` for `tag`.  1 on a hit
 * (out->ok, out->lib, out->cached); 0 on a miss, `out` then cleared.
 */
int pg_build_from_cache(pg_build *out, pg_cache *cache, const char *key,
                        const pg_bench_config *b, const char *out_dir,
                        const char *tag);

/* Keeps a successful build in `cache` under `key` (best effort). */
void pg_build_keep(pg_cache *cache, const char *key, const pg_build *build);

/*
 * Runs a project's own build `command` (with sh, in `side_dir`, which must
 * be a private copy) for side `side` ("base" or "head"), within `timeout`
 * seconds and half the machine's memory, in the box (box.h) with
 * `side_dir` the one tree it may write and `other_dir` (the other side's
 * tree; may be NULL) hidden.  The command gets PERFGATE_SIDE,
 * PERFGATE_CC, PERFGATE_CFLAGS (-fPIC -fno-semantic-interposition) and
 * PERFGATE_LDFLAGS (-Wl,-Bsymbolic) to use as it can.  A failed build is
 * reported in `out` (message and log), not as an error.
 */
int pg_build_project(pg_build *out, const char *command, const char *side_dir,
                     const char *other_dir, const char *side, double timeout);

/*
 * Builds the problem plugin of `b` into `out_dir`, or takes it from `cache`
 * (may be NULL) when it was built before from the same files by the same
 * compiler; *out_lib is the library's path, a new string.  A problem that does
 * not compile is a usage error (PG_ERR_USAGE) naming the file, and *out_lib is
 * then NULL.
 */
int pg_build_problem(char **out_lib, const pg_bench_config *b,
                     const char *out_dir, pg_cache *cache);

/*
 * 1 when pg_build_problem would take `b`'s problem from `cache` with no
 * compiler asked: its key is told from what the compiler said before and
 * the build is kept.  (A function's problem is written into `out_dir`.)
 */
int pg_build_problem_kept(const pg_bench_config *b, const char *out_dir,
                          pg_cache *cache);

void pg_build_clear(pg_build *build);

#endif
