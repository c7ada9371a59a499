/*
 * result.c - the result: its names, figures, lifetime and clean text (its
 * JSON form is written by result_json.c, read back by result_read.c).
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

static const char *const status_names[] = {
    "unchanged", "regression",   "improvement",  "incorrect",
    "crashed",   "timeout",      "build_failed", "new",
    "skipped",   "inconclusive", "unresolved"};

const char *pg_status_name(pg_status status)
{
    return status_names[status];
}

int pg_status_parse(const char *name)
{
    size_t i;

    for (i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++)
        if (!strcmp(status_names[i], name))
            return (int)i;
    return -1;
}

int pg_status_failed(pg_status st)
{
    return st == PG_STATUS_INCORRECT || st == PG_STATUS_CRASHED ||
           st == PG_STATUS_TIMEOUT || st == PG_STATUS_BUILD_FAILED;
}

const char *pg_side_name(pg_side side)
{
    return side == PG_SIDE_BASE ? "base" : side == PG_SIDE_HEAD ? "head" : NULL;
}

static const char *const floor_names[] = {"default", "GITHUB_ACTIONS", "config",
                                          "flag"};

const char *pg_floor_source_name(pg_floor_source src)
{
    return floor_names[src];
}

const char *const pg_built_names[3] = {NULL, "compiled", "cache"};
const char *const pg_project_names[3] = {NULL, "ran", "cache"};

void pg_result_format_metric(pg_str *out, int metric, double v)
{
    if (!metric || !isfinite(v)) {
        pg_format_ns(out, v);
        return;
    }
    pg_format_count(out, v);
    pg_str_puts(out, metric == PG_METRIC_CYCLES ? " cycles" : " instr");
}

void pg_result_format_figure(pg_str *out, const pg_bench_result *b, double v)
{
    pg_result_format_metric(out, b->metric, v);
}

double pg_result_floor(const pg_result *r, const pg_bench_result *b)
{
    return b->metric            ? r->count_floor
           : b->noise_floor > 0 ? b->noise_floor
                                : r->noise_floor;
}

pg_bench_result *pg_result_add(pg_result *r, const char *name,
                               const char *problem)
{
    pg_bench_result *b;

    r->benchmarks = pg_realloc(r->benchmarks,
                               (r->nbenchmarks + 1) * sizeof(*r->benchmarks));
    b = &r->benchmarks[r->nbenchmarks++];
    pg_bench_result_init(b, name, problem);
    return b;
}

void pg_bench_result_init(pg_bench_result *b, const char *name,
                          const char *problem)
{
    memset(b, 0, sizeof(*b));
    b->name = pg_strdup(name ? name : "");
    b->problem = pg_strdup(problem ? problem : "");
    b->side = PG_SIDE_NONE;
    b->change = b->base_ns = b->head_ns = NAN;
    b->change_lo = b->change_hi = NAN;
    b->slower_case = -1;
    b->gates = 1;
    b->memory.worst_case = -1;
}

const pg_result_case *pg_result_slower_case(const pg_bench_result *b)
{
    if (b->slower_case < 0 || (size_t)b->slower_case >= b->ncases)
        return NULL;
    return &b->cases[b->slower_case];
}

size_t pg_result_count(const pg_result *r, pg_status status)
{
    size_t i, n = 0;

    for (i = 0; i < r->nbenchmarks; i++)
        n += r->benchmarks[i].status == status;
    return n;
}

/* A benchmark's texts, and those of its count (measure: all). */
static void bench_clean_text(pg_bench_result *b)
{
    size_t j;

    pg_text_clean_in_place(&b->name);
    pg_text_clean_in_place(&b->problem);
    pg_text_clean_in_place(&b->stop);
    pg_text_clean_in_place(&b->message);
    pg_text_clean_in_place(&b->culprit_subject);
    pg_text_clean_in_place(&b->culprit_author);
    pg_text_clean_in_place(&b->counter);
    pg_text_clean_in_place(&b->disagreement);
    pg_text_clean_in_place(&b->cpu_native);
    pg_text_clean_in_place(&b->cpu_simulated);
    pg_text_clean_in_place(&b->other_path);
    pg_text_clean_in_place(&b->uncounted);
    pg_text_clean_in_place(&b->memory.skipped);
    pg_profile_clean_text(b->profile);
    pg_text_clean_in_place(&b->log);
    for (j = 0; j < b->ncases; j++)
        pg_text_clean_in_place(&b->cases[j].name);
    if (b->counted)
        bench_clean_text(b->counted);
}

