/*
 * proc.c - child processes under supervision.
 */
#include "proc.h"
#include "boxcap.h"
#include "env.h"
#include "str.h"
#include "cleanup.h"
#include "error.h"
#include "fs.h"
#include "procfs.h"
#include "strvec.h"
#include "clock.h"
#include "trace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

#define TICK_MS 20
#define MSG_LINE_MAX (64 * 1024)

const char *pg_signal_describe(int sig)
{
    static char buf[64];
    const char *name;

    switch (sig) {
    case SIGSEGV:
        name = "SIGSEGV (segmentation fault)";
        break;
    case SIGBUS:
        name = "SIGBUS (bus error)";
        break;
    case SIGFPE:
        name = "SIGFPE (arithmetic error)";
        break;
    case SIGILL:
        name = "SIGILL (illegal instruction)";
        break;
    case SIGABRT:
        name = "SIGABRT (aborted)";
        break;
    case SIGKILL:
        name = "SIGKILL (killed, perhaps out of memory)";
        break;
    case SIGTERM:
        name = "SIGTERM (terminated)";
        break;
    case SIGXCPU:
        name = "SIGXCPU (CPU time limit)";
        break;
    case SIGTRAP:
        name = "SIGTRAP (trap)";
        break;
    default:
        snprintf(buf, sizeof(buf), "signal %d (%s)", sig, strsignal(sig));
        return buf;
    }
    return name;
}

/* The child starts with default dispositions: perfgate's interrupt
 * handling is the parent's, and a crash in user code must end the child
 * with its signal even where a sanitizer runtime installed a handler. */
static void child_reset_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGSEGV,
                               SIGBUS, SIGFPE,  SIGILL, SIGABRT, SIGTRAP};
    size_t i;

    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], SIG_DFL);
}

enum { DRAIN_ERROR = -1, DRAIN_EOF = 0, DRAIN_EMPTY = 1, DRAIN_DATA = 2 };

/* Reads what is there on the non-blocking `fd`, once. */
static int drain(int fd, pg_str *into)
{
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof(buf));

    if (n > 0) {
        pg_str_put(into, buf, (size_t)n);
        return DRAIN_DATA;
    }
    if (n == 0)
        return DRAIN_EOF;
    return (errno == EINTR || errno == EAGAIN) ? DRAIN_EMPTY : DRAIN_ERROR;
}

static void feed_lines(pg_str *pending, const pg_proc_opts *opts, int final)
{
    char *start, *nl;

    if (!pending->size)
        return;
    start = pending->ptr;
    while ((nl = memchr(start, '\n',
                        pending->size - (size_t)(start - pending->ptr)))) {
        *nl = '\0';
        if (opts->on_line)
            opts->on_line(opts->payload, start);
        start = nl + 1;
    }
    if (final && (size_t)(start - pending->ptr) < pending->size) {
        if (opts->on_line)
            opts->on_line(opts->payload, start);
        start = pending->ptr + pending->size;
    }
    /* Keep the unfinished line; refuse to let one grow without bound. */
    {
        size_t rest = pending->size - (size_t)(start - pending->ptr);
        memmove(pending->ptr, start, rest);
        pending->size = rest > MSG_LINE_MAX ? 0 : rest;
        pending->ptr[pending->size] = '\0';
    }
}

/* A child being supervised: its descriptors, what it has said so far, and
 * what is known of its end. */
typedef struct child {
    pid_t pid;
    int out_fd, msg_fd; /* -1 once closed or never opened */
    int exec_fd;        /* says why a program did not start; -1: none */
    int req_fd;         /* perfgate's end of the request pipe; -1: none */
    int killed;
    int64_t start;
    pg_str pending; /* the message pipe's unfinished line */
    pg_proc_result *out;
    const pg_proc_opts *opts;
    pg_boxcap *cap; /* a boxed run's caps, or NULL */
} child;

