/*
 * compare.c - the pipeline of `perfgate compare`: the config and what of
 * it runs here, the two sides (sides.h), the builds ahead (prebuild.h),
 * each benchmark (benchmark.h), the verdict (stats.h).
 */
#include "compare.h"
#include "declare.h"
#include "counter.h"
#include "str.h"
#include "trace.h"
#include "benchmark.h"
#include "box.h"
#include "boxcap.h"
#include "build.h"
#include "cleanup.h"
#include "error.h"
#include "fs.h"
#include "function.h"
#include "prebuild.h"
#include "bench_suite.h"
#include "catalog.h"
#include "shard.h"
#include "sides.h"
#include "stats.h"
#include "clock.h"
#include "words.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

typedef struct compare_ctx {
    const pg_compare_opts *opts;
    pg_config cfg;
    pg_repo *repo;
    pg_rev rev[2];
    char *tmp;
    char *build_dir;
    pg_progress progress;
    char *base_note;   /* pg_side_info.note of the base, or NULL */
    char *config_path; /* the config's, absolute where it was found */
    pg_result *result;
    int *shard_of; /* per benchmark of the config: its shard; NULL: none */
    char *balance; /* how shards were dealt ("cases", "timings ID") */
    pg_cache *cache;
    pg_bench_ctx bench; /* what the benchmarks share (benchmark.h) */
} compare_ctx;

void pg_compare_opts_init(pg_compare_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->noise_floor = -1;
    opts->count_floor = -1;
    opts->memory_floor = -1;
    opts->max_time = -1;
    opts->min_rounds = -1;
    opts->timeout = -1;
}

/*
 * A config in the repository names problem and adapter files in it: one
 * that leads out (a symbolic link a pull request committed) would have
 * perfgate compile, and quote in its report, a file of the machine's.  A
 * config from outside the repository is the user's own, and may point
 * anywhere.
 */
static int check_problems_inside(compare_ctx *ctx, const char *config_path)
{
    const char *root = pg_repo_workdir(ctx->repo);
    size_t i, j;

    if (!root || pg_path_inside(root, config_path) != 1)
        return 0;
    for (i = 0; i < ctx->cfg.nbenchmarks; i++) {
        const pg_bench_config *b = &ctx->cfg.benchmarks[i];
        const char *what = NULL, *file = NULL;
        if (b->problem_path && pg_path_inside(root, b->problem_path) != 1)
            what = "problem", file = b->problem;
        for (j = 0; !what && j < b->nadapters; j++)
            if (pg_path_inside(root, b->adapters[j]) != 1)
                what = "adapter", file = b->adapters[j];
        for (j = 0; !what && b->function && j < b->function->nargs; j++)
            if (!pg_function_files_inside(b->function, j, root, &file))
                what = "file";
        if (what)
            return pg_error_set(PG_ERR_USAGE,
                                "%s:%d:%d: %s '%s' leads outside the "
                                "repository (a symbolic link, or an absolute "
                                "or '..' path); perfgate reads only the "
                                "repository's files",
                                ctx->cfg.path, b->mark.line, b->mark.col, what,
                                file);
    }
    return 0;
}

