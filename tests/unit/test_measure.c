/*
 * The engine against solutions whose cost is known by construction.  The
 * margins are wide: these must hold on a loaded two-core machine.  The
 * engine's accuracy is measured for real by the benchmark, not here.
 */
#include <stdint.h>
#include <string.h>

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

static const pg_fn *placed; /* the base's placements, when set */
static size_t nplaced;

static void measure_pair_opts(pg_case_timing *t, chain_fn a, chain_fn b,
                              const pg_measure_opts *opts,
                              pg_measure_summary *sum)
{
    static struct chain_state sa, sb;
    pg_target targets[1][2];

    memset(targets, 0, sizeof(targets));
    targets[0][0].problem = targets[0][1].problem = &chain_problem;
    targets[0][0].state = &sa;
    targets[0][1].state = &sb;
    targets[0][0].fn = (pg_fn)a;
    targets[0][1].fn = (pg_fn)b;
    if (placed) {
        targets[0][0].placed = placed;
        targets[0][0].nplaced = nplaced;
    }
    pg_measure(t, sum, targets, 1, 2, opts);
    CHECK(sum->rounds >= opts->min_rounds);
    CHECK(sum->calls[0] == sum->calls[1]);
    CHECK(t->inner >= 1);
}

static void measure_pair(pg_case_timing *t, chain_fn a, chain_fn b)
{
    pg_measure_summary sum;
    pg_measure_opts opts;

    pg_measure_opts_init(&opts, 5, 0.3, 0.05);
    measure_pair_opts(t, a, b, &opts, &sum);
    /* Both ends of the interval sit around the estimate. */
    CHECK(sum.change.lo <= sum.change.change);
    CHECK(sum.change.change <= sum.change.hi);
    CHECK(sum.stop != PG_STOP_NO);
}

