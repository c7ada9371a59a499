/*
 * CI detection: every system's variables, as its documentation gives them,
 * from a table instead of the real environment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci.h"
#include "env.h"
#include "error.h"
#include "test.h"

static const char *const *vars; /* name, value, name, value, ..., NULL */

static const char *get(const char *name)
{
    const char *const *v;

    for (v = vars; v && *v; v += 2)
        if (!strcmp(*v, name))
            return v[1];
    return NULL;
}

static int detect(pg_ci *ci, const char *const *table)
{
    int err;

    vars = table;
    pg_env_use(get);
    err = pg_ci_detect(ci);
    pg_env_use(NULL);
    return err;
}

#define SHA_A "1111111111111111111111111111111111111111"
#define SHA_B "2222222222222222222222222222222222222222"
#define SHA_C "3333333333333333333333333333333333333333"
#define ZEROS "0000000000000000000000000000000000000000"

/* Writes a GitHub event file; returns its path (static). */
static const char *event_file(const char *json)
{
    static char path[64];
    FILE *f;
    int fd;

    snprintf(path, sizeof(path), "/tmp/pg-ci-event-XXXXXX");
    fd = mkstemp(path);
    f = fdopen(fd, "w");
    fputs(json, f);
    fclose(f);
    return path;
}

static void none(void)
{
    static const char *const t[] = {"HOME", "/root", NULL};
    pg_ci ci;

    CHECK(detect(&ci, t) == 0);
    CHECK(ci.system == PG_CI_NONE);
    CHECK(!ci.base && !ci.head);
    /* GITHUB_ACTIONS must say true. */
    {
        static const char *const f[] = {"GITHUB_ACTIONS", "false", NULL};
        CHECK(detect(&ci, f) == 0 && ci.system == PG_CI_NONE);
    }
}

