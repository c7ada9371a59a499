/*
 * store.c - the history's files on a ref of their own: written, read,
 * united with another writer's and pushed, through libgit2.
 */
#include "store.h"
#include "env.h"
#include "error.h"
#include "str.h"
#include "token.h"

#include <ctype.h>
#include <git2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

/* How deep the tree goes: fan-out, commit, file. */
#define DEPTH 3

static const char *git_message(void)
{
    const git_error *e = git_error_last();
    return e && e->message ? e->message : "unknown error";
}

int pg_store_ref_ok(const char *ref)
{
    return ref && !strncmp(ref, "refs/perfgate/", 14) && ref[14] &&
           git_reference_is_valid_name(ref);
}

static int is_hex(const char *s, size_t n)
{
    return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

/* The machine's name as part of a file name: [a-z0-9-], at most 40. */
static void slug(char *out, size_t size, const char *name)
{
    size_t n = 0;
    int dash = 1;

    for (; *name && n + 1 < size && n < 40; name++) {
        unsigned char c = (unsigned char)*name;
        if (isalnum(c) && c < 0x80) {
            out[n++] = (char)tolower(c);
            dash = 0;
        } else if (!dash) {
            out[n++] = '-';
            dash = 1;
        }
    }
    while (n && out[n - 1] == '-')
        n--;
    if (!n)
        out[n++] = 'm';
    out[n] = '\0';
}

/* The signature of perfgate's commits on the ref. */
static int signature(git_signature **out)
{
    return git_signature_now(out, "perfgate", "perfgate@localhost");
}

/*
 * `tree` (NULL: empty) with `blob` put at `path[0]/path[1]/...` (depth
 * components), into *out.
 */
static int tree_with(git_oid *out, git_repository *repo, const git_tree *tree,
                     const char *const *path, size_t depth, const git_oid *blob)
{
    git_treebuilder *b = NULL;
    const git_tree_entry *e;
    git_tree *sub = NULL;
    git_oid id;
    int err;

    if ((err = git_treebuilder_new(&b, repo, tree)) < 0)
        return err;
    if (depth == 1) {
        err = git_treebuilder_insert(NULL, b, path[0], blob, GIT_FILEMODE_BLOB);
    } else {
        e = tree ? git_tree_entry_byname(tree, path[0]) : NULL;
        if (e && git_tree_entry_type(e) == GIT_OBJECT_TREE)
            err = git_tree_lookup(&sub, repo, git_tree_entry_id(e));
        if (!err)
            err = tree_with(&id, repo, sub, path + 1, depth - 1, blob);
        if (!err)
            err = git_treebuilder_insert(NULL, b, path[0], &id,
                                         GIT_FILEMODE_TREE);
        git_tree_free(sub);
    }
    if (!err)
        err = git_treebuilder_write(out, b);
    git_treebuilder_free(b);
    return err;
}

/*
 * Moves `ref` to `id`, only from `old` (NULL: only when the ref does not
 * exist), so that a write another perfgate made meanwhile is never lost.
 */
static int move_ref(git_repository *repo, const char *ref, const git_oid *id,
                    const git_oid *old, const char *why)
{
    git_reference *r = NULL;
    int err =
        old ? git_reference_create_matching(&r, repo, ref, id, 1, old, why)
            : git_reference_create(&r, repo, ref, id, 0, why);

    git_reference_free(r);
    return err;
}

int pg_store_add(pg_repo *repo, const char *ref, const char *commit,
                 const char *machine, long long when, const char *data,
                 size_t len, char **path_out)
{
    git_repository *g = pg_repo_git(repo);
    git_oid blob, tree_id, tip, id;
    git_commit *parent = NULL;
    git_tree *tree = NULL, *new_tree = NULL;
    git_signature *sig = NULL;
    char fan[3], name[128], token[33], mslug[48], *msg;
    const char *path[DEPTH];
    int have_tip, err, tries;

    if (!is_hex(commit, PG_OID_HEX - 1))
        return pg_error_set(PG_ERR_GENERIC, "store: bad commit id");
    if (git_blob_create_from_buffer(&blob, g, data, len) < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot write the record: %s",
                            git_message());
    snprintf(fan, sizeof(fan), "%.2s", commit);
    slug(mslug, sizeof(mslug), machine);
    pg_token(token);
    snprintf(name, sizeof(name), "%lld-%s-%.8s.json", when, mslug, token);
    path[0] = fan;
    path[1] = commit;
    path[2] = name;
    msg = pg_strdupf("perfgate record %.12s", commit);
    if (signature(&sig) < 0) {
        free(msg);
        return pg_error_set(PG_ERR_GENERIC, "cannot sign: %s", git_message());
    }
    /* Another perfgate may move the ref between our read and our write:
     * then read it again and add to what it wrote. */
    for (tries = 0, err = -1; err < 0 && tries < 20; tries++) {
        const git_commit *parents[1];
        have_tip = git_reference_name_to_id(&tip, g, ref) == 0;
        err = have_tip ? git_commit_lookup(&parent, g, &tip) : 0;
        if (!err && parent)
            err = git_commit_tree(&tree, parent);
        if (!err)
            err = tree_with(&tree_id, g, tree, path, DEPTH, &blob);
        if (!err)
            err = git_tree_lookup(&new_tree, g, &tree_id);
        parents[0] = parent;
        if (!err)
            err = git_commit_create(&id, g, NULL, sig, sig, NULL, msg, new_tree,
                                    have_tip ? 1 : 0, parents);
        if (!err)
            err = move_ref(g, ref, &id, have_tip ? &tip : NULL, msg);
        git_tree_free(new_tree);
        git_tree_free(tree);
        git_commit_free(parent);
        new_tree = tree = NULL;
        parent = NULL;
        if (err < 0 && err != GIT_EMODIFIED && err != GIT_EEXISTS &&
            err != GIT_ELOCKED)
            break;
    }
    git_signature_free(sig);
    free(msg);
    if (err < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot write %s: %s", ref,
                            git_message());
    if (path_out)
        *path_out = pg_strdupf("%s/%s/%s", fan, commit, name);
    return 0;
}

/* Reading: what the walk collects. */
typedef struct read_ctx {
    git_repository *repo;
    const char *ref;
    pg_stored *files;
    size_t n, cap;
    int (*want)(void *payload, const char *commit);
    void *payload;
    pg_strvec *skipped;
    int err;
} read_ctx;

static void skip(read_ctx *ctx, const char *root, const char *name,
                 const char *why)
{
    char *line = pg_strdupf("left out %s:%s%s: %s", ctx->ref, root, name, why);
    char *clean = pg_text_clean(line);

    if (ctx->skipped)
        pg_strvec_push(ctx->skipped, clean);
    free(clean);
    free(line);
}

/* The size of blob `id` from its header alone: 0, or -1 when it cannot
 * be read so (the lookup that follows then says why). */
static int blob_size(git_object_size_t *size, git_repository *repo,
                     const git_oid *id)
{
    git_odb *odb = NULL;
    git_object_t type;
    size_t len;
    int err;

    if (git_repository_odb(&odb, repo) < 0)
        return -1;
    err = git_odb_read_header(&len, &type, odb, id);
    git_odb_free(odb);
    if (err < 0 || type != GIT_OBJECT_BLOB)
        return -1;
    *size = (git_object_size_t)len;
    return 0;
}

/* 1 when `root` + `name`, at the tree's depth, is where a record goes. */
static int in_place(const char *root, const char *name, git_object_t type)
{
    size_t depth = 0;
    const char *p;

    for (p = root; *p; p++)
        depth += *p == '/';
    if (depth == 0)
        return type == GIT_OBJECT_TREE && is_hex(name, 2);
    if (depth == 1)
        return type == GIT_OBJECT_TREE && is_hex(name, PG_OID_HEX - 1) &&
               !strncmp(name, root, 2);
    return depth == 2 && type == GIT_OBJECT_BLOB && strlen(name) > 5 &&
           !strcmp(name + strlen(name) - 5, ".json");
}

static int read_entry(const char *root, const git_tree_entry *e, void *p)
{
    read_ctx *ctx = p;
    const char *name = git_tree_entry_name(e);
    git_object_t type = git_tree_entry_type(e);
    git_blob *blob = NULL;
    pg_stored *f;
    git_object_size_t size;

    if (!in_place(root, name, type)) {
        skip(ctx, root, name, "not where a record goes");
        return 1; /* do not go inside */
    }
    if (type == GIT_OBJECT_TREE) {
        /* A commit's directory: go in only when it is wanted. */
        if (*root && ctx->want && !ctx->want(ctx->payload, name))
            return 1;
        return 0;
    }
    /* Its size from the object's header first: a blob of 96 MB packs
     * into 96 KB, and looking it up would inflate all of it. */
    if (blob_size(&size, ctx->repo, git_tree_entry_id(e)) == 0 &&
        size > PG_STORE_MAX_FILE) {
        skip(ctx, root, name, "too large for a record");
        return 0;
    }
    if (git_blob_lookup(&blob, ctx->repo, git_tree_entry_id(e)) < 0) {
        git_error_clear();
        skip(ctx, root, name, "missing from the repository");
        return 0;
    }
    size = git_blob_rawsize(blob);
    if (size > PG_STORE_MAX_FILE) {
        skip(ctx, root, name, "too large for a record");
        git_blob_free(blob);
        return 0;
    }
    if (ctx->n == ctx->cap) {
        ctx->cap = ctx->cap ? 2 * ctx->cap : 64;
        ctx->files = pg_realloc(ctx->files, ctx->cap * sizeof(*ctx->files));
    }
    f = &ctx->files[ctx->n++];
    memset(f, 0, sizeof(*f));
    snprintf(f->commit, sizeof(f->commit), "%.40s", root + 3);
    f->path = pg_strdupf("%s%s", root, name);
    f->len = (size_t)size;
    f->data = pg_malloc(f->len + 1);
    memcpy(f->data, git_blob_rawcontent(blob), f->len);
    f->data[f->len] = '\0';
    git_blob_free(blob);
    return 0;
}

int pg_store_read(pg_stored **out, size_t *n, pg_repo *repo, const char *ref,
                  int (*want)(void *payload, const char *commit), void *payload,
                  pg_strvec *skipped)
{
    git_repository *g = pg_repo_git(repo);
    read_ctx ctx;
    git_oid tip;
    git_commit *c = NULL;
    git_tree *tree = NULL;

    *out = NULL;
    *n = 0;
    if (git_reference_name_to_id(&tip, g, ref) < 0) {
        git_error_clear();
        return 0;
    }
    if (git_commit_lookup(&c, g, &tip) < 0 || git_commit_tree(&tree, c) < 0) {
        git_commit_free(c);
        return pg_error_set(PG_ERR_USAGE,
                            "%s does not point to a commit with a tree "
                            "(damaged?): %s",
                            ref, git_message());
    }
    memset(&ctx, 0, sizeof(ctx));
    ctx.repo = g;
    ctx.ref = ref;
    ctx.want = want;
    ctx.payload = payload;
    ctx.skipped = skipped;
    if (git_tree_walk(tree, GIT_TREEWALK_PRE, read_entry, &ctx) < 0)
        ctx.err =
            pg_error_set(PG_ERR_GENERIC, "reading %s: %s", ref, git_message());
    git_tree_free(tree);
    git_commit_free(c);
    *out = ctx.files;
    *n = ctx.n;
    return ctx.err;
}

void pg_stored_free(pg_stored *files, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(files[i].path);
        free(files[i].data);
    }
    free(files);
}

