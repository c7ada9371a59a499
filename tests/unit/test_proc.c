/*
 * Child processes under supervision: exit status, signals, time limits,
 * capped output, and the message channel from a child to perfgate.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boxcap.h"
#include "proc.h"
#include "str.h"
#include "strvec.h"
#include "test.h"

static void exit_status_and_output(void)
{
    char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
    pg_proc_opts opts;
    pg_proc_result res;

    memset(&opts, 0, sizeof(opts));
    REQUIRE(pg_proc_run_argv(&res, argv, &opts) == 0);
    CHECK(res.exited && res.exit_code == 3);
    CHECK(!res.signal && !res.timed_out);
    CHECK_CONTAINS(pg_str_cstr(&res.output), "out\n");
    CHECK_CONTAINS(pg_str_cstr(&res.output), "err\n");
    pg_proc_result_clear(&res);
}

/* A program that is not there is said to be not run, with why; one that
 * ran and exited 127 itself is not taken for it. */
static void a_program_that_does_not_start(void)
{
    char *missing[] = {"/nonexistent/perfgate-no-such-program", NULL};
    char *exits[] = {"sh", "-c", "echo \"cannot run 'x'\"; exit 127", NULL};
    pg_proc_opts opts;
    pg_proc_result res;

    memset(&opts, 0, sizeof(opts));
    REQUIRE(pg_proc_run_argv(&res, missing, &opts) == 0);
    CHECK(res.not_run == ENOENT);
    CHECK(res.exited && res.exit_code == 127);
    CHECK_CONTAINS(pg_str_cstr(&res.output), "cannot run");
    pg_proc_result_clear(&res);

    REQUIRE(pg_proc_run_argv(&res, exits, &opts) == 0);
    CHECK(res.not_run == 0);
    CHECK(res.exited && res.exit_code == 127);
    pg_proc_result_clear(&res);
}

static void signals_and_time_limits(void)
{
    char *crash[] = {"sh", "-c", "kill -SEGV $$", NULL};
    char *hang[] = {"sleep", "30", NULL};
    pg_proc_opts opts;
    pg_proc_result res;

    memset(&opts, 0, sizeof(opts));
    REQUIRE(pg_proc_run_argv(&res, crash, &opts) == 0);
    CHECK(!res.exited && res.signal == SIGSEGV);
    CHECK_CONTAINS(pg_signal_describe(res.signal), "SIGSEGV");
    pg_proc_result_clear(&res);

    opts.timeout = 0.2;
    REQUIRE(pg_proc_run_argv(&res, hang, &opts) == 0);
    CHECK(res.timed_out);
    CHECK(res.seconds < 20); /* killed, not waited for */
    pg_proc_result_clear(&res);
}

static void output_is_capped(void)
{
    char *flood[] = {"sh", "-c",
                     "i=0; while [ $i -lt 2000 ]; do "
                     "echo line $i; i=$((i+1)); done",
                     NULL};
    pg_proc_opts opts;
    pg_proc_result res;

    memset(&opts, 0, sizeof(opts));
    opts.output_cap = 100;
    REQUIRE(pg_proc_run_argv(&res, flood, &opts) == 0);
    CHECK(res.output.size <= 100);
    CHECK(res.output.truncated);
    CHECK_CONTAINS(pg_str_cstr(&res.output), "line 1999\n"); /* the newest */
    pg_proc_result_clear(&res);
}

/* The child's side of the channel: messages, one very long. */
static int talk(void *arg, int fd)
{
    pg_str big = PG_STR_INIT;
    int i;

    (void)arg;
    for (i = 0; i < 20000; i++)
        pg_str_putc(&big, 'x');
    pg_proc_send(fd, "tok", "hello two\nlines");
    pg_proc_send(fd, NULL, "forged by user code");
    pg_proc_send(fd, "tok", "big %s", pg_str_cstr(&big));
    pg_str_clear(&big);
    return 0;
}

