/*
 * revision.c - resolving and materializing revisions with libgit2.
 */
#include "revision.h"
#include "cleanup.h"
#include "error.h"
#include "fs.h"
#include "str.h"

#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

struct pg_repo {
    git_repository *repo;
    char *workdir;
};

static const char *git_message(void)
{
    const git_error *e = git_error_last();
    return e && e->message ? e->message : "unknown error";
}

int pg_repo_open(pg_repo **out, const char *path)
{
    git_repository *repo = NULL;
    pg_repo *r;

    git_libgit2_init();
    if (git_repository_open_ext(&repo, path, 0, NULL) < 0)
        return pg_error_set(PG_ERR_USAGE,
                            "not a git repository: %s (or any parent); run "
                            "perfgate inside your repository, or use -C DIR",
                            path);
    if (git_repository_is_bare(repo)) {
        git_repository_free(repo);
        return pg_error_set(PG_ERR_USAGE,
                            "the repository at %s is bare; perfgate needs a "
                            "working tree (clone it first)",
                            path);
    }
    r = pg_calloc(1, sizeof(*r));
    r->repo = repo;
    r->workdir = pg_strdup(git_repository_workdir(repo));
    *out = r;
    return 0;
}

const char *pg_repo_workdir(const pg_repo *repo)
{
    return repo->workdir;
}

static void set_subject(pg_rev *out, git_commit *commit)
{
    const char *summary = git_commit_summary(commit);
    out->subject = summary ? pg_strdup(summary) : NULL;
}

static int resolve_error(pg_repo *repo, const char *spec, int code)
{
    if (git_repository_head_unborn(repo->repo) == 1)
        return pg_error_set(PG_ERR_USAGE,
                            "unknown revision '%s': this repository has no "
                            "commits yet; commit first, then compare",
                            spec);
    if (git_repository_is_shallow(repo->repo))
        return pg_error_set(
            PG_ERR_USAGE,
            "revision '%s' is not in this shallow clone; fetch more "
            "history with 'git fetch --unshallow' (or 'git fetch "
            "--deepen=50'), or on GitHub Actions set 'fetch-depth: 0' "
            "on actions/checkout",
            spec);
    if (code == GIT_EAMBIGUOUS)
        return pg_error_set(PG_ERR_USAGE,
                            "revision '%s' is ambiguous; use more characters "
                            "of the SHA or a full ref name",
                            spec);
    return pg_error_set(PG_ERR_USAGE,
                        "unknown revision '%s': check the name with 'git "
                        "log', or fetch it ('git fetch origin %s')",
                        spec, spec);
}

int pg_repo_resolve(pg_rev *out, pg_repo *repo, const char *spec)
{
    git_object *obj = NULL, *peeled = NULL;
    int code;

    memset(out, 0, sizeof(*out));
    out->spec = pg_strdup(spec);
    if ((code = git_revparse_single(&obj, repo->repo, spec)) < 0)
        return resolve_error(repo, spec, code);
    if (git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT) < 0) {
        git_object_free(obj);
        return pg_error_set(PG_ERR_USAGE,
                            "revision '%s' names a %s, not a commit", spec,
                            git_object_type2string(git_object_type(obj)));
    }
    git_oid_tostr(out->commit, sizeof(out->commit), git_object_id(peeled));
    set_subject(out, (git_commit *)peeled);
    git_object_free(peeled);
    git_object_free(obj);
    return 0;
}

int pg_repo_merge_base(char out[PG_OID_HEX], pg_repo *repo, const char *a,
                       const char *b)
{
    git_oid oa, ob, base;
    int code;

    if (git_oid_fromstr(&oa, a) < 0 || git_oid_fromstr(&ob, b) < 0)
        return pg_error_set(PG_ERR_GENERIC, "merge base: bad commit id");
    if ((code = git_merge_base(&base, repo->repo, &oa, &ob)) == 0) {
        git_oid_tostr(out, PG_OID_HEX, &base);
        return 0;
    }
    if (git_repository_is_shallow(repo->repo))
        return pg_error_set(PG_ERR_USAGE,
                            "the merge base of %.10s and %.10s is not in "
                            "this shallow clone; fetch more history ('git "
                            "fetch --unshallow')",
                            a, b);
    if (code == GIT_ENOTFOUND)
        return pg_error_set(PG_ERR_USAGE,
                            "%.10s and %.10s have no common ancestor; give "
                            "the revisions to compare",
                            a, b);
    return pg_error_set(PG_ERR_GENERIC, "merge base of %.10s and %.10s: %s", a,
                        b, git_message());
}