/*
 * The union of trees `a` and `b` into *out: what either has.  Where both
 * have a different file at one path (no perfgate writes one: a damaged or
 * hostile history), `a`'s is kept.
 */
static int unite(git_oid *out, git_repository *repo, const git_tree *a,
                 const git_tree *b, size_t depth)
{
    git_treebuilder *tb = NULL;
    size_t i, count = git_tree_entrycount(b);
    int err = git_treebuilder_new(&tb, repo, a);

    for (i = 0; !err && i < count; i++) {
        const git_tree_entry *eb = git_tree_entry_byindex(b, i);
        const git_tree_entry *ea =
            git_tree_entry_byname(a, git_tree_entry_name(eb));
        git_tree *ta = NULL, *tb2 = NULL;
        git_oid id;

        if (!ea) {
            err = git_treebuilder_insert(NULL, tb, git_tree_entry_name(eb),
                                         git_tree_entry_id(eb),
                                         git_tree_entry_filemode(eb));
            continue;
        }
        if (git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)))
            continue;
        if (depth > 1 && git_tree_entry_type(ea) == GIT_OBJECT_TREE &&
            git_tree_entry_type(eb) == GIT_OBJECT_TREE) {
            err = git_tree_lookup(&ta, repo, git_tree_entry_id(ea));
            if (!err)
                err = git_tree_lookup(&tb2, repo, git_tree_entry_id(eb));
            if (!err)
                err = unite(&id, repo, ta, tb2, depth - 1);
            if (!err)
                err = git_treebuilder_insert(NULL, tb, git_tree_entry_name(eb),
                                             &id, GIT_FILEMODE_TREE);
            git_tree_free(ta);
            git_tree_free(tb2);
        } /* else a clash: a's is kept */
    }
    if (!err)
        err = git_treebuilder_write(out, tb);
    git_treebuilder_free(tb);
    return err;
}

