/*
 * cache.c - builds kept between runs (cache.h).
 */
#include "cache.h"
#include "env.h"
#include "error.h"
#include "fs.h"
#include "str.h"
#include "strvec.h"
#include "token.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

#define MAGIC "perfgate-cache 1 "
#define MAX_ENTRY ((size_t)1 << 30)

struct pg_cache {
    char *dir; /* <dir>/v1, or NULL */
    uint64_t max_bytes;
    pg_strvec memo; /* "path\tid" of stable files */
    pg_cache_stats stats;
};

char *pg_cache_default_dir(void)
{
    const char *xdg = pg_env("XDG_CACHE_HOME"), *home = pg_env("HOME");

    if (xdg && *xdg == '/')
        return pg_path_join(xdg, "perfgate");
    if (home && *home == '/')
        return pg_strdupf("%s/.cache/perfgate", home);
    return NULL;
}

uint64_t pg_cache_default_size(void)
{
    const char *s = pg_env("PERFGATE_CACHE_SIZE");
    char *end;
    double v;

    if (!s || !*s)
        return (uint64_t)1 << 30;
    v = strtod(s, &end);
    if (end == s || v < 0)
        return (uint64_t)1 << 30;
    switch (*end) {
    case 'k':
    case 'K':
        v *= 1024;
        break;
    case 'm':
    case 'M':
        v *= 1024 * 1024;
        break;
    case 'g':
    case 'G':
        v *= 1024.0 * 1024 * 1024;
        break;
    default:
        break;
    }
    return (uint64_t)v;
}

/* 0 when `path` is a directory of this user's alone, not a link. */
static int own_dir(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) &&
                   st.st_uid == geteuid() && !(st.st_mode & 022)
               ? 0
               : -1;
}

int pg_cache_open(pg_cache **out, const char *dir, uint64_t max_bytes)
{
    pg_cache *c = pg_calloc(1, sizeof(*c));
    struct stat st;

    *out = NULL;
    git_libgit2_init();
    c->max_bytes = max_bytes;
    if (!dir) {
        *out = c;
        return 0;
    }
    c->dir = pg_path_join(dir, "v1");
    /* A directory that is not there is made, the user's alone; one that
     * is there is checked before anything is made in it or changed. */
    if (lstat(dir, &st) < 0 && errno == ENOENT) {
        if (pg_mkdir_p(dir) < 0 || chmod(dir, 0700) < 0) {
            int e = errno;
            pg_cache_free(c);
            return pg_error_set(PG_ERR_USAGE,
                                "cannot use the build cache %s: %s (choose "
                                "another with --cache-dir, or --no-cache)",
                                dir, strerror(e));
        }
    }
    if (own_dir(dir) < 0 || (mkdir(c->dir, 0700) < 0 && errno != EEXIST) ||
        own_dir(c->dir) < 0) {
        pg_cache_free(c);
        return pg_error_set(PG_ERR_USAGE,
                            "cannot use the build cache %s: it is not a "
                            "directory of this user's alone (a symbolic "
                            "link, another user's, or one others may write "
                            "to), and builds planted in it would be "
                            "measured (choose another with --cache-dir, "
                            "chmod go-w it, or --no-cache)",
                            dir);
    }
    *out = c;
    return 0;
}

const char *pg_cache_dir(const pg_cache *c)
{
    return c->dir;
}

static void id_of(char out[PG_CACHE_ID], const git_oid *oid)
{
    git_oid_tostr(out, PG_CACHE_ID, oid);
}

void pg_cache_id(char out[PG_CACHE_ID], const void *data, size_t len)
{
    git_oid oid;

    git_libgit2_init();
    if (git_odb_hash(&oid, data, len, GIT_OBJECT_BLOB) < 0)
        memset(&oid, 0, sizeof(oid));
    id_of(out, &oid);
}

