/*
 * record.c: what `perfgate record` writes and `perfgate history` reads
 * back from a ref anyone may push to.  A record goes out and comes back
 * whole; a damaged, hostile or future one is refused whole, with a
 * message naming the file, never half-read; text is kept clean.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counter.h"
#include "error.h"
#include "record.h"
#include "str.h"
#include "test.h"

#define A40 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define B40 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define C40 "cccccccccccccccccccccccccccccccccccccccc"
#define D40 "dddddddddddddddddddddddddddddddddddddddd"

/* A record of two benchmarks: one slower, with an interval and a culprit;
 * one the change did not reach. */
static void sample(pg_record *r)
{
    memset(r, 0, sizeof(*r));
    r->format = PG_RECORD_FORMAT_TIMES;
    r->check = 1;
    memcpy(r->commit, A40, PG_OID_HEX);
    memcpy(r->parent, B40, PG_OID_HEX);
    memcpy(r->tree, C40, PG_OID_HEX);
    memcpy(r->parent_tree, D40, PG_OID_HEX);
    r->subject = pg_strdup("faster parser");
    r->when = 1764300000;
    r->machine.name = pg_strdup("ci-runner");
    r->machine.cpu = pg_strdup("AMD EPYC");
    r->machine.cores = 2;
    r->machine.kernel = pg_strdup("6.1.0");
    r->machine.compiler = pg_strdup("cc (Debian 12.2.0-14) 12.2.0");
    r->perfgate = pg_strdup("1.0.0");
    r->method = PG_RECORD_METHOD;
    r->config_digest = pg_strdup("0123abcd");
    r->noise_floor = 0.05;
    r->nbenchmarks = 2;
    r->benchmarks = pg_calloc(2, sizeof(*r->benchmarks));
    r->count_floor = NAN;
    r->benchmarks[0].timed = r->benchmarks[1].timed = 1;
    r->benchmarks[0].name = pg_strdup("parse");
    r->benchmarks[0].status = PG_STATUS_REGRESSION;
    r->benchmarks[0].base_ns = 1000;
    r->benchmarks[0].head_ns = 1200;
    r->benchmarks[0].change = 0.2;
    r->benchmarks[0].change_lo = 0.18;
    r->benchmarks[0].change_hi = 0.22;
    memcpy(r->benchmarks[0].culprit, C40, PG_OID_HEX);
    r->benchmarks[0].culprit_subject = pg_strdup("copy the text");
    r->benchmarks[0].accepted = pg_strdup("worth it");
    r->benchmarks[1].name = pg_strdup("render");
    r->benchmarks[1].status = PG_STATUS_UNCHANGED;
    r->benchmarks[1].untouched = 1;
    r->benchmarks[1].base_ns = r->benchmarks[1].head_ns = NAN;
    r->benchmarks[1].change = 0;
    r->benchmarks[1].change_lo = r->benchmarks[1].change_hi = 0;
}

static void a_record_comes_back_whole(void)
{
    pg_record r, back;
    const pg_record_bench *b;
    char *json;

    sample(&r);
    json = pg_record_to_json(&r);
    REQUIRE(pg_record_from_json(&back, json, strlen(json), "r.json") == 0);
    CHECK(back.check == 1);
    CHECK_STR(back.commit, A40);
    CHECK_STR(back.parent_tree, D40);
    CHECK_STR(back.subject, "faster parser");
    CHECK(back.when == 1764300000);
    CHECK_STR(back.machine.name, "ci-runner");
    CHECK(back.machine.cores == 2);
    CHECK_STR(back.machine.compiler, "cc (Debian 12.2.0-14) 12.2.0");
    CHECK(back.method == PG_RECORD_METHOD && back.noise_floor == 0.05);
    REQUIRE(back.nbenchmarks == 2);
    REQUIRE((b = pg_record_find(&back, "parse")) != NULL);
    CHECK(b->status == PG_STATUS_REGRESSION);
    CHECK(b->base_ns == 1000 && b->head_ns == 1200);
    CHECK(fabs(b->change - 0.2) < 1e-12 && fabs(b->change_lo - 0.18) < 1e-12);
    CHECK_STR(b->culprit, C40);
    CHECK_STR(b->culprit_subject, "copy the text");
    CHECK_STR(b->accepted, "worth it");
    REQUIRE((b = pg_record_find(&back, "render")) != NULL);
    CHECK(b->untouched && isnan(b->base_ns) && b->change == 0);
    CHECK(pg_record_find(&back, "gone") == NULL);
    /* And the same text again: nothing lost or added on the way. */
    {
        char *again = pg_record_to_json(&back);
        CHECK_STR(again, json);
        free(again);
    }
    free(json);
    pg_record_clear(&back);
    pg_record_clear(&r);
}