static int load_config(compare_ctx *ctx)
{
    const pg_compare_opts *o = ctx->opts;
    char *path, *display;
    int err;

    if (o->config_path) {
        path = pg_strdup(o->config_path);
        display = pg_strdup(o->config_path);
    } else {
        path = pg_path_join(pg_repo_workdir(ctx->repo), "perfgate.yml");
        display = pg_strdup("perfgate.yml");
    }
    err = pg_config_load(&ctx->cfg, path, display, pg_catalog_builtin());
    if (err >= 0)
        err = check_problems_inside(ctx, path);
    ctx->config_path = path;
    free(display);
    if (err < 0)
        return err;

    if (o->noise_floor >= 0) {
        ctx->cfg.settings.noise_floor = o->noise_floor;
        ctx->cfg.settings.floor_source = PG_FLOOR_FLAG;
    }
    if (o->measure) {
        size_t i;
        ctx->cfg.settings.measure = !strcmp(o->measure, "all")
                                        ? PG_MEASURE_ALL
                                        : pg_metric_parse(o->measure);
        for (i = 0; i < ctx->cfg.nbenchmarks; i++)
            ctx->cfg.benchmarks[i].measure = -1;
    }
    if (o->count_floor >= 0)
        ctx->cfg.settings.count_floor = o->count_floor;
    if (o->counter)
        ctx->cfg.settings.counter =
            !strcmp(o->counter, "auto") ? 0 : pg_counter_parse(o->counter);
    if (o->path_check)
        ctx->cfg.settings.path_check = pg_path_check_parse(o->path_check);
    if (o->inconclusive) {
        size_t i;
        ctx->cfg.settings.inconclusive_fails = !strcmp(o->inconclusive, "fail");
        for (i = 0; i < ctx->cfg.nbenchmarks; i++)
            ctx->cfg.benchmarks[i].inconclusive = -1;
    }
    if (o->memory) {
        size_t i;
        ctx->cfg.settings.memory = pg_memory_mode_parse(o->memory);
        for (i = 0; i < ctx->cfg.nbenchmarks; i++)
            ctx->cfg.benchmarks[i].memory = -1;
    }
    if (o->memory_floor >= 0)
        ctx->cfg.settings.memory_floor = o->memory_floor;
    if (o->max_time > 0)
        ctx->cfg.settings.max_time = o->max_time;
    if (o->min_rounds > 0)
        ctx->cfg.settings.min_rounds = o->min_rounds;
    if (o->timeout > 0)
        ctx->cfg.settings.timeout = o->timeout;
    return 0;
}

static int named(const compare_ctx *ctx, const char *name)
{
    const char *const *p;

    if (!ctx->opts->only)
        return 1;
    for (p = ctx->opts->only; *p; p++)
        if (!strcmp(*p, name))
            return 1;
    return 0;
}

/* 1 when benchmark i of the config runs here: named, and in this shard. */
static int selected(const compare_ctx *ctx, size_t i)
{
    return named(ctx, ctx->cfg.benchmarks[i].name) &&
           (!ctx->shard_of || ctx->shard_of[i] == ctx->opts->shard);
}

/* Deals the named benchmarks to the shards (shard.h). */
static int plan_shards(compare_ctx *ctx)
{
    size_t n = ctx->cfg.nbenchmarks, i;
    const char **names = pg_calloc(n ? n : 1, sizeof(*names));
    unsigned char *in = pg_calloc(n ? n : 1, 1);
    double *cost;
    int err;

    if ((err = pg_shard_costs_from(&cost, &ctx->balance, &ctx->cfg,
                                   ctx->opts->timings_path)) == 0) {
        for (i = 0; i < n; i++) {
            names[i] = ctx->cfg.benchmarks[i].name;
            in[i] = (unsigned char)named(ctx, names[i]);
        }
        ctx->shard_of = pg_calloc(n ? n : 1, sizeof(*ctx->shard_of));
        pg_shard_plan(ctx->shard_of, names, cost, in, n, ctx->opts->shards);
    }
    free(cost);
    free(names);
    free(in);
    return err;
}

static int check_only(compare_ctx *ctx)
{
    const char *const *p;
    size_t i;

    for (p = ctx->opts->only; p && *p; p++) {
        const char **names =
            pg_calloc(ctx->cfg.nbenchmarks + 1, sizeof(char *));
        char hint[128];
        int found = 0;
        for (i = 0; i < ctx->cfg.nbenchmarks; i++) {
            names[i] = ctx->cfg.benchmarks[i].name;
            found |= !strcmp(names[i], *p);
        }
        if (!found)
            pg_suggest_text(hint, sizeof(hint), *p, names);
        free(names);
        if (!found)
            return pg_error_set(PG_ERR_USAGE, "no benchmark '%s' in %s%s", *p,
                                ctx->cfg.path, hint);
    }
    return 0;
}

/* 1 when a benchmark to run has a project build command. */
static int any_project_build(const compare_ctx *ctx)
{
    size_t i;

    for (i = 0; i < ctx->cfg.nbenchmarks; i++)
        if (ctx->cfg.benchmarks[i].build && selected(ctx, i))
            return 1;
    return 0;
}

