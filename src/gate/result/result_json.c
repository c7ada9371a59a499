/*
 * result_json.c - the result's JSON form: written for the reports, and
 * read back (report, merge, the Action's post-only path) from files a
 * pull request's run may have written (result.h).
 */
#include "result.h"
#include "counter.h"
#include "units.h"
#include "cuda.h"
#include "error.h"
#include "json.h"
#include "str.h"
#include "system.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* ---- writing ---- */

void pg_result_format_figure(pg_str *out, const pg_bench_result *b, double v)
{
    if (!b->metric || !isfinite(v)) {
        pg_format_ns(out, v);
        return;
    }
    pg_format_count(out, v);
    pg_str_puts(out, b->metric == PG_METRIC_CYCLES ? " cycles" : " instr");
}

double pg_result_floor(const pg_result *r, const pg_bench_result *b)
{
    return b->metric            ? r->count_floor
           : b->noise_floor > 0 ? b->noise_floor
                                : r->noise_floor;
}

static void add_string(cJSON *obj, const char *key, const char *v)
{
    if (v)
        cJSON_AddStringToObject(obj, key, v);
    else
        cJSON_AddNullToObject(obj, key);
}

static cJSON *side_json(const pg_side_info *s)
{
    cJSON *o = cJSON_CreateObject();

    add_string(o, "rev", s->rev);
    add_string(o, "commit", s->commit);
    add_string(o, "subject", s->subject);
    cJSON_AddBoolToObject(o, "worktree", s->worktree);
    if (s->worktree)
        cJSON_AddBoolToObject(o, "dirty", s->dirty);
    if (s->note)
        add_string(o, "note", s->note);
    return o;
}

/* "change_interval": [lo, hi], or null when not measured. */
static void add_interval(cJSON *o, double lo, double hi)
{
    cJSON *iv;

    if (isnan(lo) || isnan(hi)) {
        cJSON_AddNullToObject(o, "change_interval");
        return;
    }
    iv = cJSON_AddArrayToObject(o, "change_interval");
    cJSON_AddItemToArray(iv, cJSON_CreateNumber(lo));
    cJSON_AddItemToArray(iv, cJSON_CreateNumber(hi));
}

static const char *const built_names[] = {NULL, "compiled", "cache"};
static const char *const project_names[] = {NULL, "ran", "cache"};

/* "built": {"base": "compiled", "head": "cache"}; null: not built.  The
 * same for "project", by `names`. */
static void add_built(cJSON *o, const char *key, const char *const names[3],
                      const int built[2])
{
    cJSON *bo = cJSON_AddObjectToObject(o, key);
    int s;

    for (s = 0; s < 2; s++)
        add_string(bo, s ? "head" : "base",
                   built[s] == 1 || built[s] == 2 ? names[built[s]] : NULL);
}

