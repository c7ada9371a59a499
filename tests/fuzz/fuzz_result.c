/*
 * fuzz_result.c - a saved JSON result is input perfgate does not control:
 * `perfgate report` and the Action's post-only path read files that a pull
 * request's run wrote.  Every byte string must be read as a result or
 * refused with a message, and whatever is read must render (terminal,
 * comment, summary) and serialize again without a crash, a leak or
 * undefined behaviour.
 *
 * Built as a libFuzzer target with -DPERFGATE_FUZZ=ON (clang); its corpus
 * also runs as an ordinary test through run_corpus.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "report.h"
#include "result.h"
#include "stats.h"
#include "str.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    pg_result r;
    pg_str out = PG_STR_INIT;
    char *json;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (pg_result_from_json(&r, text, "fuzz.json") < 0) {
        /* A refusal always says which file. */
        if (!pg_error_last() || !strstr(pg_error_last(), "fuzz.json"))
            __builtin_trap();
        pg_error_clear();
        free(text);
        return 0;
    }
    pg_result_clean_text(&r);
    pg_stats_judge(&r);
    pg_report_terminal(&out, &r, 1);
    pg_str_reset(&out);
    pg_report_markdown(&out, &r);
    pg_str_reset(&out);
    pg_report_summary(&out, &r);
    pg_str_clear(&out);
    json = pg_result_to_json(&r);
    free(json);
    pg_result_clear(&r);
    free(text);
    return 0;
}
