/*
 * function.c: a benchmark given by its prototype.  The expressions a
 * count, a length or a work formula is written in (whole numbers, case
 * parameters, + - * / % and parentheses, C's precedence, left to right),
 * and the checks that refuse a config at its line and column before
 * anything is built.  Nothing is compiled here.
 */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "error.h"
#include "function.h"
#include "str.h"
#include "test.h"

#define ADLER                                                                  \
    "function: \"unsigned long adler32_z(unsigned long adler, "                \
    "const unsigned char *buf, size_t len)\""

/* Parses a config of one benchmark, `body` its lines after "- name: x";
 * NULL when it is taken, else the message (static until the next call). */
static const char *parse(const char *body)
{
    static char msg[1024];
    pg_str text = PG_STR_INIT;
    pg_config cfg;
    int err;

    pg_str_printf(&text, "version: 1\nbenchmarks:\n  - name: x\n%s", body);
    pg_error_clear();
    err = pg_config_parse(&cfg, pg_str_cstr(&text), text.size, "perfgate.yml",
                          ".", NULL);
    pg_str_clear(&text);
    if (!err) {
        REQUIRE(cfg.nbenchmarks == 1 && cfg.benchmarks[0].function);
        CHECK(cfg.benchmarks[0].function->source &&
              strstr(cfg.benchmarks[0].function->source, "adler32_z"));
        pg_config_clear(&cfg);
        return NULL;
    }
    snprintf(msg, sizeof(msg), "%s", pg_error_last() ? pg_error_last() : "?");
    pg_error_clear();
    pg_config_clear(&cfg); /* part of a config, either way */
    return msg;
}

/* The adler32_z benchmark with buf's count `count` and one case. */
static const char *with_count(const char *count, const char *cases)
{
    static char body[4096];

    REQUIRE(snprintf(body, sizeof(body),
                     "    " ADLER "\n    sources: [adler.c]\n"
                     "    args: {adler: 1, buf: {count: %s}, len: buf}\n"
                     "    cases: [%s]\n",
                     count, cases) < (int)sizeof(body));
    return parse(body);
}

static void counts_follow_c_s_precedence(void)
{
    /* Taken: the plain forms. */
    CHECK(with_count("len", "{len: 64}") == NULL);
    CHECK(with_count("2*len + 1", "{len: 64}") == NULL);
    CHECK(with_count("(len + 7) / 8 * 8", "{len: 61}") == NULL);
    CHECK(with_count("len % 16 + 16", "{len: 61}") == NULL);
    CHECK(with_count("-(-len)", "{len: 61}") == NULL);
    /* Left to right: 1 - 2 + 2 is 1 (not -3); 1 - 4 / 2 / 2 is 0 (not
     * -3).  Either wrong grouping would be a negative count. */
    CHECK(with_count("1 - 2 + 2", "{len: 1}") == NULL);
    CHECK(with_count("1 - 4 / 2 / 2", "{len: 1}") == NULL);
    /* * before -: 2 - 3 * len is negative at len 1; (2 - 3) * -len is 1. */
    CHECK_CONTAINS(with_count("2 - 3 * len", "{len: 1}"),
                   "on case len=1, 'buf' has a negative count");
    CHECK(with_count("(2 - 3) * -len", "{len: 1}") == NULL);
}

static void a_count_that_cannot_be_is_refused_on_its_case(void)
{
    CHECK_CONTAINS(with_count("len / (len - 4) + 10", "{len: 3}, {len: 4}"),
                   "on case len=4, 'buf' has a count that overflows or "
                   "divides by zero");
    CHECK_CONTAINS(with_count("len * len * len", "{len: 10000000}"),
                   "overflows");
    CHECK_CONTAINS(with_count("len", "{len: 1000000000000000}"),
                   "more memory than this machine has");
}

/* What is not an expression is refused at its column, saying what was
 * expected: nothing of it reaches the generated C. */