static cJSON *profile_rows_json(const pg_profile_row *rows, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    size_t i;

    for (i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        const pg_profile_row *r = &rows[i];
        add_string(o, "function", r->function);
        if (r->object)
            add_string(o, "object", r->object);
        if (r->file) {
            add_string(o, "file", r->file);
            cJSON_AddNumberToObject(o, "line", r->line);
            if (r->base_line)
                cJSON_AddNumberToObject(o, "base_line", r->base_line);
            add_string(o, "text", r->text);
        }
        pg_json_add_number(o, "base", r->cost[0]);
        pg_json_add_number(o, "head", r->cost[1]);
        if (!r->object) {
            pg_json_add_number(o, "base_self", r->self[0]);
            pg_json_add_number(o, "head_self", r->self[1]);
        }
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static cJSON *profile_metrics_json(const pg_profile_metric *m, size_t n)
{
    cJSON *arr = cJSON_CreateArray();
    size_t i;

    for (i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        add_string(o, "kernel", m[i].kernel);
        add_string(o, "name", m[i].name);
        add_string(o, "unit", m[i].unit);
        pg_json_add_number(o, "base", m[i].value[0]);
        pg_json_add_number(o, "head", m[i].value[1]);
        cJSON_AddItemToArray(arr, o);
    }
    return arr;
}

static void add_profile(cJSON *o, const pg_profile *p)
{
    cJSON *po, *out;

    if (!p) {
        cJSON_AddNullToObject(o, "profile");
        return;
    }
    po = cJSON_AddObjectToObject(o, "profile");
    add_string(po, "tool", p->tool);
    add_string(po, "unit", p->unit);
    add_string(po, "case", p->case_name);
    add_string(po, "skipped", p->skipped);
    cJSON_AddItemToObject(po, "functions",
                          profile_rows_json(p->functions, p->nfunctions));
    cJSON_AddItemToObject(po, "lines", profile_rows_json(p->lines, p->nlines));
    out = cJSON_AddObjectToObject(po, "outside");
    pg_json_add_number(out, "base", p->outside_total[0]);
    pg_json_add_number(out, "head", p->outside_total[1]);
    cJSON_AddItemToObject(out, "functions",
                          profile_rows_json(p->outside, p->noutside));
    if (p->nmetrics)
        cJSON_AddItemToObject(po, "metrics",
                              profile_metrics_json(p->metrics, p->nmetrics));
}

/* "samples": {"base": [ns, ...], "head": [...]}, in round order. */
static void add_samples(cJSON *co, const pg_result_case *c)
{
    cJSON *so;
    int s;

    if (!c->nsamples[0] && !c->nsamples[1])
        return;
    so = cJSON_AddObjectToObject(co, "samples");
    for (s = 0; s < 2; s++) {
        cJSON *arr = cJSON_AddArrayToObject(so, s ? "head" : "base");
        size_t i;
        for (i = 0; i < c->nsamples[s]; i++)
            cJSON_AddItemToArray(arr, isfinite(c->samples[s][i])
                                          ? cJSON_CreateNumber(c->samples[s][i])
                                          : cJSON_CreateNull());
    }
}

static void read_samples(pg_result_case *cr, const cJSON *so)
{
    int s;

    for (s = 0; s < 2 && cJSON_IsObject(so); s++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(so, s ? "head"
                                                                  : "base"),
                    *v;
        int n = cJSON_GetArraySize(arr);
        if (!cJSON_IsArray(arr) || n <= 0)
            continue;
        if (n > PG_MAX_SAMPLES)
            n = PG_MAX_SAMPLES;
        cr->samples[s] = pg_calloc((size_t)n, sizeof(double));
        cJSON_ArrayForEach(v, arr)
        {
            if (cr->nsamples[s] >= (size_t)n)
                break;
            cr->samples[s][cr->nsamples[s]++] =
                cJSON_IsNumber(v) ? v->valuedouble : NAN;
        }
    }
}

/* A regression accepted on purpose: up to what, why, until and from. */
static void add_accept(cJSON *o, const pg_bench_result *b)
{
    cJSON *a;

    if (b->accept_up_to <= 0)
        return;
    a = cJSON_AddObjectToObject(o, "accept");
    cJSON_AddNumberToObject(a, "up_to", b->accept_up_to);
    cJSON_AddStringToObject(a, "why", b->accept_why);
    add_string(a, "until", *b->accept_until ? b->accept_until : NULL);
    add_string(a, "from", *b->accept_from ? b->accept_from : NULL);
    cJSON_AddBoolToObject(a, "accepted", b->accepted);
}

/* How main moved before the base, and the commit bisecting found. */
static void add_history(cJSON *o, const pg_bench_result *b)
{
    cJSON *co;

    if (b->main_pushes > 0) {
        cJSON *mo = cJSON_AddObjectToObject(o, "main");
        cJSON_AddNumberToObject(mo, "pushes", b->main_pushes);
        pg_json_add_number(mo, "change", b->main_change);
        cJSON_AddNumberToObject(mo, "steps", b->main_steps);
        cJSON_AddNumberToObject(mo, "creeps", b->main_creeps);
    }
    if (!b->culprit) {
        cJSON_AddNullToObject(o, "culprit");
        return;
    }
    co = cJSON_AddObjectToObject(o, "culprit");
    add_string(co, "commit", b->culprit);
    add_string(co, "subject", b->culprit_subject);
    add_string(co, "author", b->culprit_author);
    cJSON_AddNumberToObject(co, "candidates", b->culprit_candidates);
}

/* A count's two CPUs, and the path the other side took. */
static void add_code_path(cJSON *o, const pg_bench_result *b)
{
    cJSON *po;

    if (!b->cpu_simulated)
        return;
    po = cJSON_AddObjectToObject(o, "code_path");
    add_string(po, "native_cpu", b->cpu_native);
    add_string(po, "simulated_cpu", b->cpu_simulated);
    add_string(po, "other", b->other_path);
    add_string(po, "uncounted", b->uncounted);
    cJSON_AddBoolToObject(po, "gates", b->other_path_gates);
}

static cJSON *case_json(const pg_result_case *c)
{
    cJSON *co = cJSON_CreateObject();

    add_string(co, "name", c->name);
    pg_json_add_number(co, "base_ns", c->base_ns);
    pg_json_add_number(co, "head_ns", c->head_ns);
    pg_json_add_number(co, "change", c->change);
    add_interval(co, c->change_lo, c->change_hi);
    if (!isnan(c->change))
        add_string(co, "status", pg_status_name(c->status));
    pg_json_add_number(co, "flops", c->flops);
    pg_json_add_number(co, "bytes", c->bytes);
    cJSON_AddNumberToObject(co, "inner", (double)c->inner);
    pg_json_add_number(co, "overhead_ns", c->overhead_ns);
    cJSON_AddBoolToObject(co, "resolved", !c->unresolved);
    add_samples(co, c);
    return co;
}

/* What the device's clocks did while the benchmark ran. */
static void add_gpu_clocks(cJSON *o, const pg_bench_result *b)
{
    cJSON *g;

    if (!b->gpu.measured)
        return;
    g = cJSON_AddObjectToObject(o, "gpu");
    cJSON_AddNumberToObject(g, "samples", (double)b->gpu.samples);
    cJSON_AddNumberToObject(g, "throttled", (double)b->gpu.throttled);
    cJSON_AddNumberToObject(g, "kept_throttled", (double)b->gpu.kept_throttled);
    pg_json_add_number(g, "clock_mhz",
                       b->gpu.clock_mhz > 0 ? b->gpu.clock_mhz : NAN);
    cJSON_AddBoolToObject(g, "gated", b->gpu.gated);
    cJSON_AddNumberToObject(g, "runtime_version", b->gpu.runtime_version);
}

static cJSON *bench_json(const pg_bench_result *b)
{
    cJSON *o = cJSON_CreateObject(), *cases, *calls;
    const pg_result_case *hidden;
    size_t i;

    add_string(o, "name", b->name);
    add_string(o, "problem", b->problem);
    add_string(o, "status", pg_status_name(b->status));
    add_string(o, "side", pg_side_name(b->side));
    if (b->batch > 1)
        cJSON_AddNumberToObject(o, "batch", b->batch);
    if (b->noise_floor > 0)
        cJSON_AddNumberToObject(o, "noise_floor", b->noise_floor);
    add_accept(o, b);
    cJSON_AddBoolToObject(o, "fails_gate", b->fails_gate);
    pg_json_add_number(o, "change", b->change);
    add_interval(o, b->change_lo, b->change_hi);
    cJSON_AddStringToObject(o, "gate", b->gate_cases ? "cases" : "total");
    cJSON_AddStringToObject(o, "inconclusive",
                            b->inconclusive_fails ? "fail" : "pass");
    cJSON_AddBoolToObject(o, "identical_code", b->identical);
    if (b->unchecked)
        cJSON_AddBoolToObject(o, "checked", 0);
    cJSON_AddBoolToObject(o, "not_affected", b->not_affected);
    if (b->shard > 0)
        cJSON_AddNumberToObject(o, "shard", b->shard);
    /* The case that got slower beyond the floor under a total that does
     * not say so (gate: total), for CI annotations. */
    if ((hidden = pg_result_slower_case(b))) {
        cJSON *h = cJSON_AddObjectToObject(o, "slower_case");
        add_string(h, "name", hidden->name);
        pg_json_add_number(h, "change", hidden->change);
    } else {
        cJSON_AddNullToObject(o, "slower_case");
    }
    /* base_ns, head_ns and the cases' are in the metric's unit. */
    add_string(o, "metric", pg_metric_name((pg_metric)b->metric));
    add_string(o, "unit", pg_metric_unit((pg_metric)b->metric));
    if (b->counter)
        add_string(o, "counter", b->counter);
    pg_json_add_number(o, "base_ns", b->base_ns);
    pg_json_add_number(o, "head_ns", b->head_ns);
    cJSON_AddNumberToObject(o, "rounds", b->rounds);
    if (b->processes > 0)
        cJSON_AddNumberToObject(o, "processes", b->processes);
    calls = cJSON_AddObjectToObject(o, "calls");
    cJSON_AddNumberToObject(calls, "base", (double)b->calls[0]);
    cJSON_AddNumberToObject(calls, "head", (double)b->calls[1]);
    pg_json_add_number(o, "seconds", b->seconds);
    add_string(o, "stop", b->stop);
    cJSON_AddStringToObject(o, "cache", b->cold ? "cold" : "warm");
    add_built(o, "built", built_names, b->built);
    if (b->project[0] || b->project[1])
        add_built(o, "project", project_names, b->project);
    add_history(o, b);
    add_profile(o, b->profile);
    if (b->counted)
        cJSON_AddItemToObject(o, "counted", bench_json(b->counted));
    add_string(o, "disagreement", b->disagreement);
    add_code_path(o, b);
    add_string(o, "message", b->message);
    add_string(o, "log", b->log);
    cases = cJSON_AddArrayToObject(o, "cases");
    for (i = 0; i < b->ncases; i++)
        cJSON_AddItemToArray(cases, case_json(&b->cases[i]));
    add_gpu_clocks(o, b);
    return o;
}

static cJSON *gpu_json(const pg_gpu_info *g)
{
    cJSON *o = cJSON_CreateObject();
    double bw = pg_cuda_peak_bandwidth(g), fl = pg_cuda_peak_flops(g);

    cJSON_AddStringToObject(o, "name", g->name);
    cJSON_AddStringToObject(o, "arch", g->arch);
    cJSON_AddNumberToObject(o, "devices", g->devices);
    cJSON_AddNumberToObject(o, "sm_count", g->sm_count);
    cJSON_AddNumberToObject(o, "sm_clock_mhz", g->sm_clock_khz / 1e3);
    cJSON_AddNumberToObject(o, "memory_clock_mhz", g->mem_clock_khz / 1e3);
    cJSON_AddNumberToObject(o, "bus_width", g->bus_width);
    cJSON_AddNumberToObject(o, "l2_bytes", g->l2_bytes);
    cJSON_AddNumberToObject(o, "memory_bytes", g->memory_bytes);
    cJSON_AddNumberToObject(o, "driver_version", g->driver_version);
    cJSON_AddNumberToObject(o, "runtime_version", g->runtime_version);
    pg_json_add_number(o, "peak_bandwidth", bw > 0 ? bw : NAN);
    pg_json_add_number(o, "peak_flops", fl > 0 ? fl : NAN);
    return o;
}

static cJSON *system_json(const pg_system *s)
{
    cJSON *o = cJSON_CreateObject(), *t, *w;
    size_t i;

    if (s->cpu >= 0)
        cJSON_AddNumberToObject(o, "cpu", s->cpu);
    else
        cJSON_AddNullToObject(o, "cpu");
    cJSON_AddNumberToObject(o, "ncpus", s->ncpus);
    pg_json_add_number(o, "load1", s->load1);
    pg_json_add_number(o, "cpu_busy", s->cpu_busy);
    pg_json_add_number(o, "steal", s->steal);
    add_string(o, "hypervisor", s->hypervisor);
    add_string(o, "governor", s->governor);
    cJSON_AddNumberToObject(o, "llc_bytes", (double)s->llc_bytes);
    t = cJSON_AddObjectToObject(o, "timer");
    cJSON_AddStringToObject(t, "clock", pg_clock_name(s->timer.id));
    pg_json_add_number(t, "overhead_ns", s->timer.overhead_ns);
    pg_json_add_number(t, "resolution_ns", s->timer.resolution_ns);
    pg_json_add_number(t, "ticks_per_ns", s->timer.ticks_per_ns);
    w = cJSON_AddArrayToObject(o, "warnings");
    for (i = 0; i < s->nwarnings; i++)
        cJSON_AddItemToArray(w, cJSON_CreateString(s->warnings[i]));
    return o;
}

char *pg_result_to_json(const pg_result *r)
{
    cJSON *root = cJSON_CreateObject(), *arr, *counts;
    size_t i;
    pg_status st;

    cJSON_AddStringToObject(root, "verdict",
                            r->verdict.passed ? "pass" : "fail");
    add_string(root, "version", r->version);
    cJSON_AddNumberToObject(root, "noise_floor", r->noise_floor);
    cJSON_AddNumberToObject(root, "count_floor", r->count_floor);
    cJSON_AddStringToObject(root, "noise_floor_source",
                            pg_floor_source_name(r->floor_source));
    cJSON_AddItemToObject(root, "base", side_json(&r->base));
    cJSON_AddItemToObject(root, "head", side_json(&r->head));
    pg_json_add_number(root, "seconds", r->seconds);
    pg_json_add_number(root, "build_seconds", r->build_seconds);
    cJSON_AddStringToObject(root, "mode", r->aa ? "aa" : "compare");
    if (!r->aa && r->verdict.noise_bench >= 0) {
        cJSON *n = cJSON_AddObjectToObject(root, "noise");
        cJSON_AddStringToObject(n, "benchmark",
                                r->benchmarks[r->verdict.noise_bench].name);
        pg_json_add_number(n, "half_width", r->verdict.noise);
        cJSON_AddNumberToObject(n, "limit", r->verdict.noise_floor / 2);
        cJSON_AddBoolToObject(n, "trusted",
                              !(r->verdict.noise > r->verdict.noise_floor / 2));
    }
    if (r->aa) {
        cJSON *aa = cJSON_AddObjectToObject(root, "aa");
        pg_json_add_number(aa, "noise", r->verdict.aa_noise);
        cJSON_AddNumberToObject(aa, "limit", r->verdict.aa_floor / 2);
        cJSON_AddBoolToObject(aa, "trusted", r->verdict.aa_trusted);
        if (r->verdict.aa_bench >= 0) {
            const pg_bench_result *b = &r->benchmarks[r->verdict.aa_bench];
            cJSON *worst = cJSON_AddObjectToObject(aa, "case");
            cJSON_AddStringToObject(worst, "benchmark", b->name);
            cJSON_AddStringToObject(worst, "case",
                                    b->cases[r->verdict.aa_case].name);
            pg_json_add_number(worst, "change",
                               b->cases[r->verdict.aa_case].change);
        }
    }
    add_string(root, "config_digest", r->config_digest);
    if (r->main_machine)
        add_string(root, "main_machine", r->main_machine);
    {
        cJSON *box = cJSON_AddObjectToObject(root, "sandbox");
        cJSON_AddBoolToObject(box, "boxed", !r->unboxed);
        if (r->unboxed)
            cJSON_AddStringToObject(box, "why_not", r->unboxed);
        if (r->held_env)
            cJSON_AddStringToObject(box, "held_env", r->held_env);
    }
    if (r->nshards) {
        cJSON *shards = cJSON_AddArrayToObject(root, "shards");
        for (i = 0; i < r->nshards; i++) {
            const pg_shard_info *s = &r->shards[i];
            cJSON *so = cJSON_CreateObject();
            cJSON_AddNumberToObject(so, "index", s->index);
            cJSON_AddNumberToObject(so, "count", s->count);
            add_string(so, "host", s->host);
            pg_json_add_number(so, "seconds", s->seconds);
            cJSON_AddNumberToObject(so, "benchmarks", (double)s->benchmarks);
            add_string(so, "balance", s->balance);
            cJSON_AddItemToArray(shards, so);
        }
    }
    cJSON_AddItemToObject(root, "system", system_json(&r->system));
    if (r->gpu.present)
        cJSON_AddItemToObject(root, "gpu", gpu_json(&r->gpu));
    counts = cJSON_AddObjectToObject(root, "counts");
    for (st = PG_STATUS_UNCHANGED; st < PG_STATUS_COUNT; st++)
        cJSON_AddNumberToObject(counts, pg_status_name(st),
                                (double)pg_result_count(r, st));
    arr = cJSON_AddArrayToObject(root, "benchmarks");
    for (i = 0; i < r->nbenchmarks; i++)
        cJSON_AddItemToArray(arr, bench_json(&r->benchmarks[i]));
    return pg_json_print(root, 1);
}

/* ---- reading ---- */

static double get_number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static char *get_string(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? pg_strdup(v->valuestring) : NULL;
}

static double get_number_at(const cJSON *arr, int i)
{
    const cJSON *v = cJSON_GetArrayItem(arr, i);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/*
 * Numbers from a result file, which anyone may have written: a value that
 * is missing, not finite or out of range reads as the fallback, and is never
 * converted to an integer that cannot hold it.
 */
static int get_int_or(const cJSON *o, const char *key, int fallback)
{
    double v = get_number(o, key);
    return v > -2e9 && v < 2e9 ? (int)v : fallback;
}

static int get_int(const cJSON *o, const char *key)
{
    return get_int_or(o, key, 0);
}

/* A count: whole numbers from 0 to 2^53, else 0. */
static uint64_t get_count(const cJSON *o, const char *key)
{
    double v = get_number(o, key);
    return v >= 0 && v <= 9007199254740992.0 ? (uint64_t)v : 0;
}

static void read_system(pg_system *s, const cJSON *o)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "timer"), *w;
    char *clock = get_string(t, "clock");
    int id;

    memset(s, 0, sizeof(*s));
    s->cpu = get_int_or(o, "cpu", -1);
    s->ncpus = get_int(o, "ncpus");
    s->load1 = get_number(o, "load1");
    s->cpu_busy = get_number(o, "cpu_busy");
    s->steal = get_number(o, "steal");
    s->hypervisor = get_string(o, "hypervisor");
    s->governor = get_string(o, "governor");
    s->timer.id = PG_CLOCK_MONOTONIC;
    for (id = 0; clock && id < PG_CLOCK_COUNT; id++)
        if (!strcmp(clock, pg_clock_name((pg_clock_id)id)))
            s->timer.id = (pg_clock_id)id;
    free(clock);
    s->timer.overhead_ns = get_number(t, "overhead_ns");
    s->timer.resolution_ns = get_number(t, "resolution_ns");
    s->timer.ticks_per_ns = get_number(t, "ticks_per_ns");
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(o, "warnings"))
    {
        if (cJSON_IsString(w))
            pg_system_warn(s, "%s", w->valuestring);
    }
}