/* `json` with the first `from` replaced by `to`: a record gone wrong. */
static char *damaged(const char *json, const char *from, const char *to)
{
    const char *at = strstr(json, from);
    pg_str out = PG_STR_INIT;

    REQUIRE(at != NULL);
    pg_str_printf(&out, "%.*s%s%s", (int)(at - json), json, to,
                  at + strlen(from));
    return pg_str_detach(&out);
}

static void a_damaged_record_is_refused_whole(void)
{
    static const char *const edits[][3] = {
        {"\"perfgate_record\":1", "\"perfgate_record\":\"1\"", "format"},
        {"\"commit\":\"" A40, "\"commit\":\"" A40 "0", "full commit id"},
        {"\"commit\":\"" A40,
         "\"commit\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
         "full commit id"},
        {"\"when\":1764300000", "\"when\":-5", "\"when\""},
        {"\"status\":\"regression\"", "\"status\":\"faster\"", "status"},
        {"\"change_lo\":0.18", "\"change_lo\":0.3", "upside down"},
        {"\"base_ns\":1000", "\"base_ns\":1e300", "\"base_ns\""},
        {"\"kind\":\"check\"", "\"kind\":\"push!\"", "\"kind\""},
        {"\"name\":\"ci-runner\"", "\"name\":\"\"", "no name"},
        {"\"name\":\"ci-runner\"", "\"name\":7", "\"name\""},
        {"\"benchmarks\":[", "\"benchmarks\":{\"x\":[", NULL},
        {"{", "[", "not a JSON object"},
    };
    pg_record r;
    char *json;
    size_t i;

    sample(&r);
    json = pg_record_to_json(&r);
    pg_record_clear(&r);
    for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        char *bad = damaged(json, edits[i][0], edits[i][1]);
        pg_error_clear();
        if (pg_record_from_json(&r, bad, strlen(bad), "refs/x:rec.json") !=
            PG_ERR_USAGE) {
            fprintf(stderr, "read: %s\n", edits[i][1]);
            pg_test_failed = 1;
        } else {
            const char *msg = pg_error_last();
            CHECK(msg && strstr(msg, "refs/x:rec.json"));
            if (edits[i][2] && !(msg && strstr(msg, edits[i][2]))) {
                fprintf(stderr, "%s: said %s\n", edits[i][1], msg);
                pg_test_failed = 1;
            }
            /* Never half-read: nothing to free, nothing kept. */
            CHECK(r.nbenchmarks == 0 && !r.benchmarks && !r.subject &&
                  !r.machine.name);
        }
        free(bad);
    }
    free(json);
    pg_error_clear();
}

/* The sample with counts (format 2): "parse" counted beside its time,
 * "render" counted only. */
static void sample_counted(pg_record *r)
{
    pg_record_count *k;

    sample(r);
    k = &r->benchmarks[0].count;
    r->format = PG_RECORD_FORMAT;
    r->count_floor = 0.01;
    k->metric = PG_METRIC_INSTRUCTIONS;
    k->counter = pg_strdup("callgrind");
    k->status = PG_STATUS_REGRESSION;
    k->base = 84492;
    k->head = 90000;
    k->change = 0.0651896;
    k->change_lo = k->change_hi = 0.0651896;
    k->other_path = 1;
    k = &r->benchmarks[1].count;
    r->benchmarks[1].timed = 0;
    k->metric = PG_METRIC_CYCLES;
    k->counter = pg_strdup("");
    k->status = PG_STATUS_UNCHANGED;
    k->base = k->head = NAN;
    k->change = k->change_lo = k->change_hi = 0;
}

static void a_record_keeps_its_counts(void)
{
    pg_record r, back;
    const pg_record_bench *b;
    char *json, *again;

    sample_counted(&r);
    json = pg_record_to_json(&r);
    CHECK_CONTAINS(json, "\"perfgate_record\":2");
    REQUIRE(pg_record_from_json(&back, json, strlen(json), "r.json") == 0);
    CHECK(back.format == 2 && back.count_floor == 0.01);
    REQUIRE((b = pg_record_find(&back, "parse")) != NULL);
    CHECK(b->timed && b->base_ns == 1000);
    CHECK(b->count.metric == PG_METRIC_INSTRUCTIONS);
    CHECK_STR(b->count.counter, "callgrind");
    CHECK(b->count.status == PG_STATUS_REGRESSION && b->count.other_path);
    CHECK(b->count.base == 84492 && b->count.head == 90000);
    CHECK(fabs(b->count.change_lo - 0.0651896) < 1e-12);
    REQUIRE((b = pg_record_find(&back, "render")) != NULL);
    CHECK(!b->timed && b->count.metric == PG_METRIC_CYCLES);
    CHECK(isnan(b->count.base) && b->count.change == 0);
    again = pg_record_to_json(&back);
    CHECK_STR(again, json);
    free(again);
    pg_record_clear(&back);
    pg_record_clear(&r);
    /* A format-1 record's "count" is not its to hold: not read. */
    {
        char *old =
            damaged(json, "\"perfgate_record\":2", "\"perfgate_record\":1");
        REQUIRE(pg_record_from_json(&back, old, strlen(old), "r.json") == 0);
        b = pg_record_find(&back, "parse");
        CHECK(b && !b->count.metric && b->timed);
        b = pg_record_find(&back, "render");
        CHECK(b && !b->count.metric && b->timed);
        pg_record_clear(&back);
        free(old);
    }
    free(json);
}

