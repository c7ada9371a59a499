/*
 * store.h - perfgate's history, kept in the user's repository on a ref of
 * its own (refs/perfgate/history), through libgit2.
 *
 * The ref points to a commit whose tree holds one small file per record:
 *
 *     COMMIT[0..2]/COMMIT/WHEN-MACHINE-TOKEN.json
 *
 * A file is never changed once written and two writers never write the
 * same path (the token is random), so two histories unite by the union of
 * their trees.  Each write is a commit on the ref whose parent is the
 * ref's last, so a push is a fast-forward; a push that finds another
 * writer's commits there fetches them, unites the trees in a merge commit
 * and tries again.  Nothing is ever force-pushed, and nothing but the ref
 * (and the objects it needs) is written: not HEAD, the index, the working
 * tree, other refs, the config.
 */
#ifndef PG_STORE_H
#define PG_STORE_H

#include <stddef.h>

#include "revision.h"
#include "strvec.h"

#define PG_STORE_REF "refs/perfgate/history"

/* The largest record file read (a record of 40 benchmarks is ~6 KB). */
#define PG_STORE_MAX_FILE (4 << 20)

/* One file of the history. */
typedef struct pg_stored {
    char commit[PG_OID_HEX]; /* the commit it is filed under */
    char *path;              /* its path in the ref's tree */
    char *data;              /* NUL-terminated */
    size_t len;
} pg_stored;

/*
 * Adds `data` (len bytes) as a record of `commit`, from `machine`, to the
 * ref `ref` (created when absent) in a new commit; the file's path into
 * *path_out (free()) when it is not NULL.  Two perfgates writing at once
 * both land: the ref is moved only from the value its commit was made on.
 */
int pg_store_add(pg_repo *repo, const char *ref, const char *commit,
                 const char *machine, long long when, const char *data,
                 size_t len, char **path_out);

/*
 * Every file under `ref`, for commits whose ids pass `want` (NULL: all).
 * A file out of place (not COMMIT[0..2]/COMMIT/NAME.json), too large or
 * not a blob is left out, and why is pushed to `skipped`.  0 with *n 0
 * when there is no such ref; negative on a repository error.
 */
int pg_store_read(pg_stored **out, size_t *n, pg_repo *repo, const char *ref,
                  int (*want)(void *payload, const char *commit), void *payload,
                  pg_strvec *skipped);

void pg_stored_free(pg_stored *files, size_t n);

/*
 * Pushes `ref` to `remote` (a remote's name, a URL or a path), at most
 * `tries` times: each try first fetches the remote's ref, and when it has
 * commits the local one has not, unites them into the local ref.  Never
 * forced.  `say` (may be NULL) hears each try that failed.  PG_ERR_USAGE
 * when the remote cannot be found; PG_ERR_GENERIC when every try failed,
 * saying why; the local ref keeps every record either way.
 */
int pg_store_push(pg_repo *repo, const char *ref, const char *remote, int tries,
                  void (*say)(void *payload, const char *line), void *payload);

/*
 * The web address a commit's id is appended to for its page: the CI's
 * own ($GITHUB_SERVER_URL/$GITHUB_REPOSITORY, $CI_PROJECT_URL), else
 * origin's when it is on github.com or gitlab.com; NULL when none is
 * known.  Credentials in a URL are never part of it.  free().
 */
char *pg_store_commit_url(pg_repo *repo);

/* Whether a ref name is one perfgate may write: refs/perfgate/... */
int pg_store_ref_ok(const char *ref);

#endif
