/*
 * What `perfgate init` writes: starters and the config edit.
 */
#include <string.h>

#include "error.h"
#include "init.h"
#include "str.h"
#include "test.h"

static const char *const builtins[] = {"matmul", "reduce_sum", "relu", NULL};

static void add_benchmark(void)
{
    const char *indented = "version: 1\n"
                           "benchmarks:\n"
                           "    -   name: a\n"
                           "        problem: reduce_sum\n"
                           "        sources: [a.c]";
    const char *flow = "version: 1\nbenchmarks: [{name: a, problem: "
                       "reduce_sum, sources: [a.c]}]\n";
    const char *settings_last = "benchmarks:\n  - name: a\n    problem: "
                                "reduce_sum\n    sources: [a.c]\n"
                                "settings: {max_time: 1s}\n";
    pg_str out = PG_STR_INIT;

    /* A new config. */
    CHECK(pg_init_add_benchmark(&out, NULL, 0, "perfgate.yml", ".", builtins,
                                "b", "matmul", "perf/b.c") == 0);
    CHECK_STR(pg_str_cstr(&out), "version: 1\nbenchmarks:\n  - name: b\n"
                                 "    problem: matmul\n"
                                 "    sources: [perf/b.c]\n");

    /* Appended in the list's own indentation, after a missing newline. */
    pg_str_reset(&out);
    CHECK(pg_init_add_benchmark(&out, indented, strlen(indented),
                                "perfgate.yml", ".", builtins, "b", "matmul",
                                "perf/b.c") == 0);
    CHECK_CONTAINS(pg_str_cstr(&out), "[a.c]\n    - name: b\n"
                                      "      problem: matmul\n");

    /* A name taken, a flow list, a list that is not last: refused. */
    pg_str_reset(&out);
    CHECK(pg_init_add_benchmark(&out, indented, strlen(indented),
                                "perfgate.yml", ".", builtins, "a", "matmul",
                                "perf/a.c") == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "already has a benchmark 'a'");
    pg_str_reset(&out);
    CHECK(pg_init_add_benchmark(&out, flow, strlen(flow), "perfgate.yml", ".",
                                builtins, "b", "matmul",
                                "perf/b.c") == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "add this to its 'benchmarks' yourself:\n"
                                    "  - name: b\n");
    pg_str_reset(&out);
    CHECK(pg_init_add_benchmark(&out, settings_last, strlen(settings_last),
                                "perfgate.yml", ".", builtins, "b", "matmul",
                                "perf/b.c") == PG_ERR_USAGE);
    pg_str_clear(&out);
}

static void init_starter(void)
{
    pg_str out = PG_STR_INIT;

    CHECK(pg_init_starter_c(&out, "matvec",
                            "void solution(const float *input_a, const "
                            "float *input_b, float *output_c, size_t m, "
                            "size_t k)") == 0);
    CHECK_CONTAINS(pg_str_cstr(&out), "problem 'matvec'");
    CHECK_CONTAINS(pg_str_cstr(&out),
                   "size_t m, size_t k)\n{\n    /* your code here */\n"
                   "    (void)input_a;\n    (void)input_b;\n"
                   "    (void)output_c;\n    (void)m;\n    (void)k;\n}\n");
    pg_str_reset(&out);
    CHECK(pg_init_starter_c(&out, "x", "void solution(void)") == 0);
    CHECK(!strstr(pg_str_cstr(&out), "(void)void"));
    pg_str_reset(&out);
    CHECK(pg_init_starter_c(&out, "x", "void solution(void *data)") == 0);
    CHECK_CONTAINS(pg_str_cstr(&out), "    (void)data;\n");
    CHECK(pg_init_starter_c(&out, "x", "no parameter list") < 0);
    pg_str_reset(&out);
    CHECK(pg_init_starter_cuda(&out, "relu",
                               "void solution(const float *input, float "
                               "*output, size_t n, size_t m)") == 0);
    CHECK_CONTAINS(pg_str_cstr(&out),
                   "__global__ static void kernel(const float *input, float "
                   "*output, size_t n, size_t m)\n");
    CHECK_CONTAINS(pg_str_cstr(&out), "extern \"C\" void solution(");
    CHECK_CONTAINS(pg_str_cstr(&out),
                   "kernel<<<1, 1>>>(input, output, n, m);\n}\n");
    CHECK(pg_init_starter_cuda(&out, "x", "no parameter list") < 0);
    pg_str_clear(&out);
}

const pg_test pg_tests_init[] = {
    {"add_benchmark", add_benchmark}, {"starter", init_starter}, PG_TESTS_END};
