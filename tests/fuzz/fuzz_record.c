/*
 * fuzz_record.c - a history record is input perfgate does not control:
 * `perfgate history` reads records from a ref that any machine, or
 * anyone with push access, may have written.  Every byte string must be
 * read as a record or refused with a message naming it; a record read
 * must write out again and read back the same, without a crash, a leak
 * or undefined behaviour.
 *
 * Built as a libFuzzer target with -DPERFGATE_FUZZ=ON (clang); its corpus
 * also runs as an ordinary test through run_corpus.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pg_record r, back;
    char *json, *again;

    if (pg_record_from_json(&r, (const char *)data, size, "fuzz.json") < 0) {
        if (!pg_error_last() || !strstr(pg_error_last(), "fuzz.json"))
            __builtin_trap();
        pg_error_clear();
        return 0;
    }
    json = pg_record_to_json(&r);
    if (pg_record_from_json(&back, json, strlen(json), "again.json") < 0)
        __builtin_trap(); /* what perfgate wrote, it reads */
    again = pg_record_to_json(&back);
    if (strcmp(json, again))
        __builtin_trap(); /* and reads the same */
    free(again);
    free(json);
    pg_record_clear(&back);
    pg_record_clear(&r);
    return 0;
}
