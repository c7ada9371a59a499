/*
 * Revisions from git: resolving, the working tree, merge bases, and
 * materializing a commit without touching the repository.  The repository
 * is made with the git command, as a user's would be.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "revision.h"
#include "str.h"
#include "test.h"

/* Runs a shell command in `dir`; 0 when it succeeded. */
static int sh(const char *dir, const char *cmd)
{
    char *full = pg_strdupf("cd '%s' && (%s) >/dev/null 2>&1", dir, cmd);
    int rc = system(full);

    free(full);
    return rc;
}

#define GIT "git -c user.name=t -c user.email=t@t -c commit.gpgsign=false "

/* A repository with two commits on main and one on a branch; NULL when
 * git is missing. */
static char *make_repo(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = pg_strdupf("%s/pg-rev-XXXXXX", tmp && *tmp ? tmp : "/tmp");

    if (!mkdtemp(dir) ||
        sh(dir, "git init -q -b main . && echo one > a.c && git add a.c && " GIT
                "commit -qm first && echo two > a.c && " GIT
                "commit -qam second && git checkout -qb topic HEAD~1 && "
                "echo three > b.c && git add b.c && " GIT
                "commit -qm 'on topic' && git checkout -q main")) {
        free(dir);
        return NULL;
    }
    return dir;
}

static void resolve_and_merge_base(void)
{
    char *dir = make_repo(), mb[41];
    pg_repo *repo = NULL;
    pg_rev head, prev, topic;

    REQUIRE(dir != NULL);
    memset(&head, 0, sizeof(head));
    memset(&prev, 0, sizeof(prev));
    memset(&topic, 0, sizeof(topic));
    REQUIRE(pg_repo_open(&repo, dir) == 0);
    REQUIRE(pg_repo_resolve(&head, repo, "HEAD") == 0);
    REQUIRE(pg_repo_resolve(&prev, repo, "HEAD~1") == 0);
    REQUIRE(pg_repo_resolve(&topic, repo, "topic") == 0);
    CHECK(strlen(head.commit) == 40);
    CHECK_STR(head.subject, "second");
    CHECK_STR(prev.subject, "first");
    CHECK_STR(topic.subject, "on topic");
    REQUIRE(pg_repo_merge_base(mb, repo, head.commit, topic.commit) == 0);
    CHECK_STR(mb, prev.commit);
    /* An unknown revision is the user's mistake, and says which. */
    pg_rev_clear(&topic);
    CHECK(pg_repo_resolve(&topic, repo, "no-such-branch") == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "no-such-branch");
    CHECK(strstr(pg_repo_workdir(repo), "pg-rev-") != NULL);
    pg_rev_clear(&head);
    pg_rev_clear(&prev);
    pg_rev_clear(&topic);
    pg_repo_free(repo);
    pg_rm_rf(dir);
    free(dir);
}

static void materialize_leaves_the_repository_alone(void)
{
    char *dir = make_repo(), *out, *file, *text = NULL, *status = NULL;
    char *index = NULL, *index_after = NULL;
    size_t index_len = 0, index_after_len = 0;
    pg_repo *repo = NULL;
    pg_rev prev, tree;

    REQUIRE(dir != NULL);
    memset(&prev, 0, sizeof(prev));
    memset(&tree, 0, sizeof(tree));
    out = pg_strdupf("%s.out", dir);
    file = pg_path_join(dir, ".git/index");
    REQUIRE(pg_read_file(&index, &index_len, file, 1 << 20) == 0);
    free(file);
    REQUIRE(pg_mkdir_p(out) == 0);
    REQUIRE(sh(dir, "echo uncommitted > a.c") == 0);
    REQUIRE(pg_repo_open(&repo, dir) == 0);
    REQUIRE(pg_repo_worktree(&tree, repo) == 0);
    CHECK(tree.worktree && tree.dirty);
    REQUIRE(pg_repo_resolve(&prev, repo, "HEAD~1") == 0);
    REQUIRE(pg_repo_materialize(repo, &prev, out) == 0);
    file = pg_path_join(out, "a.c");
    REQUIRE(pg_read_file(&text, NULL, file, 100) == 0);
    CHECK_STR(text, "one\n");
    free(text);
    text = NULL;
    free(file);
    /* The user's tree, index and HEAD are as they were. */
    file = pg_path_join(dir, "a.c");
    REQUIRE(pg_read_file(&text, NULL, file, 100) == 0);
    CHECK_STR(text, "uncommitted\n");
    free(file);
    file = pg_path_join(dir, ".git/index");
    REQUIRE(pg_read_file(&index_after, &index_after_len, file, 1 << 20) == 0);
    CHECK(index_len == index_after_len &&
          !memcmp(index, index_after, index_len));
    free(file);
    file = pg_path_join(dir, ".git/HEAD");
    REQUIRE(pg_read_file(&status, NULL, file, 100) == 0);
    CHECK_STR(status, "ref: refs/heads/main\n");
    free(file);
    free(text);
    free(status);
    free(index);
    free(index_after);
    pg_rev_clear(&prev);
    pg_rev_clear(&tree);
    pg_repo_free(repo);
    pg_rm_rf(out);
    pg_rm_rf(dir);
    free(out);
    free(dir);
}