static int khz(double mhz)
{
    return isfinite(mhz) && mhz > 0 && mhz < 1e6 ? (int)(mhz * 1000 + 0.5) : 0;
}

static void read_gpu(pg_gpu_info *g, const cJSON *o)
{
    char *text;

    memset(g, 0, sizeof(*g));
    if (!cJSON_IsObject(o))
        return;
    g->present = 1;
    if ((text = get_string(o, "name")))
        snprintf(g->name, sizeof(g->name), "%s", text);
    free(text);
    if ((text = get_string(o, "arch")))
        snprintf(g->arch, sizeof(g->arch), "%s", text);
    free(text);
    g->devices = get_int(o, "devices");
    g->sm_count = get_int(o, "sm_count");
    g->sm_clock_khz = khz(get_number(o, "sm_clock_mhz"));
    g->mem_clock_khz = khz(get_number(o, "memory_clock_mhz"));
    g->bus_width = get_int(o, "bus_width");
    g->l2_bytes = get_int(o, "l2_bytes");
    g->memory_bytes = get_number(o, "memory_bytes");
    g->driver_version = get_int(o, "driver_version");
    g->runtime_version = get_int(o, "runtime_version");
}

/* A commit id: 4 to 64 hex digits (SHA-1 or SHA-256), else none; what a
 * report puts in a code span must not end it. */
