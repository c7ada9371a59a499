/*
 * stats.c - sums of minimums and the verdict (the rule is in stats.h).
 */
#include "stats.h"
#include "estimate.h"

#include <math.h>

#include "banned.h"

pg_status pg_stats_classify(double change, double noise_floor)
{
    if (change > noise_floor)
        return PG_STATUS_REGRESSION;
    if (change < -noise_floor)
        return PG_STATUS_IMPROVEMENT;
    return PG_STATUS_UNCHANGED;
}

/*
 * A case's own verdict.  Under gate: cases it is the rule itself, and the
 * measurement went on until every case was clear of the floor.  Under
 * gate: total only the total was made clear, so a case counts as slower
 * (or faster) only when its whole interval is beyond the floor: what is
 * said of a case must not be noise.
 */
static pg_status case_status(const pg_result_case *c, int gate_cases,
                             double noise_floor)
{
    if (isnan(c->change) || c->unresolved)
        return PG_STATUS_UNCHANGED;
    if (gate_cases)
        return pg_stats_classify(c->change, noise_floor);
    if (c->change_lo > noise_floor)
        return PG_STATUS_REGRESSION;
    if (c->change_hi < -noise_floor)
        return PG_STATUS_IMPROVEMENT;
    return PG_STATUS_UNCHANGED;
}

int pg_stats_unresolved(const pg_result_case *c, double noise_floor)
{
    return isfinite(c->base_ns) && isfinite(c->head_ns) &&
           isfinite(c->overhead_ns) && c->overhead_ns > 0 && noise_floor > 0 &&
           fmax(c->base_ns, c->head_ns) * noise_floor <
               PG_STATS_PLACEMENT_JITTER * c->overhead_ns;
}

/* Widens [lo, hi] of a change from `base` to `head` by `quantum` ns. */
static void widen(double *lo, double *hi, double change, double base,
                  double head, double quantum)
{
    pg_interval iv = {change, *lo, *hi};

    pg_estimate_widen(&iv, base, head, quantum);
    *lo = iv.lo;
    *hi = iv.hi;
}

/*
 * An unresolved case can move by PG_STATS_PLACEMENT_JITTER of the
 * harness's cost on either side with where its code lies, which one run
 * does not show: its interval says so, and so does the total's.
 */
static void widen_unresolved(pg_bench_result *b)
{
    double quantum = 0;
    size_t i;

    for (i = 0; i < b->ncases; i++) {
        pg_result_case *c = &b->cases[i];
        double q = PG_STATS_PLACEMENT_JITTER * c->overhead_ns;
        if (!c->unresolved)
            continue;
        widen(&c->change_lo, &c->change_hi, c->change, c->base_ns, c->head_ns,
              q);
        quantum += q;
    }
    if (b->base_ns > 0 && quantum > 0)
        widen(&b->change_lo, &b->change_hi, b->head_ns / b->base_ns - 1,
              b->base_ns, b->head_ns, quantum);
}

void pg_stats_decide(pg_bench_result *b, double noise_floor)
{
    double base = 0, head = 0;
    size_t i, unresolved = 0;

    for (i = 0; i < b->ncases; i++) {
        pg_result_case *c = &b->cases[i];
        c->unresolved = b->status != PG_STATUS_NEW && !b->metric &&
                        pg_stats_unresolved(c, noise_floor);
        unresolved += (size_t)c->unresolved;
        base += c->base_ns;
        head += c->head_ns;
        c->change = c->base_ns > 0    ? c->head_ns / c->base_ns - 1
                    : c->head_ns > 0  ? INFINITY
                    : c->base_ns == 0 ? 0
                                      : NAN;
        c->status = b->status == PG_STATUS_NEW
                        ? PG_STATUS_UNCHANGED
                        : case_status(c, b->gate_cases, noise_floor);
    }
    b->base_ns = base;
    b->head_ns = head;
    widen_unresolved(b);
    if (b->status == PG_STATUS_NEW) {
        b->base_ns = NAN;
        b->change = NAN;
        return;
    }
    /* Two totals of zero (an empty function on both sides) are equal. */
    if (base > 0)
        b->change = head / base - 1;
    else
        b->change = head > 0 ? INFINITY : 0;
    /* Nothing in it that this machine resolves: no label for the total
     * either. */
    b->status = unresolved && unresolved == b->ncases
                    ? PG_STATUS_UNCHANGED
                    : pg_stats_classify(b->change, noise_floor);
    b->side = PG_SIDE_NONE;
    for (i = 0; b->gate_cases && i < b->ncases; i++)
        if (b->cases[i].status == PG_STATUS_REGRESSION)
            b->status = PG_STATUS_REGRESSION;
}

const pg_result_case *pg_stats_hidden_regression(const pg_bench_result *b)
{
    const pg_result_case *worst = NULL;
    size_t i;

    if (b->status == PG_STATUS_REGRESSION || pg_stats_fails_gate(b))
        return NULL;
    for (i = 0; i < b->ncases; i++) {
        const pg_result_case *c = &b->cases[i];
        if (c->status == PG_STATUS_REGRESSION &&
            (!worst || c->change > worst->change))
            worst = c;
    }
    return worst;
}

int pg_stats_count_gates(const pg_bench_result *b)
{
    return !b->other_path || b->other_path_gates;
}

int pg_stats_counted_may_gate(const pg_bench_result *b)
{
    return b->counted && pg_stats_count_gates(b->counted) &&
           b->status != PG_STATUS_IMPROVEMENT;
}

