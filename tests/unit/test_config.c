/* perfgate.yml: what it accepts, and how it says no. */
#include <stdlib.h>

#include "config.h"
#include "error.h"
#include "plugin.h"
#include "test.h"

static const char *const builtins[] = {"matmul", "reduce_sum", "vector_add",
                                       NULL};

static int parse(pg_config *cfg, const char *text)
{
    pg_error_clear();
    return pg_config_parse(cfg, text, strlen(text), "perfgate.yml", ".",
                           builtins);
}

/* Parses `text`, expects a usage error whose message is `want`. */
static void expect_error(const char *text, const char *want, int line)
{
    pg_config cfg;
    int err = parse(&cfg, text);

    if (err != PG_ERR_USAGE || !pg_error_last() ||
        strcmp(pg_error_last(), want)) {
        fprintf(stderr, "%s:%d: got %d \"%s\"\n      want \"%s\"\n", __FILE__,
                line, err, pg_error_last() ? pg_error_last() : "", want);
        pg_test_failed = 1;
    }
    pg_config_clear(&cfg);
}
#define EXPECT_ERROR(text, want) expect_error(text, want, __LINE__)

static void full_config(void)
{
    pg_config cfg;
    const pg_bench_config *b;

    unsetenv("GITHUB_ACTIONS");
    REQUIRE(parse(&cfg, "version: 1\n"
                        "settings:\n"
                        "  noise_floor: 7.5%\n"
                        "  max_time: 500ms\n"
                        "  min_rounds: 9\n"
                        "  timeout: 2m\n"
                        "benchmarks:\n"
                        "  - name: reduce_sum\n"
                        "    problem: reduce_sum\n"
                        "    sources: [src/reduce.c, src/helper.c]\n"
                        "    symbol: my_sum\n"
                        "    language: c\n"
                        "    cflags: [-O3, -march=native]\n"
                        "    include: [include]\n"
                        "    cases: [{n: 1000}, {n: 100000}]\n") == 0);
    CHECK_NEAR(cfg.settings.noise_floor, 0.075, 1e-12);
    CHECK(cfg.settings.floor_source == PG_FLOOR_CONFIG);
    CHECK_NEAR(cfg.settings.max_time, 0.5, 1e-12);
    CHECK(cfg.settings.min_rounds == 9);
    CHECK_NEAR(cfg.settings.timeout, 120, 1e-12);
    REQUIRE(cfg.nbenchmarks == 1);
    b = &cfg.benchmarks[0];
    CHECK_STR(b->name, "reduce_sum");
    CHECK(b->problem_path == NULL);
    REQUIRE(b->nsources == 2);
    CHECK_STR(b->sources[1], "src/helper.c");
    CHECK_STR(b->symbol, "my_sum");
    REQUIRE(b->ncflags == 2);
    CHECK_STR(b->cflags[1], "-march=native");
    REQUIRE(b->ninclude == 1);
    REQUIRE(b->ncases == 2);
    CHECK_STR(b->cases[1].name, "n=100000");
    CHECK(b->cases[1].mark.line == 15);
    pg_config_clear(&cfg);
}

static void defaults(void)
{
    pg_config cfg;
    const pg_bench_config *b;

    unsetenv("GITHUB_ACTIONS");
    REQUIRE(parse(&cfg, "version: 1\nbenchmarks:\n  - name: m\n"
                        "    problem: matmul\n    sources: src/mm.c\n") == 0);
    CHECK_NEAR(cfg.settings.noise_floor, 0.05, 1e-12);
    CHECK(cfg.settings.floor_source == PG_FLOOR_DEFAULT);
    CHECK(cfg.settings.min_rounds == 5);
    CHECK_NEAR(cfg.settings.max_time, 10, 1e-12);
    CHECK_NEAR(cfg.settings.timeout, 60, 1e-12);
    b = &cfg.benchmarks[0];
    CHECK_STR(b->symbol, "solution");
    CHECK_STR(b->language, "c");
    REQUIRE(b->ncflags == 1);
    CHECK_STR(b->cflags[0], "-O2");
    REQUIRE(b->ncases == 0);
    pg_config_clear(&cfg);

    setenv("GITHUB_ACTIONS", "true", 1);
    REQUIRE(parse(&cfg, "version: 1\nbenchmarks:\n  - name: m\n"
                        "    problem: matmul\n    sources: src/mm.c\n") == 0);
    CHECK_NEAR(cfg.settings.noise_floor, 0.10, 1e-12);
    CHECK(cfg.settings.floor_source == PG_FLOOR_GITHUB_ACTIONS);
    pg_config_clear(&cfg);
    /* The config's own floor wins over the environment's default. */
    REQUIRE(parse(&cfg, "version: 1\nsettings: {noise_floor: 0.02}\n"
                        "benchmarks:\n  - name: m\n"
                        "    problem: matmul\n    sources: src/mm.c\n") == 0);
    CHECK_NEAR(cfg.settings.noise_floor, 0.02, 1e-12);
    pg_config_clear(&cfg);
    unsetenv("GITHUB_ACTIONS");
}