static char *get_commit(const cJSON *o)
{
    char *commit = get_string(o, "commit");
    size_t n = commit ? strspn(commit, "0123456789abcdef") : 0;

    if (commit && (n < 4 || n > 64 || commit[n])) {
        free(commit);
        return NULL;
    }
    return commit;
}

static void read_side(pg_side_info *s, const cJSON *o)
{
    s->rev = get_string(o, "rev");
    s->commit = get_commit(o);
    s->subject = get_string(o, "subject");
    s->worktree = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "worktree"));
    s->dirty = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "dirty"));
    if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, "note")))
        s->note = get_string(o, "note");
}

static void read_interval(const cJSON *o, double *lo, double *hi)
{
    const cJSON *iv = cJSON_GetObjectItemCaseSensitive(o, "change_interval");

    *lo = *hi = NAN;
    if (cJSON_IsArray(iv) && cJSON_GetArraySize(iv) == 2) {
        *lo = get_number_at(iv, 0);
        *hi = get_number_at(iv, 1);
    }
}

static void read_built(const cJSON *o, const char *key,
                       const char *const names[3], int built[2])
{
    const cJSON *bo = cJSON_GetObjectItemCaseSensitive(o, key);
    int s, k;

    for (s = 0; s < 2; s++) {
        const cJSON *v =
            cJSON_GetObjectItemCaseSensitive(bo, s ? "head" : "base");
        built[s] = 0;
        for (k = 1; k < 3 && cJSON_IsString(v); k++)
            if (!strcmp(v->valuestring, names[k]))
                built[s] = k;
    }
}

