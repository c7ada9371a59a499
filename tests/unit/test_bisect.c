/* bisect's rules without measuring: a probe's outcome and the next probe
 * (bisect.h). */
#include <math.h>
#include <string.h>

#include "bisect.h"
#include "result.h"
#include "counter.h"
#include "stats.h"
#include "str.h"
#include "test.h"

/* A result of one benchmark with `status` and the interval [lo, hi] of
 * its change; `gate_cases` as configured. */
static void one(pg_result *r, pg_status status, double lo, double hi,
                int gate_cases)
{
    pg_bench_result *b;

    memset(r, 0, sizeof(*r));
    b = pg_result_add(r, "a", "reduce_sum");
    b->status = status;
    b->change = (lo + hi) / 2;
    b->change_lo = lo;
    b->change_hi = hi;
    b->gate_cases = gate_cases;
}

static pg_probe_outcome outcome_of(pg_status status, double lo, double hi,
                                   int gate_cases)
{
    pg_result r;
    pg_probe_outcome o;

    one(&r, status, lo, hi, gate_cases);
    o = pg_bisect_outcome(&r);
    pg_result_clear(&r);
    return o;
}

/* The status is the outcome: a label is earned by the whole interval
 * (stats.h), so that a regression's interval lies above the floor, and
 * what straddles it is inconclusive, measured again. */
static void the_status_decides(void)
{
    CHECK(outcome_of(PG_STATUS_REGRESSION, 0.08, 0.12, 0) == PG_PROBE_SLOWER);
    CHECK(outcome_of(PG_STATUS_INCONCLUSIVE, 0.03, 0.12, 0) ==
          PG_PROBE_UNCLEAR);
    CHECK(outcome_of(PG_STATUS_UNCHANGED, -0.01, 0.02, 0) ==
          PG_PROBE_NOT_SLOWER);
    CHECK(outcome_of(PG_STATUS_UNRESOLVED, -0.6, 0.8, 0) == PG_PROBE_UNCLEAR);
    CHECK(outcome_of(PG_STATUS_IMPROVEMENT, -0.3, -0.2, 0) ==
          PG_PROBE_NOT_SLOWER);
    CHECK(outcome_of(PG_STATUS_REGRESSION, 0.01, 0.12, 1) == PG_PROBE_SLOWER);
    CHECK(outcome_of(PG_STATUS_INCONCLUSIVE, 0.01, 0.07, 1) ==
          PG_PROBE_UNCLEAR);
}

/* What cannot be measured is skipped, as git bisect skip; identical or
 * unreached code is not slower whatever its interval. */
static void failures_are_skipped(void)
{
    pg_status s[] = {PG_STATUS_BUILD_FAILED, PG_STATUS_INCORRECT,
                     PG_STATUS_CRASHED, PG_STATUS_TIMEOUT};
    pg_result r;
    size_t i;

    for (i = 0; i < sizeof(s) / sizeof(*s); i++)
        CHECK(outcome_of(s[i], NAN, NAN, 0) == PG_PROBE_SKIPPED);
    one(&r, PG_STATUS_UNCHANGED, 0.01, 0.09, 0);
    r.benchmarks[0].identical = 1;
    CHECK(pg_bisect_outcome(&r) == PG_PROBE_NOT_SLOWER);
    r.benchmarks[0].identical = 0;
    r.benchmarks[0].not_affected = 1;
    CHECK(pg_bisect_outcome(&r) == PG_PROBE_NOT_SLOWER);
    pg_result_clear(&r);
}

/* Over benchmarks: slower when any is; else skipped before unclear; else
 * not slower. */