static void a_damaged_count_is_refused(void)
{
    static const char *const edits[][3] = {
        {"\"metric\":\"instructions\"", "\"metric\":\"time\"", "metric"},
        {"\"metric\":\"instructions\"", "\"metric\":5", "metric"},
        {"\"head\":90000", "\"head\":1e19", "\"head\""},
        {"\"head\":90000", "\"head\":-1", "\"head\""},
        {"\"status\":\"regression\",\"base\"", "\"status\":\"slower\",\"base\"",
         "status"},
        {"\"counter\":\"callgrind\"", "\"counter\":[]", "\"counter\""},
        {"\"change_hi\":0.0651896", "\"change_hi\":0.01", "upside down"},
        {"\"count\":{\"metric\":\"cycles\"",
         "\"uncount\":{\"metric\":\"cycles\"", "neither timed nor counted"},
        {"\"perfgate_record\":2", "\"perfgate_record\":2.5", "format 2.5"},
    };
    pg_record r;
    char *json;
    size_t i;

    sample_counted(&r);
    json = pg_record_to_json(&r);
    pg_record_clear(&r);
    for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        char *bad = damaged(json, edits[i][0], edits[i][1]);
        const char *msg;
        pg_error_clear();
        CHECK(pg_record_from_json(&r, bad, strlen(bad), "rec.json") ==
              PG_ERR_USAGE);
        msg = pg_error_last();
        if (!(msg && strstr(msg, edits[i][2]))) {
            fprintf(stderr, "%s: said %s\n", edits[i][1], msg ? msg : "-");
            pg_test_failed = 1;
        }
        CHECK(r.nbenchmarks == 0 && !r.benchmarks);
        free(bad);
    }
    free(json);
    pg_error_clear();
}

/* From a comparison: the count of a benchmark counted beside its time,
 * and unchanged as counted where the change could not reach; times alone
 * are format 1, as before. */
static void a_result_gives_its_counts(void)
{
    pg_result res;
    pg_record rec;
    pg_record_machine m;
    pg_bench_result *b;

    memset(&res, 0, sizeof(res));
    res.count_floor = 0.01;
    res.noise_floor = 0.05;
    b = pg_result_add(&res, "parse", NULL);
    b->status = PG_STATUS_UNCHANGED;
    b->base_ns = 1000;
    b->head_ns = 1010;
    b->change = 0.01;
    b->counted = pg_calloc(1, sizeof(*b->counted));
    pg_bench_result_init(b->counted, "parse", NULL);
    b->counted->metric = PG_METRIC_INSTRUCTIONS;
    b->counted->counter = pg_strdup("hardware");
    b->counted->status = PG_STATUS_REGRESSION;
    b->counted->base_ns = 100;
    b->counted->head_ns = 110;
    b->counted->change = b->counted->change_lo = b->counted->change_hi = 0.1;
    b = pg_result_add(&res, "render", NULL);
    b->not_affected = 1;
    memset(&m, 0, sizeof(m));
    m.name = pg_strdup("m");
    pg_record_from_result(&rec, &res, C40, D40, &m, 1764300000, 1,
                          PG_METRIC_INSTRUCTIONS);
    CHECK(rec.format == 2 && rec.count_floor == 0.01);
    CHECK(rec.benchmarks[0].timed && rec.benchmarks[0].base_ns == 1000);
    CHECK(rec.benchmarks[0].count.metric == PG_METRIC_INSTRUCTIONS);
    CHECK(rec.benchmarks[0].count.head == 110);
    CHECK(rec.benchmarks[0].count.status == PG_STATUS_REGRESSION);
    CHECK_STR(rec.benchmarks[0].count.counter, "hardware");
    CHECK(rec.benchmarks[1].untouched && rec.benchmarks[1].timed);
    CHECK(rec.benchmarks[1].count.metric == PG_METRIC_INSTRUCTIONS);
    CHECK(rec.benchmarks[1].count.change == 0);
    pg_record_clear(&rec);
    m.name = pg_strdup("m");
    pg_record_from_result(&rec, &res, C40, D40, &m, 1764300000, 1,
                          PG_METRIC_TIME);
    CHECK(rec.format == 1 && isnan(rec.count_floor));
    CHECK(!rec.benchmarks[0].count.metric && !rec.benchmarks[1].count.metric);
    pg_record_clear(&rec);
    pg_result_clear(&res);
}