#define BENCH "  - name: a\n    problem: reduce_sum\n    sources: [a.c]\n"

static void errors_name_the_place(void)
{
    EXPECT_ERROR("version: 1\nbenchmarks:\n  - name: a\n    problem: "
                 "reduce_sum\n    sourcez: [a.c]\n",
                 "perfgate.yml:5:5: unknown key 'sourcez' in benchmark (did "
                 "you mean 'sources'?)");
    EXPECT_ERROR("version: 1\nsetings: {}\nbenchmarks:\n" BENCH,
                 "perfgate.yml:2:1: unknown key 'setings' at the top level "
                 "(did you mean 'settings'?)");
    EXPECT_ERROR("version: 1\nsettings:\n  noise_flor: 5%\nbenchmarks:\n" BENCH,
                 "perfgate.yml:3:3: unknown key 'noise_flor' in settings (did "
                 "you mean 'noise_floor'?)");
    EXPECT_ERROR("version: 1\n",
                 "perfgate.yml:1:1: missing 'benchmarks': list at least one "
                 "benchmark");
    EXPECT_ERROR("benchmarks:\n" BENCH,
                 "perfgate.yml:1:1: missing 'version: 1' at the top level");
    EXPECT_ERROR("version: 2\nbenchmarks:\n" BENCH,
                 "perfgate.yml:1:10: unsupported version '2': this perfgate "
                 "reads version 1");
    EXPECT_ERROR("version: 1\nbenchmarks:\n" BENCH BENCH,
                 "perfgate.yml:6:11: duplicate benchmark name 'a' (first at "
                 "line 3)");
    EXPECT_ERROR("version: 1\nbenchmarks:\n  - name: a\n    problem: "
                 "reduce_summ\n    sources: [a.c]\n",
                 "perfgate.yml:4:14: unknown problem 'reduce_summ' (did you "
                 "mean 'reduce_sum'?)");
    EXPECT_ERROR("version: 1\nbenchmarks:\n  - name: a\n    problem: "
                 "fft\n    sources: [a.c]\n",
                 "perfgate.yml:4:14: unknown problem 'fft': use a built-in "
                 "problem (perfgate problems) or a path to a problem .c file");
    EXPECT_ERROR("version: 1\nbenchmarks:\n  - name: a\n    problem: "
                 "perf/mine.c\n    sources: [a.c]\n",
                 "perfgate.yml:4:14: problem file 'perf/mine.c' not found "
                 "(./perf/mine.c)");
}