int pg_stats_counted_fails(const pg_bench_result *b)
{
    return pg_stats_counted_may_gate(b) &&
           b->counted->status == PG_STATUS_REGRESSION;
}

int pg_stats_fails_gate(const pg_bench_result *b)
{
    /* measure: all: the count gates too (a disagreement is said, not
     * settled for one of them), but for pg_stats_counted_fails()'s two
     * exceptions. */
    if (pg_stats_counted_fails(b))
        return 1;
    switch (b->status) {
    case PG_STATUS_REGRESSION:
        return pg_stats_count_gates(b);
    case PG_STATUS_INCORRECT:
    case PG_STATUS_CRASHED:
    case PG_STATUS_TIMEOUT:
    case PG_STATUS_BUILD_FAILED:
        return b->side != PG_SIDE_BASE;
    default:
        return 0;
    }
}

/* 1 when every case of `b` that was measured is unresolved. */
static int all_unresolved(const pg_bench_result *b)
{
    size_t i, n = 0;

    for (i = 0; i < b->ncases; i++) {
        if (!b->cases[i].unresolved && !isnan(b->cases[i].change))
            return 0;
        n += (size_t)b->cases[i].unresolved;
    }
    return n > 0;
}

/* The largest change any of b's intervals allows, into *noise and *floor
 * when it is nearer b's floor than what they hold. */
static void aa_nearest(double *noise, double *floor, const pg_result *r,
                       const pg_bench_result *b)
{
    double lo, hi, n, f = pg_result_floor(r, b);

    if (all_unresolved(b))
        return;
    lo = isnan(b->change_lo) ? b->change : b->change_lo;
    hi = isnan(b->change_hi) ? b->change : b->change_hi;
    n = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
    if (!isnan(n) && f > 0 && (isnan(*noise) || n / f > *noise / *floor)) {
        *noise = n;
        *floor = f;
    }
}

/* Self-check: the largest change any interval allows, of the benchmarks
 * it resolves (one made only of unresolved cases says so instead), held
 * to each one's floor: a count's is the count floor, a time's the noise
 * floor.  The noise nearest its floor, and that floor. */
static void aa_noise(pg_verdict *v, const pg_result *r)
{
    size_t i;

    v->aa_noise = NAN;
    v->aa_floor = r->noise_floor;
    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        aa_nearest(&v->aa_noise, &v->aa_floor, r, b);
        if (b->counted)
            aa_nearest(&v->aa_noise, &v->aa_floor, r, b->counted);
    }
}

/* Self-check: the resolved case of identical code that reads furthest
 * beyond the floor, into v->aa_bench and v->aa_case (-1: none). */
static void aa_worst_case(pg_verdict *v, const pg_result *r)
{
    double worst = 0;
    size_t i, c;

    v->aa_bench = v->aa_case = -1;
    for (i = 0; i < r->nbenchmarks && r->aa; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        for (c = 0; c < b->ncases; c++) {
            const pg_result_case *cr = &b->cases[c];
            if (cr->unresolved || isnan(cr->change) ||
                fabs(cr->change) <= worst ||
                fabs(cr->change) <= pg_result_floor(r, b))
                continue;
            worst = fabs(cr->change);
            v->aa_bench = (long)i;
            v->aa_case = (long)c;
        }
    }
}

static int passed(const pg_result *r)
{
    size_t i;

    /* A self-check passes when the machine is quiet enough for the floor,
     * for the totals and for every case it resolves. */
    if (r->aa) {
        for (i = 0; i < r->nbenchmarks; i++)
            if (pg_status_failed(r->benchmarks[i].status))
                return 0;
        return r->verdict.aa_trusted && r->verdict.aa_case < 0;
    }

    for (i = 0; i < r->nbenchmarks; i++)
        if (pg_stats_fails_gate(&r->benchmarks[i]))
            return 0;
    return 1;
}

void pg_stats_judge(pg_result *r)
{
    pg_verdict *v = &r->verdict;
    size_t i;

    /* A saved result's cases are judged again: none is labelled that this
     * machine did not resolve, whatever the file says. */
    for (i = 0; i < r->nbenchmarks; i++) {
        pg_bench_result *b = &r->benchmarks[i];
        size_t c;
        for (c = 0; c < b->ncases && b->status != PG_STATUS_NEW; c++) {
            pg_result_case *cr = &b->cases[c];
            /* A count has no placement jitter: nothing is below it. */
            if ((cr->unresolved =
                     !b->metric && pg_stats_unresolved(cr, r->noise_floor)))
                cr->status = PG_STATUS_UNCHANGED;
        }
    }
    aa_noise(v, r);
    v->aa_trusted = !isnan(v->aa_noise) && v->aa_noise <= v->aa_floor / 2;
    aa_worst_case(v, r);
    v->passed = passed(r);
    v->warned = 0;
    for (i = 0; i < r->nbenchmarks; i++) {
        pg_bench_result *b = &r->benchmarks[i];
        const pg_result_case *c = pg_stats_hidden_regression(b);
        b->slower_case = c ? (long)(c - b->cases) : -1;
        /* In a self-check only a failure fails (passed()). */
        b->fails_gate =
            r->aa ? pg_status_failed(b->status) : pg_stats_fails_gate(b);
        if (c && !r->aa && v->passed)
            v->warned = 1;
    }
}
