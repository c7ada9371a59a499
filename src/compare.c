/*
 * compare.c - the pipeline of `perfgate compare`.
 */
#define _POSIX_C_SOURCE 200809L
#include "compare.h"
#include "build.h"
#include "cleanup.h"
#include "cuda.h"
#include "elfcode.h"
#include "error.h"
#include "fs.h"
#include "problem.h"
#include "proc.h"
#include "revision.h"
#include "run.h"
#include "stats.h"
#include "str.h"
#include "system.h"
#include "timer.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PG_VERSION
#define PG_VERSION "0.0.0"
#endif

typedef struct compare_ctx {
    const pg_compare_opts *opts;
    pg_config cfg;
    pg_repo *repo;
    pg_rev rev[2];
    char *tmp;
    char *build_dir;
    size_t index, count; /* for progress: benchmark i of n */
    const char *bench;
    const pg_system *system;
    pg_result *result;
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
    pg_str line = PG_STR_INIT;
    va_list ap;

    if (!ctx->opts->on_progress)
        return;
    if (ctx->bench)
        pg_str_printf(&line, "[%zu/%zu] %s: ", ctx->index + 1, ctx->count,
                      ctx->bench);
    va_start(ap, fmt);
    pg_str_vprintf(&line, fmt, ap);
    va_end(ap);
    ctx->opts->on_progress(ctx->opts->payload, pg_str_cstr(&line));
    pg_str_free(&line);
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
 * A config in the repository names problem files in it: one that leads out
 * (a symbolic link a pull request committed) would have perfgate compile,
 * and quote in its report, a file of the machine's.  A config from outside
 * the repository is the user's own, and may point anywhere.
 */
static int check_problems_inside(compare_ctx *ctx, const char *config_path)
{
    const char *root = pg_repo_workdir(ctx->repo);
    size_t i;

    if (!root || pg_path_inside(root, config_path) != 1)
        return 0;
    for (i = 0; i < ctx->cfg.nbenchmarks; i++) {
        const pg_bench_config *b = &ctx->cfg.benchmarks[i];
        if (b->problem_path && pg_path_inside(root, b->problem_path) != 1)
            return pg_error_set(PG_ERR_USAGE,
                                "%s:%d:%d: problem '%s' leads outside the "
                                "repository (a symbolic link, or an absolute "
                                "or '..' path); perfgate reads only the "
                                "repository's files",
                                ctx->cfg.path, b->mark.line, b->mark.col,
                                b->problem);
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
    err = pg_config_load(&ctx->cfg, path, display, pg_builtin_problems());
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

static int selected(const compare_ctx *ctx, const char *name)
{
    const char *const *p;

    if (!ctx->opts->only)
        return 1;
    for (p = ctx->opts->only; *p; p++)
        if (!strcmp(*p, name))
            return 1;
    return 0;
}

static int check_only(compare_ctx *ctx)
{
    const char *const *p;
    size_t i;

    for (p = ctx->opts->only; p && *p; p++) {
        const char **names = pg_calloc(ctx->cfg.nbenchmarks + 1,
                                       sizeof(char *));
        const char *hint;
        int found = 0;
        for (i = 0; i < ctx->cfg.nbenchmarks; i++) {
            names[i] = ctx->cfg.benchmarks[i].name;
            found |= !strcmp(names[i], *p);
        }
        hint = found ? NULL : pg_suggest(*p, names);
        free(names);
        if (!found)
            return pg_error_set(PG_ERR_USAGE,
                                "no benchmark '%s' in %s%s%s%s", *p,
                                ctx->cfg.path, hint ? " (did you mean '" : "",
                                hint ? hint : "", hint ? "'?)" : "");
    }
    return 0;
}

/* The last error, said again as the CI system's, with what to change. */
static int ci_error(const pg_ci *ci)
{
    char *why = pg_strdup(pg_error_last() ? pg_error_last() : "failed");
    int err = pg_error_set(PG_ERR_USAGE, "%s, %s: %s\nIn %s: %s", pg_ci_name(
                               ci->system), ci->what, why,
                           pg_ci_name(ci->system), ci->fetch_hint);

    free(why);
    return err;
}

/*
 * The revisions the CI system names: its head, and its base or the merge
 * base of the two.
 */
static int resolve_ci(compare_ctx *ctx, const pg_ci *ci)
{
    pg_rev *base = &ctx->rev[0], *head = &ctx->rev[1];
    char merge_base[41];
    int err;

    if ((err = pg_repo_resolve(head, ctx->repo,
                               ci->head ? ci->head : "HEAD")) < 0)
        return ci_error(ci);
    if (ci->base_branch) {
        char *remote = pg_strdupf("origin/%s", ci->base_branch);
        err = pg_repo_resolve(base, ctx->repo, remote);
        free(remote);
        if (err < 0) {
            pg_rev_clear(base);
            err = pg_repo_resolve(base, ctx->repo, ci->base_branch);
        }
        if (err < 0) {
            pg_error_set(PG_ERR_USAGE,
                         "the base branch '%s' is not in this clone "
                         "(neither origin/%s nor %s)",
                         ci->base_branch, ci->base_branch, ci->base_branch);
            return ci_error(ci);
        }
    } else if ((err = pg_repo_resolve(base, ctx->repo, ci->base)) < 0) {
        return ci_error(ci);
    }
    if (ci->merge_base) {
        char *what = ci->base_branch
                         ? pg_strdupf("merge base with %s", ci->base_branch)
                         : pg_strdupf("merge base of the %s", ci->what);
        if (pg_repo_merge_base(ctx->repo, base->commit, head->commit,
                               merge_base) < 0) {
            free(what);
            return ci_error(ci);
        }
        pg_rev_clear(base);
        err = pg_repo_resolve(base, ctx->repo, merge_base);
        free(base->spec);
        base->spec = what;
        if (err < 0)
            return ci_error(ci);
    }
    free(head->spec);
    head->spec = pg_strdup(ci->what);
    return 0;
}

static int prepare_sides(compare_ctx *ctx)
{
    const pg_compare_opts *o = ctx->opts;
    int err, s;

    if (!o->aa && !o->base && !o->head && o->ci &&
        o->ci->system != PG_CI_NONE) {
        progress(ctx, "%s, %s", pg_ci_name(o->ci->system), o->ci->what);
        if ((err = resolve_ci(ctx, o->ci)) < 0)
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
    if (err < 0)
        return err;

    if ((err = pg_tempdir_create(&ctx->tmp)) < 0)
        return err;
    ctx->build_dir = pg_path_join(ctx->tmp, "build");
    if (pg_mkdir_p(ctx->build_dir) < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot create %s",
                            ctx->build_dir);
    for (s = 0; s < 2; s++) {
        char *dir;
        if (ctx->rev[s].worktree)
            continue;
        dir = pg_path_join(ctx->tmp, s == 0 ? "base" : "head");
        progress(ctx, "checking out %s (%.10s)", ctx->rev[s].spec,
                 ctx->rev[s].commit);
        if (pg_mkdir_p(dir) < 0)
            err = pg_error_set(PG_ERR_GENERIC, "cannot create %s", dir);
        else
            err = pg_repo_materialize(ctx->repo, &ctx->rev[s], dir);
        free(dir);
        if (err < 0)
            return err;
    }
    return 0;
}

/* ---- checking the cases against the problem, in a child ---- */

typedef struct describe_ctx {
    const char *lib, *name;
    char *default_cases;
    char *device_cases; /* NULL: the problem has none */
    double *bytes;      /* per configured case: what bytes() says, or NAN */
    size_t nbytes;
} describe_ctx;

static void describe_line(void *payload, const char *line)
{
    describe_ctx *d = payload;

    if (!strncmp(line, "cases ", 6)) {
        free(d->default_cases);
        d->default_cases = pg_strdup(line + 6);
    } else if (!strncmp(line, "device ", 7)) {
        free(d->device_cases);
        d->device_cases = pg_strdup(line + 7);
    } else if (!strncmp(line, "error ", 6)) {
        pg_error_set(PG_ERR_USAGE, "%s", line + 6);
    } else if (!strncmp(line, "bytes ", 6)) {
        size_t i;
        double v;
        if (sscanf(line + 6, "%zu %lg", &i, &v) == 2 && i < d->nbytes)
            d->bytes[i] = v;
    }
}

/*
 * A case too large for this machine is a config error, found before any
 * side runs: each case is set up three times (base, head, and the copy
 * both are timed on), and a run may map half the machine's memory.  Left
 * to run, it was blamed on the head as a crash, or overflowed a problem's
 * size arithmetic.
 */
static int check_case_sizes(const compare_ctx *ctx, const pg_bench_config *b,
                            const describe_ctx *d)
{
    double limit = (double)pg_proc_memory_limit();
    size_t i;

    for (i = 0; i < d->nbytes && limit > 0; i++) {
        double need = 3 * d->bytes[i];
        pg_str want = PG_STR_INIT, have = PG_STR_INIT;
        int err;
        if (isnan(d->bytes[i]) || (need >= 0 && need <= limit))
            continue;
        if (isfinite(need) && need >= 0)
            pg_format_bytes(&want, need);
        else
            pg_str_puts(&want, "more than can exist");
        pg_format_bytes(&have, limit);
        err = pg_error_set(PG_ERR_USAGE,
                           "%s:%d:%d: case '%s' needs about %s (three "
                           "set-ups of what one call moves); a run may use "
                           "%s here, half the machine's memory",
                           ctx->cfg.path, b->cases[i].mark.line,
                           b->cases[i].mark.col, b->cases[i].name,
                           pg_str_cstr(&want), pg_str_cstr(&have));
        pg_str_free(&want);
        pg_str_free(&have);
        return err;
    }
    return 0;
}

/*
 * Loads the problem in perfgate-measure (its code is not trusted to leave
 * perfgate standing, nor loaded beside perfgate's libraries) to learn its
 * default cases, then checks the
 * benchmark's cases against them.  Fills *cases with what to run.
 */
static int resolve_cases(compare_ctx *ctx, const pg_bench_config *b,
                         const char *problem_lib, pg_case_spec **cases,
                         size_t *ncases, int *owned)
{
    describe_ctx d = {problem_lib, b->problem, NULL, NULL, NULL, 0};
    const char *defaults_text;
    pg_proc_opts opts;
    pg_proc_result res;
    pg_str wanted = PG_STR_INIT;
    char *argv[6];
    pg_case_spec *defaults = NULL;
    size_t ndefaults = 0, i;
    int err;

    memset(&opts, 0, sizeof(opts));
    opts.timeout = 30;
    opts.on_line = describe_line;
    opts.payload = &d;
    argv[0] = (char *)pg_runner_path();
    argv[1] = "--describe";
    argv[2] = (char *)problem_lib;
    argv[3] = (char *)b->problem;
    argv[4] = NULL;
    if (b->ncases) {
        /* And what each configured case would move. */
        d.bytes = pg_calloc(b->ncases, sizeof(*d.bytes));
        d.nbytes = b->ncases;
        for (i = 0; i < b->ncases; i++) {
            d.bytes[i] = NAN;
            pg_str_printf(&wanted, "%s%s", i ? ";" : "", b->cases[i].name);
        }
        argv[4] = (char *)pg_str_cstr(&wanted);
        argv[5] = NULL;
    }
    pg_error_clear();
    err = pg_proc_run_argv(&res, argv, &opts);
    if (!err && res.exited && res.exit_code == 127 && !d.default_cases)
        err = pg_runner_missing();
    pg_proc_result_free(&res);
    if (err < 0)
        goto done;
    if (!d.default_cases) {
        err = pg_error_last()
                  ? PG_ERR_USAGE
                  : pg_error_set(PG_ERR_USAGE,
                                 "problem '%s' crashed while loading",
                                 b->problem);
        goto done;
    }
    /* A kernel's default cases are the device's, when the problem has
     * them. */
    defaults_text = d.device_cases && !strcmp(b->language, "cuda")
                        ? d.device_cases
                        : d.default_cases;
    if (pg_case_specs_parse(&defaults, &ndefaults, defaults_text) < 0) {
        err = pg_error_set(PG_ERR_USAGE,
                           "problem '%s': malformed %s \"%s\" "
                           "(want \"key=value,key=value; ...\")",
                           b->problem,
                           defaults_text == d.default_cases ? "default_cases"
                                                            : "device_cases",
                           defaults_text);
        goto done;
    }
    for (i = 0; defaults_text != d.default_cases && i < ndefaults; i++) {
        pg_str why = PG_STR_INIT;
        if (pg_problem_check_case(b->problem, d.default_cases, &defaults[i],
                                  &why) < 0) {
            err = pg_error_set(PG_ERR_USAGE, "problem '%s': device_cases: %s",
                               b->problem, pg_str_cstr(&why));
            pg_str_free(&why);
            goto done;
        }
    }
    if (b->ncases) {
        for (i = 0; i < b->ncases; i++) {
            pg_str why = PG_STR_INIT;
            if (pg_problem_check_case(b->problem, d.default_cases,
                                      &b->cases[i], &why) < 0) {
                err = pg_error_set(PG_ERR_USAGE, "%s:%d:%d: %s", ctx->cfg.path,
                                   b->cases[i].mark.line, b->cases[i].mark.col,
                                   pg_str_cstr(&why));
                pg_str_free(&why);
                goto done;
            }
        }
        if ((err = check_case_sizes(ctx, b, &d)) < 0)
            goto done;
        *cases = b->cases;
        *ncases = b->ncases;
        *owned = 0;
    } else {
        *cases = defaults;
        *ncases = ndefaults;
        *owned = 1;
        defaults = NULL;
        ndefaults = 0;
    }
done:
    for (i = 0; i < ndefaults; i++)
        pg_case_spec_free(&defaults[i]);
    free(defaults);
    free(d.default_cases);
    free(d.device_cases);
    free(d.bytes);
    pg_str_free(&wanted);
    return err;
}

static void set_build_failure(pg_bench_result *out, pg_build *build,
                              pg_side side)
{
    out->status = PG_STATUS_BUILD_FAILED;
    out->side = side;
    free(out->message);
    free(out->log);
    out->message = pg_strdupf("%s side: %s", pg_side_name(side),
                              build->message ? build->message : "build failed");
    out->log = build->log;
    build->log = NULL;
}

static int run_benchmark(compare_ctx *ctx, const pg_bench_config *b,
                         pg_bench_result *out)
{
    pg_build build[2];
    pg_case_spec *cases = NULL;
    size_t ncases = 0, i;
    int owned = 0, base_failed, err, s;
    char *problem_lib = NULL, *spec_path = NULL;
    pg_run_spec spec;

    memset(build, 0, sizeof(build));
    progress(ctx, "building problem %s", b->problem);
    if ((err = pg_build_problem(&problem_lib, b, ctx->build_dir)) < 0)
        return err;
    if ((err = resolve_cases(ctx, b, problem_lib, &cases, &ncases, &owned)) <
        0)
        goto done;

    for (s = 1; s >= 0; s--) {
        progress(ctx, "building %s", s ? "head" : "base");
        /* A build may take ten times what a side may run: 600 s at the
         * default timeout of 60 s, and --timeout moves both. */
        if ((err = pg_build_solution(&build[s], b, ctx->rev[s].dir,
                                     ctx->build_dir, s ? "head" : "base",
                                     10 * ctx->cfg.settings.timeout)) < 0)
            goto done;
    }
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
        /* Built on both sides, so a head that does not compile fails the
         * gate on any machine; measured only where there is a GPU. */
        const pg_gpu_info *gpu = pg_gpu_probe();
        if (!gpu->present && base_failed) {
            set_build_failure(out, &build[0], PG_SIDE_BASE);
            goto done;
        }
        if (!gpu->present) {
            out->status = PG_STATUS_SKIPPED;
            out->message =
                pg_strdupf("built both sides; not measured: %s", gpu->why);
            goto done;
        }
        ctx->result->gpu = *gpu;
        spec.gpu = 1;
    }
    spec.problem_lib = problem_lib;
    spec.problem_name = b->problem;
    spec.lib[0] = build[0].missing || base_failed ? NULL : build[0].lib;
    /* Both sides load the same code: nothing can have changed, and
     * nothing is measured (the head is still checked).  Never in a
     * self-check, whose point is to measure. */
    out->identical = !base_failed && !build[0].missing && !ctx->opts->aa &&
                     pg_elf_same_code(build[0].lib, build[1].lib);
    if (out->identical)
        spec.lib[0] = NULL;
    spec.verify_only = base_failed || out->identical;
    spec.lib[1] = build[1].lib;
    spec.symbol = b->symbol;
    spec.cases = cases;
    spec.ncases = ncases;
    spec.settings = &ctx->cfg.settings;
    spec.cpu = ctx->system->cpu;
    /* Twice the last-level cache, so that nothing of the solution's is
     * left in it. */
    spec.evict_bytes = b->cold && !spec.gpu ? 2 * ctx->system->llc_bytes : 0;
    spec.cold = b->cold;
    out->cold = b->cold;
    spec.gate_cases = out->gate_cases =
        b->gate >= 0 ? b->gate : ctx->cfg.settings.gate_cases;
    spec.clock = &pg_timer_current()->chosen;
    spec.on_progress = on_run_progress;
    spec.payload = ctx;
    progress(ctx, "verifying");
    spec_path = pg_strdupf("%s/%s.run", ctx->build_dir, b->name);
    if ((err = pg_run_bench(out, &spec, spec_path)) < 0)
        goto done;
    if (base_failed && out->side == PG_SIDE_HEAD) {
        char *msg = pg_strdupf("%s (the base side failed too: it does not "
                               "build)", out->message);
        free(out->message);
        out->message = msg;
        goto done;
    }
    if (base_failed) {
        set_build_failure(out, &build[0], PG_SIDE_BASE);
        goto done;
    }
    if (out->identical) {
        if (out->side != PG_SIDE_HEAD) {
            out->status = PG_STATUS_UNCHANGED;
            out->change = 0;
        }
        goto done;
    }
    if (out->gpu.runtime_version)
        ctx->result->gpu.runtime_version = out->gpu.runtime_version;
    if (out->status == PG_STATUS_UNCHANGED || out->status == PG_STATUS_NEW)
        if (out->rounds > 0)
            pg_decide(out, ctx->cfg.settings.noise_floor);

done:
    for (s = 0; s < 2; s++)
        pg_build_clear(&build[s]);
    if (owned) {
        for (i = 0; i < ncases; i++)
            pg_case_spec_free(&cases[i]);
        free(cases);
    }
    free(problem_lib);
    free(spec_path);
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

int pg_compare(pg_result *out, const pg_compare_opts *opts)
{
    compare_ctx ctx;
    int64_t start = pg_now_ns();
    size_t i;
    int err;

    memset(out, 0, sizeof(*out));
    out->system.cpu = -1;
    memset(&ctx, 0, sizeof(ctx));
    ctx.opts = opts;
    ctx.result = out;
    out->version = pg_strdup(PG_VERSION);

    if ((err = pg_repo_open(&ctx.repo, opts->repo_path ? opts->repo_path
                                                       : ".")) < 0 ||
        (err = load_config(&ctx)) < 0 || (err = check_only(&ctx)) < 0 ||
        (err = prepare_sides(&ctx)) < 0)
        goto done;

    out->noise_floor = ctx.cfg.settings.noise_floor;
    out->floor_source = ctx.cfg.settings.floor_source;
    out->aa = opts->aa;
    ctx.bench = NULL;
    progress(&ctx, "checking the machine");
    pg_system_check(&out->system, "", 100);
    ctx.system = &out->system;
    fill_side(&out->base, &ctx.rev[0]);
    fill_side(&out->head, &ctx.rev[1]);

    for (i = 0; i < ctx.cfg.nbenchmarks; i++)
        ctx.count += selected(&ctx, ctx.cfg.benchmarks[i].name);
    for (i = 0; i < ctx.cfg.nbenchmarks; i++) {
        const pg_bench_config *b = &ctx.cfg.benchmarks[i];
        pg_bench_result *r;

        if (!selected(&ctx, b->name))
            continue;
        ctx.bench = b->name;
        r = pg_result_add(out, b->name, b->problem);
        if ((err = run_benchmark(&ctx, b, r)) < 0)
            goto done;
        ctx.index++;
    }
    ctx.bench = NULL;

done:
    out->seconds = (double)(pg_now_ns() - start) / 1e9;
    for (i = 0; i < 2; i++)
        pg_rev_clear(&ctx.rev[i]);
    if (ctx.tmp) {
        pg_tempdir_remove_all();
        free(ctx.tmp);
    }
    free(ctx.build_dir);
    pg_config_free(&ctx.cfg);
    pg_repo_free(ctx.repo);
    return err;
}