static void errors_for_wrong_types(void)
{
    EXPECT_ERROR("version: 1\nsettings:\n  min_rounds: many\nbenchmarks:\n" BENCH,
                 "perfgate.yml:3:15: 'min_rounds' must be a whole number");
    EXPECT_ERROR("version: 1\nsettings:\n  min_rounds: \"5\"\nbenchmarks:\n" BENCH,
                 "perfgate.yml:3:15: 'min_rounds' must be a whole number");
    EXPECT_ERROR("version: 1\nsettings:\n  noise_floor: 5\nbenchmarks:\n" BENCH,
                 "perfgate.yml:3:16: 'noise_floor' 5 is more than 100% (did "
                 "you mean '5%'?)");
    EXPECT_ERROR("version: 1\nsettings:\n  noise_floor: 0%\nbenchmarks:\n" BENCH,
                 "perfgate.yml:3:16: 'noise_floor' must be above 0%: every "
                 "measurement has some noise (perfgate compare --aa shows "
                 "this machine's)");
    EXPECT_ERROR("version: 1\nsettings:\n  noise_floor: 0\nbenchmarks:\n" BENCH,
                 "perfgate.yml:3:16: 'noise_floor' must be above 0%: every "
                 "measurement has some noise (perfgate compare --aa shows "
                 "this machine's)");
    EXPECT_ERROR("version: 1\nsettings:\n  max_time: soon\nbenchmarks:\n" BENCH,
                 "perfgate.yml:3:13: 'max_time' must be a duration such as "
                 "10s, 500ms or 2m");
    EXPECT_ERROR("version: 1\nbenchmarks: {a: 1}\n",
                 "perfgate.yml:2:13: 'benchmarks' must be a list of at least "
                 "one benchmark");
    EXPECT_ERROR("version: 1\nbenchmarks:\n  - name: a\n    problem: "
                 "reduce_sum\n    sources: {a: b}\n",
                 "perfgate.yml:5:14: 'sources' must be a list of strings");
    EXPECT_ERROR("version: 1\nbenchmarks:\n  - name: a b\n    problem: "
                 "reduce_sum\n    sources: [a.c]\n",
                 "perfgate.yml:3:11: benchmark name 'a b' may only hold "
                 "letters, digits, '_', '.' and '-'");
    EXPECT_ERROR("version: 1\nbenchmarks:\n" BENCH "    cases: [{n: big}]\n",
                 "perfgate.yml:6:17: case parameter 'n' must be a whole "
                 "number");
    EXPECT_ERROR("version: 1\nbenchmarks:\n  - name: a\n    problem: "
                 "reduce_sum\n    sources: [a.f90]\n",
                 "perfgate.yml:3:5: cannot tell the language of 'a.f90' from "
                 "its extension (.c, .cu, .cc, .cpp): add 'language: c', "
                 "'c++' or 'cuda'");
    EXPECT_ERROR("version: 1\nbenchmarks:\n  - name: a\n    problem: "
                 "reduce_sum\n    sources: [../outside.c]\n",
                 "perfgate.yml:5:14: source '../outside.c' must be a path "
                 "inside the repository");
    EXPECT_ERROR("version: 1\nbenchmarks: [\n",
                 "perfgate.yml:3:1: invalid YAML: did not find expected node "
                 "content while parsing a flow node");
    EXPECT_ERROR("", "perfgate.yml:1:1: the file is empty; it needs "
                     "'version: 1' and 'benchmarks'");
}

static void case_specs(void)
{
    pg_casespec *specs;
    size_t n;

    REQUIRE(pg_casespecs_parse(&specs, &n, "m=64, n=32,k=16; n = 5 ;") == 0);
    REQUIRE(n == 2);
    CHECK_STR(specs[0].name, "m=64,n=32,k=16");
    CHECK_STR(specs[1].name, "n=5");
    pg_casespec_clear(&specs[0]);
    pg_casespec_clear(&specs[1]);
    free(specs);
    CHECK(pg_casespecs_parse(&specs, &n, "n=") < 0);
    CHECK(pg_casespecs_parse(&specs, &n, "n=1,n=2") < 0);
    CHECK(pg_casespecs_parse(&specs, &n, "") < 0);
}

static void languages(void)
{
    CHECK_STR(pg_language_for("src/a.c"), "c");
    CHECK_STR(pg_language_for("k/kernel.cu"), "cuda");
    CHECK_STR(pg_language_for("x.cpp"), "c++");
    CHECK_STR(pg_language_for("x.cc"), "c++");
    CHECK(pg_language_for("x.rs") == NULL);
    CHECK(pg_language_for("Makefile") == NULL);
}

static void gate_and_symbols(void)
{
    pg_config cfg;

    REQUIRE(parse(&cfg, "version: 1\nsettings: {gate: cases}\nbenchmarks:\n"
                        "  - {name: a, problem: reduce_sum, sources: [a.c]}\n"
                        "  - {name: b, problem: reduce_sum, sources: [b.c], "
                        "gate: total, symbols: interposable}\n") == 0);
    CHECK(cfg.settings.gate_cases == 1);
    CHECK(cfg.benchmarks[0].gate == -1); /* as in settings */
    CHECK(cfg.benchmarks[0].interposable == 0);
    CHECK(cfg.benchmarks[1].gate == 0);
    CHECK(cfg.benchmarks[1].interposable == 1);
    pg_config_clear(&cfg);
    EXPECT_ERROR("version: 1\nsettings: {gate: some}\nbenchmarks:\n" BENCH,
                 "perfgate.yml:2:18: gate 'some': want 'total' or 'cases'");
    EXPECT_ERROR("version: 1\nbenchmarks:\n  - {name: a, problem: "
                 "reduce_sum, sources: [a.c], symbols: global}\n",
                 "perfgate.yml:3:61: symbols 'global': want 'local' or "
                 "'interposable'");
}