static void one_slower_benchmark_makes_the_probe_slower(void)
{
    pg_result r;
    pg_bench_result *b;

    one(&r, PG_STATUS_INCONCLUSIVE, -0.01, 0.07, 0); /* unclear */
    b = pg_result_add(&r, "b", "reduce_sum");
    b->status = PG_STATUS_CRASHED; /* skipped */
    CHECK(pg_bisect_outcome(&r) == PG_PROBE_SKIPPED);
    b = pg_result_add(&r, "c", "reduce_sum");
    b->status = PG_STATUS_REGRESSION;
    b->change_lo = 0.2;
    b->change_hi = 0.3;
    CHECK(pg_bisect_outcome(&r) == PG_PROBE_SLOWER);
    pg_result_clear(&r);

    one(&r, PG_STATUS_INCONCLUSIVE, -0.01, 0.07, 0);
    b = pg_result_add(&r, "b", "reduce_sum");
    b->status = PG_STATUS_UNCHANGED;
    b->change_lo = -0.01;
    b->change_hi = 0.01;
    CHECK(pg_bisect_outcome(&r) == PG_PROBE_UNCLEAR);
    pg_result_clear(&r);
}

/* The outcome of `r` as it enters bisect: judged (stats.h), as pg_compare
 * leaves it. */
static pg_probe_outcome judged(pg_result *r)
{
    r->noise_floor = r->count_floor = 0.05;
    pg_stats_judge(r);
    return pg_bisect_outcome(r);
}

/* A count that cannot fail the gate cannot make a probe slower either:
 * one taken on another code path (path_check: warn), and measure: all's
 * count of a head the time found faster (stats.h), as judged. */
static void counts_that_cannot_gate_are_not_slower(void)
{
    pg_result r;
    pg_bench_result *b;

    one(&r, PG_STATUS_REGRESSION, 0.02, 0.03, 0);
    b = &r.benchmarks[0];
    b->metric = PG_METRIC_INSTRUCTIONS;
    CHECK(judged(&r) == PG_PROBE_SLOWER);
    b->other_path = pg_strdup("natively 40% in f(), never counted");
    CHECK(judged(&r) == PG_PROBE_NOT_SLOWER);
    b->other_path_gates = 1;
    CHECK(judged(&r) == PG_PROBE_SLOWER);
    pg_result_clear(&r);

    one(&r, PG_STATUS_IMPROVEMENT, -0.5, -0.4, 0);
    b = &r.benchmarks[0];
    b->counted = pg_calloc(1, sizeof(*b->counted));
    b->counted->metric = PG_METRIC_INSTRUCTIONS;
    b->counted->status = PG_STATUS_REGRESSION;
    b->counted->change = 0.8;
    b->counted->change_lo = 0.8;
    b->counted->change_hi = 0.8;
    b->counted->rounds = 5;
    CHECK(judged(&r) == PG_PROBE_NOT_SLOWER);
    b->status = PG_STATUS_UNCHANGED;
    b->change_lo = -0.01;
    b->change_hi = 0.01;
    CHECK(judged(&r) == PG_PROBE_SLOWER);
    pg_result_clear(&r);
}

/* The middle first; around a skipped one, the nearest below, then above;
 * nothing between neighbours or when all between are skipped. */
static void the_next_probe_halves_around_skips(void)
{
    unsigned char skipped[16];

    memset(skipped, 0, sizeof(skipped));
    CHECK(pg_bisect_next(skipped, 0, 10) == 5);
    CHECK(pg_bisect_next(skipped, 0, 2) == 1);
    CHECK(pg_bisect_next(skipped, 3, 4) == -1);
    skipped[5] = 1;
    CHECK(pg_bisect_next(skipped, 0, 10) == 4);
    skipped[4] = 1;
    CHECK(pg_bisect_next(skipped, 0, 10) == 6);
    memset(skipped, 1, sizeof(skipped));
    CHECK(pg_bisect_next(skipped, 0, 10) == -1);
    skipped[9] = 0;
    CHECK(pg_bisect_next(skipped, 0, 10) == 9);
}

const pg_test pg_tests_bisect[] = {
    {"the_status_decides", the_status_decides},
    {"failures_are_skipped", failures_are_skipped},
    {"one_slower_benchmark_makes_the_probe_slower",
     one_slower_benchmark_makes_the_probe_slower},
    {"counts_that_cannot_gate_are_not_slower",
     counts_that_cannot_gate_are_not_slower},
    {"the_next_probe_halves_around_skips", the_next_probe_halves_around_skips},
    PG_TESTS_END};
