/*
 * estimate.c - from the rounds' samples to a change with its interval, and
 * when to stop measuring (the rule is in estimate.h).  Nothing here runs
 * inside a timed region: the timing loop (measure.c) calls it between
 * rounds.
 */
#include "estimate.h"
#include "str.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void pg_estimate_rule_init(pg_estimate_rule *out, int min_rounds,
                           double max_time, double noise_floor)
{
    memset(out, 0, sizeof(*out));
    out->min_rounds = min_rounds;
    out->max_time = max_time;
    /* Long enough for a load that comes and goes to show itself in the
     * rounds, and so in the interval; the rule does the rest. */
    out->min_time = max_time / 20 < 0.25 ? max_time / 20 : 0.25;
    out->settle = 0.002;
    out->noise_floor = noise_floor;
    /* A minimum that moves less than a tenth of the floor cannot change the
     * verdict: it has settled. */
    if (noise_floor / 10 > out->settle)
        out->settle = noise_floor / 10;
    out->margin = noise_floor / 5;
}

const char *pg_estimate_stop_name(pg_stop stop)
{
    switch (stop) {
    case PG_STOP_CLEAR:
        return "clear";
    case PG_STOP_SETTLED:
        return "settled";
    case PG_STOP_MAX_TIME:
        return "max_time";
    case PG_STOP_TOO_FEW:
        return "too_few_rounds";
    default:
        return "running";
    }
}

int pg_estimate_is_clear(const pg_estimate_rule *rule, const pg_interval *c)
{
    double f = rule->noise_floor, m = rule->margin;

    if (isnan(c->change) || isnan(c->lo) || isnan(c->hi))
        return 0;
    if (c->lo > f)
        return c->change - f >= m;
    if (c->hi < -f)
        return -f - c->change >= m;
    /* A self-check asks more of "unchanged": within half the floor. */
    if (rule->self_check)
        f /= 2;
    if (c->lo > -f && c->hi < f)
        return f - fabs(c->change) >= m;
    return 0;
}

int pg_estimate_is_precise(const pg_estimate_rule *rule, const pg_interval *c)
{
    return !(rule->precision > 0) || (c->change - c->lo <= rule->precision &&
                                      c->hi - c->change <= rule->precision);
}

pg_stop pg_estimate_should_stop(const pg_estimate_rule *rule, int rounds,
                                int last_improved, double elapsed,
                                const pg_interval *change)
{
    if (elapsed >= rule->max_time)
        return PG_STOP_MAX_TIME;
    if (rounds < rule->min_rounds || elapsed < rule->min_time)
        return PG_STOP_NO;
    /* Settled: no minimum has moved in the latter half of the rounds. */
    if (rounds < 2 * last_improved)
        return PG_STOP_NO;
    if (!change)
        return PG_STOP_SETTLED;
    return pg_estimate_is_clear(rule, change) ? PG_STOP_CLEAR : PG_STOP_NO;
}

/* xorshift64*: the bootstrap's resampling, reproducible from its seed. */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1DULL;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* head / base - 1, of per-call times with the overhead discounted. */
static double ratio_change(double base, double head)
{
    if (base > 0)
        return head / base - 1;
    /* Two totals of zero (an empty function on both sides) are equal. */
    return head > 0 ? INFINITY : 0;
}

