/*
 * stats.c - sums of minimums and the verdict (the rule is in stats.h).
 */
#include "stats.h"
#include "estimate.h"
#include "memory.h"

#include <math.h>
#include <string.h>

#include "banned.h"

pg_status pg_stats_classify(double change, double noise_floor)
{
    if (change > noise_floor)
        return PG_STATUS_REGRESSION;
    if (change < -noise_floor)
        return PG_STATUS_IMPROVEMENT;
    return PG_STATUS_UNCHANGED;
}

pg_status pg_stats_label(double change, double lo, double hi,
                         double noise_floor)
{
    if (isnan(lo) || isnan(hi))
        return pg_stats_classify(change, noise_floor);
    if (lo > noise_floor)
        return PG_STATUS_REGRESSION;
    if (hi < -noise_floor)
        return PG_STATUS_IMPROVEMENT;
    if (lo >= -noise_floor && hi <= noise_floor)
        return PG_STATUS_UNCHANGED;
    return PG_STATUS_INCONCLUSIVE;
}

int pg_stats_unresolved(const pg_result_case *c, double noise_floor)
{
    return pg_estimate_unresolved(c->base_ns, c->head_ns, c->overhead_ns,
                                  noise_floor);
}

int pg_stats_too_few(const pg_bench_result *b)
{
    return b->stop && !strcmp(b->stop, pg_estimate_stop_name(PG_STOP_TOO_FEW));
}

/* A case's own label, by its interval (pg_stats_label); a case not
 * measured is unchanged, one below the machine's resolution unresolved. */
static pg_status case_status(const pg_result_case *c, double noise_floor)
{
    if (isnan(c->change))
        return PG_STATUS_UNCHANGED;
    if (c->unresolved)
        return PG_STATUS_UNRESOLVED;
    return pg_stats_label(c->change, c->change_lo, c->change_hi, noise_floor);
}

/* The benchmark's status from its total and, under gate: cases, from
 * every case: any case slower beyond the floor is a regression, and any
 * case left inconclusive leaves the benchmark so unless it is one. */
static pg_status bench_status(const pg_bench_result *b, double noise_floor,
                              size_t unresolved)
{
    pg_status st;
    size_t i;

    /* Nothing in it that this machine resolves: no label at all. */
    if (unresolved && unresolved == b->ncases)
        return PG_STATUS_UNRESOLVED;
    /* The budget ran out before every placement was seen twice. */
    if (pg_stats_too_few(b))
        return PG_STATUS_INCONCLUSIVE;
    st = pg_stats_label(b->change, b->change_lo, b->change_hi, noise_floor);
    for (i = 0; b->gate_cases && i < b->ncases; i++) {
        if (b->cases[i].status == PG_STATUS_REGRESSION)
            return PG_STATUS_REGRESSION;
        if (b->cases[i].status == PG_STATUS_INCONCLUSIVE)
            st = PG_STATUS_INCONCLUSIVE;
    }
    return st;
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
        c->status = b->status == PG_STATUS_NEW ? PG_STATUS_UNCHANGED
                                               : case_status(c, noise_floor);
    }
    b->base_ns = base;
    b->head_ns = head;
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
    b->side = PG_SIDE_NONE;
    b->status = bench_status(b, noise_floor, unresolved);
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

static int count_gates(const pg_bench_result *b)
{
    return !b->other_path || b->other_path_gates;
}

static int counted_may_gate(const pg_bench_result *b)
{
    return b->counted && count_gates(b->counted) &&
           b->status != PG_STATUS_IMPROVEMENT;
}

static int counted_fails(const pg_bench_result *b)
{
    return counted_may_gate(b) && b->counted->status == PG_STATUS_REGRESSION;
}

void pg_stats_same_code(pg_bench_result *b)
{
    b->status = PG_STATUS_UNCHANGED;
    b->change = 0;
}

/* Accepted on purpose, up to its size (accept: in the config). */
static int within_accept(const pg_bench_result *b)
{
    return b->accept_up_to > 0 && b->change <= b->accept_up_to;
}

