/* The decision rule and the gate. */
#include "stats.h"
#include "memory.h"
#include <stdlib.h>

#include "test.h"

static pg_bench_result bench(double base1, double head1, double base2,
                             double head2)
{
    static pg_result_case cases[2];
    pg_bench_result b;

    memset(&b, 0, sizeof(b));
    memset(cases, 0, sizeof(cases));
    cases[0].base_ns = base1;
    cases[0].head_ns = head1;
    cases[1].base_ns = base2;
    cases[1].head_ns = head2;
    /* Intervals not known unless a test sets them. */
    cases[0].change_lo = cases[0].change_hi = NAN;
    cases[1].change_lo = cases[1].change_hi = NAN;
    b.change_lo = b.change_hi = NAN;
    b.cases = cases;
    b.ncases = 2;
    b.side = PG_SIDE_NONE;
    return b;
}

static void sums_of_minimums(void)
{
    /* One case 10% slower, another 10% faster but ten times longer: the
     * total is what a caller of both pays. */
    pg_bench_result b = bench(100, 110, 1000, 900);

    pg_stats_decide(&b, 0.05);
    CHECK_NEAR(b.base_ns, 1100, 1e-9);
    CHECK_NEAR(b.head_ns, 1010, 1e-9);
    CHECK_NEAR(b.change, 1010.0 / 1100 - 1, 1e-12);
    CHECK(b.status == PG_STATUS_IMPROVEMENT);
    CHECK_NEAR(b.cases[0].change, 0.10, 1e-12);
    CHECK_NEAR(b.cases[1].change, -0.10, 1e-12);
}

static void floor_boundaries(void)
{
    CHECK(pg_stats_classify(0.0501, 0.05) == PG_STATUS_REGRESSION);
    CHECK(pg_stats_classify(0.05, 0.05) == PG_STATUS_UNCHANGED);
    CHECK(pg_stats_classify(-0.05, 0.05) == PG_STATUS_UNCHANGED);
    CHECK(pg_stats_classify(-0.0501, 0.05) == PG_STATUS_IMPROVEMENT);
    CHECK(pg_stats_classify(0.09, 0.10) == PG_STATUS_UNCHANGED);
}

static void zero_totals_are_equal(void)
{
    pg_bench_result b = bench(0, 0, 0, 0);

    pg_stats_decide(&b, 0.05);
    CHECK(b.change == 0);
    CHECK(b.status == PG_STATUS_UNCHANGED);
}

static void new_keeps_its_status(void)
{
    pg_bench_result b = bench(NAN, 100, NAN, 200);

    b.status = PG_STATUS_NEW;
    pg_stats_decide(&b, 0.05);
    CHECK(b.status == PG_STATUS_NEW);
    CHECK(isnan(b.change));
    CHECK_NEAR(b.head_ns, 300, 1e-9);
}

static void every_case_gated(void)
{
    /* The rule's total improves (1010 < 1100) while case 0 got 3x
     * slower. */
    pg_bench_result b = bench(10, 30, 1090, 980);

    b.cases[0].change_lo = 1.9;
    b.cases[0].change_hi = 2.1;
    b.cases[1].change_lo = -0.11;
    b.cases[1].change_hi = -0.09;
    pg_stats_decide(&b, 0.05);
    CHECK(b.status == PG_STATUS_IMPROVEMENT);
    CHECK(b.cases[0].status == PG_STATUS_REGRESSION);
    CHECK(b.cases[1].status == PG_STATUS_IMPROVEMENT);
    CHECK(pg_stats_hidden_regression(&b) == &b.cases[0]);

    /* Under gate: total, a case is said slower only when its whole
     * interval is beyond the floor; one that straddles it has no label. */
    b = bench(100, 106, 1000, 1000);
    b.cases[0].change_lo = 0.01;
    b.cases[0].change_hi = 0.08;
    pg_stats_decide(&b, 0.05);
    CHECK(b.cases[0].status == PG_STATUS_INCONCLUSIVE);
    CHECK(pg_stats_hidden_regression(&b) == NULL);

    /* gate: cases: any case beyond the floor fails. */
    b = bench(10, 30, 1090, 980);
    b.cases[0].change_lo = 1.9;
    b.cases[0].change_hi = 2.1;
    b.gate_cases = 1;
    pg_stats_decide(&b, 0.05);
    CHECK(b.status == PG_STATUS_REGRESSION);
    CHECK(pg_stats_fails_gate(&b));
    CHECK(pg_stats_hidden_regression(&b) == NULL);

    /* gate: cases: a case left straddling the floor leaves the benchmark
     * without a label, whatever the total says. */
    b = bench(100, 100, 1000, 1000);
    b.change_lo = -0.01;
    b.change_hi = 0.01;
    b.cases[0].change_lo = -0.03;
    b.cases[0].change_hi = 0.09;
    b.cases[1].change_lo = -0.01;
    b.cases[1].change_hi = 0.01;
    b.gate_cases = 1;
    pg_stats_decide(&b, 0.05);
    CHECK(b.status == PG_STATUS_INCONCLUSIVE);
}