static void github(void)
{
    const char *path;
    pg_ci ci;

    path = event_file("{\"pull_request\": {\"number\": 12, \"base\": {\"sha\": "
                      "\"" SHA_A "\"}, \"head\": {\"sha\": \"" SHA_B "\"}, "
                      "\"labels\": [{\"name\": \"perf-accepted: sum\"}, "
                      "{\"id\": 3}, {\"name\": \"docs\"}]}}");
    {
        const char *const t[] = {"GITHUB_ACTIONS", "true", "GITHUB_EVENT_NAME",
                                 "pull_request", "GITHUB_EVENT_PATH", path,
                                 "GITHUB_SHA", SHA_C, NULL};
        CHECK(detect(&ci, t) == 0);
        CHECK(ci.system == PG_CI_GITHUB);
        CHECK_STR(ci.base, SHA_A);
        CHECK_STR(ci.head, SHA_B); /* the PR's head, not the merge commit */
        CHECK(ci.merge_base == 1);
        CHECK_STR(ci.what, "pull request #12");
        CHECK_CONTAINS(ci.fetch_hint, "fetch-depth: 0");
        /* Its labels, a label without a name left out. */
        REQUIRE(ci.labels.n == 2);
        CHECK_STR(ci.labels.v[0], "perf-accepted: sum");
        CHECK_STR(ci.labels.v[1], "docs");
        pg_ci_clear(&ci);
    }
    {
        /* pull_request_target carries the same event. */
        const char *const t[] = {"GITHUB_ACTIONS", "true", "GITHUB_EVENT_NAME",
                                 "pull_request_target", "GITHUB_EVENT_PATH",
                                 path, NULL};
        CHECK(detect(&ci, t) == 0);
        CHECK_STR(ci.base, SHA_A);
        pg_ci_clear(&ci);
    }
    unlink(path);

    path = event_file("{\"before\": \"" SHA_A "\", \"after\": \"" SHA_B "\"}");
    {
        const char *const t[] = {"GITHUB_ACTIONS", "true", "GITHUB_EVENT_NAME",
                                 "push", "GITHUB_EVENT_PATH", path, NULL};
        CHECK(detect(&ci, t) == 0);
        CHECK_STR(ci.base, SHA_A);
        CHECK_STR(ci.head, SHA_B);
        CHECK(ci.merge_base == 0);
        CHECK_STR(ci.what, "push");
        pg_ci_clear(&ci);
    }
    unlink(path);

    /* A new branch: no "before"; the commit before the head. */
    path = event_file("{\"before\": \"" ZEROS "\", \"after\": \"" SHA_B "\"}");
    {
        const char *const t[] = {"GITHUB_ACTIONS", "true", "GITHUB_EVENT_NAME",
                                 "push", "GITHUB_EVENT_PATH", path, NULL};
        CHECK(detect(&ci, t) == 0);
        CHECK_STR(ci.base, SHA_B "~1");
        pg_ci_clear(&ci);
    }
    unlink(path);

    path = event_file("{\"merge_group\": {\"base_sha\": \"" SHA_A
                      "\", \"head_sha\": \"" SHA_B "\"}}");
    {
        const char *const t[] = {"GITHUB_ACTIONS", "true", "GITHUB_EVENT_NAME",
                                 "merge_group", "GITHUB_EVENT_PATH", path, NULL};
        CHECK(detect(&ci, t) == 0);
        CHECK_STR(ci.base, SHA_A);
        CHECK_STR(ci.head, SHA_B);
        CHECK(ci.merge_base == 0);
        pg_ci_clear(&ci);
    }
    unlink(path);

    {
        /* A manual run: the last commit against the one before. */
        const char *const t[] = {"GITHUB_ACTIONS", "true", "GITHUB_EVENT_NAME",
                                 "workflow_dispatch", "GITHUB_SHA", SHA_C,
                                 NULL};
        CHECK(detect(&ci, t) == 0);
        CHECK_STR(ci.base, SHA_C "~1");
        CHECK_STR(ci.head, SHA_C);
        CHECK_STR(ci.what, "workflow_dispatch event");
        pg_ci_clear(&ci);
    }
    {
        const char *const t[] = {"GITHUB_ACTIONS", "true", "GITHUB_EVENT_NAME",
                                 "pull_request", "GITHUB_EVENT_PATH",
                                 "/nonexistent/event.json", NULL};
        CHECK(detect(&ci, t) == PG_ERR_USAGE);
        CHECK_CONTAINS(pg_error_last(), "/nonexistent/event.json");
        pg_ci_clear(&ci);
    }
    path = event_file("{not json");
    {
        const char *const t[] = {"GITHUB_ACTIONS", "true", "GITHUB_EVENT_NAME",
                                 "pull_request", "GITHUB_EVENT_PATH", path,
                                 NULL};
        CHECK(detect(&ci, t) == PG_ERR_USAGE);
        pg_ci_clear(&ci);
    }
    unlink(path);

    /* The event carries what the pull request's author wrote: a "commit"
     * that is an option, a revision expression or a path is refused, in
     * every event that names commits. */
    {
        static const char *const bad[] = {
            "--upload-pack=touch /tmp/x", "HEAD~1", "1111111", "../../etc",
            SHA_A "~1", SHA_A " ", SHA_A SHA_A};
        size_t i;
        for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
            char json[512];
            snprintf(json, sizeof(json),
                     "{\"pull_request\": {\"base\": {\"sha\": \"" SHA_A
                     "\"}, \"head\": {\"sha\": \"%s\"}}, \"merge_group\": "
                     "{\"base_sha\": \"%s\", \"head_sha\": \"" SHA_B
                     "\"}, \"before\": \"%s\", \"after\": \"" SHA_B "\"}",
                     bad[i], bad[i], bad[i]);
            CHECK(pg_ci_from_github_event(&ci, "pull_request", json,
                                          strlen(json), NULL) == PG_ERR_USAGE);
            CHECK_CONTAINS(pg_error_last(), "pull_request.head.sha is not a "
                                            "commit id");
            pg_ci_clear(&ci);
            CHECK(pg_ci_from_github_event(&ci, "merge_group", json,
                                          strlen(json), NULL) == PG_ERR_USAGE);
            CHECK_CONTAINS(pg_error_last(), "merge_group.base_sha");
            pg_ci_clear(&ci);
            CHECK(pg_ci_from_github_event(&ci, "push", json, strlen(json),
                                          SHA_C) == PG_ERR_USAGE);
            CHECK_CONTAINS(pg_error_last(), "before");
            pg_ci_clear(&ci);
        }
    }
}

static void gitlab(void)
{
    pg_ci ci;
    static const char *const mr[] = {"GITLAB_CI",
                                     "true",
                                     "CI_COMMIT_SHA",
                                     SHA_B,
                                     "CI_MERGE_REQUEST_DIFF_BASE_SHA",
                                     SHA_A,
                                     "CI_MERGE_REQUEST_IID",
                                     "7",
                                     "CI_COMMIT_BEFORE_SHA",
                                     ZEROS,
                                     "CI_MERGE_REQUEST_LABELS",
                                     "perf-accepted,bug,,x",
                                     NULL};
    static const char *const push[] = {"GITLAB_CI", "true", "CI_COMMIT_SHA",
                                       SHA_B, "CI_COMMIT_BEFORE_SHA", SHA_A,
                                       NULL};
    static const char *const first[] = {"GITLAB_CI", "true", "CI_COMMIT_SHA",
                                        SHA_B, "CI_COMMIT_BEFORE_SHA", ZEROS,
                                        NULL};

    CHECK(detect(&ci, mr) == 0);
    CHECK(ci.system == PG_CI_GITLAB);
    /* GitLab's diff base is the merge base already. */
    CHECK_STR(ci.base, SHA_A);
    CHECK_STR(ci.head, SHA_B);
    CHECK(ci.merge_base == 0);
    CHECK_STR(ci.what, "merge request !7");
    CHECK_CONTAINS(ci.fetch_hint, "GIT_DEPTH: 0");
    REQUIRE(ci.labels.n == 4); /* GitLab's comma-joined list */
    CHECK_STR(ci.labels.v[0], "perf-accepted");
    CHECK_STR(ci.labels.v[1], "bug");
    CHECK_STR(ci.labels.v[3], "x");
    pg_ci_clear(&ci);
    CHECK(detect(&ci, push) == 0);
    CHECK_STR(ci.base, SHA_A);
    CHECK_STR(ci.what, "push");
    pg_ci_clear(&ci);
    CHECK(detect(&ci, first) == 0);
    CHECK_STR(ci.base, SHA_B "~1");
    pg_ci_clear(&ci);
}