/* Pushing: what the callbacks share. */
typedef struct push_ctx {
    int asked;      /* times credentials were asked for */
    char *rejected; /* the remote's reason, when it refused the ref */
    const char *token;
} push_ctx;

static int credentials(git_credential **out, const char *url, const char *user,
                       unsigned int allowed, void *payload)
{
    push_ctx *ctx = payload;

    (void)url;
    if (ctx->asked++ > 0)
        return GIT_EUSER; /* what was offered was refused: do not loop */
    if (allowed & GIT_CREDENTIAL_SSH_KEY)
        return git_credential_ssh_key_from_agent(out, user ? user : "git");
    if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) && ctx->token)
        return git_credential_userpass_plaintext_new(
            out, user ? user : "x-access-token", ctx->token);
    return GIT_PASSTHROUGH;
}

static int push_update(const char *refname, const char *status, void *payload)
{
    push_ctx *ctx = payload;

    (void)refname;
    if (status && !ctx->rejected)
        ctx->rejected = pg_strdup(status);
    return 0;
}

/*
 * The headers git's own http.extraheader config gives this URL (what
 * actions/checkout leaves for its token), for libgit2, which does not read
 * them.  Pushed to `out`.
 */
static void extra_headers(pg_strvec *out, git_repository *repo, const char *url)
{
    git_config *cfg = NULL;
    git_config_iterator *it = NULL;
    git_config_entry *e;

    /* Every entry, matched here rather than by a regular expression
     * (libgit2's regexes go through pcre2, whose match data it leaks:
     * tests/lsan.supp). */
    if (git_repository_config_snapshot(&cfg, repo) < 0 ||
        git_config_iterator_new(&it, cfg) < 0) {
        git_config_free(cfg);
        git_error_clear();
        return;
    }
    while (git_config_next(&e, it) == 0) {
        /* http.extraheader, or http.<url>.extraheader for URLs under it */
        size_t n = strlen(e->name);
        const char *scope = e->name + 5;
        size_t slen = n > 17 ? n - 5 - strlen(".extraheader") : 0;
        if (strncmp(e->name, "http.", 5) || n < 16 ||
            strcmp(e->name + n - 12, ".extraheader"))
            continue;
        if (!strcmp(e->name, "http.extraheader") ||
            (n > 17 && url && !strncmp(url, scope, slen)))
            if (e->value && *e->value && !strchr(e->value, '\n'))
                pg_strvec_push(out, e->value);
    }
    git_config_iterator_free(it);
    git_config_free(cfg);
    git_error_clear();
}

