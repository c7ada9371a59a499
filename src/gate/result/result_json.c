/*
 * result_json.c - the result's JSON form, as the reports write it
 * (result.h; result_read.c reads it back).
 */
#include "result.h"
#include "counter.h"
#include "units.h"
#include "cuda.h"
#include "error.h"
#include "json.h"
#include "memory.h"
#include "str.h"
#include "system.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

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
    if (p->nalloc_sites)
        cJSON_AddItemToObject(
            po, "alloc_sites",
            profile_rows_json(p->alloc_sites, p->nalloc_sites));
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
        cJSON_AddStringToObject(mo, "metric", pg_metric_name(b->main_metric));
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
    if (c->items > 0)
        pg_json_add_number(co, "items", c->items);
    cJSON_AddNumberToObject(co, "inner", (double)c->inner);
    pg_json_add_number(co, "overhead_ns", c->overhead_ns);
    cJSON_AddBoolToObject(co, "resolved", !c->unresolved);
    pg_memory_add_case_json(co, c);
    add_samples(co, c);
    return co;
}

/* "sandbox": whether the revisions' code ran in the box, and its caps. */
static void add_sandbox(cJSON *root, const pg_result *r)
{
    cJSON *box = cJSON_AddObjectToObject(root, "sandbox");

    cJSON_AddBoolToObject(box, "boxed", !r->unboxed);
    if (r->unboxed)
        cJSON_AddStringToObject(box, "why_not", r->unboxed);
    if (r->held_env)
        cJSON_AddStringToObject(box, "held_env", r->held_env);
    if (r->capped_by) {
        cJSON_AddNumberToObject(box, "max_processes", r->max_processes);
        cJSON_AddStringToObject(box, "processes_capped_by", r->capped_by);
    } else if (r->uncapped) {
        cJSON_AddNullToObject(box, "max_processes");
        cJSON_AddStringToObject(box, "processes_why_not", r->uncapped);
    }
    if (r->groups_kept)
        cJSON_AddStringToObject(box, "groups_kept", r->groups_kept);
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
    add_built(o, "built", pg_built_names, b->built);
    if (b->project[0] || b->project[1])
        add_built(o, "project", pg_project_names, b->project);
    add_history(o, b);
    add_profile(o, b->profile);
    if (b->counted)
        cJSON_AddItemToObject(o, "counted", bench_json(b->counted));
    add_string(o, "disagreement", b->disagreement);
    add_code_path(o, b);
    pg_memory_add_json(o, b);
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
    add_sandbox(root, r);
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