/* How main moved, when the result says: counts in bounds, else none. */
static void read_main(pg_bench_result *b, const cJSON *mo)
{
    double pushes = get_number(mo, "pushes"), change = get_number(mo, "change");

    if (!cJSON_IsObject(mo) || !(pushes >= 1 && pushes <= 100000) ||
        !(change > -1 && change < 1e6))
        return;
    b->main_pushes = (int)pushes;
    b->main_change = change;
    b->main_steps = get_int(mo, "steps");
    b->main_creeps = get_int(mo, "creeps");
    if (b->main_steps < 0 || b->main_steps > 100000)
        b->main_steps = 0;
    if (b->main_creeps < 0 || b->main_creeps > 100000)
        b->main_creeps = 0;
}

/* A culprit is a commit id, else none. */
static void read_culprit(pg_bench_result *b, const cJSON *co)
{
    char *commit = get_commit(co);

    if (!commit)
        return;
    b->culprit = commit;
    b->culprit_subject = get_string(co, "subject");
    b->culprit_author = get_string(co, "author");
    b->culprit_candidates = get_int(co, "candidates");
    if (b->culprit_candidates < 1)
        b->culprit_candidates = 1;
}

/* Rows of a saved profile: at most 1,000 (a file may hold anything). */
static pg_profile_row *read_profile_rows(const cJSON *arr, size_t *n)
{
    pg_profile_row *rows = NULL;
    const cJSON *item;

    *n = 0;
    cJSON_ArrayForEach(item, arr)
    {
        pg_profile_row *row;
        if (*n >= 1000 || !cJSON_IsObject(item))
            break;
        rows = pg_realloc(rows, (*n + 1) * sizeof(*rows));
        row = &rows[(*n)++];
        row->function = get_string(item, "function");
        row->object = get_string(item, "object");
        row->file = get_string(item, "file");
        row->text = get_string(item, "text");
        row->line = get_int(item, "line");
        row->base_line = get_int(item, "base_line");
        row->cost[0] = get_number(item, "base");
        row->cost[1] = get_number(item, "head");
        row->self[0] = get_number(item, "base_self");
        row->self[1] = get_number(item, "head_self");
        if (!row->function)
            row->function = pg_strdup("?");
    }
    return rows;
}