void pg_result_clean_text(pg_result *r)
{
    pg_side_info *sides[2] = {&r->base, &r->head};
    size_t i;

    pg_text_clean_in_place(&r->version);
    pg_text_clean_in_place(&r->config_digest);
    pg_text_clean_in_place(&r->unboxed);
    pg_text_clean_in_place(&r->held_env);
    pg_text_clean_in_place(&r->capped_by);
    pg_text_clean_in_place(&r->uncapped);
    pg_text_clean_in_place(&r->groups_kept);
    pg_text_clean_in_place(&r->main_machine);
    for (i = 0; i < r->nshards; i++) {
        pg_text_clean_in_place(&r->shards[i].host);
        pg_text_clean_in_place(&r->shards[i].balance);
    }
    for (i = 0; i < 2; i++) {
        pg_text_clean_in_place(&sides[i]->rev);
        pg_text_clean_in_place(&sides[i]->commit);
        pg_text_clean_in_place(&sides[i]->subject);
        pg_text_clean_in_place(&sides[i]->note);
    }
    for (i = 0; i < r->system.nwarnings; i++)
        pg_text_clean_in_place(&r->system.warnings[i]);
    pg_text_clean_in_place(&r->system.hypervisor);
    pg_text_clean_in_place(&r->system.governor);
    for (i = 0; i < r->nbenchmarks; i++)
        bench_clean_text(&r->benchmarks[i]);
}

static void profile_rows_free(pg_profile_row *rows, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(rows[i].function);
        free(rows[i].file);
        free(rows[i].text);
        free(rows[i].object);
    }
    free(rows);
}

void pg_profile_free(pg_profile *p)
{
    size_t i;

    if (!p)
        return;
    free(p->tool);
    free(p->unit);
    free(p->case_name);
    free(p->skipped);
    profile_rows_free(p->functions, p->nfunctions);
    profile_rows_free(p->lines, p->nlines);
    profile_rows_free(p->outside, p->noutside);
    profile_rows_free(p->alloc_sites, p->nalloc_sites);
    for (i = 0; i < p->nmetrics; i++) {
        free(p->metrics[i].kernel);
        free(p->metrics[i].name);
        free(p->metrics[i].unit);
    }
    free(p->metrics);
    free(p);
}

static void profile_rows_clean(pg_profile_row *rows, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        pg_text_clean_in_place(&rows[i].function);
        pg_text_clean_in_place(&rows[i].file);
        pg_text_clean_in_place(&rows[i].text);
        pg_text_clean_in_place(&rows[i].object);
    }
}

void pg_profile_clean_text(pg_profile *p)
{
    size_t i;

    if (!p)
        return;
    pg_text_clean_in_place(&p->tool);
    pg_text_clean_in_place(&p->unit);
    pg_text_clean_in_place(&p->case_name);
    pg_text_clean_in_place(&p->skipped);
    profile_rows_clean(p->functions, p->nfunctions);
    profile_rows_clean(p->lines, p->nlines);
    profile_rows_clean(p->alloc_sites, p->nalloc_sites);
    profile_rows_clean(p->outside, p->noutside);
    for (i = 0; i < p->nmetrics; i++) {
        pg_text_clean_in_place(&p->metrics[i].kernel);
        pg_text_clean_in_place(&p->metrics[i].name);
        pg_text_clean_in_place(&p->metrics[i].unit);
    }
}

void pg_bench_result_clear(pg_bench_result *b)
{
    size_t i;

    for (i = 0; i < b->ncases; i++) {
        free(b->cases[i].name);
        free(b->cases[i].samples[0]);
        free(b->cases[i].samples[1]);
    }
    free(b->cases);
    free(b->name);
    free(b->problem);
    free(b->message);
    free(b->log);
    free(b->stop);
    free(b->counter);
    free(b->disagreement);
    free(b->cpu_native);
    free(b->cpu_simulated);
    free(b->other_path);
    free(b->uncounted);
    free(b->memory.skipped);
    if (b->counted) {
        pg_bench_result_clear(b->counted);
        free(b->counted);
    }
    free(b->culprit);
    free(b->culprit_subject);
    free(b->culprit_author);
    pg_profile_free(b->profile);
    memset(b, 0, sizeof(*b));
}

static void side_free(pg_side_info *s)
{
    free(s->rev);
    free(s->commit);
    free(s->subject);
    free(s->note);
}

void pg_result_clear(pg_result *r)
{
    size_t i;

    for (i = 0; i < r->nbenchmarks; i++)
        pg_bench_result_clear(&r->benchmarks[i]);
    free(r->benchmarks);
    free(r->version);
    side_free(&r->base);
    side_free(&r->head);
    pg_system_clear(&r->system);
    free(r->config_digest);
    free(r->unboxed);
    free(r->held_env);
    free(r->capped_by);
    free(r->uncapped);
    free(r->groups_kept);
    free(r->main_machine);
    for (i = 0; i < r->nshards; i++) {
        free(r->shards[i].host);
        free(r->shards[i].balance);
    }
    free(r->shards);
    memset(r, 0, sizeof(*r));
}
