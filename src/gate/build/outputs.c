/*
 * outputs.c - what a project's own build wrote into its tree (outputs.h).
 */
#include "outputs.h"
#include "fs.h"
#include "str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

#define MAGIC "perfgate-outputs 1\n"
#define MAX_DEPTH 256

typedef struct node {
    char *path; /* relative to the tree */
    struct stat st;
} node;

struct pg_tree_state {
    node *v;
    size_t n, alloc;
};

static int by_path(const void *a, const void *b)
{
    return strcmp(((const node *)a)->path, ((const node *)b)->path);
}

static void push(pg_tree_state *s, const char *path, const struct stat *st)
{
    if (s->n == s->alloc) {
        s->alloc = s->alloc ? 2 * s->alloc : 256;
        s->v = pg_realloc(s->v, s->alloc * sizeof(*s->v));
    }
    s->v[s->n].path = pg_strdup(path);
    s->v[s->n].st = *st;
    s->n++;
}

/* Every path below `root`/`rel` into `s`, links not followed. */
static int walk(pg_tree_state *s, const char *root, const char *rel, int depth)
{
    char *dir = *rel ? pg_path_join(root, rel) : pg_strdup(root);
    DIR *d = opendir(dir);
    struct dirent *e;
    int err = 0;

    free(dir);
    if (!d || depth > MAX_DEPTH) {
        if (d)
            closedir(d);
        return -1;
    }
    while (!err && (e = readdir(d))) {
        char *path, *full;
        struct stat st;

        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        path =
            *rel ? pg_strdupf("%s/%s", rel, e->d_name) : pg_strdup(e->d_name);
        full = pg_path_join(root, path);
        if (lstat(full, &st) < 0)
            err = -1;
        else {
            push(s, path, &st);
            if (S_ISDIR(st.st_mode))
                err = walk(s, root, path, depth + 1);
        }
        free(full);
        free(path);
    }
    closedir(d);
    return err;
}

static int read_state(pg_tree_state *s, const char *dir)
{
    memset(s, 0, sizeof(*s));
    if (walk(s, dir, "", 0) < 0)
        return -1;
    qsort(s->v, s->n, sizeof(*s->v), by_path);
    return 0;
}

static void clear_state(pg_tree_state *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        free(s->v[i].path);
    free(s->v);
    memset(s, 0, sizeof(*s));
}

void pg_tree_state_free(pg_tree_state *state)
{
    if (!state)
        return;
    clear_state(state);
    free(state);
}

int pg_tree_state_read(pg_tree_state **out, const char *dir)
{
    pg_tree_state *s = pg_calloc(1, sizeof(*s));
    /* The kernel stamps files from a clock that ticks every few
     * milliseconds: past the next tick, a write gets a later time than
     * the checkout's last. */
    struct timespec wait = {0, 20 * 1000 * 1000};

    *out = NULL;
    if (read_state(s, dir) < 0) {
        pg_tree_state_free(s);
        return -1;
    }
    while (nanosleep(&wait, &wait) < 0 && errno == EINTR)
        ;
    *out = s;
    return 0;
}

static const node *find(const pg_tree_state *s, const char *path)
{
    node key;

    key.path = (char *)path;
    return s->n ? bsearch(&key, s->v, s->n, sizeof(*s->v), by_path) : NULL;
}

/* 1 when the build left `now` as it found it. */
static int same(const node *was, const struct stat *now)
{
    if ((was->st.st_mode & S_IFMT) != (now->st_mode & S_IFMT))
        return 0;
    if (S_ISDIR(now->st_mode))
        return 1;
    return was->st.st_ino == now->st_ino && was->st.st_size == now->st_size &&
           was->st.st_ctim.tv_sec == now->st_ctim.tv_sec &&
           was->st.st_ctim.tv_nsec == now->st_ctim.tv_nsec;
}

static void header(pg_str *out, char type, unsigned mode, size_t len,
                   const char *path)
{
    pg_str_printf(out, "%c %o %zu %s\n", type, mode & 07777u, len, path);
}

/* One path the build made or changed, into `out`; 1 with *why when it
 * cannot be kept. */
static int pack_one(pg_str *out, char **why, const char *dir, const node *n)
{
    char *full = pg_path_join(dir, n->path), *data = NULL, target[4096];
    unsigned mode = (unsigned)n->st.st_mode & 0777u;
    size_t len = 0;
    ssize_t k;
    int err = 0;

    if (S_ISDIR(n->st.st_mode)) {
        header(out, 'd', mode, 0, n->path);
    } else if (S_ISLNK(n->st.st_mode)) {
        if ((k = readlink(full, target, sizeof(target) - 1)) < 0) {
            *why = pg_strdupf("cannot read the link %s", n->path);
            err = 1;
        } else {
            header(out, 'l', 0777, (size_t)k, n->path);
            pg_str_put(out, target, (size_t)k);
        }
    } else if (S_ISREG(n->st.st_mode)) {
        if (pg_read_regular_file(&data, &len, full, (size_t)-1 >> 1) < 0) {
            *why = pg_strdupf("cannot read %s", n->path);
            err = 1;
        } else {
            header(out, 'f', mode, len, n->path);
            pg_str_put(out, data, len);
        }
    } else {
        *why = pg_strdupf("it made %s, which is neither a file, a link nor "
                          "a directory",
                          n->path);
        err = 1;
    }
    free(data);
    free(full);
    return err;
}

