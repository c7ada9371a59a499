/*
 * draws.c - a benchmark measured in several fresh processes, their rounds
 * pooled into one estimate (the rule is in draws.h and estimate.h).
 */
#include "draws.h"
#include "clock.h"
#include "estimate.h"
#include "run.h"
#include "split.h"
#include "str.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* One process's rounds, as they lie in the pooled result's samples. */
typedef struct draw {
    size_t start;     /* its first round in each case's samples */
    size_t rounds;    /* its rounds there */
    int slots, shift; /* its placements (pg_estimate_run) */
    double *overhead; /* [case]: the harness's cost per call */
    double *quantum;  /* [case]: one sample's timer error per call */
} draw;

/* The processes so far, and what they add up to. */
typedef struct draws {
    draw d[PG_DRAWS_MAX];
    size_t n;
    const pg_run_spec *spec;
    int rounds;     /* of the processes before this one, for progress */
    double seconds; /* likewise */
} draws;

/* Which benchmarks are measured in several processes (draws.h). */
static int pools(const pg_run_spec *spec)
{
    return spec->lib[0] && spec->lib[1] && !spec->verify_only &&
           !spec->metric && !spec->gpu;
}

/* Progress through every process, as one measurement. */
static void on_progress(void *payload, const char *stage, int round,
                        double elapsed)
{
    const draws *ds = payload;

    if (ds->n && strcmp(stage, "measuring"))
        return;
    ds->spec->on_progress(ds->spec->payload, stage, ds->rounds + round,
                          ds->seconds + elapsed);
}

/* The rounds of the last process are in `out`'s samples from `start`:
 * how many every case and side has. */
static size_t rounds_since(const pg_bench_result *out, size_t start)
{
    size_t c, n = SIZE_MAX;
    int s;

    for (c = 0; c < out->ncases; c++)
        for (s = 0; s < 2; s++) {
            size_t have = out->cases[c].nsamples[s];
            have = have > start ? have - start : 0;
            n = have < n ? have : n;
        }
    return n == SIZE_MAX ? 0 : n;
}

static void record_draw(draws *ds, const pg_bench_result *one,
                        const pg_bench_result *out, size_t start)
{
    draw *d = &ds->d[ds->n];
    size_t c;

    d->start = start;
    d->rounds = rounds_since(out, start);
    d->slots = one->slots;
    d->shift = one->shift;
    d->overhead = pg_calloc(out->ncases ? out->ncases : 1, sizeof(double));
    d->quantum = pg_calloc(out->ncases ? out->ncases : 1, sizeof(double));
    for (c = 0; c < out->ncases; c++) {
        d->overhead[c] = one->cases[c].overhead_ns;
        d->quantum[c] = one->cases[c].quantum_ns;
    }
    ds->n++;
}

/* A later process's samples and sums, added to `out`'s. */
static void add_process(pg_bench_result *out, const pg_bench_result *one)
{
    size_t c;
    int s;

    for (c = 0; c < out->ncases && c < one->ncases; c++)
        for (s = 0; s < 2; s++) {
            pg_result_case *to = &out->cases[c];
            const pg_result_case *from = &one->cases[c];
            if (!from->nsamples[s])
                continue;
            to->samples[s] = pg_realloc(to->samples[s],
                                        (to->nsamples[s] + from->nsamples[s]) *
                                            sizeof(double));
            memcpy(to->samples[s] + to->nsamples[s], from->samples[s],
                   from->nsamples[s] * sizeof(double));
            to->nsamples[s] += from->nsamples[s];
        }
    out->rounds += one->rounds;
    out->calls[0] += one->calls[0];
    out->calls[1] += one->calls[1];
    out->seconds += one->seconds;
}

/* A later process failed: the benchmark ends with its failure. */
static void take_failure(pg_bench_result *out, pg_bench_result *one)
{
    out->status = one->status;
    out->side = one->side;
    free(out->message);
    out->message = one->message;
    one->message = NULL;
    free(out->log);
    out->log = one->log;
    one->log = NULL;
}

/*
 * The estimate of every process that saw each of its placements twice
 * (all of them when none did), into `total`, `cases` and ns[case][2],
 * widened as the measuring process widens its own (measure.c), with the
 * harness's mean cost per call of those processes into overhead[case].
 * Returns how many processes it pooled that were ready.
 */
