/*
 * revision.h - the two sides of a comparison, from git.
 *
 * A revision is materialized by reading its tree through libgit2's object
 * database and writing the files into a private directory.  Nothing here
 * writes to the user's repository: not HEAD, the index, the working tree,
 * the refs or the config.  (git_checkout_tree() is not used because it
 * updates the index even when it writes to another directory.)
 */
#ifndef PG_REVISION_H
#define PG_REVISION_H

#include "ci.h"
#include "strvec.h"

/* A commit's id in hex, and its NUL. */
#define PG_OID_HEX 41

typedef struct pg_repo pg_repo;

typedef struct pg_rev {
    char *spec; /* as the user wrote it; "working tree" for the tree */
    char commit[PG_OID_HEX]; /* the commit; for the working tree, HEAD's (""
                                none) */
    char tree[PG_OID_HEX];   /* once materialized, its tree ("" for the
                                working tree's copy) */
    char *subject;           /* the commit's summary line, or NULL */
    int worktree; /* 1: the working tree, uncommitted changes included */
    int dirty;    /* worktree only: tracked files differ from HEAD */
    char *dir;    /* where this side's files are */
    /* Files of the tree whose contents the object database could not give
     * (a partial clone, a damaged mirror): left out of `dir`, each its
     * path in the tree.  A build that reads one fails, saying so. */
    pg_strvec unreadable;
    /* Set before it is materialized: patterns of the paths no build reads
     * (the config's skip_paths), left out of its tree; not owned. */
    char *const *skip;
    size_t nskip;
} pg_rev;

/*
 * 1 when `path` (a path in the tree) is one `rev` skips: a pattern
 * matches it (fnmatch, '*' within one name), or one of its directories.
 */
int pg_rev_skips(const pg_rev *rev, const char *path);

/*
 * Opens the repository that contains `path` (searching upwards, as git
 * does).  PG_ERR_USAGE when there is none or it has no working tree.
 */
int pg_repo_open(pg_repo **out, const char *path);

/* The repository's working directory, with a trailing '/'. */
const char *pg_repo_workdir(const pg_repo *repo);

/*
 * Resolves `spec` (HEAD~1, main, origin/main, a tag, a full or short SHA)
 * to a commit.  PG_ERR_USAGE, naming the revision and how to get it, when
 * it does not resolve or is missing from a shallow clone.
 */
int pg_repo_resolve(pg_rev *out, pg_repo *repo, const char *spec);

/*
 * The best common ancestor of commits `a` and `b` (full SHAs), as
 * `git merge-base` finds it, into `out`.  PG_ERR_USAGE when there is none,
 * or when a shallow clone lacks the history to find it.
 */
int pg_repo_merge_base(char out[PG_OID_HEX], pg_repo *repo, const char *a,
                       const char *b);

/*
 * How many commits `a` has that `b` has not (as `git rev-list --count
 * b..a`), into `out`; 0, or a set error.
 */
int pg_repo_ahead(size_t *out, pg_repo *repo, const char *a, const char *b);

/* Describes the working tree as a side: its files are used in place. */
int pg_repo_worktree(pg_rev *out, pg_repo *repo);

/*
 * Writes the files of `rev`'s commit into `dir` (which must exist and be
 * empty) and sets rev->dir.  Submodules are left as empty directories.
 */
int pg_repo_materialize(pg_repo *repo, pg_rev *rev, const char *dir);

/*
 * As pg_repo_materialize, with the files that are the same blob in
 * `other` (a commit already materialized) linked from its directory
 * instead of written again: only for sides nothing writes into (no project
 * build), since a write to one would change the other.
 */
int pg_repo_materialize_beside(pg_repo *repo, pg_rev *rev, const char *dir,
                               const pg_rev *other);

/*
 * Copies the working tree's files into `dir` (which must exist and be
 * empty): the tracked ones as they are now and the untracked ones git does
 * not ignore, links kept as links; and sets rev->dir.  For a side whose
 * project build writes into its tree: the user's never is.
 */
int pg_repo_copy_worktree(pg_repo *repo, pg_rev *rev, const char *dir);

/*
 * The revisions the CI system `ci` names: its head, and its base or the
 * merge base of the two (labelled as the CI system would say them).  On
 * error, PG_ERR_USAGE with the CI system's own hint on what to fetch; the
 * caller clears both revisions either way.
 */
int pg_repo_resolve_ci(pg_rev *base, pg_rev *head, pg_repo *repo,
                       const pg_ci *ci);

/* A commit of a range, for people. */
typedef struct pg_commit_info {
    char commit[PG_OID_HEX];
    char tree[PG_OID_HEX]; /* its tree */
    char *subject;         /* its summary line */
    char *author;          /* "Name <email>" */
} pg_commit_info;

/*
 * The commits after `good` up to and including `bad` (full SHAs), oldest
 * first, following only first parents when `first_parent` (a merge is one
 * commit then, as `git log --first-parent` shows it), else every commit
 * `git rev-list good..bad` lists, in topological order.  PG_ERR_USAGE when
 * `good` is not an ancestor of `bad`.  *out is to be pg_commit_infos_free()d.
 */
int pg_repo_range(pg_commit_info **out, size_t *n, pg_repo *repo,
                  const char *good, const char *bad, int first_parent);

/*
 * The trailers named `key` (case aside, as git's) of the commits `git
 * rev-list base..head` lists, newest first (children before parents), at
 * most `max` commits of them: for each,
 * the commit (full SHA) into `commits` and the trailer's value into
 * `values`.  Nothing when `head` is `base`.  PG_ERR_GENERIC when the walk
 * fails.
 */
int pg_repo_trailers(pg_strvec *commits, pg_strvec *values, pg_repo *repo,
                     const char *base, const char *head, const char *key,
                     size_t max);

/*
 * The newest `max` commits of the first-parent history of `spec` (the
 * commit it names, its first parent, that one's, ...), oldest first: the
 * line of pushes along main.  PG_ERR_USAGE when `spec` does not resolve.
 */
int pg_repo_first_parents(pg_commit_info **out, size_t *n, pg_repo *repo,
                          const char *spec, size_t max);

/* The tree of commit `commit` (a full SHA) into `out`; 0 or a set error. */
int pg_repo_tree_of(char out[PG_OID_HEX], pg_repo *repo, const char *commit);

/*
 * Commit `commit`'s tree, first parent and that parent's tree (each "" when
 * it has none, or the parent is not in the repository): 0; 1 when the
 * repository has no such commit (a shallow clone's, a force-push's).
 */
int pg_repo_commit_trees(char tree[PG_OID_HEX], char parent[PG_OID_HEX],
                         char parent_tree[PG_OID_HEX], pg_repo *repo,
                         const char *commit);

void pg_commit_infos_free(pg_commit_info *infos, size_t n);

/* libgit2's handle on the repository: for the history's store (store.h). */
struct git_repository *pg_repo_git(pg_repo *repo);

void pg_rev_clear(pg_rev *rev);
void pg_repo_free(pg_repo *repo);

#endif
