/*
 * affected.h - what a build reads, as a key: whether a change can affect
 * a benchmark at all (so that one it cannot is neither built nor
 * measured), and what the build cache keeps a build under.
 *
 * A benchmark's build reads its sources and adapters and every file they
 * include, as the compiler itself reports them (`cc -M`), with its flags
 * and its compiler (the file PATH finds, and its version).  Its key is the
 * id of all of that: names and contents.  What the compiler reported is
 * kept in the cache as a manifest, with the listing of every directory of
 * the tree where a new file could shadow one it read (every directory the
 * include search could pass through first: includers' own, include:, and
 * every include flag in cflags and file_cflags), so that the next run asks
 * the compiler again only when a file it read, or such a directory,
 * changed.  The problem
 * and the config entry are the same on both sides (they come from the
 * working tree's config).  A wrong skip is worse than a slow gate: whatever
 * perfgate cannot see into (a project build, a linked library, link flags,
 * assembly, C++, CUDA, flags that name files or reach the link, a file
 * with .incbin or #embed) has no key, and is built and measured.
 */
#ifndef PG_AFFECTED_H
#define PG_AFFECTED_H

#include "cache.h"
#include "config.h"
#include "strvec.h"

/*
 * The key of side `side_dir`'s build of `b`.  0 with `key` set; 1 when it
 * cannot be told (then the benchmark is built, and not cached); negative
 * only when interrupted.  The compiler may take `timeout` seconds to say
 * what a file reads.
 */
int pg_affected_key(char key[PG_CACHE_ID], pg_cache *cache,
                    const pg_bench_config *b, const char *side_dir,
                    double timeout);

/*
 * What the _kept forms answer when only the compiler could tell the key:
 * what it reads was never asked with these flags, or has changed since.
 */
#define PG_AFFECTED_ASK 2

/*
 * pg_affected_key without asking the compiler: from what it said before,
 * while that still holds, else PG_AFFECTED_ASK.  Cheap (no process is
 * started), so that a run can tell which builds need a compiler at all.
 */
int pg_affected_key_kept(char key[PG_CACHE_ID], pg_cache *cache,
                         const pg_bench_config *b, const char *side_dir);

/*
 * The key of a problem plugin compiled from `source` by `argv` (the
 * compiler and its flags, without output or link arguments).  As
 * pg_affected_key.
 */
int pg_affected_problem_key(char key[PG_CACHE_ID], pg_cache *cache,
                            const pg_strvec *argv, const char *source,
                            double timeout);

/* pg_affected_problem_key without asking the compiler, as
 * pg_affected_key_kept. */
int pg_affected_problem_key_kept(char key[PG_CACHE_ID], pg_cache *cache,
                                 const pg_strvec *argv, const char *source);

/*
 * The key of a project's own build `command` run in a checkout of `tree`
 * (a git tree id) after the commands `earlier` (may be NULL) ran there:
 * the tree, the commands, the programs it names as PATH
 * finds them, the compilers a build finds by itself (cc, c++, gcc, g++,
 * ld, ar), whether it runs boxed, and the environment the box lets
 * through.  0 with `key` set; 1 when it cannot be kept (no tree id: the
 * working tree).
 */
int pg_affected_project_key(char key[PG_CACHE_ID], const char *tree,
                            const pg_strvec *earlier, const char *command);

#endif
