/*
 * boxcap.c - the box's caps: how many processes it runs at once, the
 * room it leaves on the disk it writes to, and the groups it keeps
 * (boxcap.h).
 */
#include "boxcap.h"
#include "clock.h"
#include "env.h"
#include "str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

#define PIDS_MOUNT "/sys/fs/cgroup/pids"

/* The answer, found once: 0 not asked, else one of these. */
static enum { CAP_UNKNOWN, CAP_NONE, CAP_RLIMIT, CAP_CGROUP } cap;
static char why_not[256];
static char *pids_dir;     /* perfgate's own pids cgroup (CAP_CGROUP) */
static rlim_t nproc_limit; /* CAP_RLIMIT */

char *pg_boxcap_groups(void)
{
    gid_t g[256];
    int n = getgroups(256, g), i;
    pg_str out = PG_STR_INIT;

    for (i = 0; i < n; i++) {
        struct group *gr;
        if (g[i] == getgid())
            continue;
        gr = getgrgid(g[i]);
        pg_str_printf(&out, "%s%s (%ld)", out.size ? ", " : "",
                      gr && gr->gr_name ? gr->gr_name : "?", (long)g[i]);
    }
    if (!out.size) {
        pg_str_clear(&out);
        return NULL;
    }
    return pg_str_detach(&out);
}

int pg_boxcap_max(void)
{
    const char *env = pg_env_nonempty("PERFGATE_MAX_PROCESSES");
    char *end;
    long n;

    if (!env)
        return PG_BOX_PROCESSES;
    n = strtol(env, &end, 10);
    return *end || n < 1 || n > 1000000 ? PG_BOX_PROCESSES : (int)n;
}

/* The tasks (threads) of user `uid` now, from /proc; 0 when it cannot be
 * read. */
static unsigned long tasks_of(uid_t uid)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    unsigned long n = 0;

    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        char path[300], line[128];
        struct stat st;
        FILE *f;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof(path), "/proc/%s/status", e->d_name);
        if (stat(path, &st) < 0 || st.st_uid != uid || !(f = fopen(path, "r")))
            continue;
        while (fgets(line, sizeof(line), f))
            if (!strncmp(line, "Threads:", 8)) {
                n += strtoul(line + 8, NULL, 10);
                break;
            }
        fclose(f);
    }
    closedir(d);
    return n;
}

/* Perfgate's own cgroup in the pids hierarchy (v1), from
 * /proc/self/cgroup; NULL when it has none. */
static char *own_pids_cgroup(void)
{
    FILE *f = fopen("/proc/self/cgroup", "r");
    char line[4096], *dir = NULL;

    if (!f)
        return NULL;
    while (!dir && fgets(line, sizeof(line), f)) {
        char *c = strchr(line, ':'), *path;
        if (!c || strncmp(c, ":pids:", 6))
            continue;
        path = c + 6;
        path[strcspn(path, "\n")] = '\0';
        if (path[0] == '/' && !strstr(path, ".."))
            dir = pg_strdupf(PIDS_MOUNT "%s", strcmp(path, "/") ? path : "");
    }
    fclose(f);
    return dir;
}

/* Writes `text` to `path`; 0 or -1. */
static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    size_t n = strlen(text);
    int ok;

    if (fd < 0)
        return -1;
    ok = write(fd, text, n) == (ssize_t)n;
    close(fd);
    return ok ? 0 : -1;
}

/* Removes the empty cgroup `dir`, waiting a little for the last tasks of
 * a box that just ended to be gone; 0 or -1. */
static int remove_cgroup(const char *dir)
{
    struct timespec ms = {0, 2000000};
    int i;

    for (i = 0; i < 100; i++) {
        if (rmdir(dir) == 0 || errno == ENOENT)
            return 0;
        if (errno != EBUSY)
            return -1;
        nanosleep(&ms, NULL);
    }
    return -1;
}

/* The cgroups earlier runs left (perfgate-PID-N, their perfgate gone),
 * removed. */
