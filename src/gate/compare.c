/*
 * compare.c - the pipeline of `perfgate compare`.
 */
#define _GNU_SOURCE
#include "compare.h"
#include "affected.h"
#include "box.h"
#include "build.h"
#include "cache.h"
#include "cleanup.h"
#include "cuda.h"
#include "elfcode.h"
#include "error.h"
#include "fs.h"
#include "function.h"
#include "problem.h"
#include "problems.h"
#include "proc.h"
#include "profile.h"
#include "progress.h"
#include "revision.h"
#include "shard.h"
#include "run.h"
#include "stats.h"
#include "str.h"
#include "strvec.h"
#include "system.h"
#include "timer.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "banned.h"

#ifndef PG_VERSION
#define PG_VERSION "0.0.0"
#endif

/* What a side's build is kept under: its key, when it has one. */
typedef struct side_keys {
    char key[2][PG_CACHE_ID];
    int keyed[2];
} side_keys;

typedef struct compare_ctx {
    const pg_compare_opts *opts;
    pg_config cfg;
    pg_repo *repo;
    pg_rev rev[2];
    char *tmp;
    char *build_dir;
    pg_progress progress;
    char *base_note; /* pg_side_info.note of the base, or NULL */
    const pg_system *system;
    pg_result *result;
    /* Project builds run so far, per side: a command runs once a side,
     * whatever the number of benchmarks that name it. */
    pg_strvec built[2];
    pg_build *builds[2];
    int *shard_of; /* per benchmark of the config: its shard; NULL: none */
    char *balance; /* how shards were dealt ("cases", "timings ID") */
    /* Problems built so far: a problem is built once, whatever the number
     * of benchmarks that name it. */
    pg_strvec problem_srcs, problem_libs;
    /* Configured cases already checked against their problem ("PROBLEM
     * LANGUAGE CASE;CASE..."): not asked of the problem again. */
    pg_strvec checked;
    pg_cache *cache;
    /* Keys of the builds that workers compiled in this run (a hit on one
     * is still a build of this run's). */
    pg_strvec compiled;
    int quiet; /* a build worker: no progress */
    /* Per benchmark of the config: its keys as the build workers found
     * them (known[i] set), so that they are not worked out again. */
    side_keys *keys;
    unsigned char *known;
} compare_ctx;

void pg_compare_opts_init(pg_compare_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->noise_floor = -1;
    opts->max_time = -1;
    opts->min_rounds = -1;
    opts->timeout = -1;
}

