/* Dealing benchmarks to shards: the costs and the plan (shard.h). */
#include <math.h>
#include <string.h>

#include "result.h"
#include "shard.h"
#include "test.h"

/* A config of `n` benchmarks named by `names`, each with `cases` cases
 * (0: a problem's defaults). */
static void config_of(pg_config *cfg, pg_bench_config *b, size_t n,
                      const char *const *names, const size_t *cases)
{
    size_t i;

    memset(cfg, 0, sizeof(*cfg));
    memset(b, 0, n * sizeof(*b));
    for (i = 0; i < n; i++) {
        b[i].name = (char *)names[i];
        b[i].ncases = cases[i];
    }
    cfg->benchmarks = b;
    cfg->nbenchmarks = n;
}

/* Without timings a benchmark costs its cases, three for a problem's
 * defaults; with them, its measuring time, and one the timings lack its
 * cases at the mean time per case of those they have. */
static void costs_from_cases_and_timings(void)
{
    const char *names[] = {"a", "b", "c", "d"};
    const size_t cases[] = {2, 0, 4, 1};
    pg_bench_config b[4];
    pg_config cfg;
    pg_result prev;
    double cost[4];

    config_of(&cfg, b, 4, names, cases);
    pg_shard_costs(cost, &cfg, NULL);
    CHECK_NEAR(cost[0], 2, 0);
    CHECK_NEAR(cost[1], 3, 0);
    CHECK_NEAR(cost[2], 4, 0);
    CHECK_NEAR(cost[3], 1, 0);

    /* a: 10 s for 2 cases, b: 5 s for 3; c has no time (NaN), d none:
     * each at 15 s / 5 cases = 3 s a case. */
    memset(&prev, 0, sizeof(prev));
    pg_result_add(&prev, "a", "p")->seconds = 10;
    pg_result_add(&prev, "b", "p")->seconds = 5;
    pg_result_add(&prev, "c", "p")->seconds = NAN;
    pg_result_add(&prev, "gone", "p")->seconds = 99;
    pg_shard_costs(cost, &cfg, &prev);
    CHECK_NEAR(cost[0], 10, 1e-12);
    CHECK_NEAR(cost[1], 5, 1e-12);
    CHECK_NEAR(cost[2], 12, 1e-12);
    CHECK_NEAR(cost[3], 3, 1e-12);
    pg_result_clear(&prev);

    /* Timings that know none of them: back to cases. */
    memset(&prev, 0, sizeof(prev));
    pg_result_add(&prev, "other", "p")->seconds = 7;
    pg_shard_costs(cost, &cfg, &prev);
    CHECK_NEAR(cost[1], 3, 0);
    pg_result_clear(&prev);
}

/* The costliest first, each to the least loaded shard, the lowest on a
 * tie; one not named gets no shard. */
static void the_costliest_go_first_to_the_least_loaded(void)
{
    const char *names[] = {"e", "d", "c", "b", "a", "x"};
    const double cost[] = {1, 3, 3, 4, 5, 100};
    const unsigned char named[] = {1, 1, 1, 1, 1, 0};
    int shard_of[6];

    pg_shard_plan(shard_of, names, cost, named, 6, 2);
    /* a(5) -> 1; b(4) -> 2; c(3, before d by name) -> 2 (4 < 5);
     * d(3) -> 1 (5 < 7); e(1) -> 2 (7 < 8)... 8 and 8. */
    CHECK(shard_of[4] == 1);
    CHECK(shard_of[3] == 2);
    CHECK(shard_of[2] == 2);
    CHECK(shard_of[1] == 1);
    CHECK(shard_of[0] == 2);
    CHECK(shard_of[5] == 0);
}

/* The plan depends on names and costs, not on the order of the config:
 * every machine of a split run deals alike. */
static void the_same_whatever_the_order(void)
{
    const char *names[] = {"p", "q", "r", "s", "t", "u", "v"};
    const char *rev[] = {"v", "u", "t", "s", "r", "q", "p"};
    const double cost[] = {2, 2, 2, 7, 1, 2, 3};
    double rcost[7];
    const unsigned char named[] = {1, 1, 1, 1, 1, 1, 1};
    int a[7], b[7], i;

    for (i = 0; i < 7; i++)
        rcost[i] = cost[6 - i];
    pg_shard_plan(a, names, cost, named, 7, 3);
    pg_shard_plan(b, rev, rcost, named, 7, 3);
    for (i = 0; i < 7; i++) {
        CHECK(a[i] == b[6 - i]);
        CHECK(a[i] >= 1 && a[i] <= 3);
    }
}

/* More shards than benchmarks: some shards get none, none gets two; and
 * no benchmarks at all is no work. */
static void more_shards_than_benchmarks(void)
{
    const char *names[] = {"a", "b"};
    const double cost[] = {1, 1};
    const unsigned char named[] = {1, 1};
    int shard_of[2];

    pg_shard_plan(shard_of, names, cost, named, 2, 5);
    CHECK(shard_of[0] == 1);
    CHECK(shard_of[1] == 2);
    pg_shard_plan(shard_of, names, cost, named, 0, 5);
}

const pg_test pg_tests_shard[] = {
    {"costs_from_cases_and_timings", costs_from_cases_and_timings},
    {"the_costliest_go_first_to_the_least_loaded",
     the_costliest_go_first_to_the_least_loaded},
    {"the_same_whatever_the_order", the_same_whatever_the_order},
    {"more_shards_than_benchmarks", more_shards_than_benchmarks},
    PG_TESTS_END};
