/*
 * fuzz_prototype.c - the prototype of a function to gate comes from
 * perfgate.yml, which a pull request's author writes.  Every byte string
 * must parse into names and types, or be refused with a message and a
 * column inside the text, never a crash, a leak or undefined behaviour.
 *
 * Built as a libFuzzer target with -DPERFGATE_FUZZ=ON (clang); its corpus
 * also runs as an ordinary test through run_corpus.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "prototype.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    pg_prototype p;
    size_t column, i;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    if (pg_prototype_parse(&p, text, &column) < 0) {
        /* Refused: said, and where (at most one past the end). */
        if (!pg_error_last() || column < 1 || column > strlen(text) + 1)
            abort();
    } else {
        if (!p.name || !p.result.spelling)
            abort();
        for (i = 0; i < p.nparams; i++)
            if (!p.params[i].name || !p.params[i].type.spelling ||
                p.params[i].column < 1 || p.params[i].column > size)
                abort();
        pg_prototype_clear(&p);
    }
    free(text);
    return 0;
}
