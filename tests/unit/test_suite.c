/* suite: benchmarks: the entry in perfgate.yml, and a suite's binary
 * listed and measured (suite.h), here a stand-in that answers as a Google
 * Benchmark binary does, with figures the test chooses. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "elfcode.h"
#include "error.h"
#include "fs.h"
#include "gbench_count.h"
#include "settings.h"
#include "str.h"
#include "suite.h"
#include "test.h"

static const char *const builtins[] = {"reduce_sum", NULL};

static int parse(pg_config *cfg, const char *text)
{
    pg_error_clear();
    return pg_config_parse(cfg, text, strlen(text), "perfgate.yml", ".",
                           builtins);
}

static void config_entry(void)
{
    pg_config cfg;
    const pg_bench_config *b;

    REQUIRE(parse(&cfg, "version: 1\n"
                        "benchmarks:\n"
                        "  - name: core\n"
                        "    suite: build/bench/core_bench\n"
                        "    build: cmake --build build\n"
                        "    filter: 'BM_copy|BM_sort'\n"
                        "    noise_floor: 3%\n") == 0);
    b = &cfg.benchmarks[0];
    CHECK_STR(b->suite, "build/bench/core_bench");
    CHECK(b->suite_kind == PG_SUITE_GBENCH);
    CHECK_STR(b->filter, "BM_copy|BM_sort");
    CHECK_STR(b->build, "cmake --build build");
    CHECK_STR(b->problem, "google-benchmark");
    CHECK(b->gate == -1);
    CHECK_NEAR(b->noise_floor, 0.03, 1e-12);
    pg_config_clear(&cfg);

    /* The settings' build serves a suite as any benchmark. */
    REQUIRE(parse(&cfg, "version: 1\n"
                        "settings: {build: make bench}\n"
                        "benchmarks:\n"
                        "  - {name: s, suite: bench/s, kind: nvbench}\n") == 0);
    CHECK_STR(cfg.benchmarks[0].build, "make bench");
    CHECK(cfg.benchmarks[0].suite_kind == PG_SUITE_NVBENCH);
    pg_config_clear(&cfg);
}

static void config_errors(void)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"  - {name: s, suite: bench/s}\n",
         "perfgate.yml:3:5: suite 's' needs the 'build' command that makes "
         "bench/s in a checkout (such as build: cmake -S . -B build && "
         "cmake --build build --target bench)"},
        {"  - {name: s, suite: bench/s, build: make, sources: [a.c]}\n",
         "perfgate.yml:3:44: 'sources' does not apply to a suite: its "
         "benchmarks are the binary's own, built by the project's 'build' "
         "command"},
        {"  - {name: s, suite: /usr/bin/s, build: make}\n",
         "perfgate.yml:3:22: suite '/usr/bin/s' must be a path inside the "
         "repository"},
        {"  - {name: s, suite: b/s, build: make, kind: google-benchmarks}\n",
         "perfgate.yml:3:46: kind 'google-benchmarks': did you mean "
         "'google-benchmark'?"},
        {"  - {name: s, suite: b/s, build: make, kind: pytest}\n",
         "perfgate.yml:3:46: kind 'pytest': want 'google-benchmark' or "
         "'nvbench'"},
        {"  - {name: s, suite: b/s, build: make, filter: ''}\n",
         "perfgate.yml:3:48: 'filter' must not be empty"},
        {"  - {name: s, suite: b/s, build: make, filter: \"a\\nb\"}\n",
         "perfgate.yml:3:48: 'filter' must be one line of regex, such as "
         "'BM_copy|BM_sort'"},
        {"  - {name: s, build: make}\n",
         "perfgate.yml:3:5: benchmark 's' has no 'function' (the C "
         "prototype of the function to gate), 'problem' nor 'suite' (a "
         "Google Benchmark binary the build makes)"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pg_config cfg;
        char *text = pg_strdupf("version: 1\nbenchmarks:\n%s", cases[i].text);
        CHECK(parse(&cfg, text) == PG_ERR_USAGE);
        CHECK_STR(pg_error_last(), cases[i].want);
        pg_config_clear(&cfg);
        free(text);
    }
}