static void what_is_not_an_expression_is_refused_where_it_is(void)
{
    static const char *const bad[][2] = {
        {"len *", "a value expected"},
        {"len +* 2", "a number, a name or '(' expected"},
        {"(len", "')' expected"},
        {"len)", "unexpected ')'"},
        {"2.5 * len", "a whole number expected"},
        {"99999999999999999999", "a whole number expected"},
        {"size", "unknown name 'size' (it may name: len)"},
        {"len; system(1)", "unexpected ';'"},
        {"\"len); abort(); (1\"", "unexpected ')'"},
        {"len << 2", "unexpected '<'"},
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *msg = with_count(bad[i][0], "{len: 64}");
        if (!msg || !strstr(msg, bad[i][1]) ||
            !strstr(msg, "perfgate.yml:6:")) {
            fprintf(stderr, "%s: %s\n", bad[i][0], msg ? msg : "taken");
            pg_test_failed = 1;
        }
    }
    /* The column is the offending character's: the value starts at 35,
     * and "len +* 2" goes wrong at '*', 5 further. */
    CHECK_CONTAINS(with_count("len", "{len: -1}"), "perfgate.yml:6:35:");
    CHECK_CONTAINS(with_count("len +* 2", "{len: 64}"), "perfgate.yml:6:40:");
}

static void nesting_and_length_are_bounded(void)
{
    pg_str deep = PG_STR_INIT, longer = PG_STR_INIT;
    int i;

    for (i = 0; i < 30; i++)
        pg_str_putc(&deep, '(');
    pg_str_puts(&deep, "len");
    for (i = 0; i < 30; i++)
        pg_str_putc(&deep, ')');
    CHECK_CONTAINS(with_count(pg_str_cstr(&deep), "{len: 1}"),
                   "nested too deep");
    pg_str_puts(&longer, "len");
    for (i = 0; i < 200; i++)
        pg_str_puts(&longer, " + 1");
    CHECK_CONTAINS(with_count(pg_str_cstr(&longer), "{len: 1}"),
                   "longer than 256 operations");
    pg_str_clear(&deep);
    pg_str_clear(&longer);
}

/* A name only some cases have is not a parameter of every case. */
static void a_name_must_be_in_every_case(void)
{
    CHECK_CONTAINS(with_count("n", "{len: 1, n: 2}, {len: 3}"),
                   "'n' is not a parameter of every case");
}

/* The checks of the arguments against the prototype. */
static void arguments_are_checked_against_the_prototype(void)
{
    CHECK_CONTAINS(parse("    " ADLER "\n    sources: [adler.c]\n"
                         "    args: {adler: 1, bufer: {count: len}}\n"
                         "    cases: [{len: 1}]\n"),
                   "'bufer' is not a parameter of adler32_z (did you mean "
                   "'buf'?)");
    CHECK_CONTAINS(parse("    " ADLER "\n    sources: [adler.c]\n"
                         "    args: {adler: 1}\n    cases: [{len: 1}]\n"),
                   "parameter 'buf' (const unsigned char *) needs a value");
    CHECK_CONTAINS(parse("    " ADLER "\n    sources: [adler.c]\n"
                         "    args: {adler: 1, buf: 64, len: 64}\n"
                         "    cases: [{len: 1}]\n"),
                   "'buf' is a pointer (const unsigned char *): give it a "
                   "buffer");
}

const pg_test pg_tests_function[] = {
    {"counts_follow_c_s_precedence", counts_follow_c_s_precedence},
    {"a_count_that_cannot_be_is_refused_on_its_case",
     a_count_that_cannot_be_is_refused_on_its_case},
    {"what_is_not_an_expression_is_refused_where_it_is",
     what_is_not_an_expression_is_refused_where_it_is},
    {"nesting_and_length_are_bounded", nesting_and_length_are_bounded},
    {"a_name_must_be_in_every_case", a_name_must_be_in_every_case},
    {"arguments_are_checked_against_the_prototype",
     arguments_are_checked_against_the_prototype},
    PG_TESTS_END};