static size_t pool(pg_interval *total, pg_interval *cases, double *ns,
                   double *overhead, const pg_bench_result *out,
                   const draws *ds)
{
    size_t ncases = out->ncases, k, c, r, n = 0, ready = 0;
    pg_estimate_run *runs = pg_calloc(ds->n, sizeof(*runs));
    double **flat = pg_calloc(ds->n, sizeof(*flat));
    double *quantum = pg_calloc(ncases, sizeof(double));
    int s;

    for (c = 0; c < ncases; c++)
        overhead[c] = 0;

    for (k = 0; k < ds->n; k++) {
        const draw *d = &ds->d[k];
        pg_estimate_run probe;
        memset(&probe, 0, sizeof(probe));
        probe.rounds = d->rounds;
        probe.slots = d->slots;
        ready += d->rounds > 0 && pg_estimate_run_ready(&probe);
    }
    for (k = 0; k < ds->n; k++) {
        const draw *d = &ds->d[k];
        pg_estimate_run *run = &runs[n];
        run->rounds = d->rounds;
        run->slots = d->slots;
        run->shift = d->shift;
        if (!d->rounds || (ready && !pg_estimate_run_ready(run)))
            continue;
        flat[n] = pg_malloc(d->rounds * ncases * 2 * sizeof(double));
        for (r = 0; r < d->rounds; r++)
            for (c = 0; c < ncases; c++)
                for (s = 0; s < 2; s++)
                    flat[n][(r * ncases + c) * 2 + (size_t)s] =
                        out->cases[c].samples[s][d->start + r];
        run->samples = flat[n];
        run->overhead = d->overhead;
        for (c = 0; c < ncases; c++) {
            overhead[c] += d->overhead[c];
            quantum[c] = fmax(quantum[c], d->quantum[c]);
        }
        n++;
    }
    for (c = 0; n && c < ncases; c++)
        overhead[c] /= (double)n;
    pg_estimate_pooled(total, cases, ns, runs, n, ncases,
                       PG_ESTIMATE_RESAMPLES);
    if (n)
        pg_estimate_widen_all(total, cases, ns, overhead, quantum, ncases,
                              PG_ESTIMATE_PLACEMENT_JITTER,
                              ds->spec->settings->noise_floor);
    for (k = 0; k < n; k++)
        free(flat[k]);
    free(flat);
    free(runs);
    free(quantum);
    return ready;
}

/* Under the rule of `spec`: does the pooled estimate earn its stop
 * (pg_estimate_pooled_clear())? */
static int clear(const pg_run_spec *spec, const pg_interval *total,
                 const pg_interval *cases, const double *ns,
                 const double *overhead, size_t ncases)
{
    pg_estimate_rule rule;

    pg_run_spec_rule(spec, &rule);
    return pg_estimate_pooled_clear(&rule, total, cases, ns, overhead, ncases);
}

/* The pooled estimate into `out`: its cases' times and intervals, the
 * total's interval, and the samples kept for pictures. */
static void store(pg_bench_result *out, const pg_interval *total,
                  const pg_interval *cases, const double *ns, const draws *ds)
{
    size_t c, k;
    int s;

    for (c = 0; c < out->ncases; c++) {
        pg_result_case *cr = &out->cases[c];
        cr->base_ns = ns[c * 2];
        cr->head_ns = ns[c * 2 + 1];
        cr->change_lo = cases[c].lo;
        cr->change_hi = cases[c].hi;
        cr->overhead_ns = 0;
        for (k = 0; k < ds->n; k++)
            cr->overhead_ns += ds->d[k].overhead[c] / (double)ds->n;
        for (s = 0; s < 2; s++)
            if (cr->nsamples[s] > PG_MAX_SAMPLES)
                cr->nsamples[s] = PG_MAX_SAMPLES;
    }
    out->change_lo = total->lo;
    out->change_hi = total->hi;
}

static int measured(const pg_bench_result *b)
{
    return !pg_status_failed(b->status) && b->status != PG_STATUS_SKIPPED &&
           b->rounds > 0;
}

/* What each process is asked (`child`, with its `settings`): its share of
 * the least rounds and time of the whole; its progress through `ds`. */
