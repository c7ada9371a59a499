/*
 * The CSV reader: RFC 4180's quoting, line endings and byte-order mark
 * read as written; every malformed record refused with its line, and
 * nothing kept of it.
 */
#include <string.h>

#include "csv.h"
#include "error.h"
#include "test.h"

static int parse(pg_csv *t, const char *text)
{
    return pg_csv_parse(t, text, strlen(text), "t.csv");
}

static void fields_quotes_and_line_ends(void)
{
    pg_csv t;

    REQUIRE(parse(&t, "\xef\xbb\xbf"
                      "commit,a,\"b, c\"\r\n"
                      "x1,1,\"say \"\"hi\"\"\"\n"
                      "\n"
                      "x2,,\"two\nlines\"") == 0);
    CHECK(t.rows == 3 && t.cols == 3);
    CHECK_STR(pg_csv_cell(&t, 0, 0), "commit"); /* no BOM in the name */
    CHECK_STR(pg_csv_cell(&t, 0, 2), "b, c");
    CHECK_STR(pg_csv_cell(&t, 1, 2), "say \"hi\"");
    CHECK_STR(pg_csv_cell(&t, 2, 1), "");
    CHECK_STR(pg_csv_cell(&t, 2, 2), "two\nlines");
    pg_csv_clear(&t);
    /* A trailing comma is an empty last field. */
    REQUIRE(parse(&t, "a,b\n1,\n") == 0);
    CHECK(t.rows == 2 && t.cols == 2);
    CHECK_STR(pg_csv_cell(&t, 1, 1), "");
    pg_csv_clear(&t);
}

/* Each malformed text is refused with the line where it goes wrong. */
static void malformed_records_name_their_line(void)
{
    static const struct {
        const char *text, *message;
    } bad[] = {
        {"a,b\n1,2\n3\n", "t.csv:3: 1 field where the header has 2"},
        {"a,b\n1,2,3\n", "t.csv:2: 3 fields where the header has 2"},
        {"a\n\"open\n\n", "t.csv:2: a quoted field is never closed"},
        {"a\n\"x\"y\n", "t.csv:2: text after a quoted field's closing"},
        {"a\nx\"y\n", "t.csv:2: a quote inside a field"},
        /* A record over two lines is named by its first. */
        {"a\n\"multi\nline\",\n", "t.csv:2: 2 fields where the header has 1"},
        {"", "t.csv: empty"},
        {"\n\r\n", "t.csv: empty"},
    };
    size_t i;
    pg_csv t;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        pg_error_clear();
        CHECK(parse(&t, bad[i].text) == PG_ERR_USAGE);
        CHECK(t.cells == NULL && t.rows == 0);
        CHECK_CONTAINS(pg_error_last(), bad[i].message);
    }
    /* A NUL byte: not text. */
    CHECK(pg_csv_parse(&t, "a\nx\0y\n", 6, "t.csv") == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "t.csv:2: a NUL byte");
}

const pg_test pg_tests_csv[] = {
    {"fields_quotes_and_line_ends", fields_quotes_and_line_ends},
    {"malformed_records_name_their_line", malformed_records_name_their_line},
    PG_TESTS_END};
