/*
 * benchmark.c - one benchmark of a comparison (benchmark.h).
 */
#include "benchmark.h"
#include "memory.h"
#include "mempass.h"
#include "draws.h"
#include "counter.h"
#include "affected.h"
#include "build.h"
#include "cuda.h"
#include "elfcode.h"
#include "error.h"
#include "function.h"
#include "cases.h"
#include "catalog.h"
#include "profile.h"
#include "project.h"
#include "run.h"
#include "split.h"
#include "stats.h"
#include "str.h"
#include "timer.h"
#include "clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void pg_benchmark_progress(void *payload, const char *stage, int round,
                           double elapsed)
{
    pg_bench_ctx *c = payload;

    if (!strcmp(stage, "measuring"))
        pg_progress_sayf(c->progress, "measuring, round %d, %.1f s", round,
                         elapsed);
    else
        pg_progress_sayf(c->progress, "%s", stage);
}

const pg_build *pg_benchmark_project(pg_bench_ctx *c, const pg_bench_config *b,
                                     int s, int *err)
{
    char *note = NULL;
    size_t i;

    *err = 0;
    if (!b->build)
        return NULL;
    for (i = 0; i < c->built[s].n; i++)
        if (!strcmp(c->built[s].v[i], b->build))
            return &c->builds[s][i];
    pg_progress_sayf(c->progress, "running the %s's build",
                     s ? "head" : "base");
    c->builds[s] = pg_realloc(c->builds[s], (i + 1) * sizeof(*c->builds[s]));
    *err = pg_project_build(
        &c->builds[s][i], &note, c->cache, b->build, &c->built[s], &c->rev[s],
        c->rev[!s].dir, s ? "head" : "base", pg_build_limit(&c->cfg->settings));
    pg_strvec_push(&c->built[s], b->build);
    if (note)
        pg_system_warn(&c->result->system, "%s", note);
    free(note);
    return &c->builds[s][i];
}