static void progress(compare_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void progress(compare_ctx *ctx, const char *fmt, ...)
{
    pg_str what = PG_STR_INIT;
    va_list ap;

    if (ctx->quiet || !ctx->progress.on_line)
        return;
    va_start(ap, fmt);
    pg_str_vprintf(&what, fmt, ap);
    va_end(ap);
    pg_progress_say(&ctx->progress, pg_str_cstr(&what), pg_now_ns());
    pg_str_clear(&what);
}

static void on_run_progress(void *payload, const char *stage, int round,
                            double elapsed)
{
    compare_ctx *ctx = payload;

    if (!strcmp(stage, "measuring"))
        progress(ctx, "measuring, round %d, %.1f s", round, elapsed);
    else
        progress(ctx, "%s", stage);
}

/*
 * How long one build may take: ten times what a side may run, 600 s at
 * the default timeout of 60 s, so that --timeout moves both.
 */
static double build_limit(const compare_ctx *ctx)
{
    return 10 * ctx->cfg.settings.timeout;
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
    err = pg_config_load(&ctx->cfg, path, display, pg_problems_builtin());
    if (err >= 0)
        err = check_problems_inside(ctx, path);
    free(path);
    free(display);
    if (err < 0)
        return err;

    if (o->noise_floor >= 0) {
        ctx->cfg.settings.noise_floor = o->noise_floor;
        ctx->cfg.settings.floor_source = PG_FLOOR_FLAG;
    }
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

/*
 * A base the user named.  With base...head it becomes the merge base of
 * the two, as git's A...B.  Else, when it has commits the head has not (a
 * topic branch compared with main's tip after main moved on), those
 * commits would count against the change, undone by it: that is said in
 * the result, with the merge base offered.
 */
static int base_of_range(compare_ctx *ctx)
{
    pg_rev *base = &ctx->rev[0], *head = &ctx->rev[1];
    const char *head_name = head->worktree ? "HEAD" : head->spec;
    char mb[PG_OID_HEX];
    size_t ahead = 0;
    int err;

    if (!*head->commit)
        return ctx->opts->merge_base
                   ? pg_error_set(PG_ERR_USAGE,
                                  "%s...: the repository has no commit yet "
                                  "to find a merge base with",
                                  base->spec)
                   : 0;
    if (ctx->opts->merge_base) {
        char *spec;
        if ((err = pg_repo_merge_base(mb, ctx->repo, base->commit,
                                      head->commit)) < 0)
            return err;
        spec = pg_strdupf("merge base of %s and %s", base->spec, head_name);
        pg_rev_clear(base);
        if ((err = pg_repo_resolve(base, ctx->repo, mb)) < 0) {
            free(spec);
            return err;
        }
        free(base->spec);
        base->spec = spec;
        return 0;
    }
    if (pg_repo_ahead(&ahead, ctx->repo, base->commit, head->commit) < 0 ||
        !ahead)
        return 0;
    ctx->base_note = pg_strdupf(
        "%s has %zu commit%s that the head has not, so this change is "
        "measured as undoing %s; to compare with where the head left %s: "
        "perfgate compare %s...%s",
        base->spec, ahead, ahead == 1 ? "" : "s", ahead == 1 ? "it" : "them",
        base->spec, base->spec, head->worktree ? "" : head->spec);
    return 0;
}

static int prepare_sides(compare_ctx *ctx)
{
    const pg_compare_opts *o = ctx->opts;
    int err, s;

    if (!o->aa && !o->base && !o->head && o->ci &&
        o->ci->system != PG_CI_NONE) {
        progress(ctx, "%s, %s", pg_ci_name(o->ci->system), o->ci->what);
        if ((err = pg_repo_resolve_ci(&ctx->rev[0], &ctx->rev[1], ctx->repo,
                                      o->ci)) < 0)
            return err;
    } else if (o->aa) {
        /* Both sides from the same revision, built apart: what differs
         * between them is this machine's noise. */
        for (s = 0; s < 2; s++) {
            if (o->base)
                err = pg_repo_resolve(&ctx->rev[s], ctx->repo, o->base);
            else
                err = pg_repo_worktree(&ctx->rev[s], ctx->repo);
            if (err < 0)
                return err;
        }
    } else if ((err = pg_repo_resolve(&ctx->rev[0], ctx->repo,
                                      o->base ? o->base : "HEAD")) < 0)
        return err;
    else if (o->head)
        err = pg_repo_resolve(&ctx->rev[1], ctx->repo, o->head);
    else
        err = pg_repo_worktree(&ctx->rev[1], ctx->repo);
    if (err < 0 || (!o->aa && o->base && (err = base_of_range(ctx)) < 0))
        return err;

    if ((err = pg_tempdir_create(&ctx->tmp)) < 0)
        return err;
    ctx->build_dir = pg_path_join(ctx->tmp, "build");
    if (pg_mkdir_p(ctx->build_dir) < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot create %s", ctx->build_dir);
    for (s = 0; s < 2; s++) {
        char *dir;
        /* The working tree is used in place, unless a project build is to
         * run in it: then in a copy, so that nothing is written to it. */
        if (ctx->rev[s].worktree && !any_project_build(ctx))
            continue;
        dir = pg_path_join(ctx->tmp, s == 0 ? "base" : "head");
        if (ctx->rev[s].worktree)
            progress(ctx, "copying the working tree");
        else
            progress(ctx, "checking out %s (%.10s)", ctx->rev[s].spec,
                     ctx->rev[s].commit);
        if (pg_mkdir_p(dir) < 0)
            err = pg_error_set(PG_ERR_GENERIC, "cannot create %s", dir);
        else if (ctx->rev[s].worktree)
            err = pg_repo_copy_worktree(ctx->repo, &ctx->rev[s], dir);
        else if (s == 1 && !any_project_build(ctx))
            /* Nothing writes into the trees: the head shares the base's
             * identical files. */
            err = pg_repo_materialize_beside(ctx->repo, &ctx->rev[s], dir,
                                             &ctx->rev[0]);
        else
            err = pg_repo_materialize(ctx->repo, &ctx->rev[s], dir);
        free(dir);
        if (err < 0)
            return err;
    }
    return 0;
}

/*
 * Side s's project build for `b`, run once a side and command: NULL when
 * `b` has none; else the build, failed or not.
 */
static const pg_build *project_build(compare_ctx *ctx, const pg_bench_config *b,
                                     int s, int *err)
{
    size_t i;

    *err = 0;
    if (!b->build)
        return NULL;
    for (i = 0; i < ctx->built[s].n; i++)
        if (!strcmp(ctx->built[s].v[i], b->build))
            return &ctx->builds[s][i];
    progress(ctx, "running the %s's build", s ? "head" : "base");
    ctx->builds[s] =
        pg_realloc(ctx->builds[s], (i + 1) * sizeof(*ctx->builds[s]));
    pg_strvec_push(&ctx->built[s], b->build);
    *err = pg_build_project(&ctx->builds[s][i], b->build, ctx->rev[s].dir,
                            ctx->rev[!s].dir, s ? "head" : "base",
                            build_limit(ctx));
    return &ctx->builds[s][i];
}

static void set_build_failure(pg_bench_result *out, const pg_build *build,
                              pg_side side)
{
    out->status = PG_STATUS_BUILD_FAILED;
    out->side = side;
    free(out->message);
    free(out->log);
    out->message = pg_strdupf("%s side: %s", pg_side_name(side),
                              build->message ? build->message : "build failed");
    out->log = build->log ? pg_strdup(build->log) : NULL;
}

/*
 * Builds both sides, head first, or takes them from the cache.  A failed
 * build is in `build`; built[s] says how each came to be.
 */
static int build_sides(compare_ctx *ctx, const pg_bench_config *b,
                       pg_build build[2], const side_keys *k, int built[2])
{
    int err, s;

    for (s = 1; s >= 0; s--) {
        const char *tag = s ? "head" : "base";
        const pg_build *project = project_build(ctx, b, s, &err);
        if (err < 0)
            return err;
        if (project && !project->ok) {
            build[s].message = pg_strdup(project->message);
            build[s].log = project->log ? pg_strdup(project->log) : NULL;
            continue;
        }
        if (k->keyed[s] && pg_build_from_cache(&build[s], ctx->cache, k->key[s],
                                               b, ctx->build_dir, tag)) {
            built[s] = pg_strvec_has(&ctx->compiled, k->key[s]) ? 1 : 2;
            continue;
        }
        progress(ctx, "building %s", tag);
        if ((err = pg_build_solution(&build[s], b, ctx->rev[s].dir,
                                     ctx->build_dir, tag, build_limit(ctx))) <
            0)
            return err;
        if (build[s].ok)
            built[s] = 1;
        if (k->keyed[s])
            pg_build_keep(ctx->cache, k->key[s], &build[s]);
    }
    return 0;
}

/*
 * The keys of both sides' builds of `b` (keyed[s] 0 when perfgate cannot
 * know what it reads); negative only when interrupted.
 */
static int build_keys(compare_ctx *ctx, const pg_bench_config *b, side_keys *k)
{
    int s, err;

    for (s = 0; s < 2; s++) {
        err = pg_affected_key(k->key[s], ctx->cache, b, ctx->rev[s].dir,
                              build_limit(ctx));
        if (err < 0)
            return err;
        k->keyed[s] = err == 0;
    }
    return 0;
}

/* 1 when a change cannot reach `b`: both sides read the same files.  A
 * self-check measures whatever it is given. */
static int not_affected(const compare_ctx *ctx, const side_keys *k)
{
    return !ctx->opts->aa && k->keyed[0] && k->keyed[1] &&
           !strcmp(k->key[0], k->key[1]);
}

/*
 * A CUDA benchmark is built on both sides, so that a head that does not
 * compile fails the gate on any machine, and measured only where there is
 * a GPU.  1 to measure; 0 when `out` already says why not.
 */
static int gpu_ready(compare_ctx *ctx, pg_bench_result *out,
                     const pg_build *base, int base_failed)
{
    const pg_gpu_info *gpu = pg_cuda_probe();

    if (!gpu->present && base_failed) {
        set_build_failure(out, base, PG_SIDE_BASE);
        return 0;
    }
    if (!gpu->present) {
        out->status = PG_STATUS_SKIPPED;
        out->message =
            pg_strdupf("built both sides; not measured: %s", gpu->why);
        return 0;
    }
    ctx->result->gpu = *gpu;
    return 1;
}

/* What the measuring child is to do with the two builds. */
static void fill_spec(pg_run_spec *spec, compare_ctx *ctx,
                      const pg_bench_config *b, pg_bench_result *out,
                      const pg_build build[2], int base_failed)
{
    spec->problem_name = b->problem;
    spec->lib[0] = build[0].missing || base_failed ? NULL : build[0].lib;
    /* Both sides load the same code: nothing can have changed, and
     * nothing is measured (the head is still checked).  Never in a
     * self-check, whose point is to measure. */
    out->identical = !base_failed && !build[0].missing && !ctx->opts->aa &&
                     pg_elfcode_same(build[0].lib, build[1].lib);
    if (out->identical)
        spec->lib[0] = NULL;
    spec->verify_only = base_failed || out->identical;
    spec->lib[1] = build[1].lib;
    spec->symbol = b->symbol;
    spec->settings = &ctx->cfg.settings;
    spec->cpu = ctx->system->cpu;
    /* Twice the last-level cache, so that nothing of the solution's is
     * left in it. */
    spec->evict_bytes = b->cold && !spec->gpu ? 2 * ctx->system->llc_bytes : 0;
    spec->cold = b->cold;
    out->cold = b->cold;
    spec->gate_cases = out->gate_cases =
        b->gate >= 0 ? b->gate : ctx->cfg.settings.gate_cases;
    spec->clock = &pg_timer_current()->chosen;
    spec->on_progress = on_run_progress;
    spec->payload = ctx;
}

/* The verdict from what the run reported, and what the builds said. */
static void settle(compare_ctx *ctx, pg_bench_result *out, const pg_build *base,
                   int base_failed)
{
    if (base_failed && out->side == PG_SIDE_HEAD) {
        char *msg = pg_strdupf("%s (the base side failed too: it does not "
                               "build)",
                               out->message);
        free(out->message);
        out->message = msg;
    } else if (base_failed) {
        set_build_failure(out, base, PG_SIDE_BASE);
    } else if (out->identical) {
        if (out->side != PG_SIDE_HEAD) {
            out->status = PG_STATUS_UNCHANGED;
            out->change = 0;
        }
    } else {
        if (out->gpu.runtime_version)
            ctx->result->gpu.runtime_version = out->gpu.runtime_version;
        if ((out->status == PG_STATUS_UNCHANGED ||
             out->status == PG_STATUS_NEW) &&
            out->rounds > 0)
            pg_stats_decide(out, ctx->cfg.settings.noise_floor);
    }
}

/*
 * A function benchmark whose head was not checked says so, and why: its
 * config turned the check off, or there was no base to check it against.
 * (Identical code needs no check: it is the base.)
 */
static void say_unchecked(pg_bench_result *out, const pg_bench_config *b,
                          const pg_run_spec *spec, int base_failed)
{
    const pg_function *f = b->function;
    const char *why = NULL;
    char *msg;

    if (f->check == PG_CHECK_NONE)
        why = "check: none in perfgate.yml";
    else if (f->check == PG_CHECK_REFERENCE)
        return;
    else if (!f->has_output)
        why = "the function returns nothing and writes no buffer";
    else if (out->side == PG_SIDE_BASE || base_failed)
        why = "nothing to compare with: the base side failed";
    else if (!spec->lib[0] && !out->identical)
        why = "nothing to compare with: the base side has no such function";
    if (!why || out->side == PG_SIDE_HEAD)
        return;
    out->unchecked = 1;
    msg = out->message ? pg_strdupf("%s; unchecked: %s", out->message, why)
                       : pg_strdupf("unchecked: %s", why);
    free(out->message);
    out->message = msg;
}

/* The problem of `b`, built once a run (*lib: a new string). */
static int problem_build(compare_ctx *ctx, const pg_bench_config *b, char **lib)
{
    char *src = pg_problems_source(b);
    size_t i;
    int err = 0;

    for (i = 0; i < ctx->problem_srcs.n; i++)
        if (!strcmp(ctx->problem_srcs.v[i], src))
            break;
    if (i < ctx->problem_srcs.n) {
        *lib = pg_strdup(ctx->problem_libs.v[i]);
    } else {
        progress(ctx, "building problem %s", b->problem);
        if ((err = pg_build_problem(lib, b, ctx->build_dir, ctx->cache)) == 0) {
            pg_strvec_push(&ctx->problem_srcs, src);
            pg_strvec_push(&ctx->problem_libs, *lib);
        }
    }
    free(src);
    return err;
}

/*
 * The cases of `b` (pg_problems_cases); configured cases that an earlier
 * benchmark of the same problem and language had checked are taken as they
 * are, without asking the problem again.
 */
static int checked_cases(compare_ctx *ctx, const pg_bench_config *b,
                         const char *problem_lib, pg_case_spec **cases,
                         size_t *ncases, int *owned)
{
    pg_str key = PG_STR_INIT;
    size_t i;
    int err = 0;

    pg_str_printf(&key, "%s %s ", problem_lib, b->language);
    for (i = 0; i < b->ncases; i++)
        pg_str_printf(&key, "%s;", b->cases[i].name);
    if (b->ncases && pg_strvec_has(&ctx->checked, pg_str_cstr(&key))) {
        *cases = b->cases;
        *ncases = b->ncases;
        *owned = 0;
    } else if ((err = pg_problems_cases(cases, ncases, owned, b, ctx->cfg.path,
                                        problem_lib)) == 0 &&
               b->ncases) {
        pg_strvec_push(&ctx->checked, pg_str_cstr(&key));
    }
    pg_str_clear(&key);
    return err;
}

/*
 * --profile: the case that got slowest, on both sides, under a profiler
 * (profile.h).  Run after the benchmark is measured, never beside it.
 */
static int profile_worst(compare_ctx *ctx, const pg_bench_config *b,
                         pg_bench_result *out, const char *problem_lib,
                         const pg_case_spec *cases, size_t ncases)
{
    const char *dirs[2] = {ctx->rev[0].dir, ctx->rev[1].dir};
    size_t i, worst = 0;

    for (i = 1; i < out->ncases && i < ncases; i++)
        if (out->cases[i].change > out->cases[worst].change)
            worst = i;
    if (!ncases)
        return 0;
    progress(ctx, "profiling %s", cases[worst].name);
    return pg_profile_bench(out, b, dirs, problem_lib, &cases[worst],
                            ctx->build_dir, build_limit(ctx));
}

static int run_benchmark(compare_ctx *ctx, size_t index, pg_bench_result *out)
{
    const pg_bench_config *b = &ctx->cfg.benchmarks[index];
    pg_build build[2];
    pg_case_spec *cases = NULL;
    size_t ncases = 0, i;
    int owned = 0, base_failed, err, s;
    char *problem_lib = NULL, *spec_path = NULL;
    pg_run_spec spec;
    side_keys keys;
    int64_t building;

    memset(build, 0, sizeof(build));
    building = pg_now_ns();
    if ((err = problem_build(ctx, b, &problem_lib)) < 0)
        return err;
    if ((err = checked_cases(ctx, b, problem_lib, &cases, &ncases, &owned)) < 0)
        goto done;
    /* What the change cannot reach is neither built nor measured. */
    progress(ctx, "checking what the change reaches");
    if (ctx->known && ctx->known[index])
        keys = ctx->keys[index];
    else if ((err = build_keys(ctx, b, &keys)) < 0)
        goto done;
    if (not_affected(ctx, &keys)) {
        out->status = PG_STATUS_UNCHANGED;
        out->change = 0;
        out->not_affected = 1;
        goto done;
    }
    err = build_sides(ctx, b, build, &keys, out->built);
    ctx->result->build_seconds += (double)(pg_now_ns() - building) / 1e9;
    building = 0;
    if (err < 0)
        goto done;
    if (build[1].missing || !build[1].ok) {
        set_build_failure(out, &build[1], PG_SIDE_HEAD);
        goto done;
    }
    /* A base that does not build: the head is still checked, alone. */
    base_failed = !build[0].missing && !build[0].ok;
    if (build[0].missing) {
        out->status = PG_STATUS_NEW;
        out->message = pg_strdupf("no baseline: %s in %s", build[0].message,
                                  ctx->rev[0].spec);
    }

    pg_run_spec_init(&spec);
    if (!strcmp(b->language, "cuda")) {
        if (!gpu_ready(ctx, out, &build[0], base_failed))
            goto done;
        spec.gpu = 1;
    }
    spec.problem_lib = problem_lib;
    spec.cases = cases;
    spec.ncases = ncases;
    fill_spec(&spec, ctx, b, out, build, base_failed);
    progress(ctx, "verifying");
    spec_path = pg_strdupf("%s/%s.run", ctx->build_dir, b->name);
    if ((err = pg_run_bench(out, &spec, spec_path)) < 0)
        goto done;
    settle(ctx, out, &build[0], base_failed);
    if (b->function)
        say_unchecked(out, b, &spec, base_failed);
    if (ctx->opts->profile && out->status == PG_STATUS_REGRESSION) {
        if (!spec.gpu) {
            err = profile_worst(ctx, b, out, problem_lib, cases, ncases);
        } else {
            /* Said, not silently left out. */
            out->profile = pg_calloc(1, sizeof(*out->profile));
            out->profile->skipped =
                pg_strdup("CUDA kernels are not profiled yet (Nsight "
                          "Compute's metrics need a GPU to be developed "
                          "against)");
        }
    }

done:
    if (building)
        ctx->result->build_seconds += (double)(pg_now_ns() - building) / 1e9;
    for (s = 0; s < 2; s++)
        pg_build_clear(&build[s]);
    if (owned) {
        for (i = 0; i < ncases; i++)
            pg_case_spec_clear(&cases[i]);
        free(cases);
    }
    free(problem_lib);
    free(spec_path);
    return err;
}

/* The builds ahead of the measuring (build_ahead): the benchmarks to
 * build, in turn, and how many are done. */
typedef struct ahead ahead;

/* A build worker's task: benchmark `index` of the config. */
typedef struct ahead_task {
    ahead *a;
    size_t index;
} ahead_task;

struct ahead {
    compare_ctx *ctx;
    ahead_task *tasks; /* one per selected benchmark */
    size_t next, done, total;
    int jobs;
};

/*
 * In a child: builds into the cache what measuring benchmark t->index
 * will need (its problem, and each side the change reaches), saying "k
 * KEY KEY" (its keys, "-" for none) and "c KEY" for each build it
 * compiled on `msg`.
 */
static int build_one(void *task, int msg)
{
    const ahead_task *t = task;
    compare_ctx *ctx = t->a->ctx;
    const pg_bench_config *b = &ctx->cfg.benchmarks[t->index];
    char *dir = pg_strdupf("%s/w%zu", ctx->build_dir, t->index), *lib = NULL;
    side_keys keys;
    int s;

    ctx->quiet = 1;
    if (pg_mkdir_p(dir) < 0 || pg_build_problem(&lib, b, dir, ctx->cache) < 0 ||
        build_keys(ctx, b, &keys) < 0)
        goto done;
    pg_proc_send(msg, NULL, "k %s %s", keys.keyed[0] ? keys.key[0] : "-",
                 keys.keyed[1] ? keys.key[1] : "-");
    for (s = 0; s < 2 && !not_affected(ctx, &keys); s++) {
        const char *tag = s ? "head" : "base";
        pg_build build;
        /* Cleared: an unkeyed side skips pg_build_from_cache, which
         * would have cleared it. */
        memset(&build, 0, sizeof(build));
        if (!keys.keyed[s] ||
            pg_build_from_cache(&build, ctx->cache, keys.key[s], b, dir, tag)) {
            pg_build_clear(&build);
            continue;
        }
        if (pg_build_solution(&build, b, ctx->rev[s].dir, dir, tag,
                              build_limit(ctx)) == 0 &&
            build.ok &&
            pg_cache_put_file(ctx->cache, keys.key[s], "so", build.lib) == 0)
            pg_proc_send(msg, NULL, "c %s", keys.key[s]);
        pg_build_clear(&build);
    }
done:
    free(lib);
    pg_rm_rf(dir);
    free(dir);
    return 0;
}

static int next_build(void *payload, int (**fn)(void *, int), void **task)
{
    ahead *a = payload;

    if (a->next == a->total)
        return 0;
    *fn = build_one;
    *task = &a->tasks[a->next++];
    return 1;
}

/* What a worker says: its benchmark's keys, or a build it compiled. */
static void build_said(void *payload, void *task, const char *line)
{
    compare_ctx *ctx = ((ahead *)payload)->ctx;
    const ahead_task *t = task;
    char k[2][PG_CACHE_ID];
    int s;

    if (sscanf(line, "k %40s %40s", k[0], k[1]) == 2) {
        for (s = 0; s < 2; s++) {
            ctx->keys[t->index].keyed[s] = strlen(k[s]) == PG_CACHE_ID - 1;
            memcpy(ctx->keys[t->index].key[s], k[s], PG_CACHE_ID);
        }
        ctx->known[t->index] = 1;
    } else if (line[0] == 'c' && strlen(line) == PG_CACHE_ID + 1) {
        pg_strvec_push(&ctx->compiled, line + 2);
    }
}

/* A worker's end: what it wrote (a trace under -v) is shown whole. */
static void build_done(void *payload, void *task, const pg_proc_result *res)
{
    ahead *a = payload;

    (void)task;
    if (res->output.size)
        fputs(pg_str_cstr(&res->output), stderr);
    a->done++;
    progress(a->ctx, "building: %zu of %zu benchmarks, %d at once", a->done,
             a->total, a->jobs);
}

/*
 * Builds what the run will measure with `jobs` compilers at once, into the
 * cache, before anything is measured: the measuring that follows takes
 * every build from it, and no compiler runs beside it.  What the workers
 * could not build (a failure, a project build) is built again in turn, so
 * that its messages are the run's own.
 */
static int build_ahead(compare_ctx *ctx, int jobs)
{
    pg_proc_parallel pp;
    ahead a;
    size_t i;
    int err;

    memset(&a, 0, sizeof(a));
    a.ctx = ctx;
    a.tasks = pg_calloc(ctx->cfg.nbenchmarks + 1, sizeof(*a.tasks));
    for (i = 0; i < ctx->cfg.nbenchmarks; i++)
        if (selected(ctx, i)) {
            a.tasks[a.total].a = &a;
            a.tasks[a.total++].index = i;
        }
    a.jobs = (size_t)jobs > a.total ? (int)a.total : jobs;
    ctx->keys = pg_calloc(ctx->cfg.nbenchmarks + 1, sizeof(*ctx->keys));
    ctx->known = pg_calloc(ctx->cfg.nbenchmarks + 1, 1);

    memset(&pp, 0, sizeof(pp));
    pp.jobs = a.jobs;
    /* A problem and two sides, each as long as a build may take. */
    pp.opts.timeout = 3 * build_limit(ctx);
    pp.next_task = next_build;
    pp.on_line = build_said;
    pp.task_done = build_done;
    pp.payload = &a;
    progress(ctx, "building: 0 of %zu benchmarks, %d at once", a.total, a.jobs);
    err = pg_proc_run_parallel(&pp);
    free(a.tasks);
    return err;
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
        progress(ctx, "not keeping builds: %s", pg_error_last());
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
    const char *why;

    if (pg_box_ready(&why))
        return 0;
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
    progress(ctx, "checking the machine");
    pg_system_check(&out->system, "", 100);
    ctx->system = &out->system;
    fill_side(&out->base, &ctx->rev[0]);
    out->base.note = ctx->base_note;
    ctx->base_note = NULL;
    fill_side(&out->head, &ctx->rev[1]);
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
        (err = prepare_sides(ctx)) < 0)
        return err;
    describe_run(ctx);
    return 0;
}

/* With more than one benchmark and compiler: builds them all first. */
static int build_first(compare_ctx *ctx)
{
    int jobs = jobs_wanted(ctx->opts), err;
    size_t i;

    for (i = 0; i < ctx->cfg.nbenchmarks; i++)
        ctx->progress.count += selected(ctx, i);
    if ((err = open_cache(ctx, jobs)) < 0)
        return err;
    if (jobs > 1 && ctx->progress.count > 1) {
        int64_t t = pg_now_ns();
        err = build_ahead(ctx, jobs);
        ctx->result->build_seconds += (double)(pg_now_ns() - t) / 1e9;
    }
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
        if ((err = run_benchmark(ctx, i, r)) < 0)
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
    size_t i, j;

    free(ctx->base_note);
    free(ctx->shard_of);
    free(ctx->balance);
    if (ctx->cache) {
        if (!err)
            pg_cache_trim(ctx->cache);
        pg_cache_free(ctx->cache);
    }
    pg_strvec_clear(&ctx->compiled);
    free(ctx->keys);
    free(ctx->known);
    pg_strvec_clear(&ctx->problem_srcs);
    pg_strvec_clear(&ctx->problem_libs);
    pg_strvec_clear(&ctx->checked);
    for (i = 0; i < 2; i++)
        pg_rev_clear(&ctx->rev[i]);
    if (ctx->tmp) {
        pg_tempdir_remove_all();
        free(ctx->tmp);
    }
    free(ctx->build_dir);
    for (i = 0; i < 2; i++) {
        for (j = 0; j < ctx->built[i].n; j++)
            pg_build_clear(&ctx->builds[i][j]);
        free(ctx->builds[i]);
        pg_strvec_clear(&ctx->built[i]);
    }
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