static ino_t inode(const char *dir, const char *name)
{
    char *path = pg_path_join(dir, name);
    struct stat st;
    ino_t ino = stat(path, &st) == 0 ? st.st_ino : 0;

    free(path);
    return ino;
}

/* The head written beside the base: the files both have the same are one
 * file (linked), the others its own; and the range between two commits. */
static void materialize_beside_and_ranges(void)
{
    char *dir = make_repo(), *a, *b, *text = NULL, *file;
    pg_repo *repo = NULL;
    pg_rev base, head;
    pg_commit_info *commits = NULL;
    size_t n = 0;

    REQUIRE(dir != NULL);
    memset(&base, 0, sizeof(base));
    memset(&head, 0, sizeof(head));
    a = pg_strdupf("%s.a", dir);
    b = pg_strdupf("%s.b", dir);
    REQUIRE(pg_mkdir_p(a) == 0 && pg_mkdir_p(b) == 0);
    /* topic: a.c "one" and b.c; main: a.c "two". */
    REQUIRE(pg_repo_open(&repo, dir) == 0);
    REQUIRE(pg_repo_resolve(&base, repo, "HEAD~1") == 0);
    REQUIRE(pg_repo_resolve(&head, repo, "topic") == 0);
    REQUIRE(pg_repo_materialize(repo, &base, a) == 0);
    REQUIRE(pg_repo_materialize_beside(repo, &head, b, &base) == 0);
    CHECK(inode(a, "a.c") != 0 && inode(a, "a.c") == inode(b, "a.c"));
    file = pg_path_join(b, "b.c");
    REQUIRE(pg_read_file(&text, NULL, file, 100) == 0);
    CHECK_STR(text, "three\n");
    free(file);
    free(text);
    pg_rm_rf(b);
    REQUIRE(pg_mkdir_p(b) == 0);
    pg_rev_clear(&head);
    REQUIRE(pg_repo_resolve(&head, repo, "main") == 0);
    REQUIRE(pg_repo_materialize_beside(repo, &head, b, &base) == 0);
    CHECK(inode(a, "a.c") != inode(b, "a.c")); /* "one" and "two" */
    /* HEAD~1..main is one commit; main..HEAD~1 is not a range. */
    REQUIRE(pg_repo_range(&commits, &n, repo, base.commit, head.commit, 1) ==
            0);
    CHECK(n == 1 && !strcmp(commits[0].commit, head.commit));
    CHECK_STR(commits[0].subject, "second");
    pg_commit_infos_free(commits, n);
    CHECK(pg_repo_range(&commits, &n, repo, head.commit, base.commit, 1) ==
          PG_ERR_USAGE);
    pg_rev_clear(&base);
    pg_rev_clear(&head);
    pg_repo_free(repo);
    pg_rm_rf(a);
    pg_rm_rf(b);
    pg_rm_rf(dir);
    free(a);
    free(b);
    free(dir);
}

const pg_test pg_tests_revision[] = {
    {"materialize_beside_and_ranges", materialize_beside_and_ranges},
    {"resolve_and_merge_base", resolve_and_merge_base},
    {"materialize_leaves_the_repository_alone",
     materialize_leaves_the_repository_alone},
    PG_TESTS_END};
