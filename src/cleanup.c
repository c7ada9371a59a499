/*
 * cleanup.c - temporary directories and signal handling.
 */
#define _POSIX_C_SOURCE 200809L
#include "cleanup.h"
#include "error.h"
#include "fs.h"
#include "str.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TEMPDIRS 16

static char *tempdirs[MAX_TEMPDIRS];
static pid_t owner_pid;
static volatile sig_atomic_t interrupted;
static volatile pid_t child_pgid;

static void on_signal(int sig)
{
    pid_t pgid = child_pgid;

    interrupted = sig;
    if (pgid > 0)
        kill(-pgid, SIGKILL);
}

void pg_tempdir_remove_all(void)
{
    int i;

    /* A forked child inherits the list but must not remove anything. */
    if (getpid() != owner_pid)
        return;
    for (i = 0; i < MAX_TEMPDIRS; i++) {
        if (tempdirs[i]) {
            pg_rm_rf(tempdirs[i]);
            free(tempdirs[i]);
            tempdirs[i] = NULL;
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
    /* No SA_RESTART: a blocking wait must return and see the flag. */
    for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    atexit(pg_tempdir_remove_all);
}

int pg_tempdir_create(char **out)
{
    const char *base = getenv("TMPDIR");
    char *path;
    int i;

    if (!base || !*base)
        base = "/tmp";
    path = pg_strdupf("%s/perfgate-XXXXXX", base);
    if (!mkdtemp(path)) {
        int saved = errno;
        free(path);
        return pg_error_set(PG_ERR_GENERIC,
                            "cannot create a temporary directory in %s: %s "
                            "(set TMPDIR to a writable directory)",
                            base, strerror(saved));
    }
    for (i = 0; i < MAX_TEMPDIRS && tempdirs[i]; i++)
        ;
    if (i == MAX_TEMPDIRS) {
        pg_rm_rf(path);
        free(path);
        return pg_error_set(PG_ERR_GENERIC, "too many temporary directories");
    }
    tempdirs[i] = pg_strdup(path);
    *out = path;
    return 0;
}

int pg_interrupted(void)
{
    return interrupted;
}

void pg_cleanup_set_child(pid_t pgid)
{
    child_pgid = pgid;
}

void pg_cleanup_reraise(void)
{
    int sig = interrupted;

    if (!sig)
        return;
    pg_tempdir_remove_all();
    signal(sig, SIG_DFL);
    raise(sig);
}
