/*
 * cleanup.c - temporary directories and signal handling.
 */
#include "cleanup.h"
#include "env.h"
#include "box.h"
#include "error.h"
#include "fs.h"
#include "procfs.h"
#include "str.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "banned.h"

#define MAX_TEMPDIRS 16
#define PREFIX "perfgate-"
#define OWNER_FILE ".perfgate-owner"
/* After SIGINT or SIGTERM, how long the work has to unwind by itself. */
#define GRACE_SECONDS 2

static char *tempdirs[MAX_TEMPDIRS];
static pid_t owner_pid;
static volatile sig_atomic_t interrupted;
/* The process groups of the children running now (cleanup.h), 0 for a
 * free place: what a signal stops. */
#define MAX_CHILDREN 64
static volatile pid_t child_pgids[MAX_CHILDREN];

/*
 * Empties the directory open as `dir` and closes it, with calls that are
 * async-signal-safe (no malloc, no stdio), so that a signal's last resort
 * still leaves nothing behind.  Entries are removed while the directory is
 * read, so it is read again until a pass finds nothing it can remove.
 */
static void empty_dir_fd(int dir, int depth)
{
    struct entry {
        unsigned long long ino;
        long long off;
        unsigned short reclen;
        unsigned char type;
        char name[];
    };
    char buf[2048] __attribute__((aligned(8)));
    int removed = 1;

    while (removed) {
        long n;
        removed = 0;
        lseek(dir, 0, SEEK_SET);
        while ((n = syscall(SYS_getdents64, dir, buf, sizeof(buf))) > 0) {
            long off = 0;
            while (off < n) {
                struct entry *e = (struct entry *)(void *)(buf + off);
                int sub;
                off += e->reclen;
                if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
                    continue;
                if (!unlinkat(dir, e->name, 0)) {
                    removed = 1;
                    continue;
                }
                sub = depth < 64 ? openat(dir, e->name,
                                          O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
                                              O_CLOEXEC)
                                 : -1;
                if (sub >= 0)
                    empty_dir_fd(sub, depth + 1);
                if (!unlinkat(dir, e->name, AT_REMOVEDIR))
                    removed = 1;
            }
        }
    }
    close(dir);
}

/* Removes the registered directories; async-signal-safe. */
static void remove_all_now(void)
{
    int i;

    if (getpid() != owner_pid)
        return;
    for (i = 0; i < MAX_TEMPDIRS; i++) {
        const char *path = tempdirs[i];
        int fd;
        if (!path)
            continue;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0)
            empty_dir_fd(fd, 0);
        rmdir(path);
    }
}

/* The last resort: the work did not unwind in time, or the signal came
 * twice.  Remove what is ours and exit as an interrupted run does. */
/* Stops every running child's group; async-signal-safe. */
static void kill_children(void)
{
    size_t i;

    for (i = 0; i < MAX_CHILDREN; i++) {
        pid_t pgid = child_pgids[i];
        if (pgid > 0)
            kill(-pgid, SIGKILL);
    }
}

static void give_up(int sig)
{
    static const char msg[] = "perfgate: interrupted\n";

    (void)sig;
    kill_children();
    remove_all_now();
    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* Nothing more to do. */
    }
    _exit(PG_EXIT_INTERRUPTED);
}

static void on_signal(int sig)
{
    if (interrupted) {
        give_up(sig);
        return;
    }
    interrupted = sig;
    kill_children();
    /* Most work sees the flag within milliseconds; what cannot (a long
     * computation, a blocked read) is ended by SIGALRM. */
    alarm(GRACE_SECONDS);
}

/* TMPDIR as it was before the first temporary directory took it over
 * (NULL and !tmpdir_taken: not taken). */
static char *user_tmpdir;
static int tmpdir_taken;

/*
 * The processes perfgate starts (compilers, builds, valgrind) keep their
 * own temporaries in a directory inside `root`, so that they go with it:
 * a compiler's cc*.s or valgrind's vgdb pipes, left when a run is ended
 * by a signal or a timeout, are not left behind in the user's TMPDIR.
 */
static void take_tmpdir(const char *root)
{
    char *dir = pg_strdupf("%s/tmp", root);
    const char *was = pg_env("TMPDIR");

    if (mkdir(dir, 0700) == 0) {
        user_tmpdir = was ? pg_strdup(was) : NULL;
        tmpdir_taken = 1;
        setenv("TMPDIR", dir, 1);
    }
    free(dir);
}

/* TMPDIR back as it was. */
static void give_back_tmpdir(void)
{
    if (!tmpdir_taken)
        return;
    if (user_tmpdir)
        setenv("TMPDIR", user_tmpdir, 1);
    else
        unsetenv("TMPDIR");
    free(user_tmpdir);
    user_tmpdir = NULL;
    tmpdir_taken = 0;
}