/* The child's open descriptors, for poll(); how many. */
static nfds_t child_fds(const child *c, struct pollfd *fds)
{
    nfds_t n = 0;

    if (c->out_fd >= 0) {
        fds[n].fd = c->out_fd;
        fds[n++].events = POLLIN;
    }
    if (c->msg_fd >= 0) {
        fds[n].fd = c->msg_fd;
        fds[n++].events = POLLIN;
    }
    return n;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/*
 * One look at the child: takes what it wrote, and kills its group when
 * perfgate is interrupted, the time is up or the watchdog says so.  1 once
 * it has exited (not yet reaped); *err is set when interrupted.
 */
static int child_step(child *c, int *err)
{
    const pg_proc_opts *opts = c->opts;
    siginfo_t info;
    double elapsed;

    if (c->out_fd >= 0 && drain(c->out_fd, &c->out->output) <= DRAIN_EOF)
        close_fd(&c->out_fd);
    if (c->msg_fd >= 0) {
        int r;
        while ((r = drain(c->msg_fd, &c->pending)) == DRAIN_DATA &&
               c->pending.size < 65536)
            ;
        feed_lines(&c->pending, opts, 0);
        if (r <= DRAIN_EOF)
            close_fd(&c->msg_fd);
    }

    memset(&info, 0, sizeof(info));
    if (waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == c->pid)
        return 1;
    if (c->killed)
        return 0;
    elapsed = (double)(pg_now_ns() - c->start) / 1e9;
    if (pg_interrupted()) {
        *err = pg_error_set(PG_ERR_INTERRUPTED, "interrupted");
    } else if (opts->timeout > 0 && elapsed > opts->timeout) {
        c->out->timed_out = 1;
    } else if (c->cap && pg_boxcap_disk_low(c->cap)) {
        c->out->disk_low = 1;
    } else if (opts->watchdog) {
        c->out->watchdog = opts->watchdog(opts->payload);
    }
    if (*err || c->out->timed_out || c->out->disk_low || c->out->watchdog) {
        kill(-c->pid, SIGKILL);
        c->killed = 1;
    }
    return 0;
}

/* After the child exited: stops what it left in its group, takes the rest
 * of what it wrote, reaps it and says how it ended. */
static int child_finish(child *c, int err)
{
    pg_proc_result *out = c->out;
    int status = 0;

    kill(-c->pid, SIGKILL);
    while (c->out_fd >= 0 && drain(c->out_fd, &out->output) == DRAIN_DATA)
        ;
    while (c->msg_fd >= 0 && drain(c->msg_fd, &c->pending) == DRAIN_DATA)
        ;
    feed_lines(&c->pending, c->opts, 1);
    close_fd(&c->out_fd);
    close_fd(&c->msg_fd);
    close_fd(&c->req_fd);
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
        ;
    /* A program that started closed its end (close-on-exec): nothing. */
    if (c->exec_fd >= 0 && read(c->exec_fd, &out->not_run,
                                sizeof(out->not_run)) != sizeof(out->not_run))
        out->not_run = 0;
    close_fd(&c->exec_fd);
    pg_cleanup_drop_child(c->pid);
    pg_str_clear(&c->pending);

    out->seconds = (double)(pg_now_ns() - c->start) / 1e9;
    if (WIFEXITED(status)) {
        out->exited = 1;
        out->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status) && !c->killed) {
        out->signal = WTERMSIG(status);
    }
    if (!err && pg_interrupted())
        err = pg_error_set(PG_ERR_INTERRUPTED, "interrupted");
    return err;
}

/* Waits at most `ms` for the child to write, then looks at it
 * (child_step). */
static int child_wait(child *c, int ms, int *err)
{
    struct pollfd fds[2];
    nfds_t n = child_fds(c, fds);

    if (n)
        poll(fds, n, ms);
    else
        usleep((useconds_t)ms * 1000);
    return child_step(c, err);
}

/* Watches the child until it is gone. */
static int supervise(child *c)
{
    int err = 0;

    while (!child_wait(c, TICK_MS, &err))
        ;
    return child_finish(c, err);
}

/* A process and its parent, as /proc said at one moment. */
typedef struct proc_pair {
    pid_t pid, ppid;
    int doomed;
} proc_pair;

static int by_pid(const void *a, const void *b)
{
    pid_t x = ((const proc_pair *)a)->pid, y = ((const proc_pair *)b)->pid;
    return (x > y) - (x < y);
}

/* Every process /proc lists, into `*out` (which it reallocates). */
static size_t list_processes(proc_pair **out, size_t *cap)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    size_t n = 0;

    if (!d)
        return 0;
    while ((e = readdir(d))) {
        pid_t pid = (pid_t)strtol(e->d_name, NULL, 10), ppid;
        unsigned long long started;
        if (pid <= 0 || pg_proc_stat(pid, &ppid, &started) < 0)
            continue;
        if (n == *cap) {
            *cap = *cap ? 2 * *cap : 256;
            *out = pg_realloc(*out, *cap * sizeof(**out));
        }
        (*out)[n].pid = pid;
        (*out)[n].ppid = ppid;
        (*out)[n++].doomed = 0;
    }
    closedir(d);
    return n;
}

