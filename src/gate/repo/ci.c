/*
 * ci.c - detecting the CI system and the revisions it is about.
 */
#include "ci.h"
#include "env.h"
#include "str.h"
#include "error.h"
#include "fs.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

const char *pg_ci_name(pg_ci_system system)
{
    switch (system) {
    case PG_CI_GITHUB:
        return "GitHub Actions";
    case PG_CI_GITLAB:
        return "GitLab CI";
    case PG_CI_BUILDKITE:
        return "Buildkite";
    case PG_CI_AZURE:
        return "Azure Pipelines";
    case PG_CI_JENKINS:
        return "Jenkins";
    default:
        return "";
    }
}

/* The most labels of a pull request read (GitHub allows 100). */
#define MAX_LABELS 100

void pg_ci_clear(pg_ci *ci)
{
    free(ci->base);
    free(ci->base_branch);
    free(ci->head);
    free(ci->what);
    pg_strvec_clear(&ci->labels);
    memset(ci, 0, sizeof(*ci));
}

/* A commit that exists: not unset, not git's 40 zeros for "none". */
static const char *commit_var(const char *name)
{
    const char *v = pg_env_nonempty(name);

    if (!v || strspn(v, "0") == strlen(v))
        return NULL;
    return v;
}

static char *parent_of(const char *commit)
{
    return pg_strdupf("%s~1", commit ? commit : "HEAD");
}

static const char *json_string(const cJSON *o, const char *path)
{
    char key[64];
    const char *dot;

    while ((dot = strchr(path, '.'))) {
        size_t n = (size_t)(dot - path);
        if (n >= sizeof(key))
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = cJSON_GetObjectItemCaseSensitive(o, key);
        path = dot + 1;
    }
    o = cJSON_GetObjectItemCaseSensitive(o, path);
    return cJSON_IsString(o) && *o->valuestring ? o->valuestring : NULL;
}

/* A commit id as GitHub writes it: 40 or 64 hex digits. */
static int is_object_id(const char *s)
{
    size_t n = strspn(s, "0123456789abcdefABCDEF");

    return (n == 40 || n == 64) && !s[n];
}

/* The event's commit at `path`; NULL when absent or git's 40 zeros for
 * "none", PG_ERR_USAGE when it is not a commit id (the event carries what
 * the pull request's author wrote: nothing in it reaches git unchecked). */
static int event_commit(const char **out, const cJSON *root, const char *path)
{
    *out = json_string(root, path);
    if (*out && strspn(*out, "0") == strlen(*out))
        *out = NULL;
    if (*out && !is_object_id(*out)) {
        *out = NULL;
        return pg_error_set(PG_ERR_USAGE,
                            "the GitHub event's %s is not a commit id; give "
                            "the revisions: perfgate compare BASE HEAD",
                            path);
    }
    return 0;
}

int pg_ci_from_github_event(pg_ci *out, const char *event, const char *json,
                            size_t len, const char *sha)
{
    cJSON *root = json ? cJSON_ParseWithLength(json, len) : NULL;
    const char *base = NULL, *head = NULL;
    int err = 0;

    if (json && !root)
        return pg_error_set(PG_ERR_USAGE,
                            "the GitHub event is not JSON; give the "
                            "revisions: perfgate compare BASE HEAD");
    if (root && event && !strncmp(event, "pull_request", 12)) {
        const cJSON *number = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(root, "pull_request"), "number");
        if ((err = event_commit(&base, root, "pull_request.base.sha")) < 0 ||
            (err = event_commit(&head, root, "pull_request.head.sha")) < 0)
            goto done;
        if (base && head) {
            const cJSON *labels = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(root, "pull_request"),
                "labels");
            const cJSON *label;
            cJSON_ArrayForEach(label, labels)
            {
                const cJSON *name =
                    cJSON_GetObjectItemCaseSensitive(label, "name");
                if (cJSON_IsString(name) && out->labels.n < MAX_LABELS)
                    pg_strvec_push(&out->labels, name->valuestring);
            }
            out->base = pg_strdup(base);
            out->head = pg_strdup(head);
            out->merge_base = 1;
            out->what = cJSON_IsNumber(number) && number->valuedouble >= 1 &&
                                number->valuedouble < 2e9
                            ? pg_strdupf("pull request #%d", number->valueint)
                            : pg_strdup("pull request");
            goto done;
        }
    }
    if (root && event && !strcmp(event, "merge_group")) {
        if ((err = event_commit(&base, root, "merge_group.base_sha")) < 0 ||
            (err = event_commit(&head, root, "merge_group.head_sha")) < 0)
            goto done;
        if (base && head) {
            out->base = pg_strdup(base);
            out->head = pg_strdup(head);
            out->what = pg_strdup("merge queue");
            goto done;
        }
    }
    if (root && event && !strcmp(event, "push")) {
        const char *before;
        if ((err = event_commit(&before, root, "before")) < 0 ||
            (err = event_commit(&head, root, "after")) < 0)
            goto done;
        if (head)
            sha = head;
        out->head = sha ? pg_strdup(sha) : NULL;
        /* The branch's tip before the push; for a new branch, none. */
        out->base = before ? pg_strdup(before) : parent_of(sha);
        out->what = pg_strdup("push");
        goto done;
    }
    /* Anything else (a schedule, a manual run): the last commit. */
    out->head = sha ? pg_strdup(sha) : NULL;
    out->base = parent_of(sha);
    out->what = pg_strdupf("%s event", event ? event : "workflow");
