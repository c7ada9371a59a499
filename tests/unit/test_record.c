/*
 * record.c: what `perfgate record` writes and `perfgate history` reads
 * back from a ref anyone may push to.  A record goes out and comes back
 * whole; a damaged, hostile or future one is refused whole, with a
 * message naming the file, never half-read; text is kept clean.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    r->format = PG_RECORD_FORMAT;
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

const pg_test pg_tests_record[] = {
    {"a_record_comes_back_whole", a_record_comes_back_whole},
    {"a_damaged_record_is_refused_whole", a_damaged_record_is_refused_whole},
    {"a_future_record_names_its_writer", a_future_record_names_its_writer},
    {"text_comes_back_clean_and_short", text_comes_back_clean_and_short},
    PG_TESTS_END};
