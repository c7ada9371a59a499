/*
 * box.c - runs in bubblewrap: a read-only world, no network, one PID
 * namespace per run, an environment of a few names.
 */
#include "box.h"
#include "boxcap.h"
#include "env.h"
#include "fs.h"
#include "str.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "banned.h"

#define PROBE_MS 10000

static pg_box_mode mode;
static int mode_set;
/* The probe's answer: 0 not asked, 1 boxed, -1 not. */
static int probed;
static char *bwrap_path;
static char why_not[512];
/* pass_env: the names let through beyond kept_env[] */
static pg_strvec passed = PG_STRVEC_INIT;

/*
 * What of perfgate's environment a boxed run keeps, by name (and every
 * LC_*).  CI systems hand their secrets to the job in the environment
 * (GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, CI_JOB_TOKEN, every GitLab CI/CD
 * variable), and what a build or a crashing solution prints reaches the
 * pull request's comment: a build command that printed `env` put all
 * four in it (issue 49).
 */
static const char *const kept_env[] = {
    /* where programs are; who runs them; how text is read and shown */
    "PATH", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR",
    /* the compilers perfgate keys its builds on, and what moves their
     * search paths (affected.c's compiler_id()) */
    "CC", "CXX", "CUDACXX", "CPATH", "C_INCLUDE_PATH", "LIBRARY_PATH",
    "COMPILER_PATH", "GCC_EXEC_PREFIX", "GCC_COMPARE_DEBUG",
    "SOURCE_DATE_EPOCH",
    /* where the CUDA toolkit and its runtime are, and which devices */
    "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH",
    /* perfgate's own, which perfgate-measure reads */
    "PERFGATE_TIMER", NULL};

void pg_box_pass_env(char *const *names, size_t n)
{
    size_t i;

    pg_strvec_clear(&passed);
    for (i = 0; names && i < n; i++)
        if (pg_box_env_name_ok(names[i]))
            pg_strvec_push(&passed, names[i]);
}

int pg_box_env_name_ok(const char *name)
{
    size_t i;

    if (!name || !*name || (name[0] >= '0' && name[0] <= '9'))
        return 0;
    for (i = 0; name[i]; i++)
        if (!(name[i] == '_' || (name[i] >= 'A' && name[i] <= 'Z') ||
              (name[i] >= 'a' && name[i] <= 'z') ||
              (name[i] >= '0' && name[i] <= '9')))
            return 0;
    return 1;
}

void pg_box_describe_env(pg_str *out)
{
    size_t i;

    for (i = 0; i < passed.n; i++) {
        const char *v = pg_env_named(passed.v[i]);
        if (v)
            pg_str_printf(out, "%s=%s\n", passed.v[i], v);
    }
}

void pg_box_describe_kept_env(pg_str *out)
{
    extern char **environ;
    char **e;
    size_t i;

    for (i = 0; kept_env[i]; i++) {
        const char *v = pg_env_named(kept_env[i]);
        /* how a terminal shows text moves no build */
        if (v && strcmp(kept_env[i], "TERM") && strcmp(kept_env[i], "NO_COLOR"))
            pg_str_printf(out, "%s=%s\n", kept_env[i], v);
    }
    for (e = environ; e && *e; e++)
        if (!strncmp(*e, "LC_", 3))
            pg_str_printf(out, "%s\n", *e);
    pg_box_describe_env(out);
}

/* `name`=its value as a --setenv, when perfgate's environment has it. */
static void keep_var(pg_strvec *out, const char *name)
{
    const char *v = pg_env_named(name);

    if (!v)
        return;
    pg_strvec_push(out, "--setenv");
    pg_strvec_push(out, name);
    pg_strvec_push(out, v);
}

/* The box's environment: nothing but the names above, every LC_*, and
 * pass_env:'s; HOME its private directory `tmp` (or / when it has none). */
static void environment(pg_strvec *out, const char *tmp)
{
    extern char **environ;
    size_t i;
    char **e;

    pg_strvec_push(out, "--clearenv");
    for (i = 0; kept_env[i]; i++)
        keep_var(out, kept_env[i]);
    for (e = environ; e && *e; e++) {
        size_t n = strcspn(*e, "=");
        char name[256];
        if (strncmp(*e, "LC_", 3) || n >= sizeof(name) || !(*e)[n])
            continue;
        memcpy(name, *e, n);
        name[n] = '\0';
        if (pg_box_env_name_ok(name))
            keep_var(out, name);
    }
    for (i = 0; i < passed.n; i++)
        keep_var(out, passed.v[i]);
    pg_strvec_push(out, "--setenv");
    pg_strvec_push(out, "HOME");
    pg_strvec_push(out, tmp ? tmp : "/");
}