int pg_repo_ahead(size_t *out, pg_repo *repo, const char *a, const char *b)
{
    git_oid oa, ob;
    size_t behind = 0;

    *out = 0;
    if (git_oid_fromstr(&oa, a) < 0 || git_oid_fromstr(&ob, b) < 0)
        return pg_error_set(PG_ERR_GENERIC, "ahead: bad commit id");
    if (git_graph_ahead_behind(out, &behind, repo->repo, &oa, &ob) < 0)
        return pg_error_set(PG_ERR_GENERIC, "commits of %.10s not in %.10s: %s",
                            a, b, git_message());
    return 0;
}

int pg_repo_worktree(pg_rev *out, pg_repo *repo)
{
    git_status_options opts;
    git_status_list *list = NULL;
    git_object *head = NULL;

    memset(out, 0, sizeof(*out));
    out->spec = pg_strdup("working tree");
    out->worktree = 1;
    out->dir = pg_strdup(repo->workdir);
    if (git_revparse_single(&head, repo->repo, "HEAD^{commit}") == 0) {
        git_oid_tostr(out->commit, sizeof(out->commit), git_object_id(head));
        git_object_free(head);
    }
    /* As `git diff HEAD`: tracked changes, staged or not; no index write. */
    git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
    opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    opts.flags = GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    if (git_status_list_new(&list, repo->repo, &opts) < 0)
        return pg_error_set(PG_ERR_GENERIC,
                            "cannot read the working tree's status: %s",
                            git_message());
    out->dirty = git_status_list_entrycount(list) > 0;
    git_status_list_free(list);
    return 0;
}

typedef struct walk_ctx {
    git_repository *repo;
    const char *dir;
    /* Another revision already written, whose identical files are linked
     * rather than written again; NULL: none. */
    git_tree *other;
    const char *other_dir;
    pg_strvec *unreadable; /* the revision's */
    const pg_rev *rev;
    int err;
} walk_ctx;

int pg_rev_skips(const pg_rev *rev, const char *path)
{
    size_t i;

    for (i = 0; i < rev->nskip; i++) {
        const char *p = rev->skip[i];
        char *dir = pg_strdup(path), *slash;
        int hit = fnmatch(p, dir, FNM_PATHNAME) == 0;
        /* Or a directory on its way. */
        while (!hit && (slash = strrchr(dir, '/'))) {
            *slash = '\0';
            hit = fnmatch(p, dir, FNM_PATHNAME) == 0;
        }
        free(dir);
        if (hit)
            return 1;
    }
    return 0;
}

/*
 * 1 when the file at `root``name` is the same blob, with the same mode, in
 * the other revision, and was linked from there (a new name for the same
 * file: no new inode, which on some file systems is most of the cost).
 */
static int link_same(walk_ctx *ctx, const char *root, const char *name,
                     const git_tree_entry *entry, const char *path)
{
    git_tree_entry *theirs = NULL;
    char *rel, *from;
    int linked = 0;

    if (!ctx->other || git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK)
        return 0;
    rel = pg_strdupf("%s%s", root, name);
    if (git_tree_entry_bypath(&theirs, ctx->other, rel) == 0 &&
        git_tree_entry_filemode(theirs) == git_tree_entry_filemode(entry) &&
        git_oid_equal(git_tree_entry_id(theirs), git_tree_entry_id(entry))) {
        from = pg_path_join(ctx->other_dir, rel);
        linked = link(from, path) == 0;
        free(from);
    }
    git_tree_entry_free(theirs);
    free(rel);
    return linked;
}

/* A tree entry name that could escape the directory is refused. */
static int safe_name(const char *name)
{
    return *name && strcmp(name, ".") && strcmp(name, "..") &&
           !strchr(name, '/') && strcmp(name, ".git");
}