/* A warning for each side whose tree lacks files the object database
 * could not give: the run goes on, and what no build reads cannot fail
 * it. */
static void say_unreadable(pg_system *sys, const pg_rev rev[2])
{
    int s;

    for (s = 0; s < 2; s++) {
        const pg_strvec *u = &rev[s].unreadable;
        if (!u->n)
            continue;
        pg_system_warn(sys,
                       "%s (%s): %zu file%s could not be read from the "
                       "repository (a partial clone, or a damaged mirror) "
                       "and %s left out of its tree: %s%s; a build that "
                       "reads one fails. `git fsck` lists what is missing; "
                       "`git fetch --refetch` fetches it again, or "
                       "skip_paths: in perfgate.yml's settings leaves out "
                       "what no build reads",
                       s ? "head" : "base", rev[s].spec, u->n,
                       u->n == 1 ? "" : "s", u->n == 1 ? "is" : "are", u->v[0],
                       u->n > 1 ? " and others" : "");
    }
}

/* Each side's revision and tree, under the run's temporary directory. */
static int prepare_sides(compare_ctx *ctx)
{
    const pg_compare_opts *o = ctx->opts;
    pg_sides_want want = {o->base, o->head, o->merge_base, o->aa, o->ci};
    int err, s;

    if ((err = pg_sides_resolve(ctx->rev, &ctx->base_note, ctx->repo, &want,
                                &ctx->progress)) < 0 ||
        (err = pg_tempdir_create(&ctx->tmp)) < 0)
        return err;
    ctx->build_dir = pg_path_join(ctx->tmp, "build");
    if (pg_mkdir_p(ctx->build_dir) < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot create %s", ctx->build_dir);
    for (s = 0; s < 2; s++) {
        ctx->rev[s].skip = ctx->cfg.skip_paths;
        ctx->rev[s].nskip = ctx->cfg.nskip_paths;
    }
    return pg_sides_checkout(ctx->rev, ctx->repo, ctx->tmp,
                             any_project_build(ctx), &ctx->progress);
}

/* Builds at once: --jobs, else one per CPU this process may run on. */
static int jobs_wanted(const pg_compare_opts *o)
{
    cpu_set_t set;

    if (o->jobs > 0)
        return o->jobs;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    return 1;
}

/*
 * The build cache: --cache-dir, else the default (a default that cannot be
 * used is said, and the run goes on keeping nothing).  With no cache and
 * builds in parallel, a private one in the run's directory hands the
 * workers' builds over.
 */
static int open_cache(compare_ctx *ctx, int jobs)
{
    const pg_compare_opts *o = ctx->opts;
    char *dir = NULL;
    int err;

    if (!o->no_cache)
        dir = o->cache_dir ? pg_strdup(o->cache_dir) : pg_cache_default_dir();
    if (dir) {
        err = pg_cache_open(&ctx->cache, dir, pg_cache_default_size());
        free(dir);
        if (err == 0 || o->cache_dir)
            return err;
        pg_progress_sayf(&ctx->progress, "not keeping builds: %s",
                         pg_error_last());
    }
    dir = jobs > 1 ? pg_path_join(ctx->tmp, "cache") : NULL;
    err = pg_cache_open(&ctx->cache, dir, UINT64_MAX);
    free(dir);
    return err;
}

static void fill_side(pg_side_info *out, const pg_rev *rev)
{
    out->rev = pg_strdup(rev->spec);
    out->commit = pg_strdup(rev->commit);
    out->subject = pg_strdup(rev->subject);
    out->worktree = rev->worktree;
    out->dirty = rev->dirty;
}

/*
 * Whether the revisions' code will run in the box (box.h): asked once,
 * before anything runs; no box is an error under --sandbox require, and
 * else said in the result.
 */
static int check_box(pg_result *out)
{
    const char *why, *how;

    if (pg_box_ready(&why)) {
        if ((how = pg_boxcap_how(&why)) != NULL) {
            out->capped_by = pg_strdup(how);
            out->max_processes = pg_boxcap_max();
        } else
            out->uncapped = pg_strdup(why);
        pg_trace("the box's processes: %s%s",
                 how ? "capped by " : "not capped: ", how ? how : why);
        out->groups_kept = pg_boxcap_groups();
        return 0;
    }
    if (pg_box_mode_get() == PG_BOX_REQUIRE)
        return pg_error_set(PG_ERR_USAGE,
                            "--sandbox require: no box can be made for the "
                            "revisions' code: %s",
                            why);
    out->unboxed = pg_strdup(why);
    return 0;
}

/* The run's own facts, into the result: floor, sides, shard, machine. */
static void describe_run(compare_ctx *ctx)
{
    const pg_compare_opts *opts = ctx->opts;
    pg_result *out = ctx->result;

    out->noise_floor = ctx->cfg.settings.noise_floor;
    out->count_floor = ctx->cfg.settings.count_floor;
    out->floor_source = ctx->cfg.settings.floor_source;
    out->aa = opts->aa;
    out->config_digest = pg_strdup(ctx->cfg.digest);
    if (opts->shards > 0) {
        char host[256] = "";
        gethostname(host, sizeof(host) - 1);
        out->shards = pg_calloc(1, sizeof(*out->shards));
        out->nshards = 1;
        out->shards[0].index = opts->shard;
        out->shards[0].count = opts->shards;
        out->shards[0].host = pg_strdup(*host ? host : "unknown");
        out->shards[0].balance = ctx->balance;
        ctx->balance = NULL;
    }
    pg_progress_sayf(&ctx->progress, "checking the machine");
    pg_system_check(&out->system, "", 100);
    ctx->bench.system = &out->system;
    fill_side(&out->base, &ctx->rev[0]);
    out->base.note = ctx->base_note;
    ctx->base_note = NULL;
    fill_side(&out->head, &ctx->rev[1]);
    say_unreadable(&out->system, ctx->rev);
}

/* 1 when `name` is among `names`. */
static int listed(char *const *names, size_t n, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

/*
 * The names the box lets through, for every build and run of this one.
 * A config in the repository is the change's own to write, and a name it
 * adds (GITHUB_TOKEN) would let a job's token into the box: of its
 * pass_env:, only the names the base revision's config lists too are let
 * through, and the rest are held out and said (they take effect once
 * merged).  A config from outside the repository is the user's own, as
 * --pass-env is the invoker's.  After the sides are checked out.
 */
static int trust_pass_env(compare_ctx *ctx)
{
    const char *root = pg_repo_workdir(ctx->repo);
    const char *const *extra = ctx->opts->pass_env;
    pg_strvec names = PG_STRVEC_INIT;
    pg_str held = PG_STR_INIT;
    pg_config base;
    int judged = 0;
    size_t i;

    memset(&base, 0, sizeof(base));
    if (ctx->cfg.npass_env && root && ctx->config_path &&
        pg_path_inside(root, ctx->config_path) == 1 && ctx->rev[0].dir &&
        !ctx->rev[0].worktree) {
        const char *rel = ctx->config_path + strlen(root);
        char *at;
        rel += strspn(rel, "/");
        at = pg_path_join(ctx->rev[0].dir, rel);
        /* A base without the config, or with one that does not load,
         * names nothing. */
        if (pg_config_load(&base, at, "the base's config",
                           pg_catalog_builtin()) < 0) {
            pg_error_clear();
            pg_config_clear(&base);
            memset(&base, 0, sizeof(base));
        }
        free(at);
        judged = 1;
    }
    for (i = 0; i < ctx->cfg.npass_env; i++) {
        const char *n = ctx->cfg.pass_env[i];
        if (!judged || listed(base.pass_env, base.npass_env, n))
            pg_strvec_push(&names, n);
        else
            pg_str_printf(&held, "%s%s", held.size ? ", " : "", n);
    }
    for (i = 0; extra && extra[i]; i++) {
        if (!pg_box_env_name_ok(extra[i]) || !strcmp(extra[i], "HOME") ||
            !strcmp(extra[i], "TMPDIR")) {
            pg_strvec_clear(&names);
            pg_str_clear(&held);
            if (judged)
                pg_config_clear(&base);
            return pg_error_set(PG_ERR_USAGE,
                                "--pass-env %s: not the name of a variable "
                                "the box may take (HOME and TMPDIR are its "
                                "own)",
                                extra[i]);
        }
        pg_strvec_push(&names, extra[i]);
    }
    pg_box_pass_env(names.v, names.n);
    if (held.size)
        ctx->result->held_env = pg_str_detach(&held);
    pg_str_clear(&held);
    pg_strvec_clear(&names);
    if (judged)
        pg_config_clear(&base);
    return 0;
}

/* The most commits of a pull request whose trailers are read. */
#define MAX_TRAILER_COMMITS 1000

/*
 * The Perf-Accepted: trailers of the commits between the sides, added to
 * the config's accept: entries, the newest commit's last (it wins).  The
 * pull request's own commits, as its perfgate.yml is: shown in its
 * review, and out of the range once it is merged.  Then the pull
 * request's perf-accepted labels, which its author cannot set from a
 * fork: they win over both.
 */
static int accept_trailers(compare_ctx *ctx)
{
    pg_strvec commits = PG_STRVEC_INIT, values = PG_STRVEC_INIT;
    size_t i;
    int err;

    if (ctx->opts->aa || !*ctx->rev[0].commit || !*ctx->rev[1].commit)
        return 0;
    err = pg_repo_trailers(&commits, &values, ctx->repo, ctx->rev[0].commit,
                           ctx->rev[1].commit, PG_ACCEPT_TRAILER,
                           MAX_TRAILER_COMMITS);
    for (i = values.n; err == 0 && i > 0; i--)
        err = pg_config_accept_trailer(&ctx->cfg, commits.v[i - 1],
                                       values.v[i - 1]);
    for (i = 0; err == 0 && ctx->opts->ci && i < ctx->opts->ci->labels.n; i++)
        err = pg_config_accept_label(&ctx->cfg, ctx->opts->ci->labels.v[i]);
    pg_strvec_clear(&commits);
    pg_strvec_clear(&values);
    return err;
}

/* Everything before the first build: the repository, the config and what
 * of it runs here, the box, the two sides' trees. */
static int set_up(compare_ctx *ctx)
{
    const pg_compare_opts *opts = ctx->opts;
    int err;

    if ((err = pg_repo_open(&ctx->repo,
                            opts->repo_path ? opts->repo_path : ".")) < 0 ||
        (err = load_config(ctx)) < 0 || (err = check_only(ctx)) < 0 ||
        (err = check_box(ctx->result)) < 0 ||
        (opts->shards > 0 && (err = plan_shards(ctx)) < 0) ||
        (err = prepare_sides(ctx)) < 0 || (err = trust_pass_env(ctx)) < 0 ||
        (err = accept_trailers(ctx)) < 0)
        return err;
    describe_run(ctx);
    return 0;
}

/*
 * The functions that header: declares, read from the sides' trees (after
 * the project's build on the side that has the header, which may make
 * what it includes).  One whose build failed stays undeclared, and
 * pg_benchmark_run says why.
 */
static int declare_functions(compare_ctx *ctx)
{
    char *dir = pg_path_join(ctx->tmp, "declare");
    size_t i;
    int err = 0;

    for (i = 0; err == 0 && i < ctx->cfg.nbenchmarks; i++) {
        pg_bench_config *b = &ctx->cfg.benchmarks[i];
        int s;
        if (!selected(ctx, i) || !b->function || !b->function->header ||
            b->function->source)
            continue;
        s = pg_declare_side(ctx->rev, b->function->header);
        if (b->build && s >= 0) {
            const pg_build *p = pg_benchmark_project(&ctx->bench, b, s, &err);
            if (err < 0 || !p->ok)
                continue;
        }
        pg_progress_sayf(&ctx->progress, "reading %s", b->function->header);
        err = pg_declare_function(b, ctx->cfg.path, ctx->rev, dir,
                                  pg_build_limit(&ctx->cfg.settings));
    }
    free(dir);
    return err;
}

/* The cache, what the benchmarks share, and, with more than one
 * benchmark and compiler, each benchmark built first (prebuild.h). */
static int build_first(compare_ctx *ctx)
{
    pg_bench_ctx *c = &ctx->bench;
    int jobs = jobs_wanted(ctx->opts), err;
    size_t i, *which = pg_calloc(ctx->cfg.nbenchmarks + 1, sizeof(*which));

    for (i = 0; i < ctx->cfg.nbenchmarks; i++)
        if (selected(ctx, i))
            which[ctx->progress.count++] = i;
    if ((err = open_cache(ctx, jobs)) == 0) {
        c->cfg = &ctx->cfg;
        c->rev = ctx->rev;
        c->build_dir = ctx->build_dir;
        c->cache = ctx->cache;
        c->aa = ctx->opts->aa;
        c->precision = ctx->opts->precision;
        c->profile = ctx->opts->profile;
        c->progress = &ctx->progress;
        c->result = ctx->result;
    }
    if (err == 0)
        err = declare_functions(ctx);
    if (err == 0 && jobs > 1 && ctx->progress.count > 1) {
        int64_t t = pg_now_ns();
        err = pg_prebuild(c, which, ctx->progress.count, jobs);
        ctx->result->build_seconds += (double)(pg_now_ns() - t) / 1e9;
    }
    free(which);
    return err;
}

/* Each benchmark to run, in the config's order, into the result. */
static int measure_all(compare_ctx *ctx)
{
    const pg_compare_opts *opts = ctx->opts;
    pg_progress *p = &ctx->progress;
    size_t i;
    int err;

    p->loop_start = pg_now_ns();
    for (i = 0; i < ctx->cfg.nbenchmarks; i++) {
        const pg_bench_config *b = &ctx->cfg.benchmarks[i];
        pg_bench_result *r;

        if (!selected(ctx, i))
            continue;
        p->bench = b->name;
        p->bench_start = pg_now_ns();
        r = pg_result_add(ctx->result, b->name, b->problem);
        r->shard = opts->shards > 0 ? opts->shard : 0;
        err = b->suite ? pg_bench_suite_run(&ctx->bench, i, r)
                       : pg_benchmark_run(&ctx->bench, i, r);
        if (err < 0)
            return err;
        if (opts->on_bench_done)
            opts->on_bench_done(opts->payload, r, p->index, p->count);
        if (r->not_affected)
            p->skipped++;
        else
            p->measured++;
        p->index++;
    }
    p->bench = NULL;
    return 0;
}

/* Frees what the run held and removes its temporaries; the cache is
 * trimmed after a run that went well. */
static void clean_up(compare_ctx *ctx, int err)
{
    int s;

    free(ctx->base_note);
    free(ctx->config_path);
    free(ctx->shard_of);
    free(ctx->balance);
    if (ctx->cache) {
        if (!err)
            pg_cache_trim(ctx->cache);
        pg_cache_free(ctx->cache);
    }
    pg_bench_ctx_clear(&ctx->bench);
    for (s = 0; s < 2; s++)
        pg_rev_clear(&ctx->rev[s]);
    if (ctx->tmp) {
        pg_tempdir_remove_all();
        free(ctx->tmp);
    }
    free(ctx->build_dir);
    pg_config_clear(&ctx->cfg);
    pg_repo_free(ctx->repo);
}

int pg_compare(pg_result *out, const pg_compare_opts *opts)
{
    compare_ctx ctx;
    int64_t start = pg_now_ns();
    int err;

    memset(out, 0, sizeof(*out));
    out->system.cpu = -1;
    out->version = pg_strdup(PG_VERSION);
    memset(&ctx, 0, sizeof(ctx));
    ctx.opts = opts;
    ctx.progress.on_line = opts->on_progress;
    ctx.progress.payload = opts->payload;
    ctx.result = out;

    if ((err = set_up(&ctx)) == 0 && (err = build_first(&ctx)) == 0 &&
        (err = measure_all(&ctx)) == 0)
        pg_stats_judge(out);

    out->seconds = (double)(pg_now_ns() - start) / 1e9;
    if (out->nshards) {
        out->shards[0].seconds = out->seconds;
        out->shards[0].benchmarks = out->nbenchmarks;
    }
    clean_up(&ctx, err);
    return err;
}