/* One statistic: the label is the interval's, never the point's.  The
 * cases a new user met on cmark (issue 48): a "regression" of +75.6%
 * whose interval reached -3.9%, and a PASSing "improvement" of -30.9%
 * whose interval reached +16.7%. */
static void the_label_is_the_interval(void)
{
    pg_bench_result b = bench(100, 175.6, 0, 0);

    b.change_lo = -0.039;
    b.change_hi = 2.149;
    pg_stats_decide(&b, 0.05);
    CHECK(b.status == PG_STATUS_INCONCLUSIVE);
    CHECK(!pg_stats_fails_gate(&b)); /* inconclusive: pass, the default */
    b.inconclusive_fails = 1;
    CHECK(pg_stats_fails_gate(&b));

    b = bench(100, 69.1, 0, 0);
    b.change_lo = -0.575;
    b.change_hi = 0.167;
    pg_stats_decide(&b, 0.05);
    CHECK(b.status == PG_STATUS_INCONCLUSIVE);

    /* Wholly beyond the floor: labelled, whatever the point's distance. */
    b = bench(100, 106, 0, 0);
    b.change_lo = 0.051;
    b.change_hi = 0.07;
    pg_stats_decide(&b, 0.05);
    CHECK(b.status == PG_STATUS_REGRESSION);
    b = bench(100, 102, 0, 0);
    b.change_lo = -0.03;
    b.change_hi = 0.049;
    pg_stats_decide(&b, 0.05);
    CHECK(b.status == PG_STATUS_UNCHANGED);

    CHECK(pg_stats_label(0.06, 0.051, 0.07, 0.05) == PG_STATUS_REGRESSION);
    CHECK(pg_stats_label(-0.06, -0.07, -0.051, 0.05) == PG_STATUS_IMPROVEMENT);
    CHECK(pg_stats_label(0.0, -0.05, 0.05, 0.05) == PG_STATUS_UNCHANGED);
    CHECK(pg_stats_label(0.06, 0.04, 0.07, 0.05) == PG_STATUS_INCONCLUSIVE);
    CHECK(pg_stats_label(0.06, NAN, NAN, 0.05) == PG_STATUS_REGRESSION);

    /* The budget spent before every placement was seen twice. */
    b = bench(100, 200, 0, 0);
    b.change_lo = 0.9;
    b.change_hi = 1.1;
    b.stop = "too_few_rounds";
    pg_stats_decide(&b, 0.05);
    CHECK(b.status == PG_STATUS_INCONCLUSIVE);
}

/* A benchmark made only of cases too short to resolve gets no label
 * (xxHash's XXH3_64bits at 24-128 bytes read "unchanged -13.1% (-61.1 …
 * +81.2%)"). */
static pg_bench_result short_calls(double base1, double head1, double base2,
                                   double head2, double lo, double hi)
{
    pg_bench_result b = bench(base1, head1, base2, head2);

    /* The harness's own cost around each call: 3.2 ns. */
    b.cases[0].overhead_ns = b.cases[1].overhead_ns = 3.2;
    b.change_lo = lo;
    b.change_hi = hi;
    pg_stats_decide(&b, 0.05);
    return b;
}

