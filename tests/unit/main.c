/*
 * main.c - runs one unit test suite, or one test of it:
 *   unit_tests SUITE [TEST]
 */
#define _GNU_SOURCE
#include "test.h"
#include "str.h"

#include <stdlib.h>

int pg_test_failed;
jmp_buf pg_test_end;

extern const pg_test pg_tests_util[], pg_tests_config[], pg_tests_stats[],
    pg_tests_report[], pg_tests_measure[], pg_tests_system[], pg_tests_gpu[],
    pg_tests_ci[], pg_tests_estimate[], pg_tests_init[], pg_tests_problem[],
    pg_tests_str[], pg_tests_fs[], pg_tests_proc[], pg_tests_revision[],
    pg_tests_cache[], pg_tests_prototype[], pg_tests_progress[];

static const struct {
    const char *name;
    const pg_test *tests;
} suites[] = {{"util", pg_tests_util},
              {"config", pg_tests_config},
              {"stats", pg_tests_stats},
              {"report", pg_tests_report},
              {"measure", pg_tests_measure},
              {"estimate", pg_tests_estimate},
              {"gpu", pg_tests_gpu},
              {"ci", pg_tests_ci},
              {"init", pg_tests_init},
              {"problem", pg_tests_problem},
              {"str", pg_tests_str},
              {"fs", pg_tests_fs},
              {"proc", pg_tests_proc},
              {"revision", pg_tests_revision},
              {"system", pg_tests_system},
              {"cache", pg_tests_cache},
              {"prototype", pg_tests_prototype},
              {"progress", pg_tests_progress}};

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
