/*
 * box.c - runs in bubblewrap: a read-only world, no network, one PID
 * namespace per run, an environment of a few names.
 */
#define _GNU_SOURCE
#include "box.h"
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
#include <sys/prctl.h>
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
        const char *v = getenv(passed.v[i]);
        if (v)
            pg_str_printf(out, "%s=%s\n", passed.v[i], v);
    }
}

/* `name`=its value as a --setenv, when perfgate's environment has it. */
static void keep_var(pg_strvec *out, const char *name)
{
    const char *v = getenv(name);

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
    const char *env = getenv("PERFGATE_SANDBOX");

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
    for (i = 0; box && i < PG_BOX_PATHS && box->hide[i]; i++) {
        pg_strvec_push(out, "--tmpfs");
        pg_strvec_push(out, box->hide[i]);
    }
    for (i = 0; box && i < PG_BOX_PATHS && box->write[i]; i++) {
        pg_strvec_push(out, "--bind");
        pg_strvec_push(out, box->write[i]);
        pg_strvec_push(out, box->write[i]);
    }
    if (tmp) {
        pg_strvec_push(out, "--bind");
        pg_strvec_push(out, tmp);
        pg_strvec_push(out, tmp);
        pg_strvec_push(out, "--setenv");
        pg_strvec_push(out, "TMPDIR");
        pg_strvec_push(out, tmp);
    }
    if (!cwd)
        cwd = here = getcwd(NULL, 0);
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
    const char *env = getenv("PERFGATE_BWRAP");

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
    }
    *why = why_not;
    return probed > 0;
}