/* Whether `s` (n bytes) is a path of a hosted repository: letters,
 * digits, . _ - and inner slashes, no "..". */
static int repo_path_ok(const char *s, size_t n)
{
    size_t i;

    if (!n || s[0] == '/' || s[n - 1] == '/' || memmem(s, n, "..", 2))
        return 0;
    for (i = 0; i < n; i++)
        if (!(isalnum((unsigned char)s[i]) || strchr("._-/", s[i])))
            return 0;
    return 1;
}

/* The web address of origin's commits when it is on github.com or
 * gitlab.com (https, ssh or scp-like URLs; credentials dropped). */
static char *origin_commit_url(git_repository *repo)
{
    static const char *const hosts[] = {"github.com", "gitlab.com"};
    git_remote *remote = NULL;
    const char *url, *p;
    char *out = NULL;
    size_t i, n;

    if (git_remote_lookup(&remote, repo, "origin") < 0) {
        git_error_clear();
        return NULL;
    }
    url = git_remote_url(remote);
    p = url ? strstr(url, "://") : NULL;
    p = p ? p + 3 : url;
    if (p && strchr(p, '@') && strchr(p, '@') < p + strcspn(p, "/"))
        p = strchr(p, '@') + 1; /* user, or user:token */
    for (i = 0; p && !out && i < 2; i++) {
        size_t hl = strlen(hosts[i]);
        if (strncmp(p, hosts[i], hl) || (p[hl] != '/' && p[hl] != ':'))
            continue;
        p += hl + 1;
        n = strlen(p);
        if (n > 4 && !strcmp(p + n - 4, ".git"))
            n -= 4;
        if (repo_path_ok(p, n))
            out = pg_strdupf("https://%s/%.*s/%scommit/", hosts[i], (int)n, p,
                             i ? "-/" : "");
    }
    git_remote_free(remote);
    return out;
}