int pg_box_parse_mode(pg_box_mode *out, const char *text)
{
    if (!strcmp(text, "auto"))
        *out = PG_BOX_AUTO;
    else if (!strcmp(text, "require"))
        *out = PG_BOX_REQUIRE;
    else if (!strcmp(text, "off"))
        *out = PG_BOX_OFF;
    else
        return -1;
    return 0;
}

void pg_box_set_mode(pg_box_mode m)
{
    mode = m;
    mode_set = 1;
}

pg_box_mode pg_box_mode_get(void)
{
    const char *env = pg_env("PERFGATE_SANDBOX");

    if (!mode_set && env && *env && pg_box_parse_mode(&mode, env) == 0)
        mode_set = 1;
    return mode;
}

/*
 * The GPU's device nodes, which the box's own /dev lacks: bound so that a
 * CUDA benchmark measures inside it.  Nothing else of the machine's /dev
 * is (a root user's disks are writable through theirs).
 */
static void gpu_devices(pg_strvec *out)
{
    static const char *const patterns[] = {"/dev/nvidia*", "/dev/dri/*"};
    size_t i, j;

    for (i = 0; i < sizeof(patterns) / sizeof(patterns[0]); i++) {
        glob_t g;
        if (glob(patterns[i], 0, NULL, &g) != 0)
            continue;
        for (j = 0; j < g.gl_pathc; j++) {
            pg_strvec_push(out, "--dev-bind-try");
            pg_strvec_push(out, g.gl_pathv[j]);
            pg_strvec_push(out, g.gl_pathv[j]);
        }
        globfree(&g);
    }
}

/*
 * The box's seccomp filter, which bubblewrap installs before it starts
 * the run (--seccomp, from a descriptor): no socket of the machine's can
 * be reached, wherever it lies (the docker daemon's, an ssh-agent's,
 * D-Bus's, a CI agent's job API); the network namespace already keeps IP
 * and abstract sockets out.  connect() fails with ENOENT, as for a socket
 * that is not there; sendto() with an address, sendmsg() and sendmmsg()
 * (whose address is in memory, out of the filter's sight) with EACCES;
 * io_uring_setup() with ENOSYS (a ring's connect would pass the filter).
 * socket() itself stays: the CUDA runtime does not start when it cannot
 * open a unix socket (cudaErrorOperatingSystem, seen on an H200), and a pair of
 * connected sockets (socketpair()), which reaches nothing outside, stays with
 * send() and write().  A classic BPF program, as seccomp_export_bpf() writes
 * it; 32-bit code's socketcall() on x86-64 is refused whole (its arguments are
 * in memory too), and so is the x32 ABI.  tests/unit/test_proc.c runs it.
 */
#define LD_DATA(field)                                                         \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define LD_ADDR_HIGH                                                           \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS,                                         \
             offsetof(struct seccomp_data, args[4]) + 4)
#define JEQ(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (k), (jt), (jf))
#define JSET(k, jt, jf) BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, (k), (jt), (jf))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define REFUSE(e) RET(SECCOMP_RET_ERRNO | (unsigned)(e)) /* errno < 0x10000 */