static void exact_filter(void)
{
    char *f = pg_suite_exact_filter("BM_x<int>/8/real_time");

    CHECK_STR(f, "^BM_x<int>/8/real_time$");
    free(f);
    f = pg_suite_exact_filter("BM_a.b(c)[1]*+?|{2}\\$^");
    CHECK_STR(f, "^BM_a\\.b\\(c\\)\\[1\\]\\*\\+\\?\\|\\{2\\}\\\\\\$\\^$");
    free(f);
}

static void runpath(void)
{
    char *dir = pg_self_dir(), *self = pg_path_join(dir, "unit_tests");

    /* The tests' own program searches no path of its own; a file that is
     * not ELF cannot be read as one. */
    CHECK(pg_elf_has_runpath(self) == 0);
    CHECK(pg_elf_has_runpath("/etc/hostname") == -1);
    free(self);
    free(dir);
}

/*
 * The stand-in: a shell script that lists NAMES and, run on one of them,
 * writes Google Benchmark's JSON with the time its conf says (us per
 * iteration), or fails as the conf says ("crash", "error", "garbage",
 * "hang").  LISTING: what it lists instead.  OLD=1: it refuses an iteration
 * count, as before 1.8.
 */
static const char stand_in[] =
    "#!/bin/sh\n"
    ". \"$(dirname \"$0\")/conf\"\n"
    "out=; filter=; min=; list=0\n"
    "for a in \"$@\"; do case \"$a\" in\n"
    "  --benchmark_list_tests=true) list=1 ;;\n"
    "  --benchmark_out=*) out=${a#--benchmark_out=} ;;\n"
    "  --benchmark_filter=*) filter=${a#--benchmark_filter=} ;;\n"
    "  --benchmark_min_time=*) min=${a#--benchmark_min_time=} ;;\n"
    "esac; done\n"
    "if [ \"$OLD\" = 1 ] && [ \"${min%x}\" != \"$min\" ]; then\n"
    "  echo \"error: unrecognized command-line flag\" >&2; exit 1; fi\n"
    "if [ $list = 1 ] && [ -n \"$LISTING\" ]; then echo \"$LISTING\"; exit 0; "
    "fi\n"
    "if [ $list = 1 ]; then\n"
    "  for n in $NAMES; do echo \"$n\"; done | grep -E -- \"${filter:-.}\" ||\n"
    "    echo \"Failed to match any benchmarks against regex: $filter\"\n"
    "  exit 0; fi\n"
    "name=$(printf %s \"$filter\" | sed 's/^\\^//; s/\\$$//; s/\\\\//g')\n"
    "echo \"$min\" >> \"$(dirname \"$out\")/counts\"\n"
    "t=$(time_of \"$name\")\n"
    "case \"$t\" in\n"
    "  crash) kill -SEGV $$ ;;\n"
    "  hang) sleep 100 ;;\n"
    "  garbage) echo 'not json' > \"$out\"; exit 0 ;;\n"
    "  error) printf '{\"benchmarks\":[{\"name\":\"%s\",\"error_occurred\":"
    "true,\"error_message\":\"no input\"}]}' \"$name\" > \"$out\"; exit 0 ;;\n"
    "esac\n"
    "printf '{\"benchmarks\":[{\"name\":\"%s\",\"run_type\":\"iteration\","
    "\"iterations\":%s,\"real_time\":%s,\"time_unit\":\"us\","
    "\"bytes_per_second\":%s,\"items_per_second\":1e9}]}' \"$name\" "
    "\"${min%x}\" \"$t\" "
    "\"$((1000000 * 1000 / 5))\" > \"$out\"\n";

typedef struct fixture {
    char *root, *dir[2], *bin[2], *scratch;
    pg_suite s;
} fixture;

/* Side `side`'s stand-in, its conf `conf`. */
static void write_side(fixture *f, int side, const char *conf)
{
    char *p = pg_path_join(f->dir[side], "conf");

    REQUIRE(pg_write_file(p, conf, strlen(conf), 0644) == 0);
    free(p);
}

