/* Units users write, formatting, suggestions and the capped buffer. */
#include <stdlib.h>

#include "parallel.h"
#include "str.h"
#include "test.h"
#include "units.h"
#include "words.h"

static void durations(void)
{
    double v;

    CHECK(pg_parse_duration(&v, "10s") == 0 && v == 10);
    CHECK(pg_parse_duration(&v, "500ms") == 0 && fabs(v - 0.5) < 1e-12);
    CHECK(pg_parse_duration(&v, "2m") == 0 && v == 120);
    CHECK(pg_parse_duration(&v, "1.5") == 0 && v == 1.5);
    CHECK(pg_parse_duration(&v, "250us") == 0 && fabs(v - 250e-6) < 1e-15);
    CHECK(pg_parse_duration(&v, "10 parsecs") < 0);
    CHECK(pg_parse_duration(&v, "-1s") < 0);
    CHECK(pg_parse_duration(&v, "") < 0);
}

static void fractions(void)
{
    double v;

    CHECK(pg_parse_fraction(&v, "5%") == 0 && fabs(v - 0.05) < 1e-12);
    CHECK(pg_parse_fraction(&v, "0.05") == 0 && fabs(v - 0.05) < 1e-12);
    CHECK(pg_parse_fraction(&v, "12.5 %") == 0 && fabs(v - 0.125) < 1e-12);
    CHECK(pg_parse_fraction(&v, "5") < 0); /* five what? */
    CHECK(pg_parse_fraction(&v, "-5%") < 0);
    CHECK(pg_parse_fraction(&v, "five") < 0);
}

static void suggestions(void)
{
    static const char *const keys[] = {"sources", "symbol", "cflags", NULL};

    CHECK_STR(pg_suggest("sourcez", keys), "sources");
    CHECK_STR(pg_suggest("cflag", keys), "cflags");
    CHECK(pg_suggest("banana", keys) == NULL);
}

static void human_times(void)
{
    pg_str s = PG_STR_INIT;

    pg_format_ns(&s, 32800);
    CHECK_STR(pg_str_cstr(&s), "32.8 µs");
    pg_str_reset(&s);
    pg_format_ns(&s, 1.2e9);
    CHECK_STR(pg_str_cstr(&s), "1.20 s");
    pg_str_reset(&s);
    pg_format_ns(&s, 999.96);
    CHECK_STR(pg_str_cstr(&s), "1.00 µs");
    pg_str_reset(&s);
    pg_format_ns(&s, 4.5);
    CHECK_STR(pg_str_cstr(&s), "4.50 ns");
    pg_str_reset(&s);
    pg_format_ns(&s, NAN);
    CHECK_STR(pg_str_cstr(&s), "–");
    pg_str_reset(&s);
    pg_format_change(&s, -0.1234);
    CHECK_STR(pg_str_cstr(&s), "-12.3%");
    pg_str_clear(&s);
}

static void capped_buffer_keeps_the_newest_bytes(void)
{
    pg_str s;
    int i;

    pg_str_init(&s, 8);
    for (i = 0; i < 100; i++)
        pg_str_printf(&s, "%d,", i);
    CHECK(s.size <= 8);
    CHECK(s.truncated);
    CHECK_CONTAINS(pg_str_cstr(&s), "99,");
    pg_str_clear(&s);
}

static void tail_lines(void)
{
    pg_str s = PG_STR_INIT;

    pg_str_put_tail_lines(&s, "a\nb\nc\nd\n", 2);
    CHECK_STR(pg_str_cstr(&s), "c\nd");
    pg_str_clear(&s);
}

static void sizes(void)
{
    pg_str s = PG_STR_INIT;

    pg_format_bytes(&s, 512);
    CHECK_STR(pg_str_cstr(&s), "512 B");
    pg_str_reset(&s);
    pg_format_bytes(&s, 3 * 1048576.0);
    CHECK_STR(pg_str_cstr(&s), "3.0 MiB");
    pg_str_reset(&s);
    pg_format_bytes(&s, 12.5 * 1073741824.0);
    CHECK_STR(pg_str_cstr(&s), "12.5 GiB");
    pg_str_reset(&s);
    pg_format_bytes(&s, 1e30);
    CHECK_STR(pg_str_cstr(&s), "867361737988.4 EiB");
    pg_str_clear(&s);
}