int pg_outputs_pack(pg_str *out, char **why, const pg_tree_state *before,
                    const char *dir, size_t max)
{
    pg_tree_state after;
    size_t i, start = out->size;
    int err = 0;

    *why = NULL;
    if (read_state(&after, dir) < 0) {
        clear_state(&after);
        *why = pg_strdup("its tree could not be read after it");
        return 1;
    }
    pg_str_puts(out, MAGIC);
    for (i = 0; i < before->n; i++)
        if (!find(&after, before->v[i].path))
            header(out, 'x', 0, 0, before->v[i].path);
    for (i = 0; !err && i < after.n; i++) {
        const node *was = find(before, after.v[i].path);

        if (was && same(was, &after.v[i].st))
            continue;
        if (strchr(after.v[i].path, '\n')) {
            *why = pg_strdup("it made a path with a newline in its name");
            err = 1;
        } else if ((size_t)after.v[i].st.st_size > max ||
                   ((err = pack_one(out, why, dir, &after.v[i])) == 0 &&
                    out->size - start > max)) {
            free(*why);
            *why = pg_strdupf("what it made is over %zu MiB", max >> 20);
            err = 1;
        }
    }
    clear_state(&after);
    return err;
}

/* 1 when `path` is a relative path of plain names ("a/b"): no "." or
 * "..", no empty name. */
static int path_ok(const char *path)
{
    const char *p = path;

    if (!*p || *p == '/')
        return 0;
    while (*p) {
        size_t n = strcspn(p, "/");
        if (n == 0 || (n == 1 && p[0] == '.') ||
            (n == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += n;
        if (*p == '/')
            p++;
        if (!*p && p[-1] == '/')
            return 0;
    }
    return 1;
}

/*
 * Makes every directory on the way to `rel` under `root`, where each one
 * already there must be a real directory, never a link.  0 or -1.
 */
static int make_way(const char *root, const char *rel)
{
    char *part = pg_strdup(rel), *slash;
    int err = 0;

    for (slash = strchr(part, '/'); !err && slash;
         slash = strchr(slash + 1, '/')) {
        char *full;
        struct stat st;

        *slash = '\0';
        full = pg_path_join(root, part);
        if (lstat(full, &st) < 0)
            err = errno == ENOENT && mkdir(full, 0755) == 0 ? 0 : -1;
        else if (!S_ISDIR(st.st_mode))
            err = -1;
        free(full);
        *slash = '/';
    }
    free(part);
    return err;
}

/* Whatever is at `full` out of the way (a directory with all below it);
 * not there is fine. */
static int clear_path(const char *full)
{
    struct stat st;

    if (lstat(full, &st) < 0)
        return errno == ENOENT ? 0 : -1;
    if (S_ISDIR(st.st_mode))
        return pg_rm_rf(full) == 0 ? 0 : -1;
    return unlink(full);
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* One entry back under `root`: 0 or -1. */
static int unpack_one(const char *root, char type, unsigned mode,
                      const char *path, const char *data, size_t len)
{
    char *full = pg_path_join(root, path), *target;
    struct stat st;
    int fd, err = -1;

    if (make_way(root, path) < 0) {
        /* A removal beyond a link or a missing directory has nothing to
         * remove. */
        err = type == 'x' ? 0 : -1;
        goto done;
    }
    switch (type) {
    case 'x':
        err = clear_path(full);
        break;
    case 'd':
        if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode))
            err = 0;
        else if (clear_path(full) == 0 && mkdir(full, 0700) == 0)
            err = chmod(full, (mode & 0777u) | 0700u);
        break;
    case 'f':
        if (clear_path(full) < 0)
            break;
        fd = open(full, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  0600);
        if (fd < 0)
            break;
        err = write_all(fd, data, len);
        if (fchmod(fd, mode & 0777u) < 0)
            err = -1;
        if (close(fd) < 0)
            err = -1;
        break;
    case 'l':
        target = pg_strdupf("%.*s", (int)len, data);
        if (clear_path(full) == 0 && !memchr(data, '\0', len))
            err = symlink(target, full);
        free(target);
        break;
    }
done:
    free(full);
    return err;
}

int pg_outputs_unpack(char **why, const char *data, size_t len, const char *dir)
{
    const char *p = data, *end = data + len;

    *why = NULL;
    if (len < strlen(MAGIC) || memcmp(data, MAGIC, strlen(MAGIC))) {
        *why = pg_strdup("the kept build is not one perfgate wrote");
        return -1;
    }
    p += strlen(MAGIC);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        char type, *line, *path;
        unsigned mode;
        size_t n;
        int used = 0;

        if (!nl) {
            *why = pg_strdup("the kept build is cut short");
            return -1;
        }
        line = pg_strdupf("%.*s", (int)(nl - p), p);
        if (sscanf(line, "%c %o %zu %n", &type, &mode, &n, &used) < 3 ||
            !used || !strchr("xdfl", type) || n > (size_t)(end - nl - 1) ||
            !path_ok(path = line + used)) {
            free(line);
            *why = pg_strdup("the kept build has an entry perfgate did not "
                             "write");
            return -1;
        }
        if (unpack_one(dir, type, mode, path, nl + 1, n) < 0) {
            *why = pg_strdupf("cannot write %s: %s", path, strerror(errno));
            free(line);
            return -1;
        }
        free(line);
        p = nl + 1 + n;
    }
    return 0;
}