void pg_tempdir_remove_all(void)
{
    int i;

    /* A forked child inherits the list but must not remove anything. */
    if (getpid() != owner_pid)
        return;
    give_back_tmpdir();
    for (i = 0; i < MAX_TEMPDIRS; i++) {
        char *path = tempdirs[i];
        if (path) {
            pg_rm_rf(path);
            /* Unregistered before it is freed: a signal may read it. */
            tempdirs[i] = NULL;
            free(path);
        }
    }
}

void pg_cleanup_init(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    size_t i;

    owner_pid = getpid();
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a blocking wait must return and see the flag.  The
     * handlers block each other, so that give_up() runs once. */
    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    sigaddset(&sa.sa_mask, SIGALRM);
    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    sa.sa_handler = give_up;
    sigaction(SIGALRM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    atexit(pg_tempdir_remove_all);
}

/* When `pid` started, which together with the pid names a process even
 * after its pid is reused. */
static int start_time(pid_t pid, unsigned long long *out)
{
    pid_t ppid;

    return pg_proc_stat(pid, &ppid, out);
}

/* Whether the run that wrote `owner` (an OWNER_FILE's text) is gone. */
static int owner_is_gone(const char *owner)
{
    int pid;
    unsigned long long started, now;

    if (sscanf(owner, "%d %llu", &pid, &started) != 2 || pid <= 0)
        return 0;
    if (kill(pid, 0) < 0 && errno == ESRCH)
        return 1;
    /* Alive: the same process only if it started when the owner did. */
    return start_time(pid, &now) == 0 && now != started;
}

/*
 * Removes the temporary directories of earlier runs that were killed
 * before they could (SIGKILL, a power cut): ours by owner, named as ours,
 * and naming an owner process that is gone.  Anything else is left alone.
 */
static void remove_stale(const char *base)
{
    DIR *d = opendir(base);
    struct dirent *e;
    uid_t uid = geteuid();

    if (!d)
        return;
    while ((e = readdir(d))) {
        struct stat st;
        char *dir, *owner_path, *owner = NULL;
        if (strncmp(e->d_name, PREFIX, strlen(PREFIX)))
            continue;
        dir = pg_strdupf("%s/%s", base, e->d_name);
        owner_path = pg_strdupf("%s/" OWNER_FILE, dir);
        if (!lstat(dir, &st) && S_ISDIR(st.st_mode) && st.st_uid == uid &&
            pg_read_file(&owner, NULL, owner_path, 256) == 0 &&
            owner_is_gone(owner))
            pg_rm_rf(dir);
        free(owner);
        free(owner_path);
        free(dir);
    }
    closedir(d);
}

int pg_tempdir_create(char **out)
{
    const char *base = pg_env("TMPDIR");
    char *path;
    int i;

    if (!base || !*base)
        base = "/tmp";
    remove_stale(base);
    path = pg_strdupf("%s/" PREFIX "XXXXXX", base);
    if (!mkdtemp(path)) {
        int saved = errno;
        free(path);
        return pg_error_set(PG_ERR_GENERIC,
                            "cannot create a temporary directory in %s: %s "
                            "(set TMPDIR to a writable directory)",
                            base, strerror(saved));
    }
    {
        /* Absolute: children run in directories of their own. */
        char *abs = realpath(path, NULL);
        if (abs) {
            free(path);
            path = pg_strdup(abs);
            free(abs);
        }
    }
    for (i = 0; i < MAX_TEMPDIRS && tempdirs[i]; i++)
        ;
    if (i == MAX_TEMPDIRS) {
        pg_rm_rf(path);
        free(path);
        return pg_error_set(PG_ERR_GENERIC, "too many temporary directories");
    }
    tempdirs[i] = pg_strdup(path);
    /* Boxed runs read what perfgate wrote here (the problem's library,
     * the sides' builds), where the box hides the rest of /tmp. */
    pg_box_show(path);
    if (!tmpdir_taken)
        take_tmpdir(path);
    {
        unsigned long long started = 0;
        char *owner_path = pg_strdupf("%s/" OWNER_FILE, path);
        char *owner;
        start_time(getpid(), &started);
        owner = pg_strdupf("%d %llu\n", (int)getpid(), started);
        pg_write_file(owner_path, owner, strlen(owner), 0);
        free(owner);
        free(owner_path);
    }
    *out = path;
    return 0;
}

int pg_interrupted(void)
{
    return interrupted;
}

void pg_cleanup_add_child(pid_t pgid)
{
    size_t i;

    for (i = 0; i < MAX_CHILDREN; i++)
        if (!child_pgids[i]) {
            child_pgids[i] = pgid;
            return;
        }
}

void pg_cleanup_drop_child(pid_t pgid)
{
    size_t i;

    for (i = 0; i < MAX_CHILDREN; i++)
        if (child_pgids[i] == pgid)
            child_pgids[i] = 0;
}
