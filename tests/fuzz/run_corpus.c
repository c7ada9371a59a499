/*
 * run_corpus.c - runs a fuzz target over files given on the command line,
 * so that the corpus is an ordinary test on every build.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        uint8_t *buf;
        long size;

        if (!f || fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 2;
        }
        rewind(f);
        buf = malloc((size_t)size + 1);
        if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 2;
        }
        fclose(f);
        LLVMFuzzerTestOneInput(buf, (size_t)size);
        free(buf);
    }
    printf("%d inputs\n", argc - 1);
    return 0;
}