/*
 * Ends the processes that outlived the child they came from, when no box
 * held them (box.h: a PID namespace ends with its run).  perfgate is a
 * subreaper (PR_SET_CHILD_SUBREAPER), so a descendant whose parent died
 * becomes perfgate's child, even one that left the child's process group
 * with setsid(), which the group's SIGKILL missed.  With no child of its
 * own running, every child perfgate has is such an orphan: each round
 * kills them and every process below them at once, so that a chain of
 * any depth goes in a round or two; rounds go on until one finds nothing,
 * for at most ORPHAN_SECONDS against code that forks faster than that.
 */
#define ORPHAN_SECONDS 10

static void end_orphans(void)
{
    proc_pair *all = NULL;
    size_t cap = 0, n, i;
    pid_t self = getpid();
    int64_t deadline = pg_now_ns() + (int64_t)ORPHAN_SECONDS * 1000000000;
    int found = 1;

    while (found && pg_now_ns() < deadline) {
        int grew = 1, pass;
        found = 0;
        n = list_processes(&all, &cap);
        for (i = 0; i < n; i++)
            all[i].doomed = all[i].ppid == self;
        /* Down the tree, parents by pid: a parent's pid is below its
         * children's as a rule, so one pass mostly does; a wrapped pid
         * takes another. */
        qsort(all, n, sizeof(*all), by_pid);
        for (pass = 0; grew && pass < 64; pass++) {
            grew = 0;
            for (i = 0; i < n; i++) {
                proc_pair key, *parent;
                key.pid = all[i].ppid;
                if (all[i].doomed || all[i].ppid <= 1 ||
                    !(parent = bsearch(&key, all, n, sizeof(*all), by_pid)))
                    continue;
                if (parent->doomed)
                    grew = all[i].doomed = 1;
            }
        }
        for (i = 0; i < n; i++)
            if (all[i].doomed) {
                kill(all[i].pid, SIGKILL);
                found = 1;
            }
        /* Reaped, their own children come to perfgate in turn: reap what
         * died, and look again. */
        if (found) {
            struct timespec pause = {0, 2000000};
            nanosleep(&pause, NULL);
        }
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
    }
    free(all);
}

/* Under -v: the command as a shell would take it, where it runs, and
 * whether in the box. */
static void trace_command(char *const argv[], const char *cwd, int boxed)
{
    pg_str line = PG_STR_INIT;
    size_t i;

    for (i = 0; argv[i]; i++) {
        const char *a = argv[i], *p;
        int plain = *a != '\0';
        for (p = a; *p && plain; p++)
            plain =
                strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789-_./=:,+@%",
                       *p) != NULL;
        if (i)
            pg_str_puts(&line, " ");
        if (plain) {
            pg_str_puts(&line, a);
            continue;
        }
        pg_str_puts(&line, "'");
        for (p = a; *p; p++) {
            if (*p == '\'')
                pg_str_puts(&line, "'\\''");
            else
                pg_str_printf(&line, "%c", *p);
        }
        pg_str_puts(&line, "'");
    }
    pg_trace("run: %s%s%s%s%s", pg_str_cstr(&line), cwd ? "  (in " : "",
             cwd ? cwd : "", cwd ? ")" : "", boxed ? "  [boxed]" : "");
    pg_str_clear(&line);
}

/* Closes both ends of each pipe that was made ({-1, -1}: not made). */
static void close_pipes(int a[2], int b[2], int c[2], int d[2])
{
    int *p[4], i;

    p[0] = a, p[1] = b, p[2] = c, p[3] = d;
    for (i = 0; i < 4; i++)
        if (p[i][0] >= 0) {
            close(p[i][0]);
            close(p[i][1]);
        }
}

/*
 * The child's side of child_start(), after fork(): its own process group,
 * gone with perfgate, signals as at exec, the memory limit, /dev/null in,
 * output to the pipe; then argv or fn.  Never returns.
 */
