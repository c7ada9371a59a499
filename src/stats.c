/*
 * stats.c - sums of minimums and the verdict.
 */
#include "stats.h"

#include <math.h>

pg_status pg_classify(double change, double noise_floor)
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
static pg_status case_status(const pg_case_result *c, int gate_cases,
                             double noise_floor)
{
    if (isnan(c->change))
        return PG_STATUS_UNCHANGED;
    if (gate_cases)
        return pg_classify(c->change, noise_floor);
    if (c->change_lo > noise_floor)
        return PG_STATUS_REGRESSION;
    if (c->change_hi < -noise_floor)
        return PG_STATUS_IMPROVEMENT;
    return PG_STATUS_UNCHANGED;
}

void pg_decide(pg_bench_result *b, double noise_floor)
{
    double base = 0, head = 0;
    size_t i;

    for (i = 0; i < b->ncases; i++) {
        pg_case_result *c = &b->cases[i];
        base += c->base_ns;
        head += c->head_ns;
        c->change = c->base_ns > 0   ? c->head_ns / c->base_ns - 1
                    : c->head_ns > 0 ? INFINITY
                    : c->base_ns == 0 ? 0
                                      : NAN;
        c->status = b->status == PG_STATUS_NEW
                        ? PG_STATUS_UNCHANGED
                        : case_status(c, b->gate_cases, noise_floor);
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
    b->status = pg_classify(b->change, noise_floor);
    b->side = PG_SIDE_NONE;
    for (i = 0; b->gate_cases && i < b->ncases; i++)
        if (b->cases[i].status == PG_STATUS_REGRESSION)
            b->status = PG_STATUS_REGRESSION;
}

const pg_case_result *pg_bench_hidden_regression(const pg_bench_result *b)
{
    const pg_case_result *worst = NULL;
    size_t i;

    if (b->status == PG_STATUS_REGRESSION || pg_bench_fails_gate(b))
        return NULL;
    for (i = 0; i < b->ncases; i++) {
        const pg_case_result *c = &b->cases[i];
        if (c->status == PG_STATUS_REGRESSION &&
            (!worst || c->change > worst->change))
            worst = c;
    }
    return worst;
}

static int is_failure_status(pg_status st)
{
    return st == PG_STATUS_INCORRECT || st == PG_STATUS_CRASHED ||
           st == PG_STATUS_TIMEOUT || st == PG_STATUS_BUILD_FAILED;
}

int pg_bench_fails_gate(const pg_bench_result *b)
{
    switch (b->status) {
    case PG_STATUS_REGRESSION:
        return 1;
    case PG_STATUS_INCORRECT:
    case PG_STATUS_CRASHED:
    case PG_STATUS_TIMEOUT:
    case PG_STATUS_BUILD_FAILED:
        return b->side != PG_SIDE_BASE;
    default:
        return 0;
    }
}

int pg_result_passed(const pg_result *r)
{
    size_t i;

    /* A self-check passes when the machine is quiet enough for the floor. */
    if (r->aa) {
        for (i = 0; i < r->nbenchmarks; i++)
            if (is_failure_status(r->benchmarks[i].status))
                return 0;
        return pg_result_aa_trusted(r);
    }

    for (i = 0; i < r->nbenchmarks; i++)
        if (pg_bench_fails_gate(&r->benchmarks[i]))
            return 0;
    return 1;
}

int pg_result_warned(const pg_result *r)
{
    size_t i;

    if (r->aa || !pg_result_passed(r))
        return 0;
    for (i = 0; i < r->nbenchmarks; i++)
        if (pg_bench_hidden_regression(&r->benchmarks[i]))
            return 1;
    return 0;
}

size_t pg_result_count(const pg_result *r, pg_status status)
{
    size_t i, n = 0;

    for (i = 0; i < r->nbenchmarks; i++)
        n += r->benchmarks[i].status == status;
    return n;
}