int pg_cache_file_id(pg_cache *c, char out[PG_CACHE_ID], const char *path,
                     int stable)
{
    size_t n = strlen(path), i;
    struct stat st;
    git_oid oid;

    if (stable)
        for (i = 0; i < c->memo.n; i++)
            if (!strncmp(c->memo.v[i], path, n) && c->memo.v[i][n] == '\t') {
                memcpy(out, c->memo.v[i] + n + 1, PG_CACHE_ID);
                return 0;
            }
    if (stat(path, &st) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
        snprintf(out, PG_CACHE_ID, "absent");
    } else if (!S_ISREG(st.st_mode) ||
               git_odb_hashfile(&oid, path, GIT_OBJECT_BLOB) < 0) {
        return -1;
    } else {
        id_of(out, &oid);
    }
    if (stable)
        pg_strvec_pushf(&c->memo, "%s\t%s", path, out);
    return 0;
}

static char *entry_path(const pg_cache *c, const char *key, const char *kind)
{
    return pg_strdupf("%s/%.2s/%s.%s", c->dir, key, key, kind);
}

static void touch(const char *path)
{
    utimensat(AT_FDCWD, path, NULL, 0);
}

int pg_cache_get(pg_cache *c, const char *key, const char *kind, char **data,
                 size_t *len)
{
    char *path, *buf = NULL, *nl, id[PG_CACHE_ID];
    char want[PG_CACHE_ID] = "";
    unsigned long long n = 0;
    size_t size = 0, head;

    *data = NULL;
    *len = 0;
    if (!c->dir || strlen(key) < 2) {
        c->stats.misses++;
        return 0;
    }
    path = entry_path(c, key, kind);
    if (pg_read_regular_file(&buf, &size, path, MAX_ENTRY) < 0) {
        c->stats.misses++;
        free(path);
        return 0;
    }
    nl = memchr(buf, '\n', size);
    head = nl ? (size_t)(nl - buf) + 1 : 0;
    if (nl && !strncmp(buf, MAGIC, strlen(MAGIC)))
        sscanf(buf + strlen(MAGIC), "%40s %llu", want, &n);
    if (head)
        pg_cache_id(id, buf + head, size - head);
    if (!head || n != size - head || strcmp(id, want)) {
        /* Damaged: never used, and out of the way of the next run. */
        unlink(path);
        c->stats.damaged++;
        c->stats.misses++;
        free(buf);
        free(path);
        return 0;
    }
    touch(path);
    free(path);
    memmove(buf, buf + head, size - head);
    buf[size - head] = '\0';
    *data = buf;
    *len = size - head;
    c->stats.hits++;
    return 1;
}

int pg_cache_get_file(pg_cache *c, const char *key, const char *kind,
                      const char *dest)
{
    char *data;
    size_t len;
    int hit = pg_cache_get(c, key, kind, &data, &len);

    if (hit && pg_write_file(dest, data, len, 1) < 0) {
        unlink(dest);
        hit = 0;
    }
    free(data);
    return hit;
}

int pg_cache_has(const pg_cache *c, const char *key, const char *kind)
{
    char *path;
    int has;

    if (!c || !c->dir || strlen(key) < 2)
        return 0;
    path = entry_path(c, key, kind);
    has = access(path, F_OK) == 0;
    free(path);
    return has;
}

int pg_cache_put(pg_cache *c, const char *key, const char *kind,
                 const void *data, size_t len)
{
    char id[PG_CACHE_ID], token[33], *path, *dir, *tmp;
    pg_str head = PG_STR_INIT;
    int fd, err = -1;

    if (!c->dir || strlen(key) < 2)
        return -1;
    pg_cache_id(id, data, len);
    pg_str_printf(&head, "%s%s %zu\n", MAGIC, id, len);
    path = entry_path(c, key, kind);
    dir = pg_path_dirname(path);
    pg_token(token);
    tmp = pg_strdupf("%s/.tmp.%s", dir, token);
    if (pg_mkdir_p(dir) == 0 &&
        (fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) >= 0) {
        FILE *f = fdopen(fd, "wb");
        int ok = f &&
                 fwrite(pg_str_cstr(&head), 1, head.size, f) == head.size &&
                 fwrite(data, 1, len, f) == len;
        if (f ? fclose(f) != 0 : close(fd) != 0)
            ok = 0;
        /* rename(2) replaces atomically: a reader sees one whole entry. */
        if (ok && rename(tmp, path) == 0)
            err = 0;
        else
            unlink(tmp);
    }
    if (!err)
        c->stats.stored++;
    pg_str_clear(&head);
    free(path);
    free(dir);
    free(tmp);
    return err;
}