static void text_is_cleaned(void)
{
    char *t;
    pg_str s = PG_STR_INIT;

    /* Valid text, newlines and tabs pass; gcc's quotes are multibyte. */
    t = pg_text_clean("a\tb\n\xe2\x80\x98x\xe2\x80\x99 \xf0\x9f\x9a\x80");
    CHECK_STR(t, "a\tb\n\xe2\x80\x98x\xe2\x80\x99 \xf0\x9f\x9a\x80");
    free(t);
    /* Latin-1, a cut character, an escape sequence, CR, DEL, C1, an
     * overlong '/', a surrogate: each becomes U+FFFD. */
    t = pg_text_clean("caf\xe9|\xe2\x80|\x1b[31m|\r|\x7f|\xc2\x9b|\xc0\xaf|"
                      "\xed\xa0\x80|");
    CHECK_STR(t, "caf\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd[31m|"
                 "\xef\xbf\xbd|\xef\xbf\xbd|\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|"
                 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|");
    free(t);
    CHECK(pg_text_clean(NULL) == NULL);
    /* The bidirectional controls (RLO, LRI, PDI, RLM, ALM) too; the
     * quotes and dashes beside them pass. */
    t = pg_text_clean("a\xe2\x80\xae"
                      "b\xe2\x81\xa6"
                      "c\xe2\x81\xa9"
                      "d\xe2\x80\x8f"
                      "e\xd8\x9c"
                      "f\xe2\x80\x94"
                      "g");
    CHECK_STR(t, "a\xef\xbf\xbd"
                 "b\xef\xbf\xbd"
                 "c\xef\xbf\xbd"
                 "d\xef\xbf\xbd"
                 "e\xef\xbf\xbd"
                 "f\xe2\x80\x94"
                 "g");
    free(t);
    /* Cuts land on a character's first byte. */
    CHECK(pg_utf8_cut("ab\xe2\x80\x98", 3) == 2);
    CHECK(pg_utf8_cut("ab\xe2\x80\x98", 4) == 2);
    CHECK(pg_utf8_cut("ab\xe2\x80\x98", 5) == 5);
    CHECK(pg_utf8_cut("ab", 1) == 1);
    /* A capped buffer never starts inside a character. */
    pg_str_init(&s, 4);
    pg_str_puts(&s, "x\xe2\x80\x98\xe2\x80\x99");
    CHECK_STR(pg_str_cstr(&s), "\xe2\x80\x99");
    pg_str_clear(&s);
}

static void names(void)
{
    CHECK(pg_valid_name("reduce_sum-v2.1"));
    CHECK(!pg_valid_name("a b"));
    CHECK(!pg_valid_name(""));
    CHECK(!pg_valid_name("x|y"));
}

static void count_piece(void *payload, size_t i)
{
    ((unsigned char *)payload)[i]++;
}

/* Every piece once, however many threads there are; none of none. */
static void pieces_are_each_done_once(void)
{
    static unsigned char done[5000];
    size_t i, wrong = 0;

    pg_parallel_for(5000, count_piece, done);
    for (i = 0; i < 5000; i++)
        wrong += done[i] != 1;
    CHECK(wrong == 0);
    pg_parallel_for(0, count_piece, NULL);
    pg_parallel_for(1, count_piece, done);
    CHECK(done[0] == 2 && done[1] == 1);
}

const pg_test pg_tests_util[] = {
    {"durations", durations},
    {"fractions", fractions},
    {"suggestions", suggestions},
    {"human_times", human_times},
    {"capped_buffer_keeps_the_newest_bytes",
     capped_buffer_keeps_the_newest_bytes},
    {"tail_lines", tail_lines},
    {"names", names},
    {"text_is_cleaned", text_is_cleaned},
    {"sizes", sizes},
    {"pieces_are_each_done_once", pieces_are_each_done_once},
    PG_TESTS_END};