static void on_line(void *payload, const char *line)
{
    pg_strvec *got = payload;
    char word[8];
    const char *rest = pg_proc_message(line, "tok", word, sizeof(word));

    if (rest)
        pg_strvec_pushf(got, "%s|%zu|%.10s", word, strlen(rest), rest);
}

static void message_channel(void)
{
    pg_strvec got = PG_STRVEC_INIT;
    pg_proc_opts opts;
    pg_proc_result res;
    char word[4];

    memset(&opts, 0, sizeof(opts));
    opts.on_line = on_line;
    opts.payload = &got;
    REQUIRE(pg_proc_run_fn(&res, talk, NULL, &opts) == 0);
    CHECK(res.exited && res.exit_code == 0);
    /* Whole lines, newlines inside made spaces; only the token's lines. */
    REQUIRE(got.n == 2);
    CHECK_STR(got.v[0], "hello|9|two lines");
    CHECK_STR(got.v[1], "big|20000|xxxxxxxxxx");
    /* A word too long for the buffer is not a message. */
    CHECK(pg_proc_message("toolong rest", NULL, word, sizeof(word)) == NULL);
    CHECK(pg_proc_message("tok", "tok", word, sizeof(word)) == NULL);
    pg_strvec_clear(&got);
    pg_proc_result_clear(&res);
}

/* pg_proc_run_parallel's bookkeeping, as the test's callbacks see it. */
typedef struct parallel_log {
    int task[6], next, running, most;
    int said[6], code[6], sig[6], timed_out[6], done[6];
    char out[6][16];
} parallel_log;

/* Task N says "i N" and prints "out N", then exits N; task 2 crashes and
 * task 4 hangs. */
static int parallel_task(void *arg, int fd)
{
    int n = *(const int *)arg;

    pg_proc_send(fd, NULL, "i %d", n);
    printf("out %d\n", n);
    fflush(stdout);
    if (n == 2)
        raise(SIGSEGV);
    if (n == 4)
        sleep(30);
    return n;
}

static int parallel_next(void *payload, int (**fn)(void *, int), void **task)
{
    parallel_log *log = payload;

    if (log->next == 6)
        return 0;
    log->task[log->next] = log->next;
    *fn = parallel_task;
    *task = &log->task[log->next++];
    if (++log->running > log->most)
        log->most = log->running;
    return 1;
}

static void parallel_line(void *payload, void *task, const char *line)
{
    parallel_log *log = payload;
    int n = *(int *)task, said;

    if (sscanf(line, "i %d", &said) == 1 && said == n)
        log->said[n]++;
}

static void parallel_done(void *payload, void *task, const pg_proc_result *res)
{
    parallel_log *log = payload;
    int n = *(int *)task;

    log->running--;
    log->done[n]++;
    log->code[n] = res->exited ? res->exit_code : -1;
    log->sig[n] = res->signal;
    log->timed_out[n] = res->timed_out;
    snprintf(log->out[n], sizeof(log->out[n]), "%s", pg_str_cstr(&res->output));
}

/* Six tasks, two at a time: each runs once, at most two at once, its
 * messages and output reach it alone, and a crash or a hang is its own
 * result, not the run's. */
static void parallel_tasks(void)
{
    pg_proc_parallel pp;
    parallel_log log;
    int n;

    memset(&pp, 0, sizeof(pp));
    memset(&log, 0, sizeof(log));
    pp.jobs = 2;
    pp.opts.timeout = 3;
    pp.next_task = parallel_next;
    pp.on_line = parallel_line;
    pp.task_done = parallel_done;
    pp.payload = &log;
    REQUIRE(pg_proc_run_parallel(&pp) == 0);
    CHECK(log.most == 2);
    CHECK(log.running == 0);
    for (n = 0; n < 6; n++) {
        char want[16];
        snprintf(want, sizeof(want), "out %d\n", n);
        CHECK(log.done[n] == 1);
        CHECK(log.said[n] == 1);
        CHECK_STR(log.out[n], want);
        if (n == 2)
            CHECK(log.sig[n] == SIGSEGV);
        else if (n == 4)
            CHECK(log.timed_out[n] && !log.sig[n]);
        else
            CHECK(log.code[n] == n);
    }
}