static const struct sock_filter filter[] = {
#if defined(__x86_64__)
    LD_DATA(arch),                   /* 0 */
    JEQ(AUDIT_ARCH_X86_64, 0, 11),   /* 1: else 13 */
    LD_DATA(nr),                     /* 2 */
    JSET(0x40000000u, 20, 0),        /* 3: x32: 24 */
    JEQ(__NR_connect, 20, 0),        /* 4: 25 */
    JEQ(__NR_sendmsg, 18, 0),        /* 5: 24 */
    JEQ(__NR_sendmmsg, 17, 0),       /* 6: 24 */
    JEQ(__NR_io_uring_setup, 18, 0), /* 7: 26 */
    JEQ(__NR_sendto, 0, 14),         /* 8: else 23 */
    LD_DATA(args[4]),                /* 9: the address, low half */
    JEQ(0, 0, 13),                   /* 10: else 24 */
    LD_ADDR_HIGH,                    /* 11 */
    JEQ(0, 10, 11),                  /* 12: 23, else 24 */
    JEQ(AUDIT_ARCH_I386, 0, 9),      /* 13: else 23 */
    LD_DATA(nr),                     /* 14 */
    JEQ(102, 8, 0),                  /* 15: socketcall: 24 */
    JEQ(362, 8, 0),                  /* 16: connect: 25 */
    JEQ(370, 6, 0),                  /* 17: sendmsg: 24 */
    JEQ(345, 5, 0),                  /* 18: sendmmsg: 24 */
    JEQ(425, 6, 0),                  /* 19: io_uring_setup: 26 */
    JEQ(369, 0, 2),                  /* 20: sendto, else 23 */
    LD_DATA(args[4]),                /* 21 */
    JEQ(0, 0, 1),                    /* 22: 23, else 24 */
    RET(SECCOMP_RET_ALLOW),          /* 23 */
    REFUSE(EACCES),                  /* 24 */
    REFUSE(ENOENT),                  /* 25 */
    REFUSE(ENOSYS),                  /* 26 */
#elif defined(__aarch64__)
    LD_DATA(arch),                  /* 0 */
    JEQ(AUDIT_ARCH_AARCH64, 0, 10), /* 1: else 12 */
    LD_DATA(nr),                    /* 2 */
    JEQ(__NR_connect, 10, 0),       /* 3: 14 */
    JEQ(__NR_sendmsg, 8, 0),        /* 4: 13 */
    JEQ(__NR_sendmmsg, 7, 0),       /* 5: 13 */
    JEQ(__NR_io_uring_setup, 8, 0), /* 6: 15 */
    JEQ(__NR_sendto, 0, 4),         /* 7: else 12 */
    LD_DATA(args[4]),               /* 8 */
    JEQ(0, 0, 3),                   /* 9: else 13 */
    LD_ADDR_HIGH,                   /* 10 */
    JEQ(0, 0, 1),                   /* 11: 12, else 13 */
    RET(SECCOMP_RET_ALLOW),         /* 12 */
    REFUSE(EACCES),                 /* 13 */
    REFUSE(ENOENT),                 /* 14 */
    REFUSE(ENOSYS),                 /* 15 */
#else
    RET(SECCOMP_RET_ALLOW),
#endif
};

