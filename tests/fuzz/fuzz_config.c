/*
 * fuzz_config.c - perfgate.yml is input perfgate does not control: the
 * parser must answer every byte string with a config or a positioned
 * error, never a crash, a leak or undefined behaviour.
 *
 * Built as a libFuzzer target with -DPERFGATE_FUZZ=ON (clang); its corpus
 * also runs as an ordinary test through run_corpus.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const builtins[] = {"matmul", "reduce_sum",
                                           "vector_add", NULL};
    pg_config cfg;
    int err;

    err = pg_config_parse(&cfg, (const char *)data, size, "fuzz.yml", ".",
                          builtins);
    /* An error always comes with a message that names the file. */
    if (err < 0 && (!pg_error_last() || strncmp(pg_error_last(), "fuzz.yml:",
                                                 9)))
        __builtin_trap();
    pg_config_clear(&cfg);
    pg_error_clear();
    return 0;
}
