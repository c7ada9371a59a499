/*
 * main.c - runs one unit test suite, or one test of it:
 *   unit_tests SUITE [TEST]
 */
#include "test.h"
#include "json.h"
#include "str.h"

#include <stdlib.h>

int pg_test_failed;
jmp_buf pg_test_end;

/* Every suite, found by the build (tests/CMakeLists.txt): one
 * PG_SUITE(NAME) per tests/unit/test_NAME.c, which defines pg_tests_NAME. */
#define PG_SUITE(name) extern const pg_test pg_tests_##name[];
#include "unit_suites.h"
#undef PG_SUITE

static const struct {
    const char *name;
    const pg_test *tests;
} suites[] = {
#define PG_SUITE(name) {#name, pg_tests_##name},
#include "unit_suites.h"
#undef PG_SUITE
};

char *pg_test_scratch(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = pg_strdupf("%s/pg-unit-XXXXXX", tmp && *tmp ? tmp : "/tmp");

    if (!mkdtemp(dir)) {
        free(dir);
        return NULL;
    }
    return dir;
}

/* Runs one test; a failed REQUIRE ends it here. */
static void run_one(const pg_test *t)
{
    if (!setjmp(pg_test_end))
        t->fn();
}

int main(int argc, char **argv)
{
    size_t s;
    int failures = 0, ran = 0;

    pg_json_hooks(); /* as perfgate's main() */
    for (s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
        const pg_test *t;
        if (argc > 1 && strcmp(argv[1], suites[s].name))
            continue;
        for (t = suites[s].tests; t->name; t++) {
            if (argc > 2 && strcmp(argv[2], t->name))
                continue;
            pg_test_failed = 0;
            run_one(t);
            ran++;
            printf("%s %s.%s\n", pg_test_failed ? "FAIL" : "ok  ",
                   suites[s].name, t->name);
            failures += pg_test_failed;
        }
    }
    if (!ran) {
        fprintf(stderr, "no such test\n");
        return 2;
    }
    return failures ? 1 : 0;
}
