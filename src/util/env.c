/*
 * env.c - the environment, read in one place (env.h).
 */
#include "env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* clang-format off */
const char *const pg_env_list[] = {
    /* perfgate's own */
    "PERFGATE_CACHE_SIZE", "the build cache's bound (bytes, or 500M, 2G)",
    "PERFGATE_MACHINE",    "the machine's name in history records",
    "PERFGATE_PUSH_TOKEN", "the token `record --push` sends to the remote",
    "PERFGATE_SANDBOX",    "the box: auto, on or off (as --sandbox)",
    "PERFGATE_BWRAP",      "the bubblewrap program the box runs",
    "PERFGATE_MAX_PROCESSES", "the most processes a box runs at once (4096)",
    "PERFGATE_DATA_DIR",   "where the built-in problems are (tests, packagers)",
    "PERFGATE_MEASURE",    "the perfgate-measure program (tests, packagers)",
    "PERFGATE_SPLIT",      "0: both sides timed in one process (a check)",
    "PERFGATE_TIMER",      "the clock, by name, instead of the best one",
    /* the machine's */
    "HOME",                "the cache's default place; hidden in the box",
    "XDG_CACHE_HOME",      "the cache's default place",
    "XDG_RUNTIME_DIR",     "hidden in the box",
    "TMPDIR",              "where perfgate's temporary directory goes",
    "PATH",                "where programs are found; shown in the box",
    "TERM",                "colour and the progress line, on a terminal",
    "NO_COLOR",            "no colour",
    "COLUMNS",             "the terminal's width",
    /* the compilers', read into the build's key and shown in the box */
    "CC",                  "the C compiler",
    "CXX",                 "the C++ compiler",
    "CUDACXX",             "nvcc",
    "CUDA_HOME",           "the CUDA toolkit",
    "CUDA_PATH",           "the CUDA toolkit",
    "NVCC_CCBIN",          "nvcc's host compiler",
    "NVCC_PREPEND_FLAGS",  "flags nvcc adds",
    "NVCC_APPEND_FLAGS",   "flags nvcc adds",
    "CPATH",               "the compiler's include path",
    "C_INCLUDE_PATH",      "the compiler's include path",
    "CPLUS_INCLUDE_PATH",  "the compiler's include path",
    "LIBRARY_PATH",        "the linker's search path",
    "LD_LIBRARY_PATH",     "the loader's search path",
    "COMPILER_PATH",       "where gcc finds its parts",
    "GCC_EXEC_PREFIX",     "where gcc finds its parts",
    "GCC_COMPARE_DEBUG",   "a gcc self-check that changes its output",
    "SOURCE_DATE_EPOCH",   "the date reproducible builds write",
    /* the CI systems', which say what to compare (ci.c) */
    "GITHUB_ACTIONS",      "GitHub Actions: the 10% floor, the event",
    "GITHUB_EVENT_NAME",   "GitHub Actions",
    "GITHUB_EVENT_PATH",   "GitHub Actions",
    "GITHUB_SHA",          "GitHub Actions",
    "GITHUB_SERVER_URL",   "GitHub: links to commits in history pages",
    "GITHUB_REPOSITORY",   "GitHub: links to commits in history pages",
    "GITLAB_CI",           "GitLab CI",
    "CI_COMMIT_SHA",       "GitLab CI",
    "CI_COMMIT_BEFORE_SHA", "GitLab CI",
    "CI_MERGE_REQUEST_IID", "GitLab CI",
    "CI_MERGE_REQUEST_DIFF_BASE_SHA", "GitLab CI",
    "CI_MERGE_REQUEST_LABELS", "GitLab CI",
    "CI_PROJECT_URL",      "GitLab: links to commits in history pages",
    "BUILDKITE",           "Buildkite",
    "BUILDKITE_COMMIT",    "Buildkite",
    "BUILDKITE_PULL_REQUEST", "Buildkite",
    "BUILDKITE_PULL_REQUEST_BASE_BRANCH", "Buildkite",
    "JENKINS_URL",         "Jenkins",
    "GIT_COMMIT",          "Jenkins",
    "CHANGE_ID",           "Jenkins",
    "CHANGE_TARGET",       "Jenkins",
    "TF_BUILD",            "Azure Pipelines",
    "BUILD_SOURCEVERSION", "Azure Pipelines",
    "SYSTEM_PULLREQUEST_PULLREQUESTID", "Azure Pipelines",
    "SYSTEM_PULLREQUEST_PULLREQUESTNUMBER", "Azure Pipelines",
    "SYSTEM_PULLREQUEST_SOURCECOMMITID", "Azure Pipelines",
    "SYSTEM_PULLREQUEST_TARGETBRANCH", "Azure Pipelines",
    NULL};
/* clang-format on */

static pg_env_source source;

static int listed(const char *name)
{
    size_t i;

    for (i = 0; pg_env_list[i]; i += 2)
        if (!strcmp(pg_env_list[i], name))
            return 1;
    return 0;
}

const char *pg_env(const char *name)
{
    if (!listed(name)) {
        fprintf(stderr,
                "perfgate: internal error: the environment variable %s is "
                "not in env.c's list\n",
                name);
        abort();
    }
    return pg_env_named(name);
}

const char *pg_env_nonempty(const char *name)
{
    const char *v = pg_env(name);
    return v && *v ? v : NULL;
}

int pg_env_github_actions(void)
{
    const char *v = pg_env("GITHUB_ACTIONS");
    return v && !strcmp(v, "true");
}

const char *pg_env_named(const char *name)
{
    /* (getenv): the one call banned.h lets through. */
    return source ? source(name) : (getenv)(name);
}

void pg_env_use(pg_env_source s)
{
    source = s;
}
