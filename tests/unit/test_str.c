/*
 * The string buffer, text cleaning at character boundaries, and the string
 * list.
 */
#include <stdlib.h>
#include <string.h>

#include "str.h"
#include "strvec.h"
#include "test.h"

static void buffer_grows_and_resets(void)
{
    pg_str s = PG_STR_INIT;
    char *owned;
    int i;

    CHECK_STR(pg_str_cstr(&s), ""); /* never NULL, even unused */
    for (i = 0; i < 1000; i++)
        pg_str_printf(&s, "%d,", i);
    CHECK(s.size == strlen(s.ptr));
    CHECK(!strncmp(s.ptr, "0,1,2,", 6));
    pg_str_reset(&s);
    CHECK(s.size == 0 && s.ptr && s.ptr[0] == '\0');
    pg_str_puts(&s, "tail  \n\t");
    pg_str_rtrim(&s);
    CHECK_STR(pg_str_cstr(&s), "tail");
    owned = pg_str_detach(&s);
    CHECK_STR(owned, "tail");
    CHECK(s.ptr == NULL && s.size == 0); /* empty again, and reusable */
    free(owned);
    pg_str_puts(&s, "again");
    CHECK_STR(pg_str_cstr(&s), "again");
    pg_str_clear(&s);
    CHECK(s.ptr == NULL);
}

static void utf8_is_cut_between_characters(void)
{
    /* "é" is two bytes, "€" three: a cut never splits one. */
    const char *text = "a\xc3\xa9\xe2\x82\xac";

    CHECK(pg_utf8_cut(text, 1) == 1);
    CHECK(pg_utf8_cut(text, 2) == 1);
    CHECK(pg_utf8_cut(text, 3) == 3);
    CHECK(pg_utf8_cut(text, 5) == 3);
    CHECK(pg_utf8_cut(text, 6) == 6);
    CHECK(pg_utf8_cut(text, 100) == 6);
    CHECK(pg_utf8_char_len((const unsigned char *)"\xe2\x82", 2) == 0);
    CHECK(pg_utf8_char_len((const unsigned char *)"\xe2\x82\xac", 3) == 3);
}

static void capped_buffer_cuts_between_characters(void)
{
    pg_str s;
    int i;

    pg_str_init(&s, 8);
    for (i = 0; i < 10; i++)
        pg_str_puts(&s, "\xe2\x82\xac"); /* € */
    /* The newest whole characters that fit. */
    CHECK(s.truncated);
    CHECK(s.size <= 8 && s.size % 3 == 0);
    CHECK(!memcmp(s.ptr, "\xe2\x82\xac", 3));
    pg_str_clear(&s);
}

static void string_lists(void)
{
    pg_strvec v = PG_STRVEC_INIT;
    char *mine = pg_strdup("owned");

    CHECK(pg_strvec_list(&v)[0] == NULL); /* empty, never NULL */
    pg_strvec_push(&v, "a");
    pg_strvec_pushf(&v, "%s-%d", "b", 2);
    pg_strvec_push_owned(&v, mine);
    REQUIRE(v.n == 3);
    CHECK_STR(v.v[0], "a");
    CHECK_STR(v.v[1], "b-2");
    CHECK(v.v[2] == mine);
    CHECK(v.v[3] == NULL);
    CHECK(pg_strvec_has(&v, "b-2"));
    CHECK(!pg_strvec_has(&v, "b"));
    pg_strvec_clear(&v);
    CHECK(v.n == 0 && v.v == NULL);
    pg_strvec_push(&v, "reused");
    CHECK_STR(pg_strvec_list(&v)[0], "reused");
    pg_strvec_clear(&v);
}

const pg_test pg_tests_str[] = {
    {"buffer_grows_and_resets", buffer_grows_and_resets},
    {"utf8_is_cut_between_characters", utf8_is_cut_between_characters},
    {"capped_buffer_cuts_between_characters",
     capped_buffer_cuts_between_characters},
    {"string_lists", string_lists},
    PG_TESTS_END};
