/*
 * env.c: the environment read in one place, from one list; a test's own
 * table in place of the environment; a name off the list refused.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"
#include "settings.h"
#include "test.h"

static const char *const *vars; /* name, value, ..., NULL */

static const char *table(const char *name)
{
    const char *const *v;

    for (v = vars; v && *v; v += 2)
        if (!strcmp(*v, name))
            return v[1];
    return NULL;
}

static void every_listed_name_reads_through_the_source(void)
{
    static const char *const none[] = {NULL};
    size_t i, n = 0;

    vars = none;
    pg_env_use(table);
    for (i = 0; pg_env_list[i]; i += 2) {
        CHECK(pg_env(pg_env_list[i]) == NULL); /* nothing but the table */
        CHECK(pg_env_list[i + 1] && *pg_env_list[i + 1]);
        n++;
    }
    pg_env_use(NULL);
    CHECK(n > 40);
}

/* GITHUB_ACTIONS is read once, one way: "true" is GitHub's runner, and
 * the default floor follows it. */
static void github_actions_is_one_answer(void)
{
    static const char *const on[] = {"GITHUB_ACTIONS", "true", NULL};
    static const char *const other[] = {"GITHUB_ACTIONS", "1", NULL};
    static const char *const empty[] = {"GITHUB_ACTIONS", "", NULL};
    pg_settings s;

    pg_env_use(table);
    vars = on;
    CHECK(pg_env_github_actions());
    pg_settings_defaults(&s);
    CHECK(s.noise_floor == 0.10);
    vars = other;
    CHECK(!pg_env_github_actions());
    pg_settings_defaults(&s);
    CHECK(s.noise_floor == 0.05);
    vars = empty;
    CHECK(pg_env("GITHUB_ACTIONS") != NULL);
    CHECK(pg_env_nonempty("GITHUB_ACTIONS") == NULL);
    pg_env_use(NULL);
}

/* A name off the list is perfgate's own mistake: it aborts, saying so,
 * rather than read what nobody listed. */
static void a_name_off_the_list_aborts(void)
{
    int status;
    pid_t pid = fork();

    REQUIRE(pid >= 0);
    if (pid == 0) {
        /* quiet: the message is for a developer, not this test's log */
        if (!freopen("/dev/null", "w", stderr))
            _exit(3);
        (void)pg_env("PERFGATE_NOT_A_VARIABLE");
        _exit(0);
    }
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    /* What a user names is read as it is. */
    CHECK(pg_env_named("PERFGATE_NOT_A_VARIABLE") == NULL);
}

const pg_test pg_tests_env[] = {
    {"every_listed_name_reads_through_the_source",
     every_listed_name_reads_through_the_source},
    {"github_actions_is_one_answer", github_actions_is_one_answer},
    {"a_name_off_the_list_aborts", a_name_off_the_list_aborts},
    PG_TESTS_END};