__attribute__((noreturn)) static void
child_side(const int outp[2], const int msgp[2], const int execp[2],
           const int reqp[2], pid_t parent, char *const argv[],
           int (*fn)(void *, int), void *arg, const pg_proc_opts *opts,
           const pg_boxcap *cap)
{
    int devnull = open("/dev/null", O_RDONLY);

    setpgid(0, 0);
    /* A perfgate killed outright (SIGKILL) takes its children along:
     * nothing it started may run on, unwatched. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    child_reset_signals();
    if (opts->memory_limit) {
        struct rlimit rl;
        rl.rlim_cur = rl.rlim_max = (rlim_t)opts->memory_limit;
        setrlimit(RLIMIT_AS, &rl);
    }
    /* A box's processes capped (boxcap.h), bubblewrap's with them. */
    if (cap)
        pg_boxcap_enter(cap);
    /* Inherited across exec, by the box and what it starts. */
    if (opts->no_aslr)
        personality(personality(0xffffffff) | ADDR_NO_RANDOMIZE);
    if (devnull >= 0)
        dup2(devnull, 0);
    dup2(outp[1], 1);
    dup2(outp[1], 2);
    if (opts->cwd && chdir(opts->cwd) < 0) {
        fprintf(stderr, "cannot enter %s: %s\n", opts->cwd, strerror(errno));
        _exit(127);
    }
    if (argv) {
        /* The message pipe as fd 3 and the shared descriptor as fd 4,
         * by way of copies above both so that neither clobbers the
         * other; dup2() leaves the copies' close-on-exec behind. */
        int msg = msgp[1] >= 0 ? fcntl(msgp[1], F_DUPFD_CLOEXEC, 10) : -1;
        int share = opts->share_fd > 0
                        ? fcntl(opts->share_fd, F_DUPFD_CLOEXEC, 10)
                        : -1;
        int req = reqp[0] >= 0 ? fcntl(reqp[0], F_DUPFD_CLOEXEC, 10) : -1;
        int err;

        if (msg >= 0)
            dup2(msg, 3);
        if (share >= 0)
            dup2(share, 4);
        if (req >= 0)
            dup2(req, PG_PROC_REQUEST_FD);
        /* A boxed run's seccomp filter, where bubblewrap reads it. */
        if (opts->box && pg_box_seccomp_fd() < 0) {
            fprintf(stderr, "cannot make the box's seccomp filter: %s\n",
                    strerror(errno));
            _exit(127);
        }
        execvp(argv[0], argv);
        err = errno;
        if (write(execp[1], &err, sizeof(err)) < 0) {
            /* The exit status says it too. */
        }
        fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(err));
        _exit(127);
    }
    close(msgp[0]);
    _exit(fn(arg, msgp[1]));
}

/*
 * Starts argv (or fn(arg, msg fd)) in a child of its own process group,
 * registered with cleanup.h, into `c`, whose result is `out`.
 */
static int child_start(child *c, pg_proc_result *out, char *const argv[],
                       int (*fn)(void *, int), void *arg,
                       const pg_proc_opts *opts, pg_boxcap *cap)
{
    int outp[2], msgp[2] = {-1, -1}, execp[2] = {-1, -1}, reqp[2] = {-1, -1};
    int err;
    pid_t pid, parent;

    memset(out, 0, sizeof(*out));
    pg_str_init(&out->output, opts->output_cap ? opts->output_cap : 65536);
    /* Orphaned descendants come back to perfgate (end_orphans). */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (pg_interrupted())
        return pg_error_set(PG_ERR_INTERRUPTED, "interrupted");
    if (pipe2(outp, O_CLOEXEC) < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot create a pipe: %s",
                            strerror(errno));
    if (((fn || opts->on_line) && pipe2(msgp, O_CLOEXEC) < 0) ||
        (argv && pipe2(execp, O_CLOEXEC) < 0) ||
        (argv && opts->request && pipe2(reqp, O_CLOEXEC) < 0)) {
        err = errno;
        close_pipes(outp, msgp, execp, reqp);
        return pg_error_set(PG_ERR_GENERIC, "cannot create a pipe: %s",
                            strerror(err));
    }
    fflush(stdout);
    fflush(stderr);
    memset(c, 0, sizeof(*c));
    c->start = pg_now_ns();
    parent = getpid();
    pid = fork();
    if (pid < 0) {
        err = errno;
        close_pipes(outp, msgp, execp, reqp);
        return pg_error_set(PG_ERR_GENERIC, "cannot fork: %s", strerror(err));
    }
    if (pid == 0)
        child_side(outp, msgp, execp, reqp, parent, argv, fn, arg, opts, cap);
    setpgid(pid, pid);
    pg_cleanup_add_child(pid);
    close(outp[1]);
    if (msgp[1] >= 0)
        close(msgp[1]);
    if (execp[1] >= 0)
        close(execp[1]);
    if (reqp[0] >= 0)
        close(reqp[0]);
    c->pid = pid;
    c->req_fd = reqp[1];
    c->out_fd = outp[0];
    c->msg_fd = msgp[0];
    c->exec_fd = execp[0];
    c->out = out;
    c->opts = opts;
    c->cap = cap;
    fcntl(c->out_fd, F_SETFL, O_NONBLOCK);
    if (c->msg_fd >= 0)
        fcntl(c->msg_fd, F_SETFL, O_NONBLOCK);
    return 0;
}