void pg_benchmark_build_failure(pg_bench_result *out, const pg_build *build,
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

void pg_benchmark_rules(pg_bench_ctx *c, const pg_bench_config *b,
                        pg_bench_result *out)
{
    const pg_accept *a = pg_config_accept(c->cfg, b->name);

    out->inconclusive_fails = b->inconclusive >= 0
                                  ? b->inconclusive
                                  : c->cfg->settings.inconclusive_fails;
    if (!a)
        return;
    if (pg_accept_expired(a)) {
        pg_system_warn(&c->result->system,
                       "accept: the entry for %s ran out on %s, so its "
                       "regressions fail the gate again (delete the entry, "
                       "or give it a later until:)",
                       b->name, a->until);
        return;
    }
    out->accept_up_to = a->up_to;
    snprintf(out->accept_why, sizeof(out->accept_why), "%s", a->why);
    memcpy(out->accept_until, a->until, sizeof(out->accept_until));
    memcpy(out->accept_from, a->from, sizeof(out->accept_from));
}

/* A function measured in batches (batch:): every figure per call of the
 * function, not per timed call of the batch.  Ratios, and so every
 * change, interval and verdict, are the same either way. */
static void per_call(pg_bench_result *r, int batch)
{
    size_t c, k;
    int s;

    if (batch <= 1)
        return;
    r->batch = batch;
    r->base_ns /= batch;
    r->head_ns /= batch;
    for (s = 0; s < 2; s++)
        r->calls[s] *= (uint64_t)batch;
    for (c = 0; c < r->ncases; c++) {
        pg_result_case *cr = &r->cases[c];
        cr->base_ns /= batch;
        cr->head_ns /= batch;
        cr->overhead_ns /= batch;
        cr->quantum_ns /= batch;
        for (s = 0; s < 2; s++)
            for (k = 0; k < cr->nsamples[s]; k++)
                cr->samples[s][k] /= batch;
    }
}

/* A failed build of a side whose tree lacks files the repository could
 * not give says so: the likeliest cause, and not the change's. */
static void note_unreadable(pg_build *build, const pg_rev *rev)
{
    const pg_strvec *u = &rev->unreadable;
    char *m;

    if (!u->n)
        return;
    m = pg_strdupf("%s (its tree lacks %zu file%s the repository could not "
                   "give, %s%s)",
                   build->message ? build->message : "build failed", u->n,
                   u->n == 1 ? "" : "s", u->v[0],
                   u->n > 1 ? " and others" : "");
    free(build->message);
    build->message = m;
}

/*
 * Builds both sides, head first, or takes them from the cache.  A failed
 * build is in `build`; built[s] says how each came to be, and
 * project_how[s] how its project build did.
 */
static int build_sides(pg_bench_ctx *c, const pg_bench_config *b,
                       pg_build build[2], const pg_bench_keys *k, int built[2],
                       int project_how[2])
{
    int err, s;

    for (s = 1; s >= 0; s--) {
        const char *tag = s ? "head" : "base";
        const pg_build *project = pg_benchmark_project(c, b, s, &err);
        if (err < 0)
            return err;
        if (project)
            project_how[s] = project->cached ? 2 : 1;
        if (project && !project->ok) {
            build[s].message = pg_strdup(project->message);
            build[s].log = project->log ? pg_strdup(project->log) : NULL;
            note_unreadable(&build[s], &c->rev[s]);
            continue;
        }
        if (k->keyed[s] && pg_build_from_cache(&build[s], c->cache, k->key[s],
                                               b, c->build_dir, tag)) {
            built[s] = pg_strvec_has(&c->compiled, k->key[s]) ? 1 : 2;
            continue;
        }
        pg_progress_sayf(c->progress, "building %s", tag);
        if ((err = pg_build_solution(&build[s], b, c->rev[s].dir, c->build_dir,
                                     tag, pg_build_limit(&c->cfg->settings))) <
            0)
            return err;
        if (build[s].ok)
            built[s] = 1;
        else
            note_unreadable(&build[s], &c->rev[s]);
        if (k->keyed[s])
            pg_build_keep(c->cache, k->key[s], &build[s]);
    }
    return 0;
}

/*
 * The keys of both sides' builds of `b` (keyed[s] 0 when perfgate cannot
 * know what it reads); negative only when interrupted.
 */
int pg_benchmark_keys(pg_bench_ctx *c, const pg_bench_config *b,
                      pg_bench_keys *k)
{
    int s, err;

    for (s = 0; s < 2; s++) {
        err = pg_affected_key(k->key[s], c->cache, b, c->rev[s].dir,
                              pg_build_limit(&c->cfg->settings));
        if (err < 0)
            return err;
        k->keyed[s] = err == 0;
    }
    return 0;
}

/* 1 when a change cannot reach `b`: both sides read the same files.  A
 * self-check measures whatever it is given. */
int pg_benchmark_unreached(const pg_bench_ctx *c, const pg_bench_keys *k)
{
    return !c->aa && k->keyed[0] && k->keyed[1] &&
           !strcmp(k->key[0], k->key[1]);
}

/*
 * A CUDA benchmark is built on both sides, so that a head that does not
 * compile fails the gate on any machine, and measured only where there is
 * a GPU.  1 to measure; 0 when `out` already says why not.
 */
static int gpu_ready(pg_bench_ctx *c, pg_bench_result *out,
                     const pg_build *base, int base_failed)
{
    const pg_gpu_info *gpu = pg_cuda_probe();

    if (!gpu->present && base_failed) {
        pg_benchmark_build_failure(out, base, PG_SIDE_BASE);
        return 0;
    }
    if (!gpu->present) {
        out->status = PG_STATUS_SKIPPED;
        out->message =
            pg_strdupf("built both sides; not measured: %s", gpu->why);
        return 0;
    }
    c->result->gpu = *gpu;
    return 1;
}

/* What the measuring child is to do with the two builds. */
static void fill_spec(pg_run_spec *spec, pg_bench_ctx *c,
                      const pg_bench_config *b, pg_bench_result *out,
                      const pg_build build[2], int base_failed)
{
    spec->problem_name = b->problem;
    spec->lib[0] = build[0].missing || base_failed ? NULL : build[0].lib;
    /* Both sides load the same code: nothing can have changed, and
     * nothing is measured (the head is still checked).  Never in a
     * self-check, whose point is to measure. */
    out->identical = !base_failed && !build[0].missing && !c->aa &&
                     pg_elfcode_same(build[0].lib, build[1].lib);
    if (out->identical)
        spec->lib[0] = NULL;
    spec->verify_only = base_failed || out->identical;
    spec->lib[1] = build[1].lib;
    spec->symbol = b->symbol;
    spec->settings = &c->cfg->settings;
    spec->cpu = c->system->cpu;
    /* Twice the last-level cache, so that nothing of the solution's is
     * left in it. */
    spec->evict_bytes = b->cold && !spec->gpu ? 2 * c->system->llc_bytes : 0;
    spec->cold = b->cold;
    out->cold = b->cold;
    spec->self_check = c->aa;
    spec->precision = c->precision;
    spec->gate_cases = out->gate_cases =
        b->gate >= 0 ? b->gate : c->cfg->settings.gate_cases;
    pg_benchmark_rules(c, b, out);
    spec->clock = &pg_timer_current()->chosen;
    spec->on_progress = pg_benchmark_progress;
    spec->payload = c;
}

int pg_benchmark_measure(const pg_bench_ctx *c, const pg_bench_config *b)
{
    return b->measure >= 0 ? b->measure : c->cfg->settings.measure;
}

const pg_settings *pg_benchmark_settings(const pg_bench_ctx *c,
                                         const pg_bench_config *b,
                                         pg_bench_result *out, pg_settings *own)
{
    /* Its own floor, unless the command gave one for the whole run. */
    if (!(b->noise_floor > 0) || c->cfg->settings.floor_source == PG_FLOOR_FLAG)
        return &c->cfg->settings;
    *own = c->cfg->settings;
    own->noise_floor = b->noise_floor;
    out->noise_floor = b->noise_floor;
    return own;
}

double pg_benchmark_floor(const pg_bench_ctx *c, const pg_bench_result *out)
{
    return out->metric            ? c->cfg->settings.count_floor
           : out->noise_floor > 0 ? out->noise_floor
                                  : c->cfg->settings.noise_floor;
}

/*
 * Makes `spec` count `metric` instead of timing (counter.h), judged by
 * the count floor (`settings`, which must outlive the run).  0; -1 with
 * `out` skipped, saying why, when it cannot be counted here; 1, said in
 * `out`'s message, when it must be timed instead.
 */
static int count_instead(pg_bench_ctx *c, pg_run_spec *spec,
                         pg_bench_result *out, pg_metric metric,
                         pg_settings *settings)
{
    pg_str why = PG_STR_INIT;
    int kind;

    if (spec->gpu) {
        out->status = PG_STATUS_SKIPPED;
        free(out->message);
        out->message = pg_strdupf(
            "not counted: a CUDA kernel's work is the GPU's, which neither "
            "valgrind nor the CPU's counter sees (measure: time)");
        return -1;
    }
    kind = pg_counter_choose(metric, (pg_counter_kind)c->cfg->settings.counter,
                             &why);
    if (kind < 0) {
        out->status = PG_STATUS_SKIPPED;
        free(out->message);
        out->message = pg_strdupf("not counted: %s (%s)", pg_str_cstr(&why),
                                  pg_metric_name(metric));
        pg_str_clear(&why);
        return -1;
    }
    /* Code that asks valgrind about itself could do less when counted
     * (RUNNING_ON_VALGRIND) or switch the count off around its work
     * (CALLGRIND_TOGGLE_COLLECT): the head's is timed instead. */
    if (kind == PG_COUNTER_CALLGRIND && spec->lib[1] &&
        pg_elfcode_asks_valgrind(spec->lib[1]) == 1) {
        free(out->message);
        out->message = pg_strdupf(
            "timed, not counted: the head's code asks valgrind about itself "
            "(a client request, as RUNNING_ON_VALGRIND or "
            "CALLGRIND_TOGGLE_COLLECT make), so it could act otherwise "
            "when callgrind counts it (%s)",
            pg_metric_name(metric));
        return 1;
    }
    *settings = c->cfg->settings;
    settings->noise_floor = settings->count_floor;
    spec->settings = settings;
    spec->metric = metric;
    spec->counter = kind;
    /* A simulated CPU may send the code down another path: checked. */
    spec->code_path =
        kind == PG_COUNTER_CALLGRIND && settings->path_check != PG_PATH_OFF;
    out->other_path_gates = settings->path_check == PG_PATH_GATE;
    out->metric = metric;
    out->counter = pg_strdup(pg_counter_name((pg_counter_kind)kind));
    return 0;
}

/* Which way `b` was decided: 1 slower, -1 faster, 0 unchanged; 2 when it
 * was not measured. */
static int verdict_of(const pg_bench_result *b)
{
    if (b->rounds <= 0)
        return 2;
    switch (b->status) {
    case PG_STATUS_REGRESSION:
        return 1;
    case PG_STATUS_IMPROVEMENT:
        return -1;
    case PG_STATUS_UNCHANGED:
        return 0;
    default:
        return 2;
    }
}

/*
 * measure: all: when the time `t` and the count `k` disagree, says so on
 * `t`, with what that likely means; neither is taken over the other.
 */
void pg_benchmark_say_disagreement(pg_bench_result *t, const pg_bench_result *k,
                                   const pg_settings *st)
{
    int tv = verdict_of(t), kv = verdict_of(k);
    double tc = t->change * 100, kc = k->change * 100;

    if (tv == 2 || kv == 2 || tv == kv)
        return;
    free(t->disagreement);
    if (tv && kv)
        t->disagreement = pg_strdupf(
            "time %+.1f%% and instructions %+.1f%% moved opposite ways: "
            "the head does %s work that runs %s, which points at memory "
            "and cache behaviour, instruction-level parallelism, SIMD "
            "width or code layout (compare --profile shows where the "
            "instructions went)%s",
            tc, kc, kv > 0 ? "more" : "less", kv > 0 ? "faster" : "slower",
            kv > 0 ? "; the time, which the count stands in for, found the "
                     "head faster beyond its floor, so the count does not "
                     "fail the gate"
                   : "");
    else if (tv)
        t->disagreement = pg_strdupf(
            "the time moved %+.1f%% and the instructions did not (%+.1f%%, "
            "within the %.3g%% count floor): the same work at another "
            "speed, which a count cannot see: memory and cache behaviour, "
            "branch prediction, or where the code lies",
            tc, kc, st->count_floor * 100);
    else if (kv * t->change_lo > 0 && kv * t->change_hi > 0)
        t->disagreement = pg_strdupf(
            "the instructions moved %+.1f%%, and the time moved the same "
            "way (%+.1f%%, its interval clear of no change) but within "
            "the %.3g%% noise floor: a real change that the count's "
            "%.3g%% floor sees and the time's is too wide for",
            kc, tc, st->noise_floor * 100, st->count_floor * 100);
    else
        t->disagreement = pg_strdupf(
            "the instructions moved %+.1f%% and the time did not (%+.1f%%, "
            "within the %.3g%% noise floor): %s work that the time does "
            "not show, because it runs alongside other work (SIMD, "
            "instruction-level parallelism) or waits on memory anyway",
            kc, tc, st->noise_floor * 100, kv > 0 ? "more" : "less");
}

/*
 * The count's own timeout, scaled from the timed run: its longest sample
 * two hundred times over (callgrind runs code some 50 times slower), and
 * never less than the timed run's.
 */
static double counted_timeout(const pg_bench_result *timed,
                              const pg_settings *st)
{
    double longest = 0, t;
    size_t i;

    for (i = 0; i < timed->ncases; i++) {
        const pg_result_case *c = &timed->cases[i];
        double call = fmax(c->base_ns, c->head_ns) + c->overhead_ns;
        if (isfinite(call) && c->inner > 0 &&
            call * (double)c->inner / 1e9 > longest)
            longest = call * (double)c->inner / 1e9;
    }
    t = 200 * longest;
    return t > st->timeout ? t : st->timeout;
}

/*
 * measure: all: the benchmark counted as well (instructions), after it
 * was timed, into out->counted, and any disagreement said.  Negative only
 * when perfgate failed or was interrupted.
 */
static int count_too(pg_bench_ctx *c, const pg_run_spec *timed,
                     const char *spec_path, pg_bench_result *out)
{
    pg_run_spec spec = *timed;
    pg_settings settings;
    pg_bench_result *k = pg_malloc(sizeof(*k));
    int err;

    spec.memory = 0; /* counted once, with the time */
    pg_bench_result_init(k, out->name, out->problem);
    k->gate_cases = out->gate_cases;
    out->counted = k;
    if (count_instead(c, &spec, k, PG_METRIC_INSTRUCTIONS, &settings) != 0) {
        if (k->status != PG_STATUS_SKIPPED) {
            /* Not counted: the time stands alone, and says why. */
            k->status = PG_STATUS_SKIPPED;
        }
        return 0;
    }
    settings.timeout = counted_timeout(out, &c->cfg->settings);
    pg_progress_sayf(c->progress, "counting instructions");
    if ((err = pg_split_or_run(k, &spec, spec_path)) < 0)
        return err;
    if (k->status == PG_STATUS_UNCHANGED && k->rounds > 0)
        pg_stats_decide(k, settings.count_floor);
    pg_benchmark_say_disagreement(out, k, &c->cfg->settings);
    return 0;
}

/* The verdict from what the run reported, and what the builds said. */
static void settle(pg_bench_ctx *c, pg_bench_result *out, const pg_build *base,
                   int base_failed)
{
    if (base_failed && out->side == PG_SIDE_HEAD) {
        char *msg = pg_strdupf("%s (the base side failed too: it does not "
                               "build)",
                               out->message);
        free(out->message);
        out->message = msg;
    } else if (base_failed) {
        pg_benchmark_build_failure(out, base, PG_SIDE_BASE);
    } else if (out->identical) {
        if (out->side != PG_SIDE_HEAD)
            pg_stats_same_code(out);
    } else {
        if (out->gpu.runtime_version)
            c->result->gpu.runtime_version = out->gpu.runtime_version;
        if ((out->status == PG_STATUS_UNCHANGED ||
             out->status == PG_STATUS_NEW) &&
            out->rounds > 0)
            pg_stats_decide(out, pg_benchmark_floor(c, out));
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
static int problem_build(pg_bench_ctx *c, const pg_bench_config *b, char **lib)
{
    char *src = pg_catalog_source(b);
    size_t i;
    int err = 0;

    for (i = 0; i < c->problem_srcs.n; i++)
        if (!strcmp(c->problem_srcs.v[i], src))
            break;
    if (i < c->problem_srcs.n) {
        *lib = pg_strdup(c->problem_libs.v[i]);
    } else {
        pg_progress_sayf(c->progress, "building problem %s", b->problem);
        if ((err = pg_build_problem(lib, b, c->build_dir, c->cache)) == 0) {
            pg_strvec_push(&c->problem_srcs, src);
            pg_strvec_push(&c->problem_libs, *lib);
        }
    }
    free(src);
    return err;
}

/*
 * The cases of `b` (pg_cases_of); configured cases that an earlier
 * benchmark of the same problem and language had checked are taken as they
 * are, without asking the problem again.
 */
static int checked_cases(pg_bench_ctx *c, const pg_bench_config *b,
                         const char *problem_lib, pg_casespec **cases,
                         size_t *ncases, int *owned)
{
    pg_str key = PG_STR_INIT;
    size_t i;
    int err = 0;

    pg_str_printf(&key, "%s %s ", problem_lib, b->language);
    for (i = 0; i < b->ncases; i++)
        pg_str_printf(&key, "%s;", b->cases[i].name);
    if (b->ncases && pg_strvec_has(&c->checked, pg_str_cstr(&key))) {
        *cases = b->cases;
        *ncases = b->ncases;
        *owned = 0;
    } else if ((err = pg_cases_of(cases, ncases, owned, b, c->cfg->path,
                                  problem_lib)) == 0 &&
               b->ncases) {
        pg_strvec_push(&c->checked, pg_str_cstr(&key));
    }
    pg_str_clear(&key);
    return err;
}

/*
 * --profile: the case that got slowest, on both sides, under a profiler
 * (profile.h): callgrind for C, Nsight Compute for a CUDA kernel.  Run
 * after the benchmark is measured, never beside it.
 */
static int profile_worst(pg_bench_ctx *c, const pg_bench_config *b,
                         pg_bench_result *out, const pg_run_spec *spec)
{
    const char *dirs[2] = {c->rev[0].dir, c->rev[1].dir};
    size_t i, worst = 0;

    for (i = 1; i < out->ncases && i < spec->ncases; i++)
        if (out->cases[i].change > out->cases[worst].change)
            worst = i;
    /* Faster, or no slower, but with more heap: where it is allocated. */
    if (out->status != PG_STATUS_REGRESSION && out->memory.worst_case >= 0 &&
        (size_t)out->memory.worst_case < spec->ncases)
        worst = (size_t)out->memory.worst_case;
    if (!spec->ncases)
        return 0;
    pg_progress_sayf(c->progress, "profiling %s", spec->cases[worst].name);
    return pg_profile_bench(
        out, b, dirs, spec->problem_lib, &spec->cases[worst], c->build_dir,
        pg_build_limit(&c->cfg->settings), spec->gpu, spec->cold);
}

/* The heap's mode for `b`: PG_MEMORY_REPORT, _GATE or _OFF. */
static int heap_mode(const pg_bench_ctx *c, const pg_bench_config *b)
{
    return b->memory >= 0 ? b->memory : c->cfg->settings.memory;
}

/* Calls of each case to count the heap over in the check before the
 * timing (mempass.h): for C code, unless memory: off; 0 for none. */
static int heap_calls(const pg_bench_ctx *c, const pg_bench_config *b,
                      const pg_run_spec *spec)
{
    char *lib;

    if (heap_mode(c, b) == PG_MEMORY_OFF || spec->gpu)
        return 0;
    if (!(lib = pg_run_memory_library()))
        return 0; /* said by pg_mempass_run */
    free(lib);
    return PG_MEMPASS_CALLS;
}

/*
 * The heap per call (mempass.h), unless memory: off: for C code that was
 * measured, or checked and new; never for a failure, identical code or a
 * CUDA kernel (whose device memory the pass cannot see).  Counted by the
 * check before the timing where it could be, else now.  Negative only
 * when perfgate failed or was interrupted.
 */
static int count_heap(pg_bench_ctx *c, const pg_bench_config *b,
                      pg_bench_result *out, const pg_run_spec *spec,
                      const char *spec_path)
{
    int mode = heap_mode(c, b), err;

    out->memory.gate = mode == PG_MEMORY_GATE;
    out->memory.floor = c->cfg->settings.memory_floor;
    if (mode == PG_MEMORY_OFF || spec->gpu || out->identical ||
        pg_status_failed(out->status) || out->status == PG_STATUS_SKIPPED ||
        (out->rounds <= 0 && out->status != PG_STATUS_NEW)) {
        pg_mempass_forget(out);
        free(out->memory.skipped);
        out->memory.skipped = NULL;
        return 0;
    }
    pg_progress_sayf(c->progress, "counting the heap");
    err = pg_mempass_run(out, spec, spec_path,
                         b->function ? b->function->batch : 1);
    /* Judged again with the rest; here, for --profile to know. */
    pg_memory_judge(out);
    return err;
}

/*
 * What the two builds leave to measure: 1 when the benchmark ends here,
 * its status in `out` (both sides fail alike, or the head does not
 * build); 0 to go on, *base_failed saying whether the base did not build
 * (the head is then checked alone), and a benchmark the base lacks new.
 */
static int builds_settle(const pg_bench_ctx *c, pg_bench_result *out,
                         const pg_build build[2], int *base_failed)
{
    if (!build[1].missing && !build[1].ok && !build[0].missing &&
        !build[0].ok && build[0].message && build[1].message &&
        !strcmp(build[0].message, build[1].message)) {
        /* Both sides fail alike: not the change's doing, and said so;
         * still a failure, since nothing can be measured. */
        out->status = PG_STATUS_BUILD_FAILED;
        out->side = PG_SIDE_NONE;
        free(out->message);
        free(out->log);
        out->message = pg_strdupf("both sides fail alike, so not because "
                                  "of this change: %s",
                                  build[1].message);
        out->log = build[1].log ? pg_strdup(build[1].log) : NULL;
        return 1;
    }
    if (build[1].missing || !build[1].ok) {
        pg_benchmark_build_failure(out, &build[1], PG_SIDE_HEAD);
        return 1;
    }
    *base_failed = !build[0].missing && !build[0].ok;
    if (build[0].missing) {
        out->status = PG_STATUS_NEW;
        out->message = pg_strdupf("no baseline: %s in %s", build[0].message,
                                  c->rev[0].spec);
    }
    return 0;
}

/*
 * Verifies and measures the two builds of `b` on its `ncases` cases (its
 * problem in `problem_lib`): the draws, then what measure: and --profile
 * ask beyond them.  Negative only when perfgate itself failed.
 */
static int measure_builds(pg_bench_ctx *c, const pg_bench_config *b,
                          pg_bench_result *out, const pg_build build[2],
                          int base_failed, char *problem_lib,
                          pg_casespec *cases, size_t ncases)
{
    pg_run_spec spec;
    pg_settings counted, own_floor;
    char *spec_path = NULL;
    int err = 0, measure;

    pg_run_spec_init(&spec);
    if (!strcmp(b->language, "cuda")) {
        if (!gpu_ready(c, out, &build[0], base_failed))
            return 0;
        spec.gpu = 1;
    }
    spec.problem_lib = problem_lib;
    spec.cases = cases;
    spec.ncases = ncases;
    fill_spec(&spec, c, b, out, build, base_failed);
    spec.memory = heap_calls(c, b, &spec);
    spec.settings = pg_benchmark_settings(c, b, out, &own_floor);
    measure = pg_benchmark_measure(c, b);
    if ((measure == PG_METRIC_INSTRUCTIONS || measure == PG_METRIC_CYCLES) &&
        count_instead(c, &spec, out, (pg_metric)measure, &counted) < 0)
        return 0;
    pg_progress_sayf(c->progress, "verifying");
    spec_path = pg_strdupf("%s/%s.run", c->build_dir, b->name);
    if ((err = pg_draws_run(out, &spec, spec_path)) < 0)
        goto done;
    if (b->function)
        per_call(out, b->function->batch);
    settle(c, out, &build[0], base_failed);
    if (b->function)
        say_unchecked(out, b, &spec, base_failed);
    if (measure == PG_MEASURE_ALL && !spec.gpu && verdict_of(out) != 2 &&
        (err = count_too(c, &spec, spec_path, out)) < 0)
        goto done;
    if (b->function && out->counted)
        per_call(out->counted, b->function->batch);
    if ((err = count_heap(c, b, out, &spec, spec_path)) < 0)
        goto done;
    if (c->profile && (out->status == PG_STATUS_REGRESSION ||
                       out->memory.status == PG_STATUS_REGRESSION))
        err = profile_worst(c, b, out, &spec);
done:
    free(spec_path);
    return err;
}

int pg_benchmark_run(pg_bench_ctx *c, size_t index, pg_bench_result *out)
{
    const pg_bench_config *b = &c->cfg->benchmarks[index];
    pg_build build[2];
    pg_casespec *cases = NULL;
    size_t ncases = 0, i;
    int owned = 0, base_failed = 0, err, s;
    char *problem_lib = NULL;
    pg_bench_keys keys;
    int64_t building;

    memset(build, 0, sizeof(build));
    if (b->function && !b->function->source) {
        /* Its header: is read after the project's build, which failed
         * on the side that has the header (pg_declare_function). */
        const pg_build *project = pg_benchmark_project(c, b, 1, &err);
        if (err < 0)
            return err;
        if (project)
            pg_benchmark_build_failure(out, project, PG_SIDE_HEAD);
        return 0;
    }
    building = pg_now_ns();
    if ((err = problem_build(c, b, &problem_lib)) < 0)
        return err;
    if ((err = checked_cases(c, b, problem_lib, &cases, &ncases, &owned)) < 0)
        goto done;
    /* What the change cannot reach is neither built nor measured. */
    pg_progress_sayf(c->progress, "checking what the change reaches");
    if (c->known && c->known[index])
        keys = c->keys[index];
    else if ((err = pg_benchmark_keys(c, b, &keys)) < 0)
        goto done;
    if (pg_benchmark_unreached(c, &keys)) {
        pg_stats_same_code(out);
        out->not_affected = 1;
        goto done;
    }
    err = build_sides(c, b, build, &keys, out->built, out->project);
    c->result->build_seconds += (double)(pg_now_ns() - building) / 1e9;
    building = 0;
    if (err == 0 && !builds_settle(c, out, build, &base_failed))
        err = measure_builds(c, b, out, build, base_failed, problem_lib, cases,
                             ncases);
done:
    if (building)
        c->result->build_seconds += (double)(pg_now_ns() - building) / 1e9;
    for (s = 0; s < 2; s++)
        pg_build_clear(&build[s]);
    if (owned) {
        for (i = 0; i < ncases; i++)
            pg_casespec_clear(&cases[i]);
        free(cases);
    }
    free(problem_lib);
    return err;
}

void pg_bench_ctx_clear(pg_bench_ctx *c)
{
    size_t i, j;

    for (i = 0; i < 2; i++) {
        for (j = 0; j < c->built[i].n; j++)
            pg_build_clear(&c->builds[i][j]);
        free(c->builds[i]);
        pg_strvec_clear(&c->built[i]);
    }
    pg_strvec_clear(&c->problem_srcs);
    pg_strvec_clear(&c->problem_libs);
    pg_strvec_clear(&c->checked);
    pg_strvec_clear(&c->compiled);
    free(c->keys);
    free(c->known);
}
