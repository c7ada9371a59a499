/*
 * Counting (counter.h): callgrind's dumps read by their event names, the
 * cycle estimate by its fixed weights, and the names of metrics and
 * counters both ways.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counter.h"
#include "runspec.h"
#include "str.h"
#include "test.h"

/* A dump as callgrind writes it, to a temporary file; its path. */
static char *dump(const char *text)
{
    char *path = pg_strdup("/tmp/pg-counter-XXXXXX");
    int fd = mkstemp(path);

    REQUIRE(fd >= 0);
    REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void dumps_are_read_by_their_events(void)
{
    /* Values left off at the end of a line are 0 (callgrind leaves
     * them off), and "totals:" is not the part's count. */
    char *path = dump("# callgrind format\nversion: 1\n"
                      "desc: I1 cache: 32768 B, 64 B, 8-way associative\n"
                      "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n"
                      "summary: 1000 200 100 10 20 5 2 3\n"
                      "totals: 7 7 7\n");
    double v = -1;

    CHECK(pg_counter_read_dump(&v, path, PG_METRIC_INSTRUCTIONS) == 0);
    CHECK_NEAR(v, 1000, 0);
    /* 1300 accesses, 35 missed L1, 5 of them missed LL as well:
     * 1265 L1 hits + 5 x 30 LL hits + 35 x 5 from RAM. */
    CHECK(pg_counter_read_dump(&v, path, PG_METRIC_CYCLES) == 0);
    CHECK_NEAR(v, 1265 + 5 * 30 + 35 * 5, 0);
    unlink(path);
    free(path);

    /* Events in another order, fewer of them: by name. */
    path = dump("events: Dr Ir\nsummary: 5 42\n");
    CHECK(pg_counter_read_dump(&v, path, PG_METRIC_INSTRUCTIONS) == 0);
    CHECK_NEAR(v, 42, 0);
    unlink(path);
    free(path);

    /* No summary, or no events line before it: not a count. */
    path = dump("events: Ir\ntotals: 5\n");
    CHECK(pg_counter_read_dump(&v, path, PG_METRIC_INSTRUCTIONS) < 0);
    unlink(path);
    free(path);
    path = dump("summary: 5\n");
    CHECK(pg_counter_read_dump(&v, path, PG_METRIC_INSTRUCTIONS) < 0);
    unlink(path);
    free(path);
    CHECK(pg_counter_read_dump(&v, "/nonexistent/dump", 1) < 0);
}

static void names_both_ways(void)
{
    int m;

    for (m = PG_METRIC_TIME; m <= PG_METRIC_CYCLES; m++)
        CHECK(pg_metric_parse(pg_metric_name((pg_metric)m)) == m);
    CHECK(pg_metric_parse("speed") < 0);
    CHECK_STR(pg_metric_unit(PG_METRIC_TIME), "ns");
    CHECK_STR(pg_metric_unit(PG_METRIC_CYCLES), "cycles");
    for (m = PG_COUNTER_NONE; m <= PG_COUNTER_CALLGRIND; m++)
        CHECK(pg_counter_parse(pg_counter_name((pg_counter_kind)m)) == m);
    CHECK(pg_counter_parse("pmu") < 0);
}

static void cycles_never_come_from_the_cpu(void)
{
    pg_str why = PG_STR_INIT;

    CHECK(pg_counter_choose(PG_METRIC_CYCLES, PG_COUNTER_HARDWARE, &why) < 0);
    CHECK_CONTAINS(pg_str_cstr(&why), "callgrind's cache model");
    pg_str_clear(&why);
}

/* A counted run's spec reads back as written, a dump path with spaces
 * (a TMPDIR may have them) included; so does a record's precision. */
static void the_spec_carries_the_count(void)
{
    pg_run_spec spec;
    pg_settings st;
    pg_casespec c;
    pg_run_file back;
    char *path = dump("");

    pg_run_spec_init(&spec);
    pg_settings_defaults(&st);
    memset(&c, 0, sizeof(c));
    pg_casespec_add(&c, "n", 10);
    pg_casespec_name(&c);
    spec.problem_lib = "p.so";
    spec.problem_name = "p";
    spec.lib[1] = "h.so";
    spec.symbol = "solution";
    spec.settings = &st;
    spec.cases = &c;
    spec.ncases = 1;
    spec.metric = PG_METRIC_CYCLES;
    spec.counter = PG_COUNTER_CALLGRIND;
    spec.count_dump = "/tmp/a dir/callgrind.out";
    REQUIRE(pg_run_spec_write(&spec, path) == 0);
    REQUIRE(pg_run_file_read(&back, path) == 0);
    CHECK(back.spec.metric == PG_METRIC_CYCLES);
    CHECK(back.spec.counter == PG_COUNTER_CALLGRIND);
    CHECK_STR(back.spec.count_dump, "/tmp/a dir/callgrind.out");
    CHECK(!back.spec.code_path && !back.spec.sample);
    CHECK(back.spec.precision == 0);
    pg_run_file_clear(&back);
    /* A record's precision, and the rule the measurer makes of it. */
    spec.precision = 0.1;
    REQUIRE(pg_run_spec_write(&spec, path) == 0);
    REQUIRE(pg_run_file_read(&back, path) == 0);
    CHECK(back.spec.precision == 0.1);
    {
        pg_estimate_rule rule;
        pg_run_spec_rule(&back.spec, &rule);
        CHECK(fabs(rule.precision - 0.1 * st.noise_floor) < 1e-12);
        CHECK(rule.noise_floor == st.noise_floor);
    }
    pg_run_file_clear(&back);
    spec.precision = 0;
    /* The dispatch check's: each side's path dumped, or sampled. */
    spec.code_path = 1;
    spec.sample = "/tmp/a dir/samples";
    REQUIRE(pg_run_spec_write(&spec, path) == 0);
    REQUIRE(pg_run_file_read(&back, path) == 0);
    CHECK(back.spec.code_path == 1);
    CHECK_STR(back.spec.sample, "/tmp/a dir/samples");
    pg_run_file_clear(&back);
    spec.code_path = 0;
    spec.sample = NULL;
    /* Time: no count line, nothing counted. */
    spec.metric = 0;
    REQUIRE(pg_run_spec_write(&spec, path) == 0);
    REQUIRE(pg_run_file_read(&back, path) == 0);
    CHECK(back.spec.metric == 0 && back.spec.count_dump == NULL);
    pg_run_file_clear(&back);
    pg_casespec_clear(&c);
    unlink(path);
    free(path);
}

const pg_test pg_tests_counter[] = {
    {"the_spec_carries_the_count", the_spec_carries_the_count},
    {"dumps_are_read_by_their_events", dumps_are_read_by_their_events},
    {"names_both_ways", names_both_ways},
    {"cycles_never_come_from_the_cpu", cycles_never_come_from_the_cpu},
    PG_TESTS_END};