static void unresolved_means_no_label(void)
{
    pg_bench_result b = short_calls(0.8, 0.7, 1.2, 1.1, -0.611, 0.812);

    CHECK(b.status == PG_STATUS_UNRESOLVED);
    CHECK(b.cases[0].status == PG_STATUS_UNRESOLVED);
    CHECK(!pg_stats_fails_gate(&b));
    CHECK_STR(pg_status_name(PG_STATUS_UNRESOLVED), "unresolved");
    CHECK(pg_status_parse("inconclusive") == PG_STATUS_INCONCLUSIVE);

    /* One resolved case among them: the benchmark is labelled by it. */
    b = short_calls(0.8, 0.7, 1000, 1001, -0.01, 0.01);
    CHECK(b.status == PG_STATUS_UNCHANGED);
    CHECK(b.cases[0].status == PG_STATUS_UNRESOLVED);
}

static void which_failures_fail_the_gate(void)
{
    pg_bench_result b;
    pg_result r;

    memset(&b, 0, sizeof(b));
    b.status = PG_STATUS_REGRESSION;
    CHECK(pg_stats_fails_gate(&b));
    b.status = PG_STATUS_INCORRECT;
    b.side = PG_SIDE_HEAD;
    CHECK(pg_stats_fails_gate(&b));
    b.side = PG_SIDE_BASE; /* the base was broken: report, do not fail */
    CHECK(!pg_stats_fails_gate(&b));
    b.side = PG_SIDE_NONE; /* neither side to blame: fail safe */
    CHECK(pg_stats_fails_gate(&b));
    b.status = PG_STATUS_IMPROVEMENT;
    CHECK(!pg_stats_fails_gate(&b));
    b.status = PG_STATUS_NEW;
    CHECK(!pg_stats_fails_gate(&b));
    b.status = PG_STATUS_SKIPPED;
    CHECK(!pg_stats_fails_gate(&b));

    memset(&r, 0, sizeof(r));
    pg_stats_judge(&r);
    CHECK(r.verdict.passed); /* nothing to fail */
}

/* The judged result says per benchmark whether it fails the gate, in the
 * JSON too, so that the Action renders the rule rather than repeating it;
 * a self-check fails on failures alone. */
static void the_result_says_which_fail_the_gate(void)
{
    pg_result r;
    char *json;

    memset(&r, 0, sizeof(r));
    r.noise_floor = 0.05;
    pg_result_add(&r, "slower", "p")->status = PG_STATUS_REGRESSION;
    pg_result_add(&r, "broken_base", "p")->status = PG_STATUS_BUILD_FAILED;
    r.benchmarks[1].side = PG_SIDE_BASE;
    pg_result_add(&r, "broken_head", "p")->status = PG_STATUS_CRASHED;
    r.benchmarks[2].side = PG_SIDE_HEAD;
    pg_stats_judge(&r);
    CHECK(r.benchmarks[0].fails_gate);
    CHECK(!r.benchmarks[1].fails_gate);
    CHECK(r.benchmarks[2].fails_gate);
    CHECK(!r.verdict.passed);
    json = pg_result_to_json(&r);
    REQUIRE(json != NULL);
    CHECK_CONTAINS(json, "\"name\":\t\"slower\"");
    CHECK(strstr(json, "\"fails_gate\":\ttrue") != NULL);
    CHECK(strstr(json, "\"fails_gate\":\tfalse") != NULL);
    free(json);

    r.aa = 1;
    pg_stats_judge(&r);
    CHECK(!r.benchmarks[0].fails_gate);
    CHECK(r.benchmarks[2].fails_gate);
    pg_result_clear(&r);
}

/* One case of a benchmark with both sides' heap counted. */
static pg_bench_result *heap_bench(pg_result *r, double allocs[2],
                                   double peak[2], double leaked[2])
{
    pg_bench_result *b = pg_result_add(r, "heap", "p");
    int s;

    b->cases = calloc(1, sizeof(*b->cases));
    b->ncases = 1;
    b->cases[0].name = strdup("n=1");
    b->cases[0].change = NAN;
    b->memory.floor = 0.05;
    for (s = 0; s < 2; s++) {
        pg_memory_use *u = &b->cases[0].mem[s];
        u->counted = 1;
        u->allocs = allocs[s];
        u->bytes = peak[s];
        u->peak = peak[s];
        u->leaked = leaked[s];
    }
    return b;
}

