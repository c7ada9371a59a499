/*
 * outputs.h - what a project's own build wrote into its tree, as one
 * archive: taken after the build, put back into a fresh checkout of the
 * same tree instead of building it again (project.h keeps it in the
 * build cache).
 *
 * What the build wrote is told from the tree's state before it (each
 * path's inode, change time, size and type, taken with lstat): a path
 * that is new, or whose inode or change time moved, is an output; a path
 * that is gone was removed.  The change time cannot be set by the build,
 * so a file rewritten in place is seen even when its size and contents'
 * time are kept.  Regular files (their mode's permission bits), symbolic
 * links and new directories are kept; a build that made anything else (a
 * FIFO, a socket, a device) is not kept.
 *
 * The archive is text headers and bytes: "perfgate-outputs 1\n", then per
 * entry "TYPE MODE LENGTH PATH\n" and LENGTH bytes (a file's contents, a
 * link's target), TYPE one of x (removed), d, f, l; removals first, then
 * the rest parents first.  Putting it back never writes through a link:
 * every directory on an entry's way must be a real one, and a path in the
 * way is replaced, not followed.
 */
#ifndef PG_OUTPUTS_H
#define PG_OUTPUTS_H

#include "str.h"

#include <stddef.h>

typedef struct pg_tree_state pg_tree_state;

/*
 * The state of every path under `dir` (not following links), into a new
 * *out.  0, or -1 when the tree cannot be read.  Then waits until a file
 * written next would get a later change time than any it saw (the
 * kernel's clock ticks coarsely), so that a build's first write is told
 * from the checkout's last.
 */
int pg_tree_state_read(pg_tree_state **out, const char *dir);

void pg_tree_state_free(pg_tree_state *state);

/*
 * What changed under `dir` since `before`, as an archive appended to
 * `out`: 0; or 1, with *why (a new string), when it cannot be kept (more
 * than `max` bytes, a path with a newline, a FIFO, an unreadable file).
 */
int pg_outputs_pack(pg_str *out, char **why, const pg_tree_state *before,
                    const char *dir, size_t max);

/*
 * Puts the archive `data` (`len` bytes) back under `dir`.  0; or -1, with
 * *why (a new string), when it is not an archive or an entry cannot be
 * written: the tree is then part-written, and to be checked out again.
 */
int pg_outputs_unpack(char **why, const char *data, size_t len,
                      const char *dir);

#endif
