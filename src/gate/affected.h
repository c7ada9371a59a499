/*
 * affected.h - whether a change can affect a benchmark at all, so that one
 * it cannot is neither built nor measured.
 *
 * A benchmark's build reads its sources and adapters and every file they
 * include, as the compiler itself reports them (`cc -M`), with its flags;
 * its config entry, problem and adapters are the same on both sides (they
 * come from the working tree's config), and so is the compiler.  When both
 * sides read the same files, byte for byte, nothing can differ between
 * them.  A wrong skip is worse than a slow gate: whatever perfgate cannot
 * see into (a project build, a linked library, link flags, assembly, CUDA,
 * flags that name files) is affected.
 */
#ifndef PG_AFFECTED_H
#define PG_AFFECTED_H

#include "config.h"

/*
 * 0 when nothing `b` builds from can differ between the trees at
 * side_dir[0] and side_dir[1]; 1 when it can, or when that cannot be told
 * (then it is built and measured as ever).  The compiler may take
 * `timeout` seconds to say what a file reads.  Negative only when
 * interrupted.
 */
int pg_affected(const pg_bench_config *b, const char *const side_dir[2],
                double timeout);

#endif