static void the_heap_is_judged_exactly(void)
{
    double one[2] = {1, 1}, two[2] = {1, 2}, peak[2] = {1000, 1040},
           high[2] = {1000, 1100}, none[2] = {0, 0}, leak[2] = {0, 16};
    pg_result r, back;
    pg_str text = PG_STR_INIT;
    char *json;

    memset(&r, 0, sizeof(r));
    r.noise_floor = 0.05;
    /* An allocation more: beyond any floor. */
    heap_bench(&r, two, peak, none);
    /* A peak 4% higher: said, within the 5% floor. */
    heap_bench(&r, one, peak, none);
    /* 10% higher, gated. */
    heap_bench(&r, one, high, none)->memory.gate = 1;
    /* A leak of 16 bytes a call. */
    heap_bench(&r, one, (double[2]){1000, 1000}, leak);
    pg_stats_judge(&r);
    CHECK(r.benchmarks[0].memory.status == PG_STATUS_REGRESSION);
    CHECK(!r.benchmarks[0].fails_gate); /* memory: report */
    CHECK(r.benchmarks[1].memory.status == PG_STATUS_UNCHANGED);
    CHECK(r.benchmarks[1].memory.worst_case == 0); /* but it differs */
    CHECK(r.benchmarks[2].memory.status == PG_STATUS_REGRESSION);
    CHECK(r.benchmarks[2].fails_gate);
    CHECK(r.benchmarks[2].counts_as == PG_STATUS_REGRESSION);
    CHECK(r.benchmarks[3].memory.leak_added);
    CHECK(!r.verdict.passed);
    pg_memory_describe_change(&text, &r.benchmarks[0].cases[0].mem[0],
                              &r.benchmarks[0].cases[0].mem[1]);
    CHECK_STR(pg_str_cstr(&text), "+1 allocation, +40 B per call; peak "
                                  "1000 B → 1.0 KiB");
    pg_str_reset(&text);
    pg_memory_describe_change(&text, &r.benchmarks[3].cases[0].mem[0],
                              &r.benchmarks[3].cases[0].mem[1]);
    CHECK_STR(pg_str_cstr(&text), "leaks 16 B per call more");
    /* Read back, judged again: the same. */
    json = pg_result_to_json(&r);
    REQUIRE(pg_result_from_json(&back, json, "x.json") == 0);
    pg_stats_judge(&back);
    CHECK(back.benchmarks[2].memory.gate);
    CHECK(back.benchmarks[2].fails_gate);
    CHECK(back.benchmarks[1].memory.worst_case == 0);
    CHECK(back.benchmarks[3].cases[0].mem[1].leaked == 16);
    CHECK(!back.verdict.passed);
    /* The same code, counted alike: a self-check passes on the heap;
     * any difference fails it. */
    pg_result_clear(&back);
    pg_result_clear(&r);
    memset(&r, 0, sizeof(r));
    r.aa = 1;
    heap_bench(&r, one, (double[2]){64, 64}, none);
    pg_stats_judge(&r);
    CHECK(r.benchmarks[0].memory.worst_case < 0);
    r.benchmarks[0].cases[0].mem[1].bytes = 65;
    pg_stats_judge(&r);
    CHECK(r.benchmarks[0].memory.worst_case == 0);
    CHECK(!r.verdict.passed);
    free(json);
    pg_str_clear(&text);
    pg_result_clear(&r);
}

const pg_test pg_tests_stats[] = {
    {"the_heap_is_judged_exactly", the_heap_is_judged_exactly},
    {"the_result_says_which_fail_the_gate",
     the_result_says_which_fail_the_gate},
    {"sums_of_minimums", sums_of_minimums},
    {"floor_boundaries", floor_boundaries},
    {"zero_totals_are_equal", zero_totals_are_equal},
    {"new_keeps_its_status", new_keeps_its_status},
    {"which_failures_fail_the_gate", which_failures_fail_the_gate},
    {"every_case_gated", every_case_gated},
    {"the_label_is_the_interval", the_label_is_the_interval},
    {"unresolved_means_no_label", unresolved_means_no_label},
    PG_TESTS_END};