static void fixture_init(fixture *f, const char *base, const char *head)
{
    int s;

    memset(f, 0, sizeof(*f));
    f->root = pg_strdup("/tmp/perfgate-suite-XXXXXX");
    REQUIRE(mkdtemp(f->root) != NULL);
    for (s = 0; s < 2; s++) {
        f->dir[s] = pg_strdupf("%s/%s", f->root, s ? "head" : "base");
        REQUIRE(pg_mkdir_p(f->dir[s]) == 0);
        f->bin[s] = pg_path_join(f->dir[s], "bench");
        REQUIRE(pg_write_file(f->bin[s], stand_in, strlen(stand_in), 0755) ==
                0);
        write_side(f, s, s ? head : base);
        f->s.bin[s] = f->bin[s];
        f->s.dir[s] = f->dir[s];
    }
    f->scratch = pg_path_join(f->root, "scratch");
    REQUIRE(pg_mkdir_p(f->scratch) == 0);
    f->s.scratch = f->scratch;
}

static void fixture_clear(fixture *f)
{
    int s;

    pg_rm_rf(f->root);
    for (s = 0; s < 2; s++) {
        free(f->dir[s]);
        free(f->bin[s]);
    }
    free(f->scratch);
    free(f->root);
}

static void listing(void)
{
    fixture f;
    pg_strvec names = PG_STRVEC_INIT;
    int fixed = -1;
    char *why = NULL;

    fixture_init(&f, "NAMES='BM_a/1 BM_a/2 BM_b'\n",
                 "OLD=1\nNAMES='BM_a/1 BM_c'\n");
    CHECK(pg_suite_list(&names, &fixed, &why, &f.s, 0, NULL, 30) == 0);
    CHECK(fixed == 1);
    REQUIRE(names.n == 3);
    CHECK_STR(names.v[1], "BM_a/2");
    pg_strvec_clear(&names);
    /* An older harness: listed without the count, and says so. */
    CHECK(pg_suite_list(&names, &fixed, &why, &f.s, 1, "BM_a", 30) == 0);
    CHECK(fixed == 0);
    REQUIRE(names.n == 1);
    CHECK_STR(names.v[0], "BM_a/1");
    pg_strvec_clear(&names);
    /* A filter that keeps nothing lists nothing. */
    CHECK(pg_suite_list(&names, &fixed, &why, &f.s, 0, "BM_z", 30) == 0);
    CHECK(names.n == 0);
    /* Not a Google Benchmark binary's listing. */
    write_side(&f, 0, "LISTING='Usage: bench [options]'\n");
    CHECK(pg_suite_list(&names, &fixed, &why, &f.s, 0, "i", 30) == 1);
    CHECK_CONTAINS(why, "does not list its benchmarks as a Google Benchmark "
                        "binary does");
    free(why);
    pg_strvec_clear(&names);
    /* A binary the build did not make. */
    unlink(f.bin[0]);
    CHECK(pg_suite_list(&names, &fixed, &why, &f.s, 0, NULL, 30) == 1);
    CHECK_STR(why, "the build made no program bench");
    free(why);
    fixture_clear(&f);
}

/* Measures BM_a/1 and BM_b on `f`: the result into `out`. */
static void measure_two(fixture *f, pg_bench_result *out, int fixed)
{
    pg_casespec cases[2];
    pg_settings st;
    pg_run_spec spec;

    memset(cases, 0, sizeof(cases));
    cases[0].name = (char *)"BM_a/1";
    cases[1].name = (char *)"BM_b";
    pg_settings_defaults(&st);
    /* The harness's figures never move: the run is clear after its
     * minimum rounds, however slow the machine (under ASan beside the
     * suite, 3 s ran out first). */
    st.max_time = 120;
    st.min_rounds = 3;
    st.timeout = 1;
    pg_run_spec_init(&spec);
    spec.cases = cases;
    spec.ncases = 2;
    spec.settings = &st;
    spec.gate_cases = 1;
    f->s.fixed = fixed;
    pg_bench_result_init(out, "s", "google-benchmark");
    REQUIRE(pg_suite_measure(out, &spec, &f->s) == 0);
}

