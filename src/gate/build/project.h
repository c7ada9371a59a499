/*
 * project.h - a project's own build (a config's `build:` command), run
 * once per tree, toolchain and command: what it wrote into its tree is
 * kept in the build cache under its key (affected.h's
 * pg_affected_project_key) and put back into the next checkout of the
 * same tree, by the next run, a self-check's second side, a bisect's next
 * probe or another shard, instead of building again.
 */
#ifndef PG_PROJECT_H
#define PG_PROJECT_H

#include "build.h"
#include "cache.h"
#include "revision.h"
#include "strvec.h"

/* The most a kept project build may hold. */
#define PG_PROJECT_MAX ((size_t)256 << 20)

/*
 * Side `rev`'s project build `command` in rev->dir, after the commands
 * `earlier` (may be NULL) ran there, as pg_build_project runs it
 * (`other_dir`, `side` and `timeout` are its): from `cache` when
 * it holds one of the same key (out->ok and out->cached set), else run
 * and, when it succeeded on a whole tree, kept.  *note is a new string
 * when a successful build could not be kept (why), else NULL.  Negative
 * only when perfgate itself failed: interrupted, or a kept build that
 * could not be put back (its tree is then part-written).
 */
int pg_project_build(pg_build *out, char **note, pg_cache *cache,
                     const char *command, const pg_strvec *earlier,
                     const pg_rev *rev, const char *other_dir, const char *side,
                     double timeout);

#endif