/* The position of `word` in `a` from `from` on, or a.n. */
static size_t find(const pg_strvec *a, size_t from, const char *word)
{
    for (; from < a->n && strcmp(a->v[from], word); from++)
        ;
    return from;
}

/* The position of the mount `how` of `path` in `a`, or a.n. */
static size_t mount_at(const pg_strvec *a, const char *how, const char *path)
{
    size_t i;

    for (i = 0; i + 1 < a->n; i++)
        if (!strcmp(a->v[i], how) && !strcmp(a->v[i + 1], path))
            return i;
    return a->n;
}

static void box_command_line(void)
{
    pg_box box = {
        {"/w/side", "/w/out", "/w/h/in"}, {"/w/other", "/w/h"}, {NULL}};
    char *argv[] = {"sh", "-c", "make", NULL};
    pg_strvec a = PG_STRVEC_INIT;
    pg_box_mode mode;
    char *path = getenv("PATH") ? pg_strdup(getenv("PATH")) : NULL;
    struct stat st;
    size_t ro, dashes;

    /* A tool in a home's ~/.pyenv needs all of it; one below ~/.ssh gets
     * its own directory alone; elsewhere a directory is itself. */
    setenv("PATH", "/root/.pyenv/shims:/root/.ssh/bin:/tmp/t/bin:/usr/bin", 1);
    pg_box_argv(&a, &box, "/w/tmp", "/w/side", argv);
    if (path)
        setenv("PATH", path, 1);
    free(path);
    REQUIRE(a.n > 10);
    /* Every namespace, the network's included; gone with perfgate. */
    CHECK(find(&a, 0, "--unshare-all") < a.n);
    CHECK(find(&a, 0, "--die-with-parent") < a.n);
    /* The machine read-only first; then, outermost first, what is hidden
     * and what is seen again inside it, so that a writable path inside a
     * hidden one is seen. */
    ro = find(&a, 0, "--ro-bind");
    REQUIRE(ro + 2 < a.n);
    CHECK_STR(a.v[ro + 1], "/");
    CHECK(ro < mount_at(&a, "--tmpfs", "/tmp"));
    /* The run's temporary directory: a tmpfs of its own, capped. */
    CHECK(mount_at(&a, "--tmpfs", "/tmp") < mount_at(&a, "--tmpfs", "/w/tmp"));
    REQUIRE(mount_at(&a, "--tmpfs", "/w/tmp") >= 2);
    CHECK_STR(a.v[mount_at(&a, "--tmpfs", "/w/tmp") - 2], "--size");
    CHECK(strtoull(a.v[mount_at(&a, "--tmpfs", "/w/tmp") - 1], NULL, 10) ==
          PG_BOX_TMP_BYTES);
    CHECK(mount_at(&a, "--bind", "/w/tmp") == a.n);
    CHECK(mount_at(&a, "--tmpfs", "/w/other") < a.n);
    CHECK(mount_at(&a, "--bind", "/w/side") < a.n);
    CHECK(mount_at(&a, "--bind", "/w/out") < a.n);
    CHECK(mount_at(&a, "--tmpfs", "/w/h") < mount_at(&a, "--bind", "/w/h/in"));
    CHECK(mount_at(&a, "--bind", "/w/h/in") < a.n);
    CHECK(mount_at(&a, "--ro-bind-try", "/tmp/t/bin") < a.n);
    CHECK(mount_at(&a, "--tmpfs", "/tmp") <
          mount_at(&a, "--ro-bind-try", "/tmp/t/bin"));
    CHECK(mount_at(&a, "--ro-bind-try", "/usr/bin") == a.n);
    if (lstat("/root", &st) == 0 && S_ISDIR(st.st_mode)) {
        CHECK(mount_at(&a, "--tmpfs", "/root") <
              mount_at(&a, "--ro-bind-try", "/root/.pyenv"));
        CHECK(mount_at(&a, "--ro-bind-try", "/root/.pyenv") < a.n);
        CHECK(mount_at(&a, "--ro-bind-try", "/root/.ssh/bin") < a.n);
        CHECK(mount_at(&a, "--ro-bind-try", "/root/.ssh") == a.n);
    }
    /* Hidden places stay empty: read-only once what is inside is mounted. */
    CHECK(mount_at(&a, "--tmpfs", "/w/tmp") <
          mount_at(&a, "--remount-ro", "/tmp"));
    CHECK(mount_at(&a, "--remount-ro", "/w/h") < a.n);
    CHECK(find(&a, 0, "TMPDIR") < a.n);
    CHECK_STR(a.v[find(&a, 0, "--chdir") + 1], "/w/side");
#if defined(__x86_64__) || defined(__aarch64__)
    CHECK_STR(a.v[find(&a, 0, "--seccomp") + 1], "5");
#endif
    /* The command itself, whole, after "--". */
    dashes = find(&a, 0, "--");
    REQUIRE(dashes + 3 < a.n);
    CHECK_STR(a.v[dashes + 1], "sh");
    CHECK_STR(a.v[dashes + 3], "make");
    CHECK(dashes + 4 == a.n);
    pg_strvec_clear(&a);

    CHECK(pg_box_parse_mode(&mode, "require") == 0 && mode == PG_BOX_REQUIRE);
    CHECK(pg_box_parse_mode(&mode, "off") == 0 && mode == PG_BOX_OFF);
    CHECK(pg_box_parse_mode(&mode, "auto") == 0 && mode == PG_BOX_AUTO);
    CHECK(pg_box_parse_mode(&mode, "yes") < 0);
}

