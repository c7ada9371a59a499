/*
 * fs.c - file system helpers.
 */
#include "fs.h"
#include "env.h"
#include "str.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

char *pg_path_join(const char *dir, const char *name)
{
    size_t len = strlen(dir);

    if (name[0] == '/' || !*dir)
        return pg_strdup(name);
    if (len && dir[len - 1] == '/')
        return pg_strdupf("%s%s", dir, name);
    return pg_strdupf("%s/%s", dir, name);
}

const char *pg_path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

char *pg_path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *d;

    if (!slash)
        return pg_strdup(".");
    if (slash == path)
        return pg_strdup("/");
    d = pg_malloc((size_t)(slash - path) + 1);
    memcpy(d, path, (size_t)(slash - path));
    d[slash - path] = '\0';
    return d;
}

int pg_path_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int pg_path_is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int pg_path_inside(const char *root, const char *path)
{
    char *r = realpath(root, NULL), *p = r ? realpath(path, NULL) : NULL;
    int inside = -1;

    if (r && p) {
        size_t n = strlen(r);
        inside = !strncmp(p, r, n) &&
                 (p[n] == '\0' || p[n] == '/' || (n == 1 && r[0] == '/'));
    }
    free(p);
    free(r);
    return inside;
}

int pg_mkdir_p(const char *path)
{
    char *copy = pg_strdup(path), *p;
    int err = 0;

    for (p = copy + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(copy, 0755) < 0 && errno != EEXIST)
            err = -1;
        *p = '/';
        if (err)
            break;
    }
    if (!err && mkdir(copy, 0755) < 0 && errno != EEXIST)
        err = -1;
    free(copy);
    return err;
}

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
    /* A directory we may not enter: make it ours again and retry once. */
    if (flag == FTW_DNR) {
        chmod(path, 0700);
        return pg_rm_rf(path);
    }
    return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int pg_rm_rf(const char *path)
{
    if (!pg_path_exists(path))
        return 0;
    return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int pg_write_file(const char *path, const void *data, size_t len,
                  int executable)
{
    const char *p = data;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  executable ? 0755 : 0644);

    if (fd < 0)
        return -1;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return close(fd);
}

/* Reads what `fd` holds, as pg_read_file(); closes it. */
static int read_all(int fd, char **out, size_t *len, size_t max)
{
    pg_str s = PG_STR_INIT;
    char buf[8192];

    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int saved = errno;
            close(fd);
            pg_str_clear(&s);
            errno = saved;
            return -1;
        }
        if (n == 0)
            break;
        if (s.size + (size_t)n > max) {
            close(fd);
            pg_str_clear(&s);
            errno = EFBIG;
            return -1;
        }
        pg_str_put(&s, buf, (size_t)n);
    }
    close(fd);
    if (len)
        *len = s.size;
    *out = pg_str_detach(&s);
    return 0;
}

int pg_read_file(char **out, size_t *len, const char *path, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    return fd < 0 ? -1 : read_all(fd, out, len, max);
}

int pg_read_regular_file(char **out, size_t *len, const char *path, size_t max)
{
    /* O_NONBLOCK: a FIFO opens at once (and is then refused) rather than
     * waiting for a writer; on a regular file it changes nothing. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;

    if (fd < 0)
        return -1;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return read_all(fd, out, len, max);
}

char *pg_self_dir(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    return pg_path_dirname(exe);
}

char *pg_path_search(const char *cmd)
{
    const char *path = pg_env("PATH"), *p;

    if (strchr(cmd, '/'))
        return pg_path_is_file(cmd) && access(cmd, X_OK) == 0 ? pg_strdup(cmd)
                                                              : NULL;
    for (p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        char *full = pg_strdupf("%.*s/%s", (int)n, n ? p : ".", cmd);
        if (access(full, X_OK) == 0 && pg_path_is_file(full))
            return full;
        free(full);
        p += n + (p[n] == ':');
    }
    return NULL;
}