done:
    cJSON_Delete(root);
    return err;
}

static int github(pg_ci *out)
{
    const char *path = pg_env_nonempty("GITHUB_EVENT_PATH");
    char *text = NULL;
    size_t len = 0;
    int err;

    out->fetch_hint = "set 'fetch-depth: 0' on actions/checkout, or use "
                      "perfgate's action, which fetches what it needs";
    if (path && pg_read_file(&text, &len, path, 64 << 20) < 0)
        return pg_error_set(PG_ERR_USAGE,
                            "cannot read the GitHub event in %s "
                            "(GITHUB_EVENT_PATH); give the revisions: "
                            "perfgate compare BASE HEAD",
                            path);
    err = pg_ci_from_github_event(out, pg_env_nonempty("GITHUB_EVENT_NAME"),
                                  text, len, commit_var("GITHUB_SHA"));
    free(text);
    return err;
}

static void gitlab(pg_ci *out)
{
    const char *sha = commit_var("CI_COMMIT_SHA");
    const char *mr_base = commit_var("CI_MERGE_REQUEST_DIFF_BASE_SHA");
    const char *before = commit_var("CI_COMMIT_BEFORE_SHA");
    const char *iid = pg_env_nonempty("CI_MERGE_REQUEST_IID");

    out->fetch_hint = "set 'GIT_DEPTH: 0' in the job's variables";
    out->head = sha ? pg_strdup(sha) : NULL;
    if (mr_base) {
        /* Already the merge base of the merge request's branches. */
        out->base = pg_strdup(mr_base);
        const char *labels = pg_env_nonempty("CI_MERGE_REQUEST_LABELS");
        out->what = iid ? pg_strdupf("merge request !%s", iid)
                        : pg_strdup("merge request");
        /* Comma-separated, as GitLab joins them. */
        while (labels && *labels && out->labels.n < MAX_LABELS) {
            size_t n = strcspn(labels, ",");
            pg_strvec_pushf(&out->labels, "%.*s", (int)n, labels);
            labels += n + (labels[n] == ',');
        }
    } else if (before) {
        out->base = pg_strdup(before);
        out->what = pg_strdup("push");
    } else {
        out->base = parent_of(sha);
        out->what = pg_strdup("pipeline");
    }
}

/* Jenkins, Buildkite and Azure name the base branch; its merge base with
 * the head is what the change is compared with. */
static void by_branch(pg_ci *out, const char *branch, const char *head,
                      const char *what)
{
    out->head = head ? pg_strdup(head) : NULL;
    if (branch) {
        if (!strncmp(branch, "refs/heads/", 11))
            branch += 11;
        out->base_branch = pg_strdup(branch);
        out->merge_base = 1;
        out->what = pg_strdup(what);
    } else {
        out->base = parent_of(head);
        out->what = pg_strdup("build");
    }
}

int pg_ci_detect(pg_ci *out)
{
    const char *v;

    memset(out, 0, sizeof(*out));
    if (pg_env_github_actions()) {
        out->system = PG_CI_GITHUB;
        return github(out);
    }
    if (pg_env_nonempty("GITLAB_CI")) {
        out->system = PG_CI_GITLAB;
        gitlab(out);
    } else if ((v = pg_env_nonempty("BUILDKITE")) && !strcmp(v, "true")) {
        const char *pr = pg_env_nonempty("BUILDKITE_PULL_REQUEST");
        char *what = pg_strdupf("pull request #%s", pr ? pr : "?");
        const char *commit = commit_var("BUILDKITE_COMMIT");
        out->system = PG_CI_BUILDKITE;
        out->fetch_hint = "fetch the base branch before perfgate runs "
                          "('git fetch origin BRANCH'), with no --depth in "
                          "BUILDKITE_GIT_CLONE_FLAGS";
        by_branch(out,
                  pr && strcmp(pr, "false")
                      ? pg_env_nonempty("BUILDKITE_PULL_REQUEST_BASE_BRANCH")
                      : NULL,
                  commit && strcmp(commit, "HEAD") ? commit : NULL, what);
        free(what);
    } else if ((v = pg_env_nonempty("TF_BUILD")) && !strcasecmp(v, "true")) {
        const char *pr =
            pg_env_nonempty("SYSTEM_PULLREQUEST_PULLREQUESTNUMBER");
        const char *head = commit_var("SYSTEM_PULLREQUEST_SOURCECOMMITID");
        char *what;
        if (!pr)
            pr = pg_env_nonempty("SYSTEM_PULLREQUEST_PULLREQUESTID");
        what = pg_strdupf("pull request %s%s", pr ? "#" : "", pr ? pr : "");
        out->system = PG_CI_AZURE;
        out->fetch_hint = "set 'fetchDepth: 0' on the checkout step";
        by_branch(out, pg_env_nonempty("SYSTEM_PULLREQUEST_TARGETBRANCH"),
                  head ? head : commit_var("BUILD_SOURCEVERSION"), what);
        free(what);
    } else if (pg_env_nonempty("JENKINS_URL")) {
        const char *id = pg_env_nonempty("CHANGE_ID");
        char *what = pg_strdupf("change %s", id ? id : "");
        out->system = PG_CI_JENKINS;
        out->fetch_hint = "fetch the target branch in the checkout (the "
                          "multibranch default fetches only the change's)";
        by_branch(out, pg_env_nonempty("CHANGE_TARGET"),
                  commit_var("GIT_COMMIT"), what);
        free(what);
    }
    return 0;
}