int pg_cache_put_file(pg_cache *c, const char *key, const char *kind,
                      const char *src)
{
    char *data;
    size_t len;
    int err;

    if (!c->dir || pg_read_file(&data, &len, src, MAX_ENTRY) < 0)
        return -1;
    err = pg_cache_put(c, key, kind, data, len);
    free(data);
    return err;
}

typedef struct entry {
    char *path;
    off_t size;
    time_t used;
} entry;

static int older_first(const void *a, const void *b)
{
    const entry *x = a, *y = b;

    return x->used < y->used   ? -1
           : x->used > y->used ? 1
                               : strcmp(x->path, y->path);
}

/*
 * A directory of the cache, never through a symbolic link: one planted in
 * the cache (v1/zz -> $HOME) would have the trim delete what it finds
 * there.  NULL when it is not a directory.
 */
static DIR *open_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d;

    if (fd < 0)
        return NULL;
    if (!(d = fdopendir(fd)))
        close(fd);
    return d;
}

/* The entries under the cache; temporaries over an hour old removed. */
static size_t list_entries(const pg_cache *c, entry **out, uint64_t *total)
{
    DIR *top = open_dir(c->dir), *sub;
    struct dirent *d, *e;
    size_t n = 0, cap = 0;
    time_t now = time(NULL);

    *out = NULL;
    *total = 0;
    while (top && (d = readdir(top))) {
        char *subdir;
        if (d->d_name[0] == '.')
            continue;
        subdir = pg_path_join(c->dir, d->d_name);
        sub = open_dir(subdir);
        while (sub && (e = readdir(sub))) {
            char *p = pg_path_join(subdir, e->d_name);
            struct stat st;
            if (e->d_name[0] == '.' && strncmp(e->d_name, ".tmp.", 5)) {
                free(p);
                continue;
            }
            if (lstat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
                free(p);
            } else if (!strncmp(e->d_name, ".tmp.", 5)) {
                if (now - st.st_mtime > 3600)
                    unlink(p);
                free(p);
            } else {
                if (n == cap) {
                    cap = cap ? 2 * cap : 256;
                    *out = pg_realloc(*out, cap * sizeof(**out));
                }
                (*out)[n].path = p;
                (*out)[n].size = st.st_size;
                (*out)[n].used = st.st_mtime;
                *total += (uint64_t)st.st_size;
                n++;
            }
        }
        if (sub)
            closedir(sub);
        free(subdir);
    }
    if (top)
        closedir(top);
    return n;
}

void pg_cache_trim(pg_cache *c)
{
    entry *all;
    uint64_t total;
    size_t n, i;

    if (!c->dir)
        return;
    n = list_entries(c, &all, &total);
    if (total > c->max_bytes) {
        uint64_t goal = c->max_bytes / 5 * 4;
        qsort(all, n, sizeof(*all), older_first);
        for (i = 0; i < n && total > goal; i++)
            if (unlink(all[i].path) == 0) {
                total -= (uint64_t)all[i].size;
                c->stats.evicted++;
            }
    }
    for (i = 0; i < n; i++)
        free(all[i].path);
    free(all);
}

pg_cache_stats pg_cache_get_stats(const pg_cache *c)
{
    return c->stats;
}

void pg_cache_free(pg_cache *c)
{
    if (!c)
        return;
    free(c->dir);
    pg_strvec_clear(&c->memo);
    free(c);
}