/* A saved profile's metrics: at most 1,000. */
static pg_profile_metric *read_profile_metrics(const cJSON *arr, size_t *n)
{
    pg_profile_metric *m = NULL;
    const cJSON *item;

    *n = 0;
    cJSON_ArrayForEach(item, arr)
    {
        pg_profile_metric *one;
        if (*n >= 1000 || !cJSON_IsObject(item))
            break;
        m = pg_realloc(m, (*n + 1) * sizeof(*m));
        one = &m[(*n)++];
        one->kernel = get_string(item, "kernel");
        one->name = get_string(item, "name");
        one->unit = get_string(item, "unit");
        one->value[0] = get_number(item, "base");
        one->value[1] = get_number(item, "head");
        if (!one->kernel)
            one->kernel = pg_strdup("?");
        if (!one->name)
            one->name = pg_strdup("?");
        if (!one->unit)
            one->unit = pg_strdup("");
    }
    return m;
}

static pg_profile *read_profile(const cJSON *po)
{
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(po, "outside");
    pg_profile *p;

    if (!cJSON_IsObject(po))
        return NULL;
    p = pg_calloc(1, sizeof(*p));
    p->tool = get_string(po, "tool");
    p->unit = get_string(po, "unit");
    p->case_name = get_string(po, "case");
    p->skipped = get_string(po, "skipped");
    p->functions = read_profile_rows(
        cJSON_GetObjectItemCaseSensitive(po, "functions"), &p->nfunctions);
    p->lines = read_profile_rows(cJSON_GetObjectItemCaseSensitive(po, "lines"),
                                 &p->nlines);
    p->outside = read_profile_rows(
        cJSON_GetObjectItemCaseSensitive(out, "functions"), &p->noutside);
    p->outside_total[0] = get_number(out, "base");
    p->outside_total[1] = get_number(out, "head");
    p->metrics = read_profile_metrics(
        cJSON_GetObjectItemCaseSensitive(po, "metrics"), &p->nmetrics);
    return p;
}

static int read_bench(pg_result *r, const cJSON *o, const char *display);

/* measure: all's count of `b`, when the report has one (a counted
 * benchmark has none of its own). */
static void read_counted(pg_bench_result *b, const cJSON *co,
                         const char *display)
{
    pg_result one;

    if (!cJSON_IsObject(co) || b->metric)
        return;
    memset(&one, 0, sizeof(one));
    if (read_bench(&one, co, display) == 0 && one.nbenchmarks == 1 &&
        one.benchmarks[0].metric && !one.benchmarks[0].counted) {
        b->counted = pg_malloc(sizeof(*b->counted));
        *b->counted = one.benchmarks[0];
        one.nbenchmarks = 0;
    }
    for (size_t i = 0; i < one.nbenchmarks; i++)
        pg_bench_result_clear(&one.benchmarks[i]);
    free(one.benchmarks);
    pg_error_clear();
}

/* accept: what a regression accepted on purpose was accepted up to, why,
 * until when and from where. */