#if defined(__x86_64__) || defined(__aarch64__)
/* In a child: the box's filter installed, each thing a run may and may not
 * do tried; a bit of the exit status for each that went wrong. */
static int filtered_child(const struct sockaddr_un *stream,
                          const struct sockaddr_un *dgram)
{
    static struct sock_filter prog[64];
    struct sock_fprog fprog;
    struct msghdr msg;
    struct iovec iov = {"x", 1};
    ssize_t n;
    int s, d, sv[2], bad = 0;

    if (pg_box_seccomp_fd() < 0 || lseek(PG_BOX_SECCOMP_FD, 0, SEEK_SET) ||
        (n = read(PG_BOX_SECCOMP_FD, prog, sizeof(prog))) <= 0)
        return 255;
    fprog.len = (unsigned short)((size_t)n / sizeof(prog[0]));
    fprog.filter = prog;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog))
        return 254;
    /* A unix socket opens (CUDA's runtime needs one) but reaches nothing. */
    s = socket(AF_UNIX, SOCK_STREAM, 0);
    bad |= s < 0;
    bad |= (connect(s, (const struct sockaddr *)stream, sizeof(*stream)) == 0 ||
            errno != ENOENT)
           << 1;
    d = socket(AF_UNIX, SOCK_DGRAM, 0);
    bad |= (sendto(d, "x", 1, 0, (const struct sockaddr *)dgram,
                   sizeof(*dgram)) >= 0 ||
            errno != EACCES)
           << 2;
    memset(&msg, 0, sizeof(msg));
    msg.msg_name = (void *)dgram;
    msg.msg_namelen = sizeof(*dgram);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    bad |= (sendmsg(d, &msg, 0) >= 0 || errno != EACCES) << 3;
    bad |= (syscall(__NR_io_uring_setup, 1, NULL) >= 0 || errno != ENOSYS) << 4;
    /* A pair of its own still talks. */
    bad |= (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
            send(sv[0], "x", 1, 0) != 1 ||
            sendto(sv[0], "x", 1, 0, NULL, 0) != 1 || write(sv[0], "x", 1) != 1)
           << 5;
    return bad;
}
#endif

/* The box's seccomp filter, installed in a child: what it refuses and
 * what it lets through (box.c). */