static int write_blob(walk_ctx *ctx, const char *root, const char *path,
                      const git_tree_entry *entry)
{
    git_blob *blob = NULL;
    const char *data;
    size_t len;
    int fd, err = 0;
    git_filemode_t mode = git_tree_entry_filemode(entry);

    /* A file the object database cannot give is left out, and said: what
     * no build reads cannot fail the run. */
    if (git_blob_lookup(&blob, ctx->repo, git_tree_entry_id(entry)) < 0) {
        pg_strvec_pushf(ctx->unreadable, "%s%s", root,
                        git_tree_entry_name(entry));
        return 0;
    }
    data = git_blob_rawcontent(blob);
    len = (size_t)git_blob_rawsize(blob);
    if (mode == GIT_FILEMODE_LINK) {
        char *target = pg_malloc(len + 1);
        memcpy(target, data, len);
        target[len] = '\0';
        if (symlink(target, path) < 0)
            err = -1;
        free(target);
    } else {
        /* O_EXCL: never write through anything already there. */
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0755 : 0644);
        if (fd < 0)
            err = -1;
        while (!err && len > 0) {
            ssize_t n = write(fd, data, len);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                err = -1;
            else {
                data += n;
                len -= (size_t)n;
            }
        }
        if (fd >= 0 && close(fd) < 0)
            err = -1;
    }
    if (err)
        err = pg_error_set(PG_ERR_GENERIC, "cannot write %s: %s", path,
                           strerror(errno));
    git_blob_free(blob);
    return err;
}

static int walk_cb(const char *root, const git_tree_entry *entry, void *payload)
{
    walk_ctx *ctx = payload;
    const char *name = git_tree_entry_name(entry);
    char *path;
    int err = 0;

    if (pg_interrupted()) {
        ctx->err = pg_error_set(PG_ERR_INTERRUPTED, "interrupted");
        return -1;
    }
    if (!safe_name(name)) {
        ctx->err = pg_error_set(PG_ERR_USAGE,
                                "refusing tree entry '%s%s': not a safe path",
                                root, name);
        return -1;
    }
    if (ctx->rev->nskip) {
        char *rel = pg_strdupf("%s%s", root, name);
        int skip = pg_rev_skips(ctx->rev, rel);
        free(rel);
        if (skip)
            return 1; /* nor what is below it */
    }
    path = pg_strdupf("%s/%s%s", ctx->dir, root, name);
    switch (git_tree_entry_type(entry)) {
    case GIT_OBJECT_TREE:
    case GIT_OBJECT_COMMIT: /* a submodule: an empty directory */
        if (mkdir(path, 0755) < 0)
            err = pg_error_set(PG_ERR_GENERIC, "cannot create %s: %s", path,
                               strerror(errno));
        break;
    case GIT_OBJECT_BLOB:
        if (!link_same(ctx, root, name, entry, path))
            err = write_blob(ctx, root, path, entry);
        break;
    default:
        break;
    }
    free(path);
    if (err < 0) {
        ctx->err = err;
        return -1;
    }
    /* Skip the inside of submodules: their commits are not here. */
    return git_tree_entry_type(entry) == GIT_OBJECT_COMMIT ? 1 : 0;
}

/* The tree of commit `id`, or NULL with the error set. */
static git_tree *tree_of(pg_repo *repo, const char *id)
{
    git_commit *commit = NULL;
    git_tree *tree = NULL;
    git_oid oid;

    if (git_oid_fromstr(&oid, id) < 0 ||
        git_commit_lookup(&commit, repo->repo, &oid) < 0 ||
        git_commit_tree(&tree, commit) < 0)
        pg_error_set(PG_ERR_GENERIC, "cannot read commit %s: %s", id,
                     git_message());
    git_commit_free(commit);
    return tree;
}

int pg_repo_materialize(pg_repo *repo, pg_rev *rev, const char *dir)
{
    return pg_repo_materialize_beside(repo, rev, dir, NULL);
}

int pg_repo_materialize_beside(pg_repo *repo, pg_rev *rev, const char *dir,
                               const pg_rev *other)
{
    git_tree *tree = NULL;
    walk_ctx ctx;
    int err = 0;

    memset(&ctx, 0, sizeof(ctx));
    if (!(tree = tree_of(repo, rev->commit))) {
        err = PG_ERR_GENERIC;
        goto done;
    }
    if (other && other->dir && !other->worktree && *other->commit) {
        ctx.other = tree_of(repo, other->commit);
        ctx.other_dir = other->dir;
    }
    ctx.repo = repo->repo;
    ctx.dir = dir;
    ctx.unreadable = &rev->unreadable;
    ctx.rev = rev;
    ctx.err = 0;
    if (git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &ctx) < 0) {
        err = ctx.err ? ctx.err
                      : pg_error_set(PG_ERR_GENERIC,
                                     "cannot read the tree of %s: %s",
                                     rev->spec, git_message());
        goto done;
    }
    free(rev->dir);
    rev->dir = pg_strdup(dir);
    git_oid_tostr(rev->tree, sizeof(rev->tree), git_tree_id(tree));
