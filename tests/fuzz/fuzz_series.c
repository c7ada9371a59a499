/*
 * fuzz_series.c - a CSV file of another tool's numbers is input perfgate
 * does not control (`perfgate history --series`).  Every byte string must
 * be read as a table of series or refused with a message naming the file;
 * a table read must be searched and shown (text, JSON, the page) without
 * a crash, a leak or undefined behaviour, whatever its numbers' scale.
 *
 * Built as a libFuzzer target with -DPERFGATE_FUZZ=ON (clang); its corpus
 * also runs as an ordinary test through run_corpus.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "error.h"
#include "history.h"
#include "str.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_history h;
    pg_csv t;
    pg_str out = PG_STR_INIT;
    char *json;

    if (pg_csv_parse(&t, (const char *)data, size, "fuzz.csv") < 0 ||
        pg_history_from_csv(&h, &t, "fuzz.csv", NULL, NULL) < 0) {
        if (!pg_error_last() || !strstr(pg_error_last(), "fuzz.csv"))
            __builtin_trap();
        pg_error_clear();
        pg_csv_clear(&t);
        return 0;
    }
    pg_csv_clear(&t);
    pg_history_detect(&h, NULL);
    pg_history_render_text(&out, &h);
    pg_history_html(&out, &h, NULL);
    json = pg_history_to_json(&h);
    free(json);
    pg_str_clear(&out);
    pg_history_clear(&h);
    return 0;
}