static void sweep(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        long pid;
        char *end, *path;
        if (strncmp(e->d_name, "perfgate-", 9))
            continue;
        pid = strtol(e->d_name + 9, &end, 10);
        if (pid <= 0 || *end != '-' ||
            (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
            continue;
        path = pg_strdupf("%s/%s", dir, e->d_name);
        rmdir(path);
        free(path);
    }
    closedir(d);
}

/* The cgroup perfgate's boxes share, removed when perfgate exits (by
 * the process that made it: a forked child's exit() leaves it). */
static char *cgroup_dir, *cgroup_procs;
static pid_t cgroup_owner;

static void remove_own_cgroup(void)
{
    if (cgroup_dir && getpid() == cgroup_owner)
        remove_cgroup(cgroup_dir);
}

/* The pids cgroup of this perfgate's boxes, under `dir`, capped; 0, or -1
 * when it cannot be made. */
static int make_cgroup(const char *dir)
{
    char *max, limit[32];
    int ok;

    cgroup_dir = pg_strdupf("%s/perfgate-%ld-0", dir, (long)getpid());
    max = pg_strdupf("%s/pids.max", cgroup_dir);
    snprintf(limit, sizeof(limit), "%d", pg_boxcap_max());
    ok = mkdir(cgroup_dir, 0755) == 0 && write_file(max, limit) == 0;
    free(max);
    if (!ok) {
        rmdir(cgroup_dir);
        free(cgroup_dir);
        cgroup_dir = NULL;
        return -1;
    }
    cgroup_procs = pg_strdupf("%s/cgroup.procs", cgroup_dir);
    cgroup_owner = getpid();
    atexit(remove_own_cgroup);
    return 0;
}

static void find_cap(void)
{
    struct rlimit rl;

    if (getuid() != 0 && geteuid() != 0) {
        unsigned long now = tasks_of(getuid());
        if (getrlimit(RLIMIT_NPROC, &rl) == 0) {
            nproc_limit = (rlim_t)(now + (unsigned long)pg_boxcap_max());
            if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < nproc_limit)
                nproc_limit = rl.rlim_max;
            cap = CAP_RLIMIT;
            return;
        }
        snprintf(why_not, sizeof(why_not), "cannot read RLIMIT_NPROC: %s",
                 strerror(errno));
        cap = CAP_NONE;
        return;
    }
    pids_dir = own_pids_cgroup();
    if (pids_dir) {
        sweep(pids_dir);
        if (make_cgroup(pids_dir) == 0) {
            cap = CAP_CGROUP;
            return;
        }
    }
    snprintf(why_not, sizeof(why_not),
             "perfgate runs as root, whom RLIMIT_NPROC does not bind, and "
             "cannot make a pids cgroup (%s)",
             pids_dir ? "its pids hierarchy is not writable"
                      : "no cgroup v1 pids hierarchy is mounted");
    free(pids_dir);
    pids_dir = NULL;
    cap = CAP_NONE;
}

const char *pg_boxcap_how(const char **why)
{
    if (cap == CAP_UNKNOWN)
        find_cap();
    *why = cap == CAP_NONE ? why_not : NULL;
    return cap == CAP_RLIMIT ? "rlimit" : cap == CAP_CGROUP ? "cgroup" : NULL;
}

/* The free space the disk under `path` must keep while a run writes to
 * it (boxcap.h); 0 when it cannot be looked at. */
static unsigned long long disk_floor(const char *path)
{
    struct statvfs v;
    unsigned long long size, avail, floor = 1ULL << 30;

    if (statvfs(path, &v) < 0 || !v.f_frsize)
        return 0;
    size = (unsigned long long)v.f_blocks * v.f_frsize;
    avail = (unsigned long long)v.f_bavail * v.f_frsize;
    if (size / 20 < floor)
        floor = size / 20;
    return avail / 2 < floor ? avail / 2 : floor;
}

int pg_boxcap_disk_low(pg_boxcap *c)
{
    long long now = (long long)pg_now_ns();
    size_t i;

    if (now < c->next_look)
        return 0;
    c->next_look = now + 100000000LL;
    for (i = 0; i < PG_BOX_DISK_PATHS && c->disk[i]; i++) {
        struct statvfs v;
        if (statvfs(c->disk[i], &v) == 0 &&
            (unsigned long long)v.f_bavail * v.f_frsize < c->floor[i])
            return 1;
    }
    return 0;
}

/* The floors of the disks under `writes`. */
static void open_disks(pg_boxcap *c, const char *const *writes)
{
    size_t i, n = 0;

    for (i = 0; writes && i < PG_BOX_DISK_PATHS && writes[i]; i++) {
        unsigned long long floor = disk_floor(writes[i]);
        if (!floor)
            continue;
        c->disk[n] = pg_strdup(writes[i]);
        c->floor[n++] = floor;
    }
}

void pg_boxcap_open(pg_boxcap *c, const char *const *writes)
{
    const char *why;

    memset(c, 0, sizeof(*c));
    open_disks(c, writes);
    pg_boxcap_how(&why);
    c->procs = cap == CAP_CGROUP ? cgroup_procs : NULL;
}

void pg_boxcap_enter(const pg_boxcap *c)
{
    if (cap == CAP_RLIMIT) {
        struct rlimit rl = {nproc_limit, nproc_limit};
        setrlimit(RLIMIT_NPROC, &rl);
    } else if (c && c->procs) {
        /* "0": the writer itself, in both hierarchies' cgroup.procs. */
        int fd = open(c->procs, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (write(fd, "0", 1) < 0) {
                /* Uncapped; the run goes on. */
            }
            close(fd);
        }
    }
}

void pg_boxcap_close(pg_boxcap *c)
{
    size_t i;

    for (i = 0; i < PG_BOX_DISK_PATHS; i++)
        free(c->disk[i]);
    memset(c, 0, sizeof(*c));
}