static void read_accept(pg_bench_result *b, const cJSON *a)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(a, "why");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(a, "until");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(a, "from");
    double up = get_number(a, "up_to");

    /* Up to 1000%, as the config allows (a reader that took only
     * fractions below 1 dropped an entry of 150%). */
    if (!cJSON_IsObject(a) || !(up > 0 && up <= 10))
        return;
    b->accept_up_to = up;
    if (cJSON_IsString(w))
        snprintf(b->accept_why, sizeof(b->accept_why), "%s", w->valuestring);
    if (cJSON_IsString(u) && strlen(u->valuestring) == 10)
        memcpy(b->accept_until, u->valuestring, 11);
    /* A commit's 12 hex digits, or the label's name. */
    if (cJSON_IsString(f) && *f->valuestring &&
        strlen(f->valuestring) < sizeof(b->accept_from) &&
        strspn(f->valuestring, "0123456789abcdefghijklmnopqrstuvwxyz-") ==
            strlen(f->valuestring))
        snprintf(b->accept_from, sizeof(b->accept_from), "%s", f->valuestring);
}

/* code_path: a count's two CPUs, and the path the other side took. */
static void read_code_path(pg_bench_result *b, const cJSON *c)
{
    if (!cJSON_IsObject(c) || !b->metric)
        return;
    b->cpu_native = get_string(c, "native_cpu");
    b->cpu_simulated = get_string(c, "simulated_cpu");
    b->other_path = get_string(c, "other");
    b->uncounted = get_string(c, "uncounted");
    b->other_path_gates =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "gates"));
}

/* gpu: what the device's clocks did while the benchmark ran. */
static void read_gpu_clocks(pg_bench_result *b, const cJSON *c)
{
    double clock = get_number(c, "clock_mhz");

    if (!cJSON_IsObject(c))
        return;
    b->gpu.measured = 1;
    b->gpu.samples = get_count(c, "samples");
    b->gpu.throttled = get_count(c, "throttled");
    b->gpu.kept_throttled = get_count(c, "kept_throttled");
    b->gpu.clock_mhz = isfinite(clock) ? clock : 0;
    b->gpu.gated = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "gated"));
    b->gpu.runtime_version = get_int(c, "runtime_version");
}

/* One case: its figures, its status (a case's own: a change or none). */
static void read_case(pg_result_case *cr, const cJSON *c)
{
    const cJSON *iv = cJSON_GetObjectItemCaseSensitive(c, "status");
    int st = cJSON_IsString(iv) ? pg_status_parse(iv->valuestring) : -1;

    memset(cr, 0, sizeof(*cr));
    cr->name = get_string(c, "name");
    cr->base_ns = get_number(c, "base_ns");
    cr->head_ns = get_number(c, "head_ns");
    cr->change = get_number(c, "change");
    read_interval(c, &cr->change_lo, &cr->change_hi);
    cr->status = st == PG_STATUS_REGRESSION || st == PG_STATUS_IMPROVEMENT ||
                         st == PG_STATUS_INCONCLUSIVE ||
                         st == PG_STATUS_UNRESOLVED
                     ? (pg_status)st
                     : PG_STATUS_UNCHANGED;
    cr->flops = get_number(c, "flops");
    cr->bytes = get_number(c, "bytes");
    cr->inner = get_count(c, "inner");
    cr->overhead_ns = get_number(c, "overhead_ns");
    read_samples(cr, cJSON_GetObjectItemCaseSensitive(c, "samples"));
}