done:
    git_tree_free(ctx.other);
    git_tree_free(tree);
    return err;
}

/* Copies one file of the working tree (a link stays a link), making its
 * directory first. */
static int copy_entry(const char *from_root, const char *to_root,
                      const char *rel)
{
    char *from = pg_path_join(from_root, rel), *to = pg_path_join(to_root, rel);
    char *dir = pg_path_dirname(to), *data = NULL, target[4096];
    struct stat st;
    size_t len = 0;
    ssize_t n;
    int err = 0;

    if (lstat(from, &st) < 0)
        goto done; /* deleted in the tree: not part of it */
    if (pg_mkdir_p(dir) < 0) {
        err = -1;
    } else if (S_ISLNK(st.st_mode)) {
        n = readlink(from, target, sizeof(target) - 1);
        if (n < 0)
            err = -1;
        else {
            target[n] = '\0';
            err = symlink(target, to);
        }
    } else if (S_ISREG(st.st_mode)) {
        if (pg_read_file(&data, &len, from, (size_t)1 << 34) < 0 ||
            pg_write_file(to, data, len, (st.st_mode & 0111) != 0) < 0)
            err = -1;
    }
    if (err)
        err = pg_error_set(PG_ERR_GENERIC, "cannot copy %s to %s: %s", from, to,
                           strerror(errno));
done:
    free(from);
    free(to);
    free(dir);
    free(data);
    return err;
}

int pg_repo_copy_worktree(pg_repo *repo, pg_rev *rev, const char *dir)
{
    git_status_options opts;
    git_status_list *list = NULL;
    size_t i, n;
    int err = 0;

    /* Every file git would commit with `git add -A`: tracked ones as they
     * are now, and untracked ones that are not ignored. */
    git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
    opts.show = GIT_STATUS_SHOW_WORKDIR_ONLY;
    opts.flags = GIT_STATUS_OPT_INCLUDE_UNMODIFIED |
                 GIT_STATUS_OPT_INCLUDE_UNTRACKED |
                 GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
                 GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    if (git_status_list_new(&list, repo->repo, &opts) < 0)
        return pg_error_set(PG_ERR_GENERIC,
                            "cannot list the working tree's files: %s",
                            git_message());
    n = git_status_list_entrycount(list);
    for (i = 0; i < n && !err; i++) {
        const git_status_entry *e = git_status_byindex(list, i);
        const git_diff_delta *d = e->index_to_workdir;
        if (pg_interrupted())
            err = pg_error_set(PG_ERR_INTERRUPTED, "interrupted");
        else if (d && d->new_file.path &&
                 !(e->status & GIT_STATUS_WT_DELETED) &&
                 !pg_rev_skips(rev, d->new_file.path))
            err = copy_entry(repo->workdir, dir, d->new_file.path);
    }
    git_status_list_free(list);
    if (!err) {
        free(rev->dir);
        rev->dir = pg_strdup(dir);
    }
    return err;
}

/* `c` as a pg_commit_info, into `info`. */
static void commit_info(pg_commit_info *info, git_commit *c)
{
    const git_signature *who = git_commit_author(c);

    git_oid_tostr(info->commit, sizeof(info->commit), git_commit_id(c));
    git_oid_tostr(info->tree, sizeof(info->tree), git_commit_tree_id(c));
    info->subject =
        pg_strdup(git_commit_summary(c) ? git_commit_summary(c) : "");
    info->author =
        who ? pg_strdupf("%s <%s>", who->name, who->email) : pg_strdup("");
}