static int spawn(pg_proc_result *out, char *const argv[],
                 int (*fn)(void *, int), void *arg, const pg_proc_opts *opts)
{
    child c;
    int err;

    if ((err = child_start(&c, out, argv, fn, arg, opts, NULL)) < 0)
        return err;
    err = supervise(&c);
    end_orphans();
    if (err < 0)
        pg_proc_result_clear(out);
    return err;
}

/*
 * `argv` as it runs in opts->box: the box's command line in `boxed` and
 * its private temporary directory in `*tmp`.  0 (with nothing to do when
 * there is no box to be had and none is required), or a set error.
 */
static int box_argv(pg_strvec *boxed, char **tmp, char *const argv[],
                    const pg_proc_opts *opts)
{
    const char *why, *base = pg_env("TMPDIR");
    char *program = pg_path_search(argv[0]);

    *tmp = NULL;
    /* A program that is not there runs nowhere: it fails as it would
     * outside, where its message is the one users know. */
    if (!program || access(program, X_OK) < 0) {
        free(program);
        return 0;
    }
    free(program);
    if (!pg_box_ready(&why))
        return pg_box_mode_get() == PG_BOX_REQUIRE
                   ? pg_error_set(PG_ERR_USAGE,
                                  "no box for the revisions' code "
                                  "(--sandbox require): %s",
                                  why)
                   : 0;
    *tmp = pg_strdupf("%s/box-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(*tmp)) {
        int saved = errno;
        free(*tmp);
        *tmp = NULL;
        return pg_error_set(PG_ERR_GENERIC,
                            "cannot create a temporary directory for the "
                            "box: %s",
                            strerror(saved));
    }
    pg_box_argv(boxed, opts->box, *tmp, opts->cwd, argv);
    return 0;
}

/* A program started, boxed or not: its child, and the box's command line
 * and private temporary directory. */
struct pg_proc_live {
    child c;
    pg_strvec boxed;
    char *tmp;
    pg_boxcap cap; /* how many processes the box may run */
};

/* Starts argv as opts say into `p`; 0, or negative with `out` empty. */
static int live_open(pg_proc_live *p, pg_proc_result *out, char *const argv[],
                     const pg_proc_opts *opts)
{
    int err;

    memset(&p->boxed, 0, sizeof(p->boxed));
    memset(&p->cap, 0, sizeof(p->cap));
    p->tmp = NULL;
    if (opts->box && (err = box_argv(&p->boxed, &p->tmp, argv, opts)) < 0) {
        memset(out, 0, sizeof(*out));
        pg_str_init(&out->output, 64);
        return err;
    }
    if (pg_tracing())
        trace_command(argv, opts->cwd, p->tmp != NULL);
    if (p->tmp)
        pg_boxcap_open(&p->cap, opts->box->write);
    err = child_start(&p->c, out, p->boxed.n ? p->boxed.v : argv, NULL, NULL,
                      opts, p->tmp ? &p->cap : NULL);
    if (err < 0) {
        if (p->tmp)
            pg_rm_rf(p->tmp);
        free(p->tmp);
        pg_strvec_clear(&p->boxed);
        pg_boxcap_close(&p->cap);
    }
    return err;
}

/* After the program exited (or to stop it): as child_finish(), then what
 * the box adds. */