static void child_spec(pg_run_spec *child, pg_settings *settings, draws *ds)
{
    const pg_run_spec *spec = ds->spec;
    pg_estimate_rule whole;

    child->settings = settings;
    /* The least number of rounds is the whole measurement's, and there
     * are two processes at least. */
    settings->min_rounds = (spec->settings->min_rounds + 1) / 2;
    /* Likewise the least time: long enough, over the processes, for a
     * load or a slow state that comes and goes to show itself. */
    pg_estimate_rule_init(&whole, settings->min_rounds,
                          spec->settings->max_time,
                          spec->settings->noise_floor);
    child->min_time = whole.min_time / 2;
    if (spec->on_progress) {
        child->on_progress = on_progress;
        child->payload = ds;
    }
}

/*
 * One more process: the first writes `out`, a later one is added to it.
 * 0 when it measured; 1 when it failed (its failure is the benchmark's,
 * in `out`); negative when perfgate itself failed.
 */
static int one_draw(pg_bench_result *out, const pg_run_spec *child,
                    const char *spec_path, draws *ds)
{
    const int later = ds->n > 0; /* into `one`, then added to `out` */
    pg_bench_result one, *dst = later ? &one : out;
    size_t at = later && out->ncases ? out->cases[0].nsamples[0] : 0;
    int err;

    if (later)
        pg_bench_result_init(&one, out->name, NULL);
    if ((err = pg_split_or_run(dst, child, spec_path)) < 0) {
        if (later)
            pg_bench_result_clear(&one);
        return err;
    }
    if (!measured(dst)) {
        /* The first process's failure is the benchmark's as it is. */
        if (later) {
            take_failure(out, &one);
            pg_bench_result_clear(&one);
        }
        out->processes = (int)ds->n + 1;
        return 1;
    }
    if (later)
        add_process(out, &one);
    record_draw(ds, dst, out, at);
    ds->rounds += dst->rounds;
    ds->seconds += dst->seconds;
    if (later)
        pg_bench_result_clear(&one);
    return 0;
}

int pg_draws_run(pg_bench_result *out, const pg_run_spec *spec,
                 const char *spec_path)
{
    const double budget = spec->settings->max_time;
    pg_settings settings = *spec->settings;
    pg_run_spec child = *spec;
    pg_interval total = {NAN, NAN, NAN}, *cases = NULL;
    double *ns = NULL, *overhead = NULL;
    size_t k, ready = 0;
    int64_t start = pg_now_ns();
    int err = 0, done = 0;
    draws ds;

    if (!pools(spec))
        return pg_split_or_run(out, spec, spec_path);
    memset(&ds, 0, sizeof(ds));
    ds.spec = spec;
    child_spec(&child, &settings, &ds);
    while (ds.n < PG_DRAWS_MAX && !done) {
        double left = budget - (double)(pg_now_ns() - start) / 1e9;

        /* Two processes at least, each on a quarter of the budget, then
         * more while it lasts; the last takes what is left. */
        if (ds.n >= 2 && left < budget / 8)
            break;
        settings.max_time = budget / 4;
        if (ds.n >= 2 && left < budget * 3 / 8)
            settings.max_time = left;
        /* Both sides are checked once before timing, by the first
         * process, and after it by each later one (there is always one). */
        child.skip_checks = ds.n ? PG_CHECK_BEFORE : PG_CHECK_AFTER;
        if ((err = one_draw(out, &child, spec_path, &ds)) != 0) {
            err = err < 0 ? err : 0;
            goto cleanup;
        }
        if (!cases) {
            cases = pg_calloc(out->ncases ? out->ncases : 1, sizeof(*cases));
            ns = pg_calloc(out->ncases * 2 + 1, sizeof(*ns));
            overhead = pg_calloc(out->ncases + 1, sizeof(*overhead));
        }
        ready = pool(&total, cases, ns, overhead, out, &ds);
        done =
            ready >= 2 && clear(spec, &total, cases, ns, overhead, out->ncases);
    }
    free(out->stop);
    out->stop =
        pg_strdup(pg_estimate_stop_name(done         ? PG_STOP_CLEAR
                                        : ready >= 2 ? PG_STOP_MAX_TIME
                                                     : PG_STOP_TOO_FEW));
    out->processes = (int)ds.n;
    store(out, &total, cases, ns, &ds);
cleanup:
    for (k = 0; k < ds.n; k++) {
        free(ds.d[k].overhead);
        free(ds.d[k].quantum);
    }
    free(cases);
    free(ns);
    free(overhead);
    return err;
}