int pg_repo_range(pg_commit_info **out, size_t *n, pg_repo *repo,
                  const char *good, const char *bad, int first_parent)
{
    git_revwalk *walk = NULL;
    git_oid og, ob, oid;
    size_t cap = 0;
    int err = 0;

    *out = NULL;
    *n = 0;
    if (git_oid_fromstr(&og, good) < 0 || git_oid_fromstr(&ob, bad) < 0)
        return pg_error_set(PG_ERR_GENERIC, "range: bad commit id");
    if (git_oid_equal(&og, &ob) ||
        git_graph_descendant_of(repo->repo, &ob, &og) != 1)
        return pg_error_set(PG_ERR_USAGE,
                            "%.10s is not an ancestor of %.10s: give a good "
                            "revision that came before the bad one",
                            good, bad);
    if (git_revwalk_new(&walk, repo->repo) < 0 ||
        git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE) <
            0 ||
        (first_parent && git_revwalk_simplify_first_parent(walk) < 0) ||
        git_revwalk_push(walk, &ob) < 0 || git_revwalk_hide(walk, &og) < 0) {
        git_revwalk_free(walk);
        return pg_error_set(PG_ERR_GENERIC, "walking %.10s..%.10s: %s", good,
                            bad, git_message());
    }
    while (!err && git_revwalk_next(&oid, walk) == 0) {
        git_commit *c = NULL;
        pg_commit_info *info;
        if (git_commit_lookup(&c, repo->repo, &oid) < 0) {
            err = pg_error_set(PG_ERR_USAGE,
                               "commit %s of the range is missing (a shallow "
                               "clone? 'git fetch --unshallow')",
                               git_oid_tostr_s(&oid));
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *out = pg_realloc(*out, cap * sizeof(**out));
        }
        info = &(*out)[(*n)++];
        commit_info(info, c);
        git_commit_free(c);
    }
    git_revwalk_free(walk);
    if (err < 0) {
        pg_commit_infos_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return err;
}

int pg_repo_trailers(pg_strvec *commits, pg_strvec *values, pg_repo *repo,
                     const char *base, const char *head, const char *key,
                     size_t max)
{
    git_revwalk *walk = NULL;
    git_oid ob, oh, oid;
    size_t seen = 0, i;

    if (git_oid_fromstr(&ob, base) < 0 || git_oid_fromstr(&oh, head) < 0)
        return pg_error_set(PG_ERR_GENERIC, "trailers: bad commit id");
    if (git_oid_equal(&ob, &oh))
        return 0;
    /* Children before their parents, whatever the commits' dates say
     * (commits made within one second tie). */
    if (git_revwalk_new(&walk, repo->repo) < 0 ||
        git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL) < 0 ||
        git_revwalk_push(walk, &oh) < 0 || git_revwalk_hide(walk, &ob) < 0) {
        git_revwalk_free(walk);
        return pg_error_set(PG_ERR_GENERIC, "walking %.10s..%.10s: %s", base,
                            head, git_message());
    }
    while (seen++ < max && git_revwalk_next(&oid, walk) == 0) {
        git_commit *c = NULL;
        git_message_trailer_array trailers = {0};
        const char *message;
        if (git_commit_lookup(&c, repo->repo, &oid) < 0)
            continue; /* a shallow clone's edge: nothing to read there */
        message = git_commit_message(c);
        if (message && git_message_trailers(&trailers, message) == 0) {
            for (i = 0; i < trailers.count; i++)
                if (!strcasecmp(trailers.trailers[i].key, key)) {
                    pg_strvec_push(commits, git_oid_tostr_s(&oid));
                    pg_strvec_push(values, trailers.trailers[i].value);
                }
            git_message_trailer_array_free(&trailers);
        }
        git_commit_free(c);
    }
    git_revwalk_free(walk);
    return 0;
}

int pg_repo_first_parents(pg_commit_info **out, size_t *n, pg_repo *repo,
                          const char *spec, size_t max)
{
    git_object *obj = NULL;
    git_commit *c = NULL, *next = NULL;
    size_t i, cap = 0;

    *out = NULL;
    *n = 0;
    if (git_revparse_single(&obj, repo->repo, spec) < 0 ||
        git_object_peel((git_object **)&c, obj, GIT_OBJECT_COMMIT) < 0) {
        git_object_free(obj);
        return pg_error_set(PG_ERR_USAGE,
                            "'%s' is not a commit here: %s (fetch it, or "
                            "name another with --rev)",
                            spec, git_message());
    }
    git_object_free(obj);
    /* Newest first, then turned around.  A missing parent (a shallow
     * clone's edge) ends the line. */
    while (c && *n < max) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            *out = pg_realloc(*out, cap * sizeof(**out));
        }
        commit_info(&(*out)[(*n)++], c);
        if (git_commit_parentcount(c) == 0 ||
            git_commit_parent(&next, c, 0) < 0)
            next = NULL;
        git_commit_free(c);
        c = next;
    }
    git_commit_free(c);
    git_error_clear();
    for (i = 0; i < *n / 2; i++) {
        pg_commit_info t = (*out)[i];
        (*out)[i] = (*out)[*n - 1 - i];
        (*out)[*n - 1 - i] = t;
    }
    return 0;
}

