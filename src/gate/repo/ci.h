/*
 * ci.h - which CI system perfgate runs in, and what it is comparing.
 *
 * With no revisions on the command line, `perfgate compare` in CI compares
 * what the CI system says changed: a pull request's head against its base
 * (through their merge base, so that what landed on the base branch since
 * the branch was made is not blamed on it), or a push against the commit
 * before it.  Each system says so in its own variables; ci/README.md has
 * the table.
 */
#ifndef PG_CI_H
#define PG_CI_H

#include <stddef.h>

#include "strvec.h"

typedef enum {
    PG_CI_NONE,
    PG_CI_GITHUB,
    PG_CI_GITLAB,
    PG_CI_BUILDKITE,
    PG_CI_AZURE,
    PG_CI_JENKINS
} pg_ci_system;

typedef struct pg_ci {
    pg_ci_system system;
    char *base;        /* a commit, "COMMIT~1", or NULL: nothing to compare */
    char *base_branch; /* or the base branch's name: resolved as origin/NAME,
                          then NAME */
    char *head;        /* a commit; NULL: HEAD */
    int merge_base;    /* compare against the merge base of base and head */
    char *what;        /* "pull request #12", "push", for people */
    /* The pull request's labels, as the event had them (GitHub's
     * pull_request.labels, GitLab's CI_MERGE_REQUEST_LABELS): set by the
     * people who may triage it, not by its author's commits. */
    pg_strvec labels;
    const char *fetch_hint; /* what to change when a commit is missing */
} pg_ci;

/* "GitHub Actions", "GitLab CI", ...; "" for none. */
const char *pg_ci_name(pg_ci_system system);

/*
 * Detects the CI system from the environment (env.h: a table in the
 * tests), and fills `out`.  0, with out->system
 * PG_CI_NONE outside CI; PG_ERR_USAGE when the system's own data is
 * unusable (a GitHub event file that cannot be read), and `out` may then
 * hold part of the answer.  pg_ci_clear() it either way.
 */
int pg_ci_detect(pg_ci *out);

/*
 * Fills `out` from a GitHub event: its name (GITHUB_EVENT_NAME), the JSON
 * of GITHUB_EVENT_PATH (NULL: none) and GITHUB_SHA (NULL: none).  The event
 * is input the pull request's author can shape: an event that is not JSON,
 * or whose commits are not commit ids, is PG_ERR_USAGE, and `out` may then
 * hold part of the answer (pg_ci_clear it).
 */
int pg_ci_from_github_event(pg_ci *out, const char *event, const char *json,
                            size_t len, const char *sha);

void pg_ci_clear(pg_ci *ci);

#endif