/* memory: in settings and per benchmark, and memory_floor. */
static void memory_modes(void)
{
    pg_config cfg;

    REQUIRE(parse(&cfg,
                  "version: 1\nbenchmarks:\n"
                  "  - {name: a, problem: reduce_sum, sources: [a.c]}\n") == 0);
    CHECK(cfg.settings.memory == PG_MEMORY_REPORT);
    CHECK(cfg.settings.memory_floor == 0.05);
    CHECK(cfg.benchmarks[0].memory == -1); /* as in settings */
    pg_config_clear(&cfg);
    REQUIRE(parse(&cfg, "version: 1\nsettings: {memory: gate, memory_floor: "
                        "2%}\nbenchmarks:\n"
                        "  - {name: a, problem: reduce_sum, sources: [a.c]}\n"
                        "  - {name: b, problem: reduce_sum, sources: [b.c], "
                        "memory: off}\n") == 0);
    CHECK(cfg.settings.memory == PG_MEMORY_GATE);
    CHECK(cfg.settings.memory_floor == 0.02);
    CHECK(cfg.benchmarks[1].memory == PG_MEMORY_OFF);
    pg_config_clear(&cfg);
    EXPECT_ERROR("version: 1\nsettings: {memory: loud}\nbenchmarks:\n" BENCH,
                 "perfgate.yml:2:20: memory 'loud': want 'report', 'gate' or "
                 "'off'");
}

static void project_builds(void)
{
    pg_config cfg;
    const pg_bench_config *b;

    /* settings' build and library serve every benchmark without its own;
     * a library with no sources needs none, and is C. */
    REQUIRE(parse(&cfg, "version: 1\n"
                        "settings: {build: make lib, library: out/libx.a}\n"
                        "benchmarks:\n"
                        "  - {name: a, problem: reduce_sum}\n"
                        "  - name: b\n"
                        "    problem: reduce_sum\n"
                        "    build: ./build.sh\n"
                        "    library: b.a\n"
                        "    sources: ['src/*.c']\n"
                        "    ldflags: [-Lout, -lx]\n"
                        "    file_cflags: {src/huf.c: [-fno-tree-vectorize]}"
                        "\n") == 0);
    REQUIRE(cfg.nbenchmarks == 2);
    b = &cfg.benchmarks[0];
    CHECK_STR(b->build, "make lib");
    CHECK_STR(b->library, "out/libx.a");
    REQUIRE(b->nsources == 0);
    CHECK_STR(b->language, "c");
    b = &cfg.benchmarks[1];
    CHECK_STR(b->build, "./build.sh");
    CHECK_STR(b->library, "b.a");
    CHECK_STR(b->sources[0], "src/*.c");
    REQUIRE(b->nldflags == 2);
    REQUIRE(b->nfile_cflags == 1);
    CHECK_STR(b->file_cflags[0].pattern, "src/huf.c");
    CHECK_STR(b->file_cflags[0].flags[0], "-fno-tree-vectorize");
    pg_config_clear(&cfg);

    expect_error("version: 1\nbenchmarks:\n"
                 "  - {name: a, problem: reduce_sum, library: x.a}\n",
                 "perfgate.yml:3:45: benchmark 'a' names a 'library' but no "
                 "'build' command makes it (add build: make, or a script)",
                 __LINE__);
    expect_error("version: 1\nbenchmarks:\n"
                 "  - {name: a, problem: reduce_sum}\n",
                 "perfgate.yml:3:5: benchmark 'a' has no 'sources' (nor a "
                 "'library' that its 'build' makes, nor 'adapters')",
                 __LINE__);
    expect_error("version: 1\nbenchmarks:\n"
                 "  - {name: a, problem: reduce_sum, sources: [a.c],\n"
                 "     ldflags: [-O2, -Wl,-z,now]}\n",
                 "perfgate.yml:4:15: 'ldflags' holds '-Wl' alone: in a "
                 "[flow, list] a comma splits one flag in two; quote it "
                 "(\"-Wl,-z,now\") or put each flag on its own '- ' line",
                 __LINE__);
    expect_error("version: 1\nbenchmarks:\n"
                 "  - {name: a, problem: reduce_sum, sources: [a.c],\n"
                 "     adapters: [perf/none.c]}\n",
                 "perfgate.yml:4:16: adapter 'perf/none.c' not found "
                 "(./perf/none.c); adapters are paths relative to the "
                 "config's directory",
                 __LINE__);
}