/* A record of a later format is refused, naming who wrote it. */
static void a_future_record_names_its_writer(void)
{
    static const char text[] = "{\"perfgate_record\": 7, "
                               "\"perfgate\": \"9.0\\u001b[31m\"}";
    pg_record r;

    pg_error_clear();
    CHECK(pg_record_from_json(&r, text, strlen(text), "rec.json") ==
          PG_ERR_USAGE);
    CHECK(pg_error_last() && strstr(pg_error_last(), "format 7") &&
          strstr(pg_error_last(), "written by 9.0") &&
          strstr(pg_error_last(), "upgrade perfgate"));
    CHECK(!strchr(pg_error_last(), '\033')); /* no terminal escapes */
    pg_error_clear();
}

/* Text from a record reaches terminals and pages: control characters
 * go, and a long subject is cut. */
static void text_comes_back_clean_and_short(void)
{
    pg_record r, back;
    char *json, *long_subject = pg_malloc(5001);

    sample(&r);
    free(r.subject);
    memset(long_subject, 'x', 5000);
    long_subject[5000] = '\0';
    r.subject = long_subject;
    free(r.benchmarks[0].name);
    r.benchmarks[0].name = pg_strdup("par\033[2Jse\r");
    json = pg_record_to_json(&r);
    REQUIRE(pg_record_from_json(&back, json, strlen(json), "r.json") == 0);
    CHECK(strlen(back.subject) <= 200);
    CHECK(!strchr(back.benchmarks[0].name, '\033') &&
          !strchr(back.benchmarks[0].name, '\r'));
    free(json);
    pg_record_clear(&back);
    pg_record_clear(&r);
}

/* The heap per call rides along in any format, and a damaged one is
 * refused like any field. */
static void a_record_keeps_its_heap(void)
{
    static const char *const edits[][3] = {
        {"\"allocs\":2", "\"allocs\":-2", "\"allocs\""},
        {"\"peak\":64", "\"peak\":\"64\"", "\"peak\""},
        {"\"head\":{\"allocs\"", "\"tail\":{\"allocs\"", "a side's"},
        {"\"memory\":{", "\"memory\":7,\"x\":{", "not an object"},
    };
    pg_record r, back;
    const pg_record_bench *b;
    char *json, *again;
    size_t i;

    sample(&r);
    r.benchmarks[0].memory[0] = (pg_memory_use){1, 1, 32, 32, 0, 0, 0};
    r.benchmarks[0].memory[1] = (pg_memory_use){1, 2, 64, 64, 16, 0, 0};
    json = pg_record_to_json(&r);
    pg_record_clear(&r);
    CHECK_CONTAINS(json, "\"perfgate_record\":1");
    CHECK_CONTAINS(json, "\"memory\":{\"base\":{\"allocs\":1,");
    REQUIRE(pg_record_from_json(&back, json, strlen(json), "r.json") == 0);
    REQUIRE((b = pg_record_find(&back, "parse")) != NULL);
    CHECK(b->memory[1].counted && b->memory[1].allocs == 2);
    CHECK(b->memory[1].leaked == 16 && b->memory[0].peak == 32);
    REQUIRE((b = pg_record_find(&back, "render")) != NULL);
    CHECK(!b->memory[0].counted);
    again = pg_record_to_json(&back);
    CHECK_STR(again, json);
    free(again);
    pg_record_clear(&back);
    for (i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        char *bad = damaged(json, edits[i][0], edits[i][1]);
        const char *msg;
        pg_error_clear();
        CHECK(pg_record_from_json(&back, bad, strlen(bad), "rec.json") ==
              PG_ERR_USAGE);
        msg = pg_error_last();
        if (!(msg && strstr(msg, edits[i][2]))) {
            fprintf(stderr, "%s: said %s\n", edits[i][1], msg ? msg : "-");
            CHECK(0);
        }
        free(bad);
    }
    free(json);
}

const pg_test pg_tests_record[] = {
    {"a_record_keeps_its_heap", a_record_keeps_its_heap},
    {"a_record_comes_back_whole", a_record_comes_back_whole},
    {"a_damaged_record_is_refused_whole", a_damaged_record_is_refused_whole},
    {"a_future_record_names_its_writer", a_future_record_names_its_writer},
    {"text_comes_back_clean_and_short", text_comes_back_clean_and_short},
    {"a_record_keeps_its_counts", a_record_keeps_its_counts},
    {"a_damaged_count_is_refused", a_damaged_count_is_refused},
    {"a_result_gives_its_counts", a_result_gives_its_counts},
    PG_TESTS_END};
