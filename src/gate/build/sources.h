/*
 * sources.h - what a benchmark's build reads, found in a side's tree: its
 * sources (globs expanded), its include directories and the
 * flags file_cflags gives a file.  Below both build.c, which compiles
 * them, and affected.c, which keys a build by them.
 */
#ifndef PG_SOURCES_H
#define PG_SOURCES_H

#include "config.h"
#include "strvec.h"

/*
 * Appends nvcc and its part of a CUDA build: a shared library that uses the
 * CUDA runtime shared (one runtime, one context for perfgate and both
 * sides), found through an rpath, with code for each architecture asked
 * for: the config's cuda_arch, else the present GPU's, else a default list.
 */
void pg_sources_cuda_args(pg_strvec *a, const pg_bench_config *b);

/*
 * Appends to `files` the sources `b` compiles from the tree at `side_dir`:
 * globs expanded there, in order, each once, paths relative to the tree.
 * 0; or 1 with *missing and *message (a new string) set when a named
 * file, or every pattern, has nothing here (the benchmark is not on this
 * side), or with *message alone when a source leads outside the tree.
 * *message must be NULL on the way in.
 */
int pg_sources_find(pg_strvec *files, int *missing, char **message,
                    const pg_bench_config *b, const char *side_dir);

/*
 * The first of `b`'s library alternatives (library:, globs expanded) that
 * is a file in the tree at `side_dir`, relative to it; a new string, or
 * NULL when the build made none of them.
 */
char *pg_sources_library(const pg_bench_config *b, const char *side_dir);

/*
 * Appends to `dirs` the include directories of `b` on this side, globs
 * expanded in its tree (a directory a pattern names that is not there is
 * the compiler's to ignore).  0, or 1 with *message when one leads
 * outside.
 */
int pg_sources_includes(pg_strvec *dirs, char **message,
                        const pg_bench_config *b, const char *side_dir);

/* The file_cflags entry that gives `file` flags of its own, or NULL. */
const pg_file_flags *pg_sources_file_flags(const pg_bench_config *b,
                                           const char *file);

/* Why a file of the revision is not compiled: it leads out of it ("PATH:
 * the WHAT leads outside..."; a new string). */
char *pg_sources_outside(const char *path, const char *what);

#endif