int pg_repo_tree_of(char out[PG_OID_HEX], pg_repo *repo, const char *commit)
{
    git_oid oid;
    git_commit *c = NULL;

    if (git_oid_fromstr(&oid, commit) < 0 ||
        git_commit_lookup(&c, repo->repo, &oid) < 0)
        return pg_error_set(PG_ERR_USAGE, "commit %.10s is missing: %s", commit,
                            git_message());
    git_oid_tostr(out, PG_OID_HEX, git_commit_tree_id(c));
    git_commit_free(c);
    return 0;
}

int pg_repo_commit_trees(char tree[PG_OID_HEX], char parent[PG_OID_HEX],
                         char parent_tree[PG_OID_HEX], pg_repo *repo,
                         const char *commit)
{
    git_oid oid;
    git_commit *c = NULL, *p = NULL;

    tree[0] = parent[0] = parent_tree[0] = '\0';
    if (git_oid_fromstr(&oid, commit) < 0 ||
        git_commit_lookup(&c, repo->repo, &oid) < 0) {
        git_error_clear();
        return 1;
    }
    git_oid_tostr(tree, PG_OID_HEX, git_commit_tree_id(c));
    if (git_commit_parentcount(c) > 0) {
        git_oid_tostr(parent, PG_OID_HEX, git_commit_parent_id(c, 0));
        if (git_commit_parent(&p, c, 0) == 0)
            git_oid_tostr(parent_tree, PG_OID_HEX, git_commit_tree_id(p));
        else
            git_error_clear();
        git_commit_free(p);
    }
    git_commit_free(c);
    return 0;
}

struct git_repository *pg_repo_git(pg_repo *repo)
{
    return repo->repo;
}

void pg_commit_infos_free(pg_commit_info *infos, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(infos[i].subject);
        free(infos[i].author);
    }
    free(infos);
}

void pg_rev_clear(pg_rev *rev)
{
    free(rev->spec);
    free(rev->subject);
    free(rev->dir);
    pg_strvec_clear(&rev->unreadable);
    memset(rev, 0, sizeof(*rev));
}

void pg_repo_free(pg_repo *repo)
{
    if (!repo)
        return;
    git_repository_free(repo->repo);
    free(repo->workdir);
    free(repo);
    git_libgit2_shutdown();
}

/* The last error, said again as the CI system's, with what to change. */
static int ci_error(const pg_ci *ci)
{
    char *why = pg_strdup(pg_error_last() ? pg_error_last() : "failed");
    int err = pg_error_set(PG_ERR_USAGE, "%s, %s: %s\nIn %s: %s",
                           pg_ci_name(ci->system), ci->what, why,
                           pg_ci_name(ci->system), ci->fetch_hint);

    free(why);
    return err;
}

int pg_repo_resolve_ci(pg_rev *base, pg_rev *head, pg_repo *repo,
                       const pg_ci *ci)
{
    char merge_base[PG_OID_HEX];
    int err;

    if ((err = pg_repo_resolve(head, repo, ci->head ? ci->head : "HEAD")) < 0)
        return ci_error(ci);
    if (ci->base_branch) {
        char *remote = pg_strdupf("origin/%s", ci->base_branch);
        err = pg_repo_resolve(base, repo, remote);
        free(remote);
        if (err < 0) {
            pg_rev_clear(base);
            err = pg_repo_resolve(base, repo, ci->base_branch);
        }
        if (err < 0) {
            pg_error_set(PG_ERR_USAGE,
                         "the base branch '%s' is not in this clone "
                         "(neither origin/%s nor %s)",
                         ci->base_branch, ci->base_branch, ci->base_branch);
            return ci_error(ci);
        }
    } else if ((err = pg_repo_resolve(base, repo, ci->base)) < 0) {
        return ci_error(ci);
    }
    if (ci->merge_base) {
        char *what = ci->base_branch
                         ? pg_strdupf("merge base with %s", ci->base_branch)
                         : pg_strdupf("merge base of the %s", ci->what);
        if (pg_repo_merge_base(merge_base, repo, base->commit, head->commit) <
            0) {
            free(what);
            return ci_error(ci);
        }
        pg_rev_clear(base);
        err = pg_repo_resolve(base, repo, merge_base);
        free(base->spec);
        base->spec = what;
        if (err < 0)
            return ci_error(ci);
    }
    free(head->spec);
    head->spec = pg_strdup(ci->what);
    return 0;
}