/* The median of n values, sorted in place (n small: placements, runs). */
static double median_of(double *v, size_t n)
{
    size_t i, j;

    for (i = 1; i < n; i++)
        for (j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int pg_estimate_run_slots(const pg_estimate_run *run)
{
    return run->slots > 1 ? run->slots : 1;
}

int pg_estimate_run_ready(const pg_estimate_run *run)
{
    return run->rounds >= 2 * (size_t)pg_estimate_run_slots(run);
}

/* Where a run's rounds lie, slot by slot: the rounds of slot k are
 * index[first[k]] .. index[first[k + 1] - 1]. */
typedef struct run_slots {
    size_t *index;
    size_t *first; /* slots + 1 */
    int slots;
} run_slots;

static void run_slots_init(run_slots *out, const pg_estimate_run *run)
{
    int k, n = pg_estimate_run_slots(run);
    size_t r, at = 0;

    out->slots = n;
    out->index = pg_malloc((run->rounds ? run->rounds : 1) * sizeof(size_t));
    out->first = pg_calloc((size_t)n + 1, sizeof(size_t));
    for (k = 0; k < n; k++) {
        out->first[k] = at;
        for (r = 0; r < run->rounds; r++)
            if ((r + (size_t)run->shift) % (size_t)n == (size_t)k)
                out->index[at++] = r;
    }
    out->first[n] = at;
}

/* What one resample (or the data itself) needs: a scratch area. */
typedef struct pooled {
    const pg_estimate_run *runs;
    const run_slots *slots; /* one per run */
    size_t nruns, ncases;
    double *per_run; /* [run draw][case][side]: ns, overhead discounted */
    double *cell;    /* [case][side]: the estimate */
    double *work;    /* median scratch: one per run */
    uint64_t *seed;  /* NULL: the data as it is, no resampling */
} pooled;

static uint64_t draw(pooled *p, uint64_t n)
{
    return p->seed ? next_random(p->seed) % n : 0;
}

/*
 * One run's time per call for every case and side (ns, into out[case][2]):
 * its minimum over the rounds, less the harness's cost.  Resampling, the
 * slots are drawn with replacement, and each drawn slot's rounds likewise
 * (both sides and every case of a round together, so that what hit a
 * round hits both sides of it): a minimum that one placement's luck
 * decided is then missing from a third of the resamples, and the
 * interval says so.
 */
static void run_estimate(pooled *p, size_t run, double *out)
{
    const pg_estimate_run *r = &p->runs[run];
    const run_slots *rs = &p->slots[run];
    size_t ncells = p->ncases * 2, c, k, i, taken = 0;

    for (c = 0; c < ncells; c++)
        out[c] = INFINITY;
    for (k = 0; k < (size_t)rs->slots; k++) {
        size_t slot = p->seed ? (size_t)draw(p, (uint64_t)rs->slots) : k;
        size_t lo = rs->first[slot], n = rs->first[slot + 1] - lo;
        taken += n;
        for (i = 0; i < n; i++) {
            size_t at = rs->index[lo + (p->seed ? draw(p, n) : i)];
            const double *row = r->samples + at * ncells;
            for (c = 0; c < ncells; c++)
                if (row[c] < out[c])
                    out[c] = row[c];
        }
    }
    for (c = 0; c < ncells; c++) {
        double v = out[c] - (r->overhead ? r->overhead[c / 2] : 0);
        out[c] = !taken ? NAN : v > 0 ? v : 0;
    }
}

/* The estimate from every run (or a resample of them): each case's time
 * per side, the median over the runs, into p->cell[case][side]; returns
 * the total's change, and with `cases` each case's. */
static double pooled_change(pooled *p, double *cases)
{
    size_t ncells = p->ncases * 2, c, k;
    double sum[2] = {0, 0};

    for (k = 0; k < p->nruns; k++)
        run_estimate(p, p->seed ? (size_t)draw(p, p->nruns) : k,
                     p->per_run + k * ncells);
    for (c = 0; c < ncells; c++) {
        for (k = 0; k < p->nruns; k++)
            p->work[k] = p->per_run[k * ncells + c];
        p->cell[c] = median_of(p->work, p->nruns);
        sum[c & 1] += p->cell[c];
    }
    for (c = 0; cases && c < p->ncases; c++)
        cases[c] = ratio_change(p->cell[c * 2], p->cell[c * 2 + 1]);
    return ratio_change(sum[0], sum[1]);
}

/* The 95% interval of `n` sorted-in-place estimates around `point`. */
static void percentile_interval(pg_interval *out, double point, double *est,
                                int n)
{
    qsort(est, (size_t)n, sizeof(*est), compare_doubles);
    out->change = point;
    out->lo = est[(size_t)(0.025 * (n - 1) + 0.5)];
    out->hi = est[(size_t)(0.975 * (n - 1) + 0.5)];
    /* Keep the point estimate inside its own interval. */
    if (point < out->lo)
        out->lo = point;
    if (point > out->hi)
        out->hi = point;
}

void pg_estimate_pooled(pg_interval *out, pg_interval *cases, double *ns,
                        const pg_estimate_run *runs, size_t nruns,
                        size_t ncases, int resamples)
{
    pooled p;
    run_slots *slots;
    double *est, *point;
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    size_t c, k, ncols = cases ? ncases + 1 : 1, ncells;
    int b;

    out->change = out->lo = out->hi = NAN;
    for (c = 0; cases && c < ncases; c++)
        cases[c] = *out;
    for (c = 0; ns && c < ncases * 2; c++)
        ns[c] = NAN;
    for (k = 0; k < nruns; k++)
        if (!runs[k].rounds)
            return;
    if (!nruns || !ncases)
        return;
    ncells = ncases * 2;
    slots = pg_calloc(nruns, sizeof(*slots));
    for (k = 0; k < nruns; k++)
        run_slots_init(&slots[k], &runs[k]);
    memset(&p, 0, sizeof(p));
    p.runs = runs;
    p.slots = slots;
    p.nruns = nruns;
    p.ncases = ncases;
    p.per_run = pg_malloc(nruns * ncells * sizeof(double));
    p.cell = pg_malloc(ncells * sizeof(double));
    p.work = pg_malloc(nruns * sizeof(double));
    point = pg_malloc(ncols * sizeof(*point));
    point[0] = pooled_change(&p, cases ? point + 1 : NULL);
    if (ns)
        memcpy(ns, p.cell, ncells * sizeof(double));
    if (resamples < 2) {
        for (c = 0; c < ncols; c++) {
            pg_interval *iv = c ? &cases[c - 1] : out;
            iv->change = iv->lo = iv->hi = point[c];
        }
        goto done;
    }
    /* est[c * resamples + b]: column c (the total, then each case). */
    est = pg_malloc(ncols * (size_t)resamples * sizeof(*est));
    p.seed = &seed;
    for (b = 0; b < resamples; b++) {
        est[(size_t)b] = pooled_change(&p, NULL);
        for (c = 1; c < ncols; c++)
            est[c * (size_t)resamples + (size_t)b] =
                ratio_change(p.cell[(c - 1) * 2], p.cell[(c - 1) * 2 + 1]);
    }
    for (c = 0; c < ncols; c++)
        percentile_interval(c ? &cases[c - 1] : out, point[c],
                            est + c * (size_t)resamples, resamples);
    free(est);
done:
    for (k = 0; k < nruns; k++) {
        free(slots[k].index);
        free(slots[k].first);
    }
    free(slots);
    free(point);
    free(p.per_run);
    free(p.cell);
    free(p.work);
}

void pg_estimate_interval(pg_interval *out, pg_interval *cases,
                          const double *samples, const double *overhead,
                          size_t ncases, size_t rounds, int resamples)
{
    pg_estimate_run run;

    memset(&run, 0, sizeof(run));
    run.samples = samples;
    run.rounds = rounds;
    run.overhead = overhead;
    run.slots = 1;
    pg_estimate_pooled(out, cases, NULL, &run, 1, ncases, resamples);
}

int pg_estimate_unresolved(double base_ns, double head_ns, double overhead_ns,
                           double noise_floor)
{
    return isfinite(base_ns) && isfinite(head_ns) && isfinite(overhead_ns) &&
           overhead_ns > 0 && noise_floor > 0 &&
           fmax(base_ns, head_ns) * noise_floor <
               PG_ESTIMATE_PLACEMENT_JITTER * overhead_ns;
}

void pg_estimate_widen_all(pg_interval *total, pg_interval *cases,
                           const double *ns, const double *overhead,
                           const double *quantum, size_t ncases, double jitter,
                           double noise_floor)
{
    double sum[2] = {0, 0}, q_total = 0;
    size_t c;

    for (c = 0; c < ncases; c++) {
        const double *cell = ns + c * 2;
        double q = quantum ? quantum[c] : 0;
        /* A time repeats from process to process only so closely. */
        if (jitter > 0 && isfinite(cell[0]) && isfinite(cell[1]))
            q += PG_ESTIMATE_REPEATABILITY * fmax(cell[0], cell[1]);
        /* A case below what the machine resolves moves with where its
         * code lies by a share of the harness's cost, which no run
         * shows. */
        if (jitter > 0 && overhead &&
            pg_estimate_unresolved(cell[0], cell[1], overhead[c], noise_floor))
            q += jitter * overhead[c];
        pg_estimate_widen(&cases[c], cell[0], cell[1], q);
        sum[0] += cell[0];
        sum[1] += cell[1];
        q_total += q;
    }
    pg_estimate_widen(total, sum[0], sum[1], q_total);
}

/* Under gate: cases, every case must be clear of the floor as well. */
static int cases_clear(const pg_estimate_rule *rule, const pg_interval *cases,
                       size_t ncases)
{
    size_t c;

    for (c = 0; rule->gate_cases && c < ncases; c++)
        if (!pg_estimate_is_clear(rule, &cases[c]))
            return 0;
    return 1;
}

int pg_estimate_pooled_clear(const pg_estimate_rule *rule,
                             const pg_interval *total, const pg_interval *cases,
                             const double *ns, const double *overhead,
                             size_t ncases)
{
    size_t c;

    if (!pg_estimate_is_clear(rule, total) ||
        !pg_estimate_is_precise(rule, total) ||
        !cases_clear(rule, cases, ncases))
        return 0;
    /* A self-check judges every case it resolves (stats.c). */
    for (c = 0; rule->self_check && !rule->gate_cases && c < ncases; c++)
        if (!pg_estimate_unresolved(ns[c * 2], ns[c * 2 + 1], overhead[c],
                                    rule->noise_floor) &&
            !pg_estimate_is_clear(rule, &cases[c]))
            return 0;
    return 1;
}

/* The settle threshold of the total and, under gate: cases, of the case
 * nearest the floor. */
static double settle_threshold(const pg_estimate_rule *rule,
                               const pg_interval *change,
                               const pg_interval *cases, size_t ncases)
{
    double t = pg_estimate_settle_threshold(rule, change);
    size_t c;

    for (c = 0; rule->gate_cases && c < ncases; c++)
        t = fmin(t, pg_estimate_settle_threshold(rule, &cases[c]));
    return t;
}

double pg_estimate_settle_threshold(const pg_estimate_rule *rule,
                                    const pg_interval *change)
{
    double f = rule->noise_floor, d;

    if (!change || isnan(change->change))
        return rule->settle;
    d = fmin(fabs(change->change - f), fabs(change->change + f));
    /* Never looser than half the floor: the size printed is to be right
     * too, not only the side of the floor it lies on (a process that
     * spent its first rounds in a slow state read a 8x regression as
     * 4.9x, stopped "clear" on a threshold of 175%). */
    d = fmin(d / 2, f / 2);
    return d > rule->settle ? d : rule->settle;
}

int pg_estimate_last_gain(const double *gain, int rounds, double threshold)
{
    int r;

    for (r = rounds; r > 0; r--)
        if (gain[r - 1] > threshold)
            return r;
    return 0;
}

pg_stop pg_estimate_check(const pg_estimate_rule *rule,
                          const pg_interval *change, const pg_interval *cases,
                          size_t ncases, const double *gain, int rounds,
                          double elapsed, int ready)
{
    pg_stop stop = pg_estimate_should_stop(
        rule, rounds,
        pg_estimate_last_gain(gain, rounds,
                              settle_threshold(rule, change, cases, ncases)),
        elapsed, change);

    /* The budget spent before every placement was seen twice: no label
     * rests on what one or two placements drew. */
    if (stop == PG_STOP_MAX_TIME && !ready)
        return PG_STOP_TOO_FEW;
    if (stop == PG_STOP_CLEAR &&
        (!ready || !pg_estimate_is_precise(rule, change) ||
         !cases_clear(rule, cases, ncases)))
        stop = PG_STOP_NO;
    return stop;
}

void pg_estimate_widen(pg_interval *iv, double base, double head,
                       double quantum)
{
    double lo, hi;

    if (!isfinite(iv->change) || !(base >= 0) || !(head >= 0) || !(quantum > 0))
        return;
    /* An interval not known (0 against 0) is the change itself. */
    if (isnan(iv->lo) || isnan(iv->hi))
        iv->lo = iv->hi = iv->change;
    lo = (head > quantum ? head - quantum : 0) / (base + quantum) - 1;
    hi = base > quantum ? (head + quantum) / (base - quantum) - 1 : INFINITY;
    iv->lo = fmax(iv->lo - fmax(iv->change - lo, 0), -1);
    iv->hi += fmax(hi - iv->change, 0);
}