char *pg_store_commit_url(pg_repo *repo)
{
    const char *server = pg_env("GITHUB_SERVER_URL");
    const char *name = pg_env("GITHUB_REPOSITORY");
    const char *project = pg_env("CI_PROJECT_URL");

    if (server && name && !strncmp(server, "https://", 8) &&
        repo_path_ok(server + 8, strlen(server + 8)) &&
        repo_path_ok(name, strlen(name)))
        return pg_strdupf("%s/%s/commit/", server, name);
    if (project && !strncmp(project, "https://", 8) &&
        repo_path_ok(project + 8, strlen(project + 8)))
        return pg_strdupf("%s/-/commit/", project);
    return repo ? origin_commit_url(pg_repo_git(repo)) : NULL;
}

/* The remote `name`: a configured one, else a URL or path. */
static int open_remote(git_remote **out, git_repository *repo, const char *name)
{
    if (git_remote_lookup(out, repo, name) == 0)
        return 0;
    git_error_clear();
    if ((strstr(name, "://") || strchr(name, '/') || strchr(name, ':')) &&
        git_remote_create_anonymous(out, repo, name) == 0)
        return 0;
    return pg_error_set(PG_ERR_USAGE,
                        "no remote '%s': name one of 'git remote' or give "
                        "its URL",
                        name);
}

/* Options both ways: credentials and the config's extra headers. */
static void set_callbacks(git_remote_callbacks *cb, git_strarray *headers,
                          pg_strvec *hv, push_ctx *ctx)
{
    cb->credentials = credentials;
    cb->push_update_reference = push_update;
    cb->payload = ctx;
    headers->strings = hv->v;
    headers->count = hv->n;
}

/*
 * Fetches `ref` from `remote` and unites what it has that the local ref
 * has not: 0 when the local ref now holds everything the remote's does.
 */
static int fetch_unite(git_remote *remote, git_repository *repo,
                       const char *ref, pg_strvec *hv, push_ctx *ctx)
{
    git_fetch_options fo;
    char *spec = pg_strdup(ref);
    git_strarray specs = {&spec, 1};
    const git_remote_head **heads;
    size_t nheads, i;
    const git_oid *theirs = NULL;
    git_oid ours, merged_tree, merged;
    git_commit *co = NULL, *ct = NULL;
    git_tree *to = NULL, *tt = NULL, *tm = NULL;
    git_signature *sig = NULL;
    int err;

    git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    set_callbacks(&fo.callbacks, &fo.custom_headers, hv, ctx);
    fo.update_fetchhead = 0;
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    ctx->asked = 0;
    err = git_remote_fetch(remote, &specs, &fo, NULL);
    free(spec);
    if (err < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot fetch %s: %s", ref,
                            git_message());
    if (git_remote_ls(&heads, &nheads, remote) < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot list the remote: %s",
                            git_message());
    for (i = 0; i < nheads; i++)
        if (!strcmp(heads[i]->name, ref))
            theirs = &heads[i]->oid;
    if (git_reference_name_to_id(&ours, repo, ref) < 0)
        return pg_error_set(PG_ERR_USAGE, "there is no %s here to push", ref);
    if (!theirs || git_oid_equal(theirs, &ours) ||
        git_graph_descendant_of(repo, &ours, theirs) == 1)
        return 0; /* a fast-forward for them */
    if (git_graph_descendant_of(repo, theirs, &ours) == 1)
        /* They have all we have: take theirs. */
        return move_ref(repo, ref, theirs, &ours, "perfgate: fetched") < 0
                   ? pg_error_set(PG_ERR_GENERIC, "cannot update %s: %s", ref,
                                  git_message())
                   : 0;
    err = git_commit_lookup(&co, repo, &ours);
    if (!err)
        err = git_commit_lookup(&ct, repo, theirs);
    if (!err)
        err = git_commit_tree(&to, co);
    if (!err)
        err = git_commit_tree(&tt, ct);
    if (!err)
        err = unite(&merged_tree, repo, to, tt, DEPTH);
    if (!err)
        err = git_tree_lookup(&tm, repo, &merged_tree);
    if (!err)
        err = signature(&sig);
    if (!err) {
        const git_commit *parents[2] = {co, ct};
        err = git_commit_create(&merged, repo, NULL, sig, sig, NULL,
                                "perfgate: unite with the remote's history", tm,
                                2, parents);
    }
    if (!err)
        err = move_ref(repo, ref, &merged, &ours, "perfgate: united");
    git_signature_free(sig);
    git_tree_free(tm);
    git_tree_free(tt);
    git_tree_free(to);
    git_commit_free(ct);
    git_commit_free(co);
    if (err < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot unite %s: %s", ref,
                            git_message());
    return 0;
}

