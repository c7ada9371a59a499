/*
 * result_read.c - the result's JSON form read back (report, merge, the
 * Action's post-only path) from files a pull request's run may have
 * written: every field checked, nothing trusted (result.h).
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
    {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(mo, "metric");
        int metric = cJSON_IsString(m) ? pg_metric_parse(m->valuestring) : 0;
        b->main_metric = metric > 0 ? metric : PG_METRIC_TIME;
    }
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
    p->alloc_sites = read_profile_rows(
        cJSON_GetObjectItemCaseSensitive(po, "alloc_sites"), &p->nalloc_sites);
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

/* "sandbox": whether the code ran in the box, and its caps. */
static void read_sandbox(pg_result *out, const cJSON *src)
{
    out->held_env = get_string(src, "held_env");
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(src, "boxed"))) {
        out->unboxed = get_string(src, "why_not");
        if (!out->unboxed)
            out->unboxed = pg_strdup("the result does not say why");
    }
    out->capped_by = get_string(src, "processes_capped_by");
    out->uncapped = get_string(src, "processes_why_not");
    out->groups_kept = get_string(src, "groups_kept");
    if (out->capped_by) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(src, "max_processes");
        out->max_processes =
            cJSON_IsNumber(n) && n->valuedouble >= 1 && n->valuedouble <= 1e6
                ? (int)n->valuedouble
                : 0;
    }
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
    cr->items = get_number(c, "items");
    if (!(cr->items > 0))
        cr->items = 0;
    cr->inner = get_count(c, "inner");
    cr->overhead_ns = get_number(c, "overhead_ns");
    read_samples(cr, cJSON_GetObjectItemCaseSensitive(c, "samples"));
    pg_memory_read_case_json(cr, c);
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
    read_built(o, "built", pg_built_names, b->built);
    read_built(o, "project", pg_project_names, b->project);
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
    pg_memory_read_json(b, cJSON_GetObjectItemCaseSensitive(o, "memory"));
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
    read_sandbox(out, cJSON_GetObjectItemCaseSensitive(root, "sandbox"));
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