static const char times_ab[] =
    "NAMES='BM_a/1 BM_b'\n"
    "time_of() { case $1 in BM_a/1) echo 100 ;; *) echo 250 ;; esac; }\n";

static void measured(void)
{
    fixture f;
    pg_bench_result out;
    char *counts = NULL;
    size_t len;

    fixture_init(&f, times_ab,
                 "NAMES='BM_a/1 BM_b'\n"
                 "time_of() { case $1 in BM_a/1) echo 100 ;; *) echo 500 ;; "
                 "esac; }\n");
    measure_two(&f, &out, 1);
    CHECK(out.status == PG_STATUS_UNCHANGED);
    CHECK(out.rounds >= 3);
    REQUIRE(out.ncases == 2);
    /* Each figure is the harness's time per iteration. */
    CHECK_NEAR(out.cases[0].base_ns, 100e3, 1e-6);
    CHECK_NEAR(out.cases[0].head_ns, 100e3, 1e-6);
    CHECK_NEAR(out.cases[1].base_ns, 250e3, 1e-6);
    CHECK_NEAR(out.cases[1].head_ns, 500e3, 1e-6);
    /* Its bytes and items per second become bytes and items per call. */
    CHECK_NEAR(out.cases[0].bytes, 200e6 * 100e-6, 1e-6);
    CHECK_NEAR(out.cases[0].items, 1e9 * 100e-6, 1e-6);
    CHECK_STR(out.stop, "clear");
    /* Calibrated: 10 ms samples of 100 us are 100 iterations, given as a
     * count. */
    {
        char *p = pg_path_join(f.scratch, "counts");
        REQUIRE(pg_read_file(&counts, &len, p, 1 << 20) == 0);
        CHECK_CONTAINS(counts, "\n100x\n");
        free(p);
        free(counts);
    }
    pg_bench_result_clear(&out);
    fixture_clear(&f);
}