static int live_close(pg_proc_live *p, int err)
{
    pg_proc_result *out = p->c.out;

    err = child_finish(&p->c, err);
    /* A box's PID namespace ended with it, and every process in it: only
     * an unboxed run can leave orphans (a few ms a run to look). */
    if (!p->tmp)
        end_orphans();
    /* bubblewrap says a signal's end as the shells do, 128 + its number:
     * taken back (a program that exits with such a status on purpose is
     * said to have been killed, as a shell would say it). */
    if (p->tmp && out->exited && out->exit_code > 128 &&
        out->exit_code < 128 + 65) {
        out->signal = out->exit_code - 128;
        out->exited = 0;
        out->exit_code = 0;
    }
    if (p->tmp)
        pg_rm_rf(p->tmp);
    free(p->tmp);
    pg_strvec_clear(&p->boxed);
    pg_boxcap_close(&p->cap);
    return err;
}

int pg_proc_run_argv(pg_proc_result *out, char *const argv[],
                     const pg_proc_opts *opts)
{
    pg_proc_live p;
    int err = 0;

    if ((err = live_open(&p, out, argv, opts)) < 0)
        return err;
    while (!child_wait(&p.c, TICK_MS, &err))
        ;
    if ((err = live_close(&p, err)) < 0)
        pg_proc_result_clear(out);
    return err;
}

int pg_proc_start(pg_proc_live **out, pg_proc_result *res, char *const argv[],
                  const pg_proc_opts *opts)
{
    pg_proc_live *p = pg_calloc(1, sizeof(*p));
    int err;

    if ((err = live_open(p, res, argv, opts)) < 0) {
        free(p);
        *out = NULL;
        return err;
    }
    *out = p;
    return 0;
}

/* One line to `fd`: "[TOKEN ]TEXT\n", newlines in TEXT made spaces,
 * written whole (short writes resumed, EINTR retried).  0, or -1 when
 * the reader is gone. */
static int send_line(int fd, const char *token, const char *fmt, va_list ap)
{
    pg_str s = PG_STR_INIT;
    size_t i, off = 0;
    int err = 0;

    if (token)
        pg_str_printf(&s, "%s ", token);
    pg_str_vprintf(&s, fmt, ap);
    for (i = 0; i < s.size; i++)
        if (s.ptr[i] == '\n' || s.ptr[i] == '\r')
            s.ptr[i] = ' ';
    pg_str_putc(&s, '\n');
    while (off < s.size) {
        ssize_t n = write(fd, s.ptr + off, s.size - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = -1;
            break;
        }
        off += (size_t)n;
    }
    pg_str_clear(&s);
    return err;
}

int pg_proc_live_vsend(pg_proc_live *p, const char *fmt, va_list ap)
{
    return p->c.req_fd < 0 ? -1 : send_line(p->c.req_fd, NULL, fmt, ap);
}

int pg_proc_live_send(pg_proc_live *p, const char *fmt, ...)
{
    va_list ap;
    int err;

    va_start(ap, fmt);
    err = pg_proc_live_vsend(p, fmt, ap);
    va_end(ap);
    return err;
}

int pg_proc_live_wait(pg_proc_live *p, int ms, int *err)
{
    return child_wait(&p->c, ms, err);
}

pid_t pg_proc_live_pid(const pg_proc_live *p)
{
    return p->c.pid;
}

int pg_proc_finish(pg_proc_live *p, int err)
{
    if (!p)
        return err;
    /* Stopped by perfgate, not ended by a signal of its own. */
    if (!p->c.killed) {
        siginfo_t info;
        memset(&info, 0, sizeof(info));
        if (waitid(P_PID, (id_t)p->c.pid, &info, WEXITED | WNOHANG | WNOWAIT) !=
                0 ||
            info.si_pid != p->c.pid) {
            kill(-p->c.pid, SIGKILL);
            p->c.killed = 1;
        }
    }
    err = live_close(p, err);
    free(p);
    return err;
}

int pg_proc_run_fn(pg_proc_result *out, int (*fn)(void *arg, int msg_fd),
                   void *arg, const pg_proc_opts *opts)
{
    return spawn(out, NULL, fn, arg, opts);
}

/* One place of pg_proc_run_parallel(): its child, and the task. */
typedef struct slot {
    child c;
    pg_proc_result res;
    pg_proc_opts opts; /* pp->opts, with on_line reaching the slot */
    const pg_proc_parallel *pp;
    void *task;
    int busy;
} slot;

static void slot_line(void *payload, const char *line)
{
    slot *s = payload;

    if (s->pp->on_line)
        s->pp->on_line(s->pp->payload, s->task, line);
}

/* Starts the next task in `s`: 1 when one started, 0 when there are no
 * more, or an error. */