static void empty_solution_measures_zero(void)
{
    pg_case_timing t;

    measure_pair(&t, empty, empty);
    /* The call costs nothing beyond the harness, which is discounted. */
    CHECK(t.ns[0] < 0.5);
    CHECK(t.ns[1] < 0.5);
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

static void calibration(void)
{
    pg_measure_summary sum;
    pg_measure_opts opts;
    pg_case_timing t;

    /* The inner count makes a sample last at least sample_ns; both sides
     * share it, so each side's calls are counted alike. */
    pg_measure_opts_init(&opts, 3, 0.2, 0.05);
    opts.sample_ns = 200000;
    measure_pair_opts(&t, chain_400, chain_800, &opts, &sum);
    CHECK(t.inner > 1);
    CHECK((double)t.inner * t.raw_ns[0] >= 0.5 * opts.sample_ns);
    CHECK(sum.calls[0] == t.inner * t.samples);

    /* Cold caches: one call per sample, whatever its length. */
    pg_measure_opts_init(&opts, 3, 0.2, 0.05);
    opts.evict_bytes = 1 << 20;
    measure_pair_opts(&t, chain_400, chain_400, &opts, &sum);
    CHECK(t.inner == 1);
}

static void stopping_rule(void)
{
    pg_measure_opts o;
    pg_interval clear_aa = {0.001, -0.004, 0.006};
    pg_interval near_floor = {0.045, 0.038, 0.052};
    pg_interval regression = {0.25, 0.22, 0.27};

    pg_measure_opts_init(&o, 5, 10, 0.05);
    CHECK_NEAR(o.min_time, 0.25, 1e-12);
    CHECK_NEAR(o.settle, 0.005, 1e-12);
    CHECK_NEAR(o.margin, 0.01, 1e-12);
    /* Too few rounds, too little time, a minimum still improving. */
    CHECK(pg_measure_should_stop(&o, 4, 1, 5.0, &clear_aa) == PG_STOP_NO);
    CHECK(pg_measure_should_stop(&o, 50, 1, 0.1, &clear_aa) == PG_STOP_NO);
    CHECK(pg_measure_should_stop(&o, 50, 30, 2.0, &clear_aa) == PG_STOP_NO);
    /* Settled and clear of the floor: stop early. */
    CHECK(pg_measure_should_stop(&o, 50, 20, 2.0, &clear_aa) == PG_STOP_CLEAR);
    CHECK(pg_measure_should_stop(&o, 50, 20, 2.0, &regression) ==
          PG_STOP_CLEAR);
    /* Settled but close to the floor: keep measuring, up to max_time. */
    CHECK(pg_measure_should_stop(&o, 50, 20, 2.0, &near_floor) == PG_STOP_NO);
    CHECK(pg_measure_should_stop(&o, 500, 20, 10.0, &near_floor) ==
          PG_STOP_MAX_TIME);
    /* One side: nothing to compare, settled is enough. */
    CHECK(pg_measure_should_stop(&o, 50, 20, 2.0, NULL) == PG_STOP_SETTLED);
    pg_measure_opts_init(&o, 5, 2, 0.05);
    CHECK_NEAR(o.min_time, 0.1, 1e-12);

    /* A minimum has settled when it moves less than half the change's
     * distance to the floor (it cannot carry the verdict across), and
     * never more loosely than settle. */
    pg_measure_opts_init(&o, 5, 10, 0.05);
    CHECK_NEAR(pg_settle_threshold(&o, &clear_aa), (0.05 - 0.001) / 2, 1e-12);
    CHECK_NEAR(pg_settle_threshold(&o, &regression), 0.10, 1e-12);
    CHECK_NEAR(pg_settle_threshold(&o, &near_floor), 0.005, 1e-12);
    CHECK_NEAR(pg_settle_threshold(&o, NULL), 0.005, 1e-12);
}

static void clear_of_floor(void)
{
    pg_measure_opts o;
    const struct {
        pg_interval iv;
        int clear;
    } cases[] = {
        {{0.00, -0.01, 0.01}, 1},   /* unchanged, well inside */
        {{0.03, 0.02, 0.035}, 1},   /* +3%: 2 points from the floor */
        {{0.045, 0.04, 0.048}, 0},  /* within the margin of the floor */
        {{0.06, 0.04, 0.08}, 0},    /* the interval straddles the floor */
        {{0.08, 0.07, 0.09}, 1},    /* +8%: a clear regression */
        {{0.055, 0.052, 0.058}, 0}, /* above, but within the margin */
        {{-0.20, -0.21, -0.19}, 1}, /* a clear improvement */
        {{-0.05, -0.06, -0.04}, 0}, /* straddles minus the floor */
        {{NAN, NAN, NAN}, 0},
    };
    size_t i;

    pg_measure_opts_init(&o, 5, 10, 0.05);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (pg_change_is_clear(&o, &cases[i].iv) != cases[i].clear) {
            fprintf(stderr, "clear_of_floor: case %zu\n", i);
            CHECK(0);
        }
}

/* Fills rounds of one case: base ~ 100, head ~ 100 * ratio, with the
 * given noise added to both sides of some rounds. */
static void fill(double *samples, size_t rounds, double ratio, double noise,
                 int paired)
{
    size_t r;

    for (r = 0; r < rounds; r++) {
        double a = (r * 7919 % 13) * noise, b = (r * 104729 % 17) * noise;
        samples[r * 2 + 0] = 100 + a;
        samples[r * 2 + 1] = 100 * ratio + (paired ? a : b);
    }
}

static void interval(void)
{
    enum { ROUNDS = 200 };
    static double samples[ROUNDS * 2];
    double overhead[1] = {0};
    pg_interval iv, again, wide;

    /* The estimate is the ratio of the minimums. */
    fill(samples, ROUNDS, 1.10, 0.5, 0);
    pg_change_interval(&iv, NULL, samples, overhead, 1, ROUNDS, 200);
    CHECK_NEAR(iv.change, 0.10, 1e-9);
    CHECK(iv.lo <= iv.change && iv.change <= iv.hi);
    CHECK(iv.hi - iv.lo < 0.01); /* many rounds reach the minimum */

    /* The same samples give the same interval: the seed is fixed. */
    pg_change_interval(&again, NULL, samples, overhead, 1, ROUNDS, 200);
    CHECK(again.lo == iv.lo && again.hi == iv.hi);

    /* Few rounds near the minimum: the interval widens. */
    fill(samples, 12, 1.10, 3.0, 0);
    samples[0] = 90; /* one lucky base round */
    pg_change_interval(&wide, NULL, samples, overhead, 1, 12, 200);
    CHECK(wide.hi - wide.lo > iv.hi - iv.lo);
    CHECK(wide.lo <= wide.change && wide.change <= wide.hi);

    /* Overhead is discounted from both sides before the ratio. */
    fill(samples, ROUNDS, 1.10, 0, 0);
    overhead[0] = 50;
    pg_change_interval(&iv, NULL, samples, overhead, 1, ROUNDS, 200);
    CHECK_NEAR(iv.change, 60.0 / 50.0 - 1, 1e-9);
}

static void case_intervals(void)
{
    enum { ROUNDS = 100, CASES = 2 };
    static double samples[ROUNDS * CASES * 2];
    double overhead[CASES] = {0, 0};
    pg_interval total, cases[CASES], alone;
    int r;

    /* Case 0 (10 ns) gets 3x slower, case 1 (1000 ns) 10% faster: the
     * total improves while one case is far beyond the floor. */
    for (r = 0; r < ROUNDS; r++) {
        double noise = (r * 7919 % 13) * 0.01;
        samples[(r * CASES + 0) * 2 + 0] = 10 + noise;
        samples[(r * CASES + 0) * 2 + 1] = 30 + noise;
        samples[(r * CASES + 1) * 2 + 0] = 1000 + noise * 10;
        samples[(r * CASES + 1) * 2 + 1] = 900 + noise * 10;
    }
    pg_change_interval(&total, cases, samples, overhead, CASES, ROUNDS, 200);
    CHECK_NEAR(total.change, 930.0 / 1010.0 - 1, 1e-9);
    CHECK_NEAR(cases[0].change, 2.0, 1e-9);
    CHECK_NEAR(cases[1].change, -0.10, 1e-9);
    CHECK(cases[0].lo > 1.9 && cases[0].hi < 2.1);
    CHECK(cases[1].lo <= cases[1].change && cases[1].change <= cases[1].hi);
    /* The total is the same with or without the cases asked for. */
    pg_change_interval(&alone, NULL, samples, overhead, CASES, ROUNDS, 200);
    CHECK(alone.change == total.change && alone.lo == total.lo &&
          alone.hi == total.hi);
}

/* Rounds take a side's placements in turn, and its minimum is its best: a
 * base whose code runs slow at two addresses of three reads as fast as the
 * head, where `fn` alone would read twice as slow. */
static void placements_take_turns(void)
{
    static const pg_fn where[3] = {(pg_fn)chain_800, (pg_fn)chain_800,
                                   (pg_fn)chain_400};
    pg_case_timing t;

    placed = where;
    nplaced = 3;
    measure_pair(&t, chain_800, chain_400);
    placed = NULL;
    nplaced = 0;
    CHECK(t.ns[0] < t.ns[1] * 1.3);
    CHECK(t.ns[0] > t.ns[1] * 0.7);
}

const pg_test pg_tests_measure[] = {
    {"case_intervals", case_intervals},
    {"empty_solution_measures_zero", empty_solution_measures_zero},
    {"known_ratio", known_ratio},
    {"placements_take_turns", placements_take_turns},
    {"calibration", calibration},
    {"stopping_rule", stopping_rule},
    {"clear_of_floor", clear_of_floor},
    {"interval", interval},
    PG_TESTS_END};
