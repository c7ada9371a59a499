/*
 * The engine against solutions whose cost is known by construction.  The
 * margins are wide: these must hold on a loaded two-core machine.  The
 * engine's accuracy is measured for real by the benchmark, not here.
 */
#include <stdint.h>

#include "measure.h"
#include "test.h"

typedef void (*chain_fn)(uint64_t *x);

struct chain_state {
    uint64_t x;
};

static void chain_run(void *state, pg_fn fn)
{
    ((chain_fn)fn)(&((struct chain_state *)state)->x);
}

/* A dependent chain of multiply-adds: each needs the one before. */
#define CHAIN(name, len)                                                       \
    static void name(uint64_t *x)                                              \
    {                                                                          \
        uint64_t v = *x;                                                       \
        for (int i = 0; i < (len); i++) {                                      \
            v = v * 6364136223846793005ULL + 1442695040888963407ULL;           \
            __asm__ __volatile__("" : "+r"(v));                                \
        }                                                                      \
        *x = v;                                                                \
    }
CHAIN(chain_400, 400)
CHAIN(chain_800, 800)

static void empty(uint64_t *x)
{
    (void)x;
}

static const pg_problem chain_problem = {.abi = PG_PROBLEM_ABI,
                                         .name = "chain",
                                         .run = chain_run};

static void measure_pair(pg_case_timing *t, chain_fn a, chain_fn b)
{
    static struct chain_state sa, sb;
    pg_target targets[1][2];
    pg_measure_summary sum;
    pg_measure_opts opts;

    targets[0][0].problem = targets[0][1].problem = &chain_problem;
    targets[0][0].state = &sa;
    targets[0][1].state = &sb;
    targets[0][0].fn = (pg_fn)a;
    targets[0][1].fn = (pg_fn)b;
    pg_measure_opts_init(&opts, 5, 0.3);
    pg_measure(t, &sum, targets, 1, 2, &opts);
    CHECK(sum.rounds >= 5);
    CHECK(sum.calls[0] == sum.calls[1]);
    CHECK(t->inner >= 1);
}

static void empty_solution_measures_zero(void)
{
    pg_case_timing t;

    measure_pair(&t, empty, empty);
    /* The call costs nothing beyond the harness, which is discounted. */
    CHECK(t.ns[0] < 1.0);
    CHECK(t.ns[1] < 1.0);
    CHECK(t.overhead_ns > 0);
    CHECK(t.inner > 100); /* far too short to time one by one */
}

static void known_ratio(void)
{
    pg_case_timing t;
    double ratio;

    measure_pair(&t, chain_400, chain_800);
    ratio = t.ns[1] / t.ns[0];
    CHECK(ratio > 1.6 && ratio < 2.4);
    measure_pair(&t, chain_800, chain_800);
    ratio = t.ns[1] / t.ns[0];
    CHECK(ratio > 0.8 && ratio < 1.25);
}

static void stopping_rule(void)
{
    pg_measure_opts o;

    pg_measure_opts_init(&o, 5, 10);
    CHECK(o.min_time == 1.0);
    CHECK(!pg_measure_should_stop(&o, 4, 1, 5.0)); /* too few rounds */
    CHECK(!pg_measure_should_stop(&o, 50, 1, 0.5)); /* too little time */
    CHECK(pg_measure_should_stop(&o, 50, 20, 2.0)); /* settled */
    CHECK(!pg_measure_should_stop(&o, 50, 30, 2.0)); /* still improving */
    CHECK(pg_measure_should_stop(&o, 50, 50, 10.0)); /* out of time */
    pg_measure_opts_init(&o, 5, 2);
    CHECK_NEAR(o.min_time, 0.2, 1e-12);
}

const pg_test pg_tests_measure[] = {
    {"empty_solution_measures_zero", empty_solution_measures_zero},
    {"known_ratio", known_ratio},
    {"stopping_rule", stopping_rule},
    PG_TESTS_END};