static int read_bench(pg_result *r, const cJSON *o, const char *display)
{
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(o, "status");
    const cJSON *cases = cJSON_GetObjectItemCaseSensitive(o, "cases");
    const cJSON *calls = cJSON_GetObjectItemCaseSensitive(o, "calls");
    const cJSON *cache = cJSON_GetObjectItemCaseSensitive(o, "cache");
    const cJSON *c, *iv;
    char *name = get_string(o, "name"), *problem = get_string(o, "problem"),
         *side = get_string(o, "side");
    pg_bench_result *b;
    int st = cJSON_IsString(status) ? pg_status_parse(status->valuestring) : -1;

    if (!name || st < 0) {
        free(name);
        free(problem);
        free(side);
        return pg_error_set(PG_ERR_USAGE,
                            "%s: a benchmark lacks a name or a valid status",
                            display);
    }
    b = pg_result_add(r, name, problem ? problem : "");
    free(name);
    free(problem);
    b->status = (pg_status)st;
    b->side = side && !strcmp(side, "base")   ? PG_SIDE_BASE
              : side && !strcmp(side, "head") ? PG_SIDE_HEAD
                                              : PG_SIDE_NONE;
    free(side);
    b->change = get_number(o, "change");
    read_interval(o, &b->change_lo, &b->change_hi);
    iv = cJSON_GetObjectItemCaseSensitive(o, "gate");
    b->gate_cases = cJSON_IsString(iv) && !strcmp(iv->valuestring, "cases");
    iv = cJSON_GetObjectItemCaseSensitive(o, "inconclusive");
    b->inconclusive_fails =
        cJSON_IsString(iv) && !strcmp(iv->valuestring, "fail");
    b->identical =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "identical_code"));
    b->unchecked =
        cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "checked"));
    b->shard = get_int(o, "shard");
    b->not_affected =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "not_affected"));
    b->stop = get_string(o, "stop");
    b->processes = get_int(o, "processes");
    b->cold = cJSON_IsString(cache) && !strcmp(cache->valuestring, "cold");
    read_built(o, "built", built_names, b->built);
    read_built(o, "project", project_names, b->project);
    read_culprit(b, cJSON_GetObjectItemCaseSensitive(o, "culprit"));
    read_main(b, cJSON_GetObjectItemCaseSensitive(o, "main"));
    b->profile = read_profile(cJSON_GetObjectItemCaseSensitive(o, "profile"));
    iv = cJSON_GetObjectItemCaseSensitive(o, "metric");
    st = cJSON_IsString(iv) ? pg_metric_parse(iv->valuestring) : 0;
    b->metric = st > 0 ? st : PG_METRIC_TIME;
    b->counter = b->metric ? get_string(o, "counter") : NULL;
    b->base_ns = get_number(o, "base_ns");
    b->head_ns = get_number(o, "head_ns");
    b->rounds = get_int(o, "rounds");
    b->batch = get_int(o, "batch");
    b->noise_floor = get_number(o, "noise_floor");
    read_accept(b, cJSON_GetObjectItemCaseSensitive(o, "accept"));
    if (!(b->noise_floor > 0 && b->noise_floor < 1))
        b->noise_floor = 0;
    b->seconds = get_number(o, "seconds");
    if (calls) {
        b->calls[0] = get_count(calls, "base");
        b->calls[1] = get_count(calls, "head");
    }
    b->message = get_string(o, "message");
    b->log = get_string(o, "log");
    b->disagreement = get_string(o, "disagreement");
    read_code_path(b, cJSON_GetObjectItemCaseSensitive(o, "code_path"));
    read_counted(b, cJSON_GetObjectItemCaseSensitive(o, "counted"), display);
    read_gpu_clocks(b, cJSON_GetObjectItemCaseSensitive(o, "gpu"));
    cJSON_ArrayForEach(c, cases)
    {
        b->cases = pg_realloc(b->cases, (b->ncases + 1) * sizeof(*b->cases));
        read_case(&b->cases[b->ncases++], c);
    }
    return 0;
}

int pg_result_from_json(pg_result *out, const char *text, const char *display)
{
    cJSON *root = cJSON_Parse(text), *b;
    const cJSON *src;
    int err = 0;

    memset(out, 0, sizeof(*out));
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return pg_error_set(PG_ERR_USAGE,
                            "%s: not a perfgate JSON report (invalid JSON)",
                            display);
    }
    out->version = get_string(root, "version");
    out->noise_floor = get_number(root, "noise_floor");
    out->count_floor = get_number(root, "count_floor");
    if (!(out->count_floor >= 0 && out->count_floor < 1))
        out->count_floor = 0.01; /* written before counts were */
    out->seconds = get_number(root, "seconds");
    out->build_seconds = get_number(root, "build_seconds");
    src = cJSON_GetObjectItemCaseSensitive(root, "noise_floor_source");
    out->floor_source = PG_FLOOR_DEFAULT;
    if (cJSON_IsString(src)) {
        pg_floor_source f;
        for (f = PG_FLOOR_DEFAULT; f <= PG_FLOOR_FLAG; f++)
            if (!strcmp(pg_floor_source_name(f), src->valuestring))
                out->floor_source = f;
    }
    if (!isfinite(out->noise_floor) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "benchmarks"))) {
        cJSON_Delete(root);
        pg_result_clear(out);
        return pg_error_set(PG_ERR_USAGE,
                            "%s: not a perfgate JSON report (no noise_floor "
                            "or benchmarks)",
                            display);
    }
    src = cJSON_GetObjectItemCaseSensitive(root, "mode");
    out->aa = cJSON_IsString(src) && !strcmp(src->valuestring, "aa");
    read_system(&out->system, cJSON_GetObjectItemCaseSensitive(root, "system"));
    read_gpu(&out->gpu, cJSON_GetObjectItemCaseSensitive(root, "gpu"));
    read_side(&out->base, cJSON_GetObjectItemCaseSensitive(root, "base"));
    read_side(&out->head, cJSON_GetObjectItemCaseSensitive(root, "head"));
    out->config_digest = get_string(root, "config_digest");
    out->main_machine = get_string(root, "main_machine");
    src = cJSON_GetObjectItemCaseSensitive(root, "sandbox");
    out->held_env = get_string(src, "held_env");
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(src, "boxed"))) {
        out->unboxed = get_string(src, "why_not");
        if (!out->unboxed)
            out->unboxed = pg_strdup("the result does not say why");
    }
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(root, "shards"))
    {
        pg_shard_info *s;
        if (out->nshards >= 4096)
            break; /* no real run has more machines */
        out->shards =
            pg_realloc(out->shards, (out->nshards + 1) * sizeof(*out->shards));
        s = &out->shards[out->nshards++];
        s->index = get_int(b, "index");
        s->count = get_int(b, "count");
        s->host = get_string(b, "host");
        s->seconds = get_number(b, "seconds");
        s->benchmarks = (size_t)get_count(b, "benchmarks");
        s->balance = get_string(b, "balance");
    }
    cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(root, "benchmarks"))
    {
        if ((err = read_bench(out, b, display)) < 0)
            break;
    }
    cJSON_Delete(root);
    if (err < 0)
        pg_result_clear(out);
    return err;
}