/* Whether this machine's processor has the filter. */
static int seccomp_ok(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

int pg_box_seccomp_fd(void)
{
    int fd;

    if (!seccomp_ok())
        return 0;
    fd = (int)syscall(SYS_memfd_create, "perfgate-seccomp", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (write(fd, filter, sizeof(filter)) != (ssize_t)sizeof(filter) ||
        lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    /* The memfd may already be the descriptor bubblewrap reads: then it
     * only loses its close-on-exec (dup2() onto itself would not). */
    if (fd == PG_BOX_SECCOMP_FD)
        return fcntl(fd, F_SETFD, 0) < 0 ? -1 : 0;
    if (dup2(fd, PG_BOX_SECCOMP_FD) < 0) {
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

/*
 * Where a machine keeps what is its users' and its daemons' alone: homes
 * (~/.ssh, ~/.git-credentials, a self-hosted runner's credentials), the
 * sockets of its services and sessions (docker's, an ssh-agent's, D-Bus),
 * and temporary files.  In the box each is an empty directory, and what a
 * run needs of them is bound back, read-only (need()).  $HOME and
 * $XDG_RUNTIME_DIR are added wherever they are.
 */
static const char *const private_dirs[] = {"/home",    "/root",  "/run",
                                           "/var/run", "/tmp",   "/var/tmp",
                                           "/mnt",     "/media", NULL};

/* In a home, the names that hold keys and credentials: never bound back
 * whole, even when a tool a run needs is below them. */
static const char *const secret_names[] = {
    ".ssh",       ".gnupg",  ".aws",
    ".azure",     ".config", ".docker",
    ".kube",      ".netrc",  ".git-credentials",
    ".gitconfig", ".pki",    ".password-store",
    ".npmrc",     ".pypirc", ".cargo",
    ".m2",        ".gradle", ".terraform.d",
    NULL};

/* Paths runs need that the private places may hold, beyond what the
 * environment names (pg_box_show()): each shown alone. */
static pg_strvec shown = PG_STRVEC_INIT;

void pg_box_show(const char *path)
{
    size_t i;

    if (!path || path[0] != '/')
        return;
    for (i = 0; i < shown.n; i++)
        if (!strcmp(shown.v[i], path))
            return;
    pg_strvec_push(&shown, path);
}

/* 1 when `path` is `dir` or below it. */
static int below(const char *path, const char *dir)
{
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

static int is_real_dir(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A mount of the box's: a path hidden (an empty tmpfs), bound back
 * read-only, bound writable, or the box's own temporary directory (a
 * tmpfs of PG_BOX_TMP_BYTES at most). */
typedef enum mount_kind { HIDE, SHOW, WRITE, SCRATCH } mount_kind;

typedef struct mount {
    char *path;
    mount_kind kind;
} mount;

typedef struct mounts {
    mount *m;
    size_t n;
} mounts;

static void add_mount(mounts *ms, const char *path, mount_kind kind)
{
    size_t i;

    for (i = 0; i < ms->n; i++)
        if (!strcmp(ms->m[i].path, path) && ms->m[i].kind == kind)
            return;
    ms->m = pg_realloc(ms->m, (ms->n + 1) * sizeof(*ms->m));
    ms->m[ms->n].path = pg_strdup(path);
    ms->m[ms->n].kind = kind;
    ms->n++;
}

/* The private place `path` is in, or NULL. */
static const char *private_of(const mounts *ms, const char *path)
{
    size_t i;

    for (i = 0; i < ms->n; i++)
        if (ms->m[i].kind == HIDE && below(path, ms->m[i].path))
            return ms->m[i].path;
    return NULL;
}

/*
 * `dir`, which a run needs, where a private place would hide it: bound
 * back.  What is bound is the first directory below the private place
 * on the way to it (a tool under ~/.pyenv/shims needs the rest of
 * ~/.pyenv), unless that one holds secrets: then `dir` alone.
 */
static void need(mounts *ms, const char *dir)
{
    const char *place;
    char *top;
    size_t n, k, i;

    if (!dir || dir[0] != '/' || !(place = private_of(ms, dir)))
        return;
    n = strlen(place);
    while (n > 1 && place[n - 1] == '/')
        n--;
    if (!dir[n] || !dir[n + 1]) {
        add_mount(ms, dir, SHOW);
        return;
    }
    /* Widened in a home only: /home/USER/TOP, /root/TOP, $HOME/TOP.
     * Elsewhere (/tmp, /run) the directory itself. */
    if (strcmp(place, "/home") && strcmp(place, "/root") &&
        !(pg_env("HOME") && !strcmp(place, pg_env("HOME")))) {
        add_mount(ms, dir, SHOW);
        return;
    }
    if (!strcmp(place, "/home")) {
        n += 1 + strcspn(dir + n + 1, "/");
        if (!dir[n] || !dir[n + 1]) {
            add_mount(ms, dir, SHOW);
            return;
        }
    }
    k = strcspn(dir + n + 1, "/");
    top = pg_strdupf("%.*s", (int)(n + 1 + k), dir);
    for (i = 0; secret_names[i]; i++)
        if (strlen(secret_names[i]) == k &&
            !strncmp(dir + n + 1, secret_names[i], k)) {
            free(top);
            top = pg_strdup(dir);
            break;
        }
    add_mount(ms, top, SHOW);
    free(top);
}

/* Each directory of the colon-separated list in variable `name`. */
static void need_list(mounts *ms, const char *name)
{
    const char *v = pg_env(name);

    while (v && *v) {
        size_t n = strcspn(v, ":");
        char *dir = pg_strdupf("%.*s", (int)n, v);
        need(ms, dir);
        free(dir);
        v += n + (v[n] == ':');
    }
}

/* A compiler variable's program ("ccache /opt/cc/bin/gcc"): each word
 * that is a path, its directory. */
static void need_program(mounts *ms, const char *name)
{
    const char *v = pg_env(name);

    while (v && *v) {
        size_t n = strcspn(v, " \t");
        if (n && v[0] == '/') {
            char *word = pg_strdupf("%.*s", (int)n, v);
            char *dir = pg_path_dirname(word);
            need(ms, dir);
            free(dir);
            free(word);
        }
        v += n;
        v += strspn(v, " \t");
    }
}

static int by_length(const void *x, const void *y)
{
    const mount *a = x, *b = y;
    size_t la = strlen(a->path), lb = strlen(b->path);

    /* Outer paths first, so that an inner one mounts over them; at one
     * path, a writable bind last. */
    if (la != lb)
        return la < lb ? -1 : 1;
    if (a->kind != b->kind)
        return (int)a->kind - (int)b->kind;
    return strcmp(a->path, b->path);
}

/*
 * The box's mounts beyond the read-only root: the private places hidden;
 * what the run needs of them shown again (perfgate's own directory, the
 * directories the environment's PATH and compiler variables name, CUDA's,
 * pg_box_show()'s, the working directory); the box's own hidden paths and
 * writable ones.  Pushed outermost first.
 */
static void box_mounts(pg_strvec *out, const pg_box *box, const char *tmp,
                       const char *cwd)
{
    static const char *const lists[] = {
        "PATH",         "LD_LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH",
        "LIBRARY_PATH", "COMPILER_PATH",   NULL};
    static const char *const programs[] = {"CC", "CXX", "CUDACXX", NULL};
    static const char *const homes[] = {"HOME", "XDG_RUNTIME_DIR", NULL};
    mounts ms = {NULL, 0};
    char *self = pg_self_dir();
    size_t i;

    for (i = 0; private_dirs[i]; i++)
        if (is_real_dir(private_dirs[i]))
            add_mount(&ms, private_dirs[i], HIDE);
    /* Hidden even inside a private place, since what is shown there (a
     * perfgate built below /tmp) may hold it; never the whole machine,
     * whatever the variable says. */
    for (i = 0; homes[i]; i++) {
        const char *h = pg_env(homes[i]);
        if (h && h[0] == '/' && h[strspn(h, "/")] && is_real_dir(h))
            add_mount(&ms, h, HIDE);
    }
    /* perfgate's own and what it names: each alone (a perfgate in a
     * runner's workspace must not show the workspace around it). */
    if (self && private_of(&ms, self))
        add_mount(&ms, self, SHOW);
    for (i = 0; lists[i]; i++)
        need_list(&ms, lists[i]);
    for (i = 0; programs[i]; i++)
        need_program(&ms, programs[i]);
    need(&ms, pg_env("CUDA_HOME"));
    need(&ms, pg_env("CUDA_PATH"));
    for (i = 0; i < shown.n; i++)
        if (private_of(&ms, shown.v[i]))
            add_mount(&ms, shown.v[i], SHOW);
    if (cwd && private_of(&ms, cwd))
        add_mount(&ms, cwd, SHOW);
    for (i = 0; box && i < PG_BOX_PATHS; i++)
        if (box->show[i] && private_of(&ms, box->show[i]))
            add_mount(&ms, box->show[i], SHOW);
    for (i = 0; box && i < PG_BOX_PATHS && box->hide[i]; i++)
        add_mount(&ms, box->hide[i], HIDE);
    for (i = 0; box && i < PG_BOX_PATHS && box->write[i]; i++)
        add_mount(&ms, box->write[i], WRITE);
    if (tmp)
        add_mount(&ms, tmp, SCRATCH);
    qsort(ms.m, ms.n, sizeof(*ms.m), by_length);
    for (i = 0; i < ms.n; i++) {
        static const char *const how[] = {"--tmpfs", "--ro-bind-try", "--bind",
                                          "--tmpfs"};
        if (ms.m[i].kind == SCRATCH) {
            pg_strvec_push(out, "--size");
            pg_strvec_pushf(out, "%llu", (unsigned long long)PG_BOX_TMP_BYTES);
        }
        pg_strvec_push(out, how[ms.m[i].kind]);
        pg_strvec_push(out, ms.m[i].path);
        if (ms.m[i].kind == SHOW || ms.m[i].kind == WRITE)
            pg_strvec_push(out, ms.m[i].path);
    }
    /* A hidden place is empty and stays so: read-only, as the machine's
     * files are (what is shown or writable inside it is a mount of its
     * own, which this leaves as it is). */
    for (i = 0; i < ms.n; i++) {
        if (ms.m[i].kind == HIDE) {
            pg_strvec_push(out, "--remount-ro");
            pg_strvec_push(out, ms.m[i].path);
        }
        free(ms.m[i].path);
    }
    free(ms.m);
    free(self);
}

void pg_box_argv(pg_strvec *out, const pg_box *box, const char *tmp,
                 const char *cwd, char *const argv[])
{
    size_t i;
    char *here = NULL;

    pg_strvec_push(out, bwrap_path ? bwrap_path : "bwrap");
    /* Gone with perfgate; its own session (no TIOCSTI into a terminal);
     * every namespace, the network's included; no capabilities. */
    pg_strvec_push(out, "--die-with-parent");
    pg_strvec_push(out, "--new-session");
    pg_strvec_push(out, "--unshare-all");
    pg_strvec_push(out, "--cap-drop");
    pg_strvec_push(out, "ALL");
    /* The machine's files, read-only; a /dev of its own with the GPU's
     * nodes; a /proc of the PID namespace's. */
    pg_strvec_push(out, "--ro-bind");
    pg_strvec_push(out, "/");
    pg_strvec_push(out, "/");
    pg_strvec_push(out, "--dev");
    pg_strvec_push(out, "/dev");
    gpu_devices(out);
    pg_strvec_push(out, "--proc");
    pg_strvec_push(out, "/proc");
    environment(out, tmp);
    if (!cwd)
        cwd = here = getcwd(NULL, 0);
    box_mounts(out, box, tmp, cwd);
    if (tmp) {
        pg_strvec_push(out, "--setenv");
        pg_strvec_push(out, "TMPDIR");
        pg_strvec_push(out, tmp);
    }
    if (seccomp_ok()) {
        pg_strvec_push(out, "--seccomp");
        pg_strvec_pushf(out, "%d", PG_BOX_SECCOMP_FD);
    }
    if (cwd) {
        pg_strvec_push(out, "--chdir");
        pg_strvec_push(out, cwd);
    }
    free(here);
    pg_strvec_push(out, "--");
    for (i = 0; argv[i]; i++)
        pg_strvec_push(out, argv[i]);
}

/* The first line of what bubblewrap said, for why_not. */
static void keep_reason(const char *prefix, const char *said)
{
    size_t n = strcspn(said, "\n");

    while (n && (said[n - 1] == ' ' || said[n - 1] == '\r'))
        n--;
    snprintf(why_not, sizeof(why_not), "%s%.*s", prefix,
             (int)(n > 300 ? 300 : n), said);
}

/*
 * Runs bubblewrap once on `true` in the box every run gets: 0 when that
 * works, else -1 with why_not set.  Its own small fork: proc.c, which
 * boxes what it runs, asks this first.
 */
static int probe(void)
{
    pg_strvec a = PG_STRVEC_INIT;
    char *const argv[] = {"true", NULL};
    pg_str said = PG_STR_INIT;
    int pipefd[2], status = 0, ok = 0;
    int64_t deadline;
    pid_t pid;

    pg_box_argv(&a, NULL, NULL, "/", argv);
    if (pipe2(pipefd, O_CLOEXEC) < 0) {
        pg_strvec_clear(&a);
        keep_reason("cannot create a pipe: ", strerror(errno));
        return -1;
    }
    pid = fork();
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(pipefd[1], 1);
        dup2(pipefd[1], 2);
        if (pg_box_seccomp_fd() < 0)
            _exit(126);
        execv(a.v[0], a.v);
        _exit(127);
    }
    close(pipefd[1]);
    deadline = pg_now_ns() + (int64_t)PROBE_MS * 1000000;
    while (pid > 0) {
        struct pollfd p = {pipefd[0], POLLIN, 0};
        char buf[512];
        ssize_t n;
        int left = (int)((deadline - pg_now_ns()) / 1000000);
        if (left <= 0 || poll(&p, 1, left) == 0) {
            kill(pid, SIGKILL);
            pg_str_puts(&said, "it did not finish within 10 s");
            break;
        }
        if ((n = read(pipefd[0], buf, sizeof(buf))) > 0)
            pg_str_put(&said, buf, (size_t)n);
        else if (n == 0 || errno != EINTR)
            break;
    }
    close(pipefd[0]);
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    ok = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok)
        keep_reason("bubblewrap cannot make a box on this machine: ",
                    said.size ? pg_str_cstr(&said)
                    : pid < 0 ? "cannot fork"
                              : "it failed and said nothing");
    pg_str_clear(&said);
    pg_strvec_clear(&a);
    return ok ? 0 : -1;
}

int pg_box_ready(const char **why)
{
    const char *env = pg_env("PERFGATE_BWRAP");

    if (pg_box_mode_get() == PG_BOX_OFF) {
        *why = "the box is off (--sandbox off)";
        return 0;
    }
    if (!probed) {
        free(bwrap_path);
        bwrap_path = env && *env ? pg_strdup(env) : pg_path_search("bwrap");
        if (!bwrap_path || access(bwrap_path, X_OK) < 0)
            snprintf(why_not, sizeof(why_not),
                     "bubblewrap is not installed (apt-get install "
                     "bubblewrap)");
        probed = bwrap_path && access(bwrap_path, X_OK) == 0 && probe() == 0
                     ? 1
                     : -1;
        /* How boxes are capped, found here, once, before any run. */
        if (probed > 0) {
            const char *uncapped;
            pg_boxcap_how(&uncapped);
        }
    }
    *why = why_not;
    return probed > 0;
}
