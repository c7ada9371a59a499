/*
 * fs.h - file system helpers: paths, directories, whole-file I/O.
 */
#ifndef PG_FS_H
#define PG_FS_H

#include <stddef.h>

/* `dir`/`name` as a new string (free() it); `name` absolute wins. */
char *pg_path_join(const char *dir, const char *name);

/* The directory part of `path` as a new string ("." when none). */
char *pg_path_dirname(const char *path);

/* The last part of `path`, inside it: "libc.so.6" of "/lib/libc.so.6". */
const char *pg_path_basename(const char *path);

/* The directory of the running executable (a new string), or NULL. */
char *pg_self_dir(void);

/* 1 when `path` exists (any type), else 0. */
int pg_path_exists(const char *path);

/* 1 when `path` is a regular file (following symlinks). */
int pg_path_is_file(const char *path);

/* The executable `cmd` names: itself when it has a '/', else the first in
 * $PATH; a new string, or NULL when there is none. */
char *pg_path_search(const char *cmd);

/*
 * Whether `path`, with every symbolic link in it followed, lies inside the
 * directory `root` (or is it): 1 inside, 0 outside, -1 when either cannot
 * be resolved (errno).  A repository's files may be links: what perfgate
 * compiles or reads from one must not be a way to read the machine's.
 */
int pg_path_inside(const char *root, const char *path);

/* Creates `path` and its missing parents (mode 0755); 0 or -1 (errno). */
int pg_mkdir_p(const char *path);

/* Removes `path` and everything below it; missing is fine.  0 or -1. */
int pg_rm_rf(const char *path);

/* Writes `len` bytes to `path` (created, mode 0644 or 0755); 0 or -1. */
int pg_write_file(const char *path, const void *data, size_t len,
                  int executable);

/*
 * Reads all of `path` into a new NUL-terminated buffer (free() it), at most
 * `max` bytes; 0, or -1 with errno (EFBIG when larger than `max`), and
 * *out and *len then untouched.  `len` may be NULL.
 */
int pg_read_file(char **out, size_t *len, const char *path, size_t max);

/*
 * The same for a file that must be a regular file, not through a symbolic
 * link: one planted where perfgate keeps its own files (a FIFO would block
 * the read forever, a link lead elsewhere) is refused, errno EINVAL or
 * ELOOP.
 */
int pg_read_regular_file(char **out, size_t *len, const char *path, size_t max);

#endif