static int slot_start(slot *s, const pg_proc_parallel *pp)
{
    int (*fn)(void *, int);
    int err;

    if (!pp->next_task(pp->payload, &fn, &s->task))
        return 0;
    s->pp = pp;
    s->opts = pp->opts;
    s->opts.on_line = slot_line;
    s->opts.payload = s;
    if ((err = child_start(&s->c, &s->res, NULL, fn, s->task, &s->opts, NULL)) <
        0) {
        pg_proc_result_clear(&s->res);
        return err;
    }
    s->busy = 1;
    return 1;
}

/* Waits a tick for any busy slot's descriptors (`fds`: room for two a
 * slot). */
static void parallel_poll(const slot *slots, int n, struct pollfd *fds)
{
    nfds_t count = 0;
    int i;

    for (i = 0; i < n; i++)
        if (slots[i].busy)
            count += child_fds(&slots[i].c, fds + count);
    if (count)
        poll(fds, count, TICK_MS);
    else
        usleep(TICK_MS * 1000);
}

int pg_proc_run_parallel(const pg_proc_parallel *pp)
{
    int n = pp->jobs > 0 ? pp->jobs : 1, i, busy = 0, more = 1, err = 0;
    slot *slots = pg_calloc((size_t)n, sizeof(*slots));
    struct pollfd *fds = pg_calloc((size_t)n * 2, sizeof(*fds));

    for (;;) {
        for (i = 0; i < n && more && !err; i++)
            if (!slots[i].busy) {
                int r = slot_start(&slots[i], pp);
                if (r < 0)
                    err = r;
                more = r > 0;
                busy += r > 0;
            }
        if (!busy)
            break;
        parallel_poll(slots, n, fds);
        for (i = 0; i < n; i++) {
            slot *s = &slots[i];
            int cerr = 0, ended = s->busy && child_step(&s->c, &cerr);
            if (!ended && !cerr)
                continue;
            if (!ended) {
                /* Interrupted: the group is killed; reap it. */
                while (!child_step(&s->c, &cerr))
                    usleep(1000);
            }
            cerr = child_finish(&s->c, cerr);
            s->busy = 0;
            busy--;
            if (cerr < 0 && !err)
                err = cerr;
            if (!cerr && pp->task_done)
                pp->task_done(pp->payload, s->task, &s->res);
            pg_proc_result_clear(&s->res);
        }
        if (err)
            more = 0;
    }
    free(slots);
    free(fds);
    end_orphans();
    return err;
}

void pg_proc_result_clear(pg_proc_result *res)
{
    pg_str_clear(&res->output);
}

size_t pg_proc_memory_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page / 2 : 0;
}

int pg_proc_send(int fd, const char *token, const char *fmt, ...)
{
    va_list ap;
    int err;

    va_start(ap, fmt);
    err = send_line(fd, token, fmt, ap);
    va_end(ap);
    return err;
}

const char *pg_proc_message(const char *line, const char *token, char *word,
                            size_t size)
{
    size_t n;

    if (token) {
        size_t len = strlen(token);
        if (strncmp(line, token, len) || line[len] != ' ')
            return NULL;
        line += len + 1;
    }
    line += strspn(line, " ");
    n = strcspn(line, " ");
    if (!n || n >= size)
        return NULL;
    memcpy(word, line, n);
    word[n] = '\0';
    return line + n + strspn(line + n, " ");
}

static void *reader_gone(void *arg)
{
    struct pollfd p;

    p.fd = (int)(intptr_t)arg;
    p.events = 0;
    p.revents = 0;
    /* With no events asked, poll() returns for POLLERR (a pipe's writing
     * end whose readers are gone) or POLLHUP alone. */
    while (poll(&p, 1, -1) <= 0 || !(p.revents & (POLLERR | POLLHUP)))
        if (p.revents & POLLNVAL)
            return NULL; /* not a descriptor: nothing to watch */
    _exit(PG_PROC_READER_GONE);
    return NULL;
}

int pg_proc_exit_with_reader(int fd)
{
    pthread_attr_t attr;
    pthread_t thread;
    sigset_t all, old;
    int err;

    if (fd < 0 || pthread_attr_init(&attr) != 0)
        return -1;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    /* Born with every signal blocked: they are the main thread's (a
     * sampling timer's, a crash's). */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    err = pthread_create(&thread, &attr, reader_gone, (void *)(intptr_t)fd);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return err ? -1 : 0;
}