static void buildkite(void)
{
    pg_ci ci;
    static const char *const pr[] = {
        "BUILDKITE", "true", "BUILDKITE_COMMIT", SHA_B,
        "BUILDKITE_PULL_REQUEST", "42", "BUILDKITE_PULL_REQUEST_BASE_BRANCH",
        "main", NULL};
    static const char *const branch[] = {"BUILDKITE", "true",
                                         "BUILDKITE_COMMIT", "HEAD",
                                         "BUILDKITE_PULL_REQUEST", "false",
                                         NULL};

    CHECK(detect(&ci, pr) == 0);
    CHECK(ci.system == PG_CI_BUILDKITE);
    CHECK(!ci.base);
    CHECK_STR(ci.base_branch, "main");
    CHECK_STR(ci.head, SHA_B);
    CHECK(ci.merge_base == 1);
    CHECK_STR(ci.what, "pull request #42");
    pg_ci_clear(&ci);
    CHECK(detect(&ci, branch) == 0);
    CHECK(!ci.base_branch);
    CHECK(!ci.head); /* "HEAD": the checkout's */
    CHECK_STR(ci.base, "HEAD~1");
    pg_ci_clear(&ci);
}

static void azure(void)
{
    pg_ci ci;
    static const char *const pr[] = {
        "TF_BUILD", "True", "BUILD_SOURCEVERSION", SHA_C,
        "SYSTEM_PULLREQUEST_TARGETBRANCH", "refs/heads/main",
        "SYSTEM_PULLREQUEST_SOURCECOMMITID", SHA_B,
        "SYSTEM_PULLREQUEST_PULLREQUESTNUMBER", "5", NULL};
    static const char *const ci_build[] = {"TF_BUILD", "True",
                                           "BUILD_SOURCEVERSION", SHA_C, NULL};

    CHECK(detect(&ci, pr) == 0);
    CHECK(ci.system == PG_CI_AZURE);
    CHECK_STR(ci.base_branch, "main");
    /* The PR's own head, not the merge commit Azure builds. */
    CHECK_STR(ci.head, SHA_B);
    CHECK_STR(ci.what, "pull request #5");
    CHECK_CONTAINS(ci.fetch_hint, "fetchDepth: 0");
    pg_ci_clear(&ci);
    CHECK(detect(&ci, ci_build) == 0);
    CHECK_STR(ci.base, SHA_C "~1");
    CHECK_STR(ci.head, SHA_C);
    pg_ci_clear(&ci);
}

static void jenkins(void)
{
    pg_ci ci;
    static const char *const change[] = {
        "JENKINS_URL", "https://ci.example.com/", "CHANGE_ID", "99",
        "CHANGE_TARGET", "release-1.2", "GIT_COMMIT", SHA_B, NULL};
    static const char *const branch[] = {"JENKINS_URL",
                                         "https://ci.example.com/",
                                         "GIT_COMMIT", SHA_B, NULL};

    CHECK(detect(&ci, change) == 0);
    CHECK(ci.system == PG_CI_JENKINS);
    CHECK_STR(ci.base_branch, "release-1.2");
    CHECK_STR(ci.head, SHA_B);
    CHECK(ci.merge_base == 1);
    CHECK_STR(ci.what, "change 99");
    pg_ci_clear(&ci);
    CHECK(detect(&ci, branch) == 0);
    CHECK_STR(ci.base, SHA_B "~1");
    pg_ci_clear(&ci);
    CHECK_STR(pg_ci_name(PG_CI_JENKINS), "Jenkins");
}

const pg_test pg_tests_ci[] = {
    {"none", none},           {"github", github}, {"gitlab", gitlab},
    {"buildkite", buildkite}, {"azure", azure},   {"jenkins", jenkins},
    PG_TESTS_END};
