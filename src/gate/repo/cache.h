/*
 * cache.h - builds kept between runs, by a key of everything they read.
 *
 * An entry is one file, <dir>/v1/<first two digits>/<key>.<kind>: a header
 * line ("perfgate-cache 1 <id of the payload> <length>") and the payload.
 * It is written to a temporary name beside it and renamed into place, so
 * a reader sees a whole entry or none, and two perfgate runs can share the
 * directory; one whose payload does not match its header (a damaged or
 * truncated file) is never used, and removed.  The directory is kept under
 * a size bound by removing what was used least recently.
 *
 * Keys and content ids are git object ids (libgit2's git_odb_hash), so a
 * file's id is its blob id.  A cache opened without a directory keeps
 * nothing between runs, but still remembers file ids for the run.
 */
#ifndef PG_CACHE_H
#define PG_CACHE_H

#include <stddef.h>
#include <stdint.h>

#define PG_CACHE_ID 41 /* hex digits and a NUL */

typedef struct pg_cache pg_cache;

typedef struct pg_cache_stats {
    unsigned hits, misses, stored, damaged, evicted;
} pg_cache_stats;

/*
 * $XDG_CACHE_HOME/perfgate, else $HOME/.cache/perfgate; a new string, or
 * NULL when neither variable is set.
 */
char *pg_cache_default_dir(void);

/* The default bound: $PERFGATE_CACHE_SIZE ("500M", "2G", bytes), or 1 GiB. */
uint64_t pg_cache_default_size(void);

/*
 * Opens the cache at `dir` (created, mode 0700), bounded to `max_bytes`;
 * `dir` NULL gives one that keeps nothing.  PG_ERR_USAGE, with the reason,
 * when the directory cannot be made or is not this user's alone (another
 * user could plant builds in it).
 */
int pg_cache_open(pg_cache **out, const char *dir, uint64_t max_bytes);

/* The directory, or NULL when nothing is kept. */
const char *pg_cache_dir(const pg_cache *c);

/* The id of `len` bytes at `data` (their blob id). */
void pg_cache_id(char out[PG_CACHE_ID], const void *data, size_t len);

/*
 * The blob id of the file at `path`, or "absent" when there is none; with
 * `stable`, remembered for the rest of the run (a file outside the trees
 * that nothing of perfgate's writes).  0, or -1 when it cannot be read.
 */
int pg_cache_file_id(pg_cache *c, char out[PG_CACHE_ID], const char *path,
                     int stable);

/*
 * Entry `key`.`kind` into a new buffer (*data, NUL-terminated, *len bytes).
 * 1 on a hit; 0 on a miss: absent, or damaged (then removed).
 */
int pg_cache_get(pg_cache *c, const char *key, const char *kind, char **data,
                 size_t *len);

/* As pg_cache_get, writing the payload to the file `dest` (mode 0755). */
int pg_cache_get_file(pg_cache *c, const char *key, const char *kind,
                      const char *dest);

/* 1 when entry `key`.`kind` is there (whether it is whole, pg_cache_get
 * tells); 0 when it is not. */
int pg_cache_has(const pg_cache *c, const char *key, const char *kind);

/* Stores an entry; 0, or -1 when it could not (the run goes on). */
int pg_cache_put(pg_cache *c, const char *key, const char *kind,
                 const void *data, size_t len);

/* Stores the file at `src` as entry `key`.`kind`; 0 or -1. */
int pg_cache_put_file(pg_cache *c, const char *key, const char *kind,
                      const char *src);

/*
 * Brings the directory under its bound, removing the least recently used
 * entries (down to 80% of it), and temporary files that a run killed
 * mid-write left over an hour ago.
 */
void pg_cache_trim(pg_cache *c);

/* What this process did with the cache so far. */
pg_cache_stats pg_cache_get_stats(const pg_cache *c);

void pg_cache_free(pg_cache *c);

#endif