/* pass_env: names for the box to let through; not HOME or TMPDIR. */
static void pass_env(void)
{
    pg_config cfg;

    REQUIRE(parse(&cfg, "version: 1\n"
                        "settings: {pass_env: [CCACHE_DIR, MY_FLAG_2]}\n"
                        "benchmarks:\n"
                        "  - {name: a, problem: reduce_sum, "
                        "sources: [a.c]}\n") == 0);
    REQUIRE(cfg.npass_env == 2);
    CHECK_STR(cfg.pass_env[1], "MY_FLAG_2");
    pg_config_clear(&cfg);
    EXPECT_ERROR("version: 1\nsettings: {pass_env: [HOME]}\nbenchmarks:\n"
                 "  - {name: a, problem: reduce_sum, sources: [a.c]}\n",
                 "perfgate.yml:2:22: pass_env: HOME is the box's own (an "
                 "empty private directory) and cannot be passed in");
    EXPECT_ERROR("version: 1\nsettings: {pass_env: ['A=B']}\nbenchmarks:\n"
                 "  - {name: a, problem: reduce_sum, sources: [a.c]}\n",
                 "perfgate.yml:2:22: pass_env: 'A=B' is not the name of an "
                 "environment variable (letters, digits and _, not starting "
                 "with a digit)");
}

/* Accepted regressions from outside the config: a commit's trailer, the
 * pull request's labels; the newest put wins for its benchmark. */
static void accepts_from_trailers_and_labels(void)
{
    pg_config cfg;
    const pg_accept *a;

    REQUIRE(parse(&cfg, "version: 1\n"
                        "benchmarks:\n"
                        "  - {name: sum, problem: reduce_sum, sources: [a.c]}\n"
                        "  - {name: add, problem: vector_add, sources: [b.c]}\n"
                        "accept:\n"
                        "  - {benchmark: sum, up_to: 5%, why: config}\n") == 0);
    REQUIRE(pg_config_accept_trailer(&cfg, "0123456789abcdef",
                                     "sum 150% x y") == 0);
    REQUIRE((a = pg_config_accept(&cfg, "sum")) != NULL);
    CHECK(a->up_to == 1.5);
    CHECK_STR(a->why, "x y");
    CHECK_STR(a->from, "0123456789ab");
    CHECK(cfg.naccepts == 1);
    CHECK(pg_config_accept_trailer(&cfg, "0123456789abcdef", "summ 5% x") ==
          PG_ERR_USAGE);
    CHECK_STR(pg_error_last(),
              "commit 0123456789ab: Perf-Accepted: names benchmark 'summ', "
              "which perfgate.yml does not have (did you mean 'sum'?)");
    CHECK(pg_config_accept_trailer(&cfg, "0123456789abcdef", "sum 5 x") ==
          PG_ERR_USAGE);
    CHECK(pg_config_accept_trailer(&cfg, "0123456789abcdef", "sum 5%") ==
          PG_ERR_USAGE);
    CHECK(pg_config_accept_trailer(&cfg, "0123456789abcdef", "sum 0% x") ==
          PG_ERR_USAGE);
    /* Labels: others are nothing; the bare one is every benchmark's. */
    CHECK(pg_config_accept_label(&cfg, "docs") == 0);
    CHECK(pg_config_accept_label(&cfg, "perf-acceptedx") == 0);
    CHECK(cfg.naccepts == 1);
    CHECK(pg_config_accept_label(&cfg, "Perf-Accepted: add") == 0);
    REQUIRE((a = pg_config_accept(&cfg, "add")) != NULL);
    CHECK_STR(a->from, "perf-accepted");
    CHECK_STR(a->why, "the pull request's label 'Perf-Accepted: add'");
    CHECK_STR(pg_config_accept(&cfg, "sum")->from, "0123456789ab");
    CHECK(pg_config_accept_label(&cfg, "perf-accepted") == 0);
    CHECK_STR(pg_config_accept(&cfg, "sum")->from, "perf-accepted");
    CHECK(cfg.naccepts == 2);
    CHECK(pg_config_accept_label(&cfg, "perf-accepted: ad") == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "(did you mean 'add'?)");
    pg_config_clear(&cfg);
}

const pg_test pg_tests_config[] = {
    {"accepts_from_trailers_and_labels", accepts_from_trailers_and_labels},
    {"pass_env", pass_env},
    {"project_builds", project_builds},
    {"gate_and_symbols", gate_and_symbols},
    {"memory_modes", memory_modes},
    {"languages", languages},
    {"full_config", full_config},
    {"defaults", defaults},
    {"errors_name_the_place", errors_name_the_place},
    {"errors_for_wrong_types", errors_for_wrong_types},
    {"case_specs", case_specs},
    PG_TESTS_END};
