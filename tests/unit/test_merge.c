/* Shards put back together, and the results merge refuses (merge.h). */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "str.h"
#include "merge.h"
#include "result.h"
#include "test.h"

/* Shard k of `count` of one run, holding the benchmark `name`. */
static void shard(pg_result *r, int k, int count, const char *name)
{
    memset(r, 0, sizeof(*r));
    r->base.commit = pg_strdup("1111111111111111111111111111111111111111");
    r->head.commit = pg_strdup("2222222222222222222222222222222222222222");
    r->noise_floor = 0.05;
    r->config_digest = pg_strdup("abc");
    r->shards = pg_calloc(1, sizeof(*r->shards));
    r->nshards = 1;
    r->shards[0].index = k;
    r->shards[0].count = count;
    r->shards[0].balance = pg_strdup("cases");
    r->shards[0].host = pg_strdup("h");
    r->shards[0].benchmarks = 1;
    pg_result_add(r, name, "reduce_sum")->shard = k;
}

/* Merges shards 1/2 and 2/2 after `spoil` changed the second; 0 or the
 * error, its message in `said`. */
static int merge_two(void (*spoil)(pg_result *), char *said, size_t size)
{
    static const char *const names[] = {"one.json", "two.json"};
    pg_result parts[2], out;
    size_t i;
    int err;

    shard(&parts[0], 1, 2, "a");
    shard(&parts[1], 2, 2, "b");
    if (spoil)
        spoil(&parts[1]);
    err = pg_merge(&out, parts, 2, names);
    snprintf(said, size, "%s", err < 0 ? pg_error_last() : "");
    if (err == 0) {
        CHECK(out.nbenchmarks == 2);
        pg_result_clear(&out);
    }
    for (i = 0; i < 2; i++)
        pg_result_clear(&parts[i]);
    return err;
}

static void other_head(pg_result *r)
{
    r->head.commit[0] = '3';
}
static void other_floor(pg_result *r)
{
    r->noise_floor = 0.1;
}
static void other_count_floor(pg_result *r)
{
    r->count_floor = 0.02;
}
static void self_check(pg_result *r)
{
    r->aa = 1;
}
static void other_config(pg_result *r)
{
    r->config_digest[0] = 'x';
}
static void same_shard(pg_result *r)
{
    r->shards[0].index = 1;
}
static void of_three(pg_result *r)
{
    r->shards[0].count = 3;
}
static void same_benchmark(pg_result *r)
{
    free(r->benchmarks[0].name);
    r->benchmarks[0].name = pg_strdup("a");
}
static void lost_one(pg_result *r)
{
    r->shards[0].benchmarks = 2;
}
static void no_shard(pg_result *r)
{
    r->shards[0].index = 0; /* as a result without --shard reads back */
}

/* Each refusal names what differs and the files; a good pair merges. */
static void shards_of_another_run_are_refused(void)
{
    static const struct {
        void (*spoil)(pg_result *);
        const char *said;
    } cases[] = {
        {other_head, "one.json and two.json differ in the head commit"},
        {other_floor, "differ in the noise floor"},
        {other_count_floor, "differ in the count floor"},
        {self_check, "differ in the mode (--aa)"},
        {other_config, "differ in the config"},
        {of_three, "differ in the number of shards"},
        {same_shard, "one.json and two.json are both shard 1/2"},
        {same_benchmark, "benchmark 'a' is in shards 1 and 2"},
        {lost_one, "two.json: shard 2/2 ran 2 benchmarks and holds 1"},
        {no_shard, "two.json: not the result of one shard"},
    };
    char said[512];
    size_t i;

    CHECK(merge_two(NULL, said, sizeof(said)) == 0);
    for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        CHECK(merge_two(cases[i].spoil, said, sizeof(said)) == PG_ERR_USAGE);
        CHECK_CONTAINS(said, cases[i].said);
    }
}

/* A shard left out is named; so is none at all. */
static void a_missing_shard_is_named(void)
{
    static const char *const names[] = {"one.json"};
    pg_result parts[1], out;

    shard(&parts[0], 1, 3, "a");
    CHECK(pg_merge(&out, parts, 1, names) == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "shard 2/3 is missing");
    pg_result_clear(&parts[0]);
    CHECK(pg_merge(&out, parts, 0, names) == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "no results to merge");
}

/* Against the config: a benchmark it lacks, or one no shard ran. */
static void the_config_names_every_benchmark_once(void)
{
    static const char *const both[] = {"a", "b"};
    static const char *const more[] = {"a", "b", "c"};
    static const char *const fewer[] = {"a"};
    pg_result r;

    memset(&r, 0, sizeof(r));
    pg_result_add(&r, "a", "p")->shard = 1;
    pg_result_add(&r, "b", "p")->shard = 2;
    CHECK(pg_merge_check_names(&r, both, 2) == 0);
    CHECK(pg_merge_check_names(&r, more, 3) == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "'c' of the config is in no shard");
    CHECK(pg_merge_check_names(&r, fewer, 1) == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "'b' (shard 2) is not in the config");
    pg_result_clear(&r);
}

const pg_test pg_tests_merge[] = {
    {"shards_of_another_run_are_refused", shards_of_another_run_are_refused},
    {"a_missing_shard_is_named", a_missing_shard_is_named},
    {"the_config_names_every_benchmark_once",
     the_config_names_every_benchmark_once},
    PG_TESTS_END};