int pg_stats_fails_gate(const pg_bench_result *b)
{
    /* measure: all: the count gates too (a disagreement is said, not
     * settled for one of them), but for counted_may_gate()'s two
     * exceptions. */
    if (counted_fails(b))
        return 1;
    /* memory: gate: the heap gates beside the time, however fast. */
    if (pg_memory_fails_gate(b) && !pg_status_failed(b->status))
        return 1;
    switch (b->status) {
    case PG_STATUS_REGRESSION:
        if (within_accept(b))
            return 0;
        return count_gates(b);
    case PG_STATUS_INCONCLUSIVE:
        return b->inconclusive_fails;
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

/* A compare: the widest interval for its floor, its half-width and that
 * floor, of the benchmarks it resolved (pg_verdict's noise). */
static void run_noise(pg_verdict *v, const pg_result *r)
{
    size_t i;

    v->noise_bench = -1;
    v->noise = v->noise_floor = NAN;
    for (i = 0; i < r->nbenchmarks && !r->aa; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        double f = pg_result_floor(r, b), half;
        if (all_unresolved(b) || isnan(b->change_lo) || isnan(b->change_hi) ||
            !(f > 0))
            continue;
        half = (b->change_hi - b->change_lo) / 2;
        if (v->noise_bench < 0 || half / f > v->noise / v->noise_floor) {
            v->noise_bench = (long)i;
            v->noise = half;
            v->noise_floor = f;
        }
    }
}

int pg_stats_noisy_run(const pg_result *r)
{
    const pg_verdict *v = &r->verdict;

    return v->noise_bench >= 0 && v->noise > v->noise_floor / 2;
}

static int passed(const pg_result *r)
{
    size_t i;

    /* A self-check passes when the machine is quiet enough for the floor,
     * for the totals and for every case it resolves. */
    if (r->aa) {
        /* The heap of the same code is the same to the byte: any change
         * on identical code is a fault of this run, not noise. */
        for (i = 0; i < r->nbenchmarks; i++)
            if (pg_status_failed(r->benchmarks[i].status) ||
                r->benchmarks[i].memory.worst_case >= 0)
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
        pg_memory_judge(b);
        for (c = 0; c < b->ncases && b->status != PG_STATUS_NEW; c++) {
            pg_result_case *cr = &b->cases[c];
            /* A count has no placement jitter: nothing is below it. */
            if ((cr->unresolved = !b->metric && pg_stats_unresolved(
                                                    cr, pg_result_floor(r, b))))
                cr->status = PG_STATUS_UNRESOLVED;
        }
    }
    aa_noise(v, r);
    v->aa_trusted = !isnan(v->aa_noise) && v->aa_noise <= v->aa_floor / 2;
    aa_worst_case(v, r);
    run_noise(v, r);
    v->passed = passed(r);
    v->warned = 0;
    for (i = 0; i < r->nbenchmarks; i++) {
        pg_bench_result *b = &r->benchmarks[i];
        const pg_result_case *c = pg_stats_hidden_regression(b);
        b->slower_case = c ? (long)(c - b->cases) : -1;
        /* In a self-check only a failure fails (passed()). */
        b->fails_gate =
            r->aa ? pg_status_failed(b->status) : pg_stats_fails_gate(b);
        b->accepted =
            !r->aa && b->status == PG_STATUS_REGRESSION && within_accept(b);
        /* measure: all: the count's own mark, as its status alone would
         * gate (whether it does, beside the time, is b's). */
        if (b->counted)
            b->counted->fails_gate = r->aa
                                         ? pg_status_failed(b->counted->status)
                                         : pg_stats_fails_gate(b->counted);
        b->gates = count_gates(b);
        b->count_gates = counted_may_gate(b);
        b->counts_as = (counted_fails(b) || pg_memory_fails_gate(b)) &&
                               !pg_status_failed(b->status)
                           ? PG_STATUS_REGRESSION
                           : b->status;
        if (b->counted) {
            b->counted->gates = count_gates(b->counted);
            b->counted->counts_as = b->counted->status;
        }
        if (c && !r->aa && v->passed)
            v->warned = 1;
    }
}