/* Each way a side's process can fail, charged to that side. */
static void failures(void)
{
    static const struct {
        const char *what, *status, *message;
    } cases[] = {
        {"crash", "crashed", "head side: BM_b killed by SIGSEGV"},
        {"error", "incorrect", "head side: BM_b reported an error: no input"},
        {"garbage", "crashed", "head side: BM_b: its output is not JSON"},
        {"hang", "timeout", "head side: BM_b still running after 8 s"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        fixture f;
        pg_bench_result out;
        char *conf = pg_strdupf("NAMES='BM_a/1 BM_b'\n"
                                "time_of() { case $1 in BM_a/1) echo 100 ;; "
                                "*) echo %s ;; esac; }\n",
                                cases[i].what);
        fixture_init(&f, times_ab, conf);
        measure_two(&f, &out, 1);
        CHECK_STR(pg_status_name(out.status), cases[i].status);
        CHECK(out.side == PG_SIDE_HEAD);
        CHECK_CONTAINS(out.message, cases[i].message);
        pg_bench_result_clear(&out);
        fixture_clear(&f);
        free(conf);
    }
}

/* A callgrind dump ended by `trigger`, of `ir` instructions. */
static void write_dump(const char *prefix, int n, const char *trigger, int ir)
{
    char *path = pg_strdupf("%s.%d", prefix, n);
    char *text = pg_strdupf("# callgrind format\nversion: 1\npart: %d\n\n"
                            "desc: Trigger: %s\n\npositions: line\n"
                            "events: Ir\nsummary: %d\n\nfn=f\n0 %d\n",
                            n, trigger, ir, ir);
    REQUIRE(pg_write_file(path, text, strlen(text), 0) == 0);
    free(text);
    free(path);
}

#define AFTER_START "--dump-after=_ZN9benchmark5State16StartKeepRunningEv"
#define AFTER_RESUME "--dump-after=_ZN9benchmark5State12ResumeTimingEv"
#define BEFORE_PAUSE "--dump-before=_ZN9benchmark5State11PauseTimingEv"
#define BEFORE_FINISH "--dump-before=_ZN9benchmark5State17FinishKeepRunningEv"

/* What callgrind's dumps of a timed loop add up to: the stretches the
 * timer runs in, of the last run of the loop only. */
static void loop_count(void)
{
    char dir[] = "/tmp/perfgate-dumps-XXXXXX";
    char *prefix, *left, *kept, *text;
    double total;
    int n = 0;

    REQUIRE(mkdtemp(dir) != NULL);
    prefix = pg_strdupf("%s/out", dir);
    /* First repetition: start (inside it, the timer resumes), its loop,
     * its end (inside it, the timer pauses). */
    write_dump(prefix, ++n, AFTER_RESUME, 2500000); /* the program's start */
    write_dump(prefix, ++n, AFTER_START, 5);        /* the rest of start */
    write_dump(prefix, ++n, BEFORE_FINISH, 879);    /* a cold loop */
    write_dump(prefix, ++n, BEFORE_PAUSE, 20);      /* inside the end */
    /* Second: a loop that pauses its timer for a set-up of 4000. */
    write_dump(prefix, ++n, AFTER_RESUME, 4780);
    write_dump(prefix, ++n, AFTER_START, 0);
    write_dump(prefix, ++n, BEFORE_PAUSE, 300);
    write_dump(prefix, ++n, AFTER_RESUME, 4000);
    write_dump(prefix, ++n, BEFORE_FINISH, 12);
    write_dump(prefix, ++n, BEFORE_PAUSE, 20);
    REQUIRE(pg_write_file(prefix, "", 0, 0) == 0); /* the program's end */
    kept = pg_strdupf("%s/kept", dir);
    CHECK(pg_gbench_loop_count(&total, prefix, PG_METRIC_INSTRUCTIONS, kept) ==
          0);
    CHECK_NEAR(total, 312, 1e-9);
    /* What a profile reads: the stretches counted, one after another. */
    REQUIRE(pg_read_file(&text, NULL, kept, 1 << 20) == 0);
    CHECK_CONTAINS(text, "summary: 300\n");
    CHECK_CONTAINS(text, "summary: 12\n");
    CHECK(strstr(text, "summary: 879\n") == NULL);
    CHECK(strstr(text, "summary: 4000\n") == NULL);
    free(text);
    free(kept);
    /* Every dump removed, the end's too. */
    left = pg_strdupf("%s.1", prefix);
    CHECK(access(left, F_OK) < 0 && access(prefix, F_OK) < 0);
    free(left);
    /* No loop at all: a program that is not Google Benchmark's, or whose
     * library lost its symbols. */
    CHECK(pg_gbench_loop_count(&total, prefix, PG_METRIC_INSTRUCTIONS, NULL) ==
          1);
    write_dump(prefix, 1, "Program termination", 100);
    CHECK(pg_gbench_loop_count(&total, prefix, PG_METRIC_INSTRUCTIONS, NULL) ==
          1);
    /* A loop's dump that holds no count is an error, not a zero. */
    write_dump(prefix, 1, AFTER_START, 0);
    left = pg_strdupf("%s.2", prefix);
    REQUIRE(pg_write_file(left, "desc: Trigger: " BEFORE_FINISH "\n",
                          strlen("desc: Trigger: " BEFORE_FINISH "\n"),
                          0) == 0);
    CHECK(pg_gbench_loop_count(&total, prefix, PG_METRIC_INSTRUCTIONS, NULL) <
          0);
    CHECK(access(left, F_OK) < 0);
    free(left);
    free(prefix);
    CHECK(pg_rm_rf(dir) == 0);
}

const pg_test pg_tests_suite[] = {{"config_entry", config_entry},
                                  {"config_errors", config_errors},
                                  {"exact_filter", exact_filter},
                                  {"runpath", runpath},
                                  {"listing", listing},
                                  {"measured", measured},
                                  {"failures", failures},
                                  {"loop_count", loop_count},
                                  PG_TESTS_END};