static int push_once(git_remote *remote, const char *ref, pg_strvec *hv,
                     push_ctx *ctx)
{
    git_push_options po;
    char *spec = pg_strdupf("%s:%s", ref, ref); /* no '+': never forced */
    git_strarray specs = {&spec, 1};
    int err;

    git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
    set_callbacks(&po.callbacks, &po.custom_headers, hv, ctx);
    ctx->asked = 0;
    free(ctx->rejected);
    ctx->rejected = NULL;
    err = git_remote_push(remote, &specs, &po);
    free(spec);
    if (err < 0)
        return pg_error_set(PG_ERR_GENERIC, "%s", git_message());
    if (ctx->rejected)
        return pg_error_set(PG_ERR_GENERIC, "the remote refused it: %s",
                            ctx->rejected);
    return 0;
}

int pg_store_push(pg_repo *repo, const char *ref, const char *remote_name,
                  int tries, void (*say)(void *payload, const char *line),
                  void *payload)
{
    git_repository *g = pg_repo_git(repo);
    git_remote *remote = NULL;
    pg_strvec hv = PG_STRVEC_INIT;
    push_ctx ctx;
    int err = 0, i;

    memset(&ctx, 0, sizeof(ctx));
    ctx.token = pg_env("PERFGATE_PUSH_TOKEN");
    if ((err = open_remote(&remote, g, remote_name)) < 0)
        return err;
    extra_headers(&hv, g,
                  git_remote_pushurl(remote) ? git_remote_pushurl(remote)
                                             : git_remote_url(remote));
    for (i = 1; i <= tries; i++) {
        err = fetch_unite(remote, g, ref, &hv, &ctx);
        if (!err)
            err = push_once(remote, ref, &hv, &ctx);
        if (!err)
            break;
        if (err == PG_ERR_USAGE)
            break;
        if (say) {
            char *line = pg_strdupf("push %d of %d failed: %s", i, tries,
                                    pg_error_last());
            say(payload, line);
            free(line);
        }
        if (i < tries) {
            /* Another job is pushing: let it finish, apart from the
             * others that wait too. */
            struct timespec ts = {0, (long)(200000000L * i)};
            char t[33];
            pg_token(t);
            ts.tv_nsec += (long)(strtoul(t + 24, NULL, 16) % 200000000UL);
            while (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            nanosleep(&ts, NULL);
        }
    }
    free(ctx.rejected);
    pg_strvec_clear(&hv);
    git_remote_free(remote);
    if (err < 0 && err != PG_ERR_USAGE) {
        char *why = pg_strdup(pg_error_last() ? pg_error_last() : "failed");
        err = pg_error_set(PG_ERR_GENERIC,
                           "could not push %s to %s after %d tries (%s); the "
                           "records are kept on the local %s: push it later "
                           "with 'git push %s %s'",
                           ref, remote_name, tries, why, ref, remote_name, ref);
        free(why);
    }
    return err;
}