static void seccomp_filter(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
    struct sockaddr_un stream, dgram;
    char dir[] = "/tmp/pg-seccomp-XXXXXX";
    int ls, ld, status = 0;
    pid_t pid;

    REQUIRE(mkdtemp(dir) != NULL);
    memset(&stream, 0, sizeof(stream));
    memset(&dgram, 0, sizeof(dgram));
    stream.sun_family = dgram.sun_family = AF_UNIX;
    snprintf(stream.sun_path, sizeof(stream.sun_path), "%s/s", dir);
    snprintf(dgram.sun_path, sizeof(dgram.sun_path), "%s/d", dir);
    ls = socket(AF_UNIX, SOCK_STREAM, 0);
    ld = socket(AF_UNIX, SOCK_DGRAM, 0);
    REQUIRE(ls >= 0 && ld >= 0);
    REQUIRE(bind(ls, (struct sockaddr *)&stream, sizeof(stream)) == 0);
    REQUIRE(listen(ls, 4) == 0);
    REQUIRE(bind(ld, (struct sockaddr *)&dgram, sizeof(dgram)) == 0);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0)
        _exit(filtered_child(&stream, &dgram));
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (WIFEXITED(status) && WEXITSTATUS(status))
        fprintf(stderr, "    filtered child: status %d\n", WEXITSTATUS(status));
    close(ls);
    close(ld);
    unlink(stream.sun_path);
    unlink(dgram.sun_path);
    rmdir(dir);
#endif
}

/* A program whose reader (perfgate) is gone ends, though it hangs and no
 * parent-death signal reaches it (a box started as perfgate was killed);
 * while the reader lives it runs on. */
static void a_program_ends_when_its_reader_is_gone(void)
{
    int p[2], status = 0, i;
    pid_t pid;

    REQUIRE(pipe(p) == 0);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        if (pg_proc_exit_with_reader(p[1]) < 0)
            _exit(1);
        for (;;)
            pause(); /* a function that never returns */
    }
    close(p[1]);
    usleep(200 * 1000);
    CHECK(waitpid(pid, &status, WNOHANG) == 0);
    close(p[0]);
    for (i = 0; i < 1000 && waitpid(pid, &status, WNOHANG) == 0; i++)
        usleep(10 * 1000);
    if (i == 1000) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    CHECK(i < 1000);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == PG_PROC_READER_GONE);
}

/* The groups a box keeps are said, but the user's own; in a child, whose
 * groups root may set (elsewhere there is nothing to set). */
static void the_groups_a_box_keeps_are_said(void)
{
    int p[2], status = 0;
    char said[256] = "";
    ssize_t n;
    pid_t pid;

    if (geteuid() != 0)
        return;
    REQUIRE(pipe(p) == 0);
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        gid_t groups[3] = {getgid(), 4, 27};
        char *g;
        close(p[0]);
        if (setgroups(3, groups) < 0)
            _exit(2);
        g = pg_boxcap_groups();
        if (write(p[1], g ? g : "-", g ? strlen(g) : 1) < 0)
            _exit(3);
        setgroups(1, groups);
        free(g);
        g = pg_boxcap_groups();
        _exit(g ? 4 : 0);
    }
    close(p[1]);
    n = read(p[0], said, sizeof(said) - 1);
    close(p[0]);
    waitpid(pid, &status, 0);
    REQUIRE(n > 0);
    said[n] = '\0';
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_CONTAINS(said, "(4)");
    CHECK_CONTAINS(said, ", ");
    CHECK_CONTAINS(said, "(27)");
}

const pg_test pg_tests_proc[] = {
    {"the_groups_a_box_keeps_are_said", the_groups_a_box_keeps_are_said},
    {"a_program_ends_when_its_reader_is_gone",
     a_program_ends_when_its_reader_is_gone},
    {"exit_status_and_output", exit_status_and_output},
    {"a_program_that_does_not_start", a_program_that_does_not_start},
    {"signals_and_time_limits", signals_and_time_limits},
    {"output_is_capped", output_is_capped},
    {"message_channel", message_channel},
    {"parallel_tasks", parallel_tasks},
    {"box_command_line", box_command_line},
    {"seccomp_filter", seccomp_filter},
    PG_TESTS_END};
