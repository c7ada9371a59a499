/* The renderers, and the JSON round trip. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "fs.h"
#include "profile.h"
#include "report.h"
#include "result.h"
#include "stats.h"
#include "str.h"
#include "system.h"
#include "test.h"

static void sample(pg_result *r, size_t n)
{
    size_t i;

    memset(r, 0, sizeof(*r));
    r->version = strdup("0.1.0");
    r->noise_floor = 0.05;
    r->floor_source = PG_FLOOR_DEFAULT;
    r->base.rev = strdup("HEAD~1");
    r->base.commit = strdup("0123456789abcdef0123456789abcdef01234567");
    r->head.rev = strdup("working tree");
    r->head.commit = strdup("89abcdef0123456789abcdef0123456789abcdef");
    r->head.worktree = 1;
    r->head.dirty = 1;
    for (i = 0; i < n; i++) {
        char name[32];
        pg_bench_result *b;

        snprintf(name, sizeof(name), "bench_%zu", i);
        b = pg_result_add(r, name, "reduce_sum");
        b->cases = calloc(1, sizeof(*b->cases));
        b->ncases = 1;
        b->cases[0].name = strdup("n=1000");
        b->cases[0].base_ns = 32800;
        b->cases[0].head_ns = i % 2 ? 29200 : 40000;
        b->cases[0].flops = 1000;
        b->cases[0].bytes = 4000;
        b->cases[0].inner = 1;
        b->cases[0].change_lo = i % 2 ? -0.12 : 0.20;
        b->cases[0].change_hi = i % 2 ? -0.10 : 0.23;
        b->rounds = 315;
        pg_stats_decide(b, r->noise_floor);
        if (i == 0) {
            b->change_lo = 0.205;
            b->change_hi = 0.231;
        }
    }
    pg_stats_judge(r);
}

static void markdown_shape(void)
{
    pg_result r;
    pg_str md = PG_STR_INIT;

    sample(&r, 2);
    pg_report_markdown(&md, &r);
    CHECK(!strncmp(pg_str_cstr(&md), "<!-- perfgate -->\n", 18));
    CHECK_CONTAINS(pg_str_cstr(&md), "❌ perfgate:");
    CHECK_CONTAINS(pg_str_cstr(&md), "1 regression, 1 improvement");
    CHECK_CONTAINS(pg_str_cstr(&md),
                   "32.8 µs → 29.2 µs, best of 315 runs | -11.0% | 🚀 "
                   "improvement |");
    CHECK_CONTAINS(pg_str_cstr(&md), "<details><summary>Per-case results");
    CHECK_CONTAINS(pg_str_cstr(&md), "| bench\\_1 | n=1000 | 32.8 µs | 29.2 "
                                     "µs | -11.0% <sub>-12.0 … -10.0%</sub> "
                                     "| improvement | 0.03 | 0.14 |");
    CHECK_CONTAINS(pg_str_cstr(&md), "Base `0123456789` (HEAD\\~1)");
    CHECK_CONTAINS(pg_str_cstr(&md), "working tree (uncommitted changes)");
    CHECK_CONTAINS(pg_str_cstr(&md), "Noise floor 5% (default)");
    pg_str_clear(&md);
    pg_result_clear(&r);
}

static void markdown_stays_under_the_limit(void)
{
    pg_result r;
    pg_str md = PG_STR_INIT;
    size_t i;

    sample(&r, 5000);
    for (i = 0; i < r.nbenchmarks; i++) {
        r.benchmarks[i].status = PG_STATUS_BUILD_FAILED;
        r.benchmarks[i].side = PG_SIDE_HEAD;
        r.benchmarks[i].message = strdup("head side: does not compile");
        r.benchmarks[i].log = calloc(1, 4001);
        memset(r.benchmarks[i].log, 'x', 4000);
    }
    pg_report_markdown(&md, &r);
    CHECK(md.size < PG_COMMENT_MAX);
    CHECK_CONTAINS(pg_str_cstr(&md), "more benchmarks: see the JSON report");
    CHECK_CONTAINS(pg_str_cstr(&md), "Noise floor"); /* the footer survived */
    pg_str_clear(&md);
    pg_result_clear(&r);
}

static void markdown_escapes_what_it_did_not_write(void)
{
    pg_result r;
    pg_str md = PG_STR_INIT;

    sample(&r, 1);
    r.benchmarks[0].status = PG_STATUS_INCORRECT;
    r.benchmarks[0].side = PG_SIDE_HEAD;
    r.benchmarks[0].message = strdup("got <script>alert(1)</script> | x");
    free(r.base.rev);
    r.base.rev = strdup("feature/**bold**");
    pg_report_markdown(&md, &r);
    CHECK(!strstr(pg_str_cstr(&md), "<script>"));
    CHECK_CONTAINS(pg_str_cstr(&md), "&lt;script&gt;");
    CHECK_CONTAINS(pg_str_cstr(&md), "(feature/\\*\\*bold\\*\\*)");
    pg_str_clear(&md);
    pg_result_clear(&r);
}

static void warnings_and_interval(void)
{
    pg_result r;
    pg_str md = PG_STR_INIT, t = PG_STR_INIT;

    sample(&r, 2);
    pg_system_warn(&r.system, "CPU 1 was 80%% busy");
    pg_report_markdown(&md, &r);
    CHECK_CONTAINS(pg_str_cstr(&md), "+22.0% <sub>+20.5 … +23.1%</sub>");
    /* The machine's notes are the same on every comment from a hosted
     * runner: collapsed, said once. */
    CHECK_CONTAINS(pg_str_cstr(&md),
                   "<details><summary>⚠️ The machine (1 note)</summary>\n\n"
                   "- CPU 1 was 80% busy\n");
    CHECK(!strstr(pg_str_cstr(&md), "> ⚠️ CPU 1"));
    pg_report_terminal(&t, &r, 0);
    CHECK_CONTAINS(pg_str_cstr(&t), "warning: CPU 1 was 80% busy");
    pg_str_clear(&md);
    pg_str_clear(&t);
    pg_result_clear(&r);
}

static void self_check(void)
{
    pg_result r;
    pg_str md = PG_STR_INIT, t = PG_STR_INIT;

    size_t i;

    /* Noise of 1%: within half of 5%, the floor holds. */
    sample(&r, 1);
    r.aa = 1;
    r.benchmarks[0].status = PG_STATUS_UNCHANGED;
    r.benchmarks[0].change = 0.004;
    r.benchmarks[0].change_lo = -0.01;
    r.benchmarks[0].change_hi = 0.008;
    for (i = 0; i < r.benchmarks[0].ncases; i++)
        r.benchmarks[0].cases[i].change = 0.002;
    pg_stats_judge(&r);
    CHECK_NEAR(r.verdict.aa_noise, 0.01, 1e-12);
    CHECK(r.verdict.aa_trusted);
    CHECK(r.verdict.passed);
    pg_report_terminal(&t, &r, 0);
    CHECK_CONTAINS(pg_str_cstr(&t), "PASS: self-check: this machine's noise "
                                    "is up to 1.0%, within half the 5% floor");
    pg_str_reset(&t);
    /* A case it resolves that reads beyond the floor on identical code
     * fails it, named. */
    r.benchmarks[0].cases[0].change = -0.09;
    pg_stats_judge(&r);
    CHECK(!r.verdict.passed);
    CHECK(r.verdict.aa_case == 0);
    pg_report_terminal(&t, &r, 0);
    CHECK_CONTAINS(pg_str_cstr(&t), "but case n=1000 of bench_0 reads -9.0% "
                                    "on identical code");
    /* One too short to resolve is named as such, not as noise; and a
     * benchmark made only of such cases (this one has one) says nothing
     * of the machine's noise: with nothing else, the self-check cannot
     * pass, and says why. */
    r.benchmarks[0].cases[0].overhead_ns = r.benchmarks[0].cases[0].base_ns;
    r.benchmarks[0].cases[0].head_ns = r.benchmarks[0].cases[0].base_ns;
    r.benchmarks[0].change_hi = INFINITY;
    pg_stats_judge(&r);
    CHECK(r.benchmarks[0].cases[0].unresolved);
    CHECK(r.verdict.aa_case < 0);
    CHECK(isnan(r.verdict.aa_noise));
    CHECK(!r.verdict.passed);
    pg_str_reset(&t);
    pg_report_terminal(&t, &r, 0);
    CHECK_CONTAINS(pg_str_cstr(&t), "unresolved: bench_0 n=1000 takes");
    CHECK_CONTAINS(pg_str_cstr(&t), "FAIL: self-check: nothing resolved");
    CHECK(!strstr(pg_str_cstr(&t), "inf%"));
    /* Back to a resolved case for what follows. */
    r.benchmarks[0].cases[0].overhead_ns = 0;
    r.benchmarks[0].cases[0].change = 0.002;
    r.benchmarks[0].change_hi = 0.008;
    /* Noise of 3%: the floor cannot be trusted. */
    r.benchmarks[0].change_hi = 0.03;
    pg_stats_judge(&r);
    CHECK(!r.verdict.aa_trusted);
    CHECK(!r.verdict.passed);
    pg_report_markdown(&md, &r);
    CHECK_CONTAINS(pg_str_cstr(&md), "❌ perfgate self-check (A/A)");
    CHECK_CONTAINS(pg_str_cstr(&md), "the floor cannot be trusted here");
    CHECK_CONTAINS(pg_str_cstr(&md), "raise the floor to 6% or more");
    pg_str_clear(&md);
    pg_str_clear(&t);
    pg_result_clear(&r);
}

static void terminal_table(void)
{
    pg_result r;
    pg_str t = PG_STR_INIT;

    sample(&r, 2);
    pg_report_terminal(&t, &r, 0);
    CHECK_CONTAINS(pg_str_cstr(&t), "benchmark  base     head     change  "
                                    "95% interval    runs  status");
    CHECK_CONTAINS(pg_str_cstr(&t), "bench_0    32.8 µs  40.0 µs  +22.0%  "
                                    "+20.5 … +23.1%  315   regression");
    CHECK_CONTAINS(pg_str_cstr(&t), "FAIL: 1 regression, 1 improvement");
    CHECK(!strchr(pg_str_cstr(&t), '\033'));
    pg_str_clear(&t);
    pg_result_clear(&r);
}

/* Large changes read as factors, and nothing measured reads "–". */
static void changes_as_people_read_them(void)
{
    pg_result r;
    pg_str t = PG_STR_INIT, md = PG_STR_INIT, line = PG_STR_INIT;

    sample(&r, 3);
    r.benchmarks[0].cases[0].head_ns = 32800 * 7.894;
    r.benchmarks[1].cases[0].head_ns = 32800 / 2.5;
    pg_stats_decide(&r.benchmarks[0], r.noise_floor);
    pg_stats_decide(&r.benchmarks[1], r.noise_floor);
    r.benchmarks[2].not_affected = 1;
    r.benchmarks[2].rounds = 0;
    r.benchmarks[2].cases[0].head_ns = 32800;
    r.benchmarks[2].cases[0].change_lo = NAN;
    r.benchmarks[2].cases[0].change_hi = NAN;
    pg_stats_decide(&r.benchmarks[2], r.noise_floor);
    pg_stats_judge(&r);
    pg_report_terminal(&t, &r, 0);
    CHECK_CONTAINS(pg_str_cstr(&t), "7.9x slower");
    CHECK_CONTAINS(pg_str_cstr(&t), "2.5x faster");
    CHECK(!strstr(pg_str_cstr(&t), "+689"));
    CHECK(!strstr(pg_str_cstr(&t), "bench_2  "));
    CHECK_CONTAINS(pg_str_cstr(&t),
                   "\n1 not affected (neither built nor measured): bench_2\n");
    pg_report_markdown(&md, &r);
    CHECK_CONTAINS(pg_str_cstr(&md), "| 7.9x slower <sub>");
    CHECK(!strstr(pg_str_cstr(&md), "**bench_2**"));
    pg_report_bench_line(&line, &r.benchmarks[2]);
    CHECK_STR(pg_str_cstr(&line), "bench_2: unchanged (not affected)");
    pg_str_clear(&t);
    pg_str_clear(&md);
    pg_str_clear(&line);
    pg_result_clear(&r);
}

static void json_round_trip(void)
{
    pg_result r, back;
    char *json, *again;
    pg_str a = PG_STR_INIT, b = PG_STR_INIT;

    sample(&r, 3);
    r.benchmarks[2].status = PG_STATUS_CRASHED;
    r.benchmarks[2].side = PG_SIDE_HEAD;
    r.benchmarks[2].change = NAN;
    r.benchmarks[2].message = strdup("head side: killed by SIGSEGV");
    pg_system_warn(&r.system, "a warning");
    r.system.timer.id = PG_CLOCK_TSC;
    r.system.timer.overhead_ns = 12.5;
    /* A Perf-Accepted: trailer's entry of 150% reads back (a reader that
     * took fractions below 1 only dropped it). */
    r.benchmarks[1].accept_up_to = 1.5;
    strcpy(r.benchmarks[1].accept_why, "bounds checks");
    strcpy(r.benchmarks[1].accept_from, "0123456789ab");
    /* The box's cap on processes reads back too. */
    r.capped_by = strdup("cgroup");
    r.max_processes = 300;
    pg_stats_judge(&r);
    json = pg_result_to_json(&r);
    CHECK_CONTAINS(json, "\"max_processes\":\t300");
    CHECK_CONTAINS(json, "\"processes_capped_by\":\t\"cgroup\"");
    CHECK_CONTAINS(json, "\"from\":\t\"0123456789ab\"");
    CHECK_CONTAINS(json, "\"up_to\":\t1.5");
    CHECK_CONTAINS(json, "\"verdict\":\t\"fail\"");
    CHECK_CONTAINS(json, "\"clock\":\t\"tsc\"");
    CHECK_CONTAINS(json, "\"change_interval\":\t[0.205, 0.231]");
    CHECK_CONTAINS(json, "\"side\":\t\"head\"");
    CHECK_CONTAINS(json, "\"change\":\tnull");
    REQUIRE(pg_result_from_json(&back, json, "r.json") == 0);
    pg_stats_judge(&back);
    again = pg_result_to_json(&back);
    CHECK_STR(again, json);
    pg_report_markdown(&a, &r);
    pg_report_markdown(&b, &back);
    CHECK_STR(pg_str_cstr(&b), pg_str_cstr(&a));
    pg_result_clear(&back);
    CHECK(pg_result_from_json(&back, "{\"x\": 1}", "bad.json") < 0);
    pg_result_clear(&back);
    CHECK(pg_result_from_json(&back, "not json", "bad.json") < 0);
    pg_result_clear(&back);
    free(json);
    free(again);
    pg_str_clear(&a);
    pg_str_clear(&b);
    pg_result_clear(&r);
}

/* Every byte of `text` belongs to a whole UTF-8 character. */
static int valid_utf8(const char *text)
{
    size_t i = 0, n = strlen(text), len;

    for (; i < n; i += len)
        if (!(len = pg_utf8_char_len((const unsigned char *)text + i, n - i)))
            return 0;
    return 1;
}

static void markdown_cuts_between_characters(void)
{
    pg_result r;
    pg_str md = PG_STR_INIT;
    size_t i, j;

    /* Names and messages of three-byte characters, cut at counts of
     * bytes that are not multiples of three: the comment stays valid
     * UTF-8. */
    sample(&r, 1);
    r.benchmarks[0].status = PG_STATUS_CRASHED;
    r.benchmarks[0].side = PG_SIDE_HEAD;
    free(r.benchmarks[0].name);
    r.benchmarks[0].name = malloc(3 * 301 + 1);
    r.benchmarks[0].message = malloc(3 * 3001 + 1);
    for (i = j = 0; i < 301; i++, j += 3)
        memcpy(r.benchmarks[0].name + j, "\xe2\x82\xac", 3);
    r.benchmarks[0].name[j] = '\0';
    for (i = j = 0; i < 3001; i++, j += 3)
        memcpy(r.benchmarks[0].message + j, "\xe2\x82\xac", 3);
    r.benchmarks[0].message[j] = '\0';
    pg_stats_judge(&r);
    pg_report_markdown(&md, &r);
    CHECK(valid_utf8(pg_str_cstr(&md)));
    CHECK_CONTAINS(pg_str_cstr(&md), "…");
    pg_str_clear(&md);
    pg_result_clear(&r);
}

/* --profile reads a callgrind output of 15,000 functions in linear time
 * (it took 13.8 s when each row was looked for in a list): a wide margin,
 * far from what a loaded machine could take. */
static void a_large_profile_is_read_quickly(void)
{
    char *dir = pg_test_scratch(), *path;
    pg_str text = PG_STR_INIT;
    struct timespec t0, t1;
    size_t i, rows;

    REQUIRE(dir);
    path = pg_path_join(dir, "callgrind.out");
    pg_str_puts(&text, "events: Ir\nob=/x/lib.so\nfl=/side/src/a.c\n");
    for (i = 0; i < 15000; i++)
        pg_str_printf(&text, "fn=f%zu\n%zu 10\n", i, i + 1);
    REQUIRE(pg_write_file(path, text.ptr, text.size, 0) == 0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rows = pg_profile_rows(path, "/x/lib.so", "/side");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(rows == 30000); /* each function, and its one line */
    CHECK((double)(t1.tv_sec - t0.tv_sec) +
              (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 <
          3.0);
    pg_str_clear(&text);
    pg_rm_rf(dir);
    free(path);
    free(dir);
}

/* One side for profile_pairs_..., in a tree `dir`: its source, and its
 * callgrind output naming it. */
static char *side_profile(const char *dir, const char *source,
                          const char *costs)
{
    char *src = pg_strdupf("%s/src", dir), *a = pg_path_join(src, "a.c");
    char *out = pg_path_join(dir, "callgrind.out");
    pg_str text = PG_STR_INIT;

    REQUIRE(pg_mkdir_p(src) == 0);
    REQUIRE(pg_write_file(a, source, strlen(source), 0) == 0);
    pg_str_printf(&text, "events: Ir\nob=%s/lib.so\nfl=%s/src/a.c\n%s", dir,
                  dir, costs);
    REQUIRE(pg_write_file(out, text.ptr, text.size, 0) == 0);
    pg_str_clear(&text);
    free(src);
    free(a);
    return out;
}

static const pg_profile_row *row_named(const pg_profile_row *rows, size_t n,
                                       const char *function, const char *text)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!strcmp(rows[i].function, function) &&
            (!text || (rows[i].text && !strcmp(rows[i].text, text))))
            return &rows[i];
    return NULL;
}

/* What --profile makes of callgrind's output, with no valgrind needed: a
 * function's cost includes its calls (libc's too, kept apart as what was
 * spent outside; a call's object is the caller's unless named, and is
 * named for one call only); a function calling itself is not counted
 * twice; lines pair by their text; and a source file is read only inside
 * the side's tree, wherever the debug information (which a hostile change
 * writes) points. */
static void profile_pairs_calls_and_lines(void)
{
    static const char base_src[] = "int helper(int);\n"
                                   "int solution(const char *s) {\n"
                                   "    int n = 0;\n"
                                   "    n += count(s);\n"
                                   "    return helper(n);\n";
    static const char calls[] = "fn=solution\n3 100\n4 50\n"
                                "cob=/usr/lib/libc.so.6\ncfi=x.c\n"
                                "cfn=strchr\ncalls=10 0\n4 400\n"
                                "cfn=helper\ncalls=1 7\n5 30\n"
                                /* a call still under way at the dump:
                                 * counted nowhere */
                                "cob=/usr/lib/libc.so.6\ncfn=qsort\n"
                                "calls=0 0\n3 7000\n"
                                "fn=helper\n7 20\ncfn=helper\ncalls=1 7\n"
                                "7 20\n";
    char *dir = pg_test_scratch(), *b, *h, *secret, *link, *head_costs;
    char *head_src = pg_strdupf("/* new */\n/* lines */\n%s", base_src);
    const char *path[2], *lib[2], *side[2];
    pg_profile *p = pg_calloc(1, sizeof(*p));
    const pg_profile_row *f, *l;
    size_t i;

    REQUIRE(dir);
    b = pg_path_join(dir, "B");
    h = pg_path_join(dir, "H");
    secret = pg_path_join(dir, "secret.txt");
    link = pg_strdupf("%s/src/link.c", h);
    REQUIRE(pg_write_file(secret, "SECRET\n", 7, 0) == 0);
    /* The head: two lines added above, strchr called twice as often, and
     * a costly function whose lines point outside the tree. */
    head_costs = pg_strdupf("fn=solution\n5 100\n6 50\n"
                            "cob=/usr/lib/libc.so.6\ncfn=strchr\n"
                            "calls=20 0\n6 800\ncfn=helper\ncalls=1 7\n"
                            "7 30\nfn=helper\n9 20\n"
                            "fn=leak\nfl=%s\n1 9000\nfl=%s/../secret.txt\n"
                            "1 9000\nfl=%s\n1 9000\n",
                            secret, h, link);
    path[0] = side_profile(b, base_src, calls);
    path[1] = side_profile(h, head_src, head_costs);
    REQUIRE(symlink(secret, link) == 0);
    lib[0] = pg_strdupf("%s/lib.so", b);
    lib[1] = pg_strdupf("%s/lib.so", h);
    side[0] = b;
    side[1] = h;
    REQUIRE(pg_profile_read(p, path, lib, side) == 0);

    f = row_named(p->functions, p->nfunctions, "solution", NULL);
    REQUIRE(f);
    CHECK_NEAR(f->self[0], 150, 0);
    CHECK_NEAR(f->cost[0], 580, 0); /* 150 + strchr's 400 + helper's 30 */
    CHECK_NEAR(f->cost[1], 980, 0);
    f = row_named(p->functions, p->nfunctions, "helper", NULL);
    REQUIRE(f);
    CHECK_NEAR(f->cost[0], 20, 0);           /* not 40: its call to itself */
    CHECK_NEAR(p->outside_total[0], 400, 0); /* not 430: helper is ours */
    CHECK_NEAR(p->outside_total[1], 800, 0);
    REQUIRE(p->noutside == 1);
    CHECK_STR(p->outside[0].function, "strchr");
    CHECK_STR(p->outside[0].object, "libc.so.6");
    /* The call's line, paired by its text: line 4, now 6. */
    l = row_named(p->lines, p->nlines, "solution", "n += count(s);");
    REQUIRE(l);
    CHECK(l->base_line == 4 && l->line == 6);
    CHECK_NEAR(l->cost[0], 450, 0);
    CHECK_NEAR(l->self[0], 50, 0);
    CHECK_NEAR(l->cost[1], 850, 0);
    /* Nothing of a file outside the tree was read, though its lines are
     * there. */
    CHECK(row_named(p->lines, p->nlines, "leak", NULL));
    for (i = 0; i < p->nlines; i++)
        CHECK(!p->lines[i].text || !strstr(p->lines[i].text, "SECRET"));

    pg_profile_free(p);
    pg_rm_rf(dir);
    free(head_costs);
    free(head_src);
    free((char *)path[0]);
    free((char *)path[1]);
    free((char *)lib[0]);
    free((char *)lib[1]);
    free(link);
    free(secret);
    free(b);
    free(h);
    free(dir);
}

/* --profile's allocation sites: the lines whose calls into the allocator
 * differ, paired by their text; and a head built in a working tree whose
 * debug information says "DIR//src/a.c" (a PWD with a slash at its end)
 * still meets the base's lines. */
static void profile_alloc_sites_and_slashes(void)
{
    static const char src[] = "int solution(const char *s) {\n"
                              "    char *p = malloc(8);\n"
                              "    return use(p, s);\n";
    char *dir = pg_test_scratch(), *b, *h, *head_src, *head_dir, *cg;
    const char *path[2], *lib[2], *side[2];
    pg_profile *p = pg_calloc(1, sizeof(*p));
    pg_str text = PG_STR_INIT;
    const pg_profile_row *l;

    REQUIRE(dir);
    b = pg_path_join(dir, "B");
    h = pg_path_join(dir, "H");
    head_src = pg_strdupf("/* moved */\n%s    char *q = strdup(s);\n", src);
    /* The base: one malloc at line 2; the head: two from the same line
     * (now 3), and a strdup of its own at line 5. */
    path[0] = side_profile(b, src,
                           "fn=solution\n2 10\ncob=/usr/lib/libc.so.6\n"
                           "cfn=malloc\ncalls=1 0\n2 40\n"
                           /* no line numbers: the function alone */
                           "fn=xalloc\ncob=/usr/lib/libc.so.6\ncfn=calloc\n"
                           "calls=3 0\n0 30\n");
    path[1] = side_profile(h, head_src, "");
    pg_str_printf(&text,
                  "events: Ir\nob=%s/lib.so\nfl=%s//src/a.c\n"
                  "fn=solution\n3 10\ncob=/usr/lib/libc.so.6\ncfn=malloc\n"
                  "calls=2 0\n3 80\ncob=/usr/lib/libc.so.6\ncfn=strdup\n"
                  "calls=1 0\n5 60\n"
                  "fn=xalloc\ncob=/usr/lib/libc.so.6\ncfn=calloc\n"
                  "calls=5 0\n0 50\n",
                  h, h);
    cg = pg_strdup(path[1]);
    REQUIRE(pg_write_file(cg, text.ptr, text.size, 0) == 0);
    head_dir = pg_strdupf("%s/", h);
    lib[0] = pg_strdupf("%s/lib.so", b);
    lib[1] = pg_strdupf("%s/lib.so", h);
    side[0] = b;
    side[1] = head_dir;
    REQUIRE(pg_profile_read(p, path, lib, side) == 0);
    /* The line meets its base, its file named as in the tree. */
    l = row_named(p->lines, p->nlines, "solution", "char *p = malloc(8);");
    REQUIRE(l);
    CHECK_STR(l->file, "src/a.c");
    CHECK(l->base_line == 2 && l->line == 3);
    REQUIRE(p->nalloc_sites == 3);
    /* Most calls added first: two more in a function without lines;
     * then, one more each, the head's new call before the one that
     * doubled. */
    CHECK_STR(p->alloc_sites[0].function, "xalloc");
    CHECK_STR(p->alloc_sites[0].file, "");
    CHECK(p->alloc_sites[0].cost[0] == 3 && p->alloc_sites[0].cost[1] == 5);
    CHECK_STR(p->alloc_sites[1].object, "strdup");
    CHECK(isnan(p->alloc_sites[1].cost[0]) && p->alloc_sites[1].cost[1] == 1);
    CHECK_STR(p->alloc_sites[2].object, "malloc");
    CHECK(p->alloc_sites[2].cost[0] == 1 && p->alloc_sites[2].cost[1] == 2);
    CHECK(p->alloc_sites[2].base_line == 2 && p->alloc_sites[2].line == 3);
    CHECK_STR(p->alloc_sites[2].text, "char *p = malloc(8);");
    pg_profile_free(p);
    pg_rm_rf(dir);
    pg_str_clear(&text);
    free(cg);
    free(head_dir);
    free(head_src);
    free((char *)path[0]);
    free((char *)path[1]);
    free((char *)lib[0]);
    free((char *)lib[1]);
    free(b);
    free(h);
    free(dir);
}

const pg_test pg_tests_report[] = {
    {"profile_alloc_sites_and_slashes", profile_alloc_sites_and_slashes},
    {"profile_pairs_calls_and_lines", profile_pairs_calls_and_lines},
    {"a_large_profile_is_read_quickly", a_large_profile_is_read_quickly},
    {"markdown_cuts_between_characters", markdown_cuts_between_characters},
    {"markdown_shape", markdown_shape},
    {"markdown_stays_under_the_limit", markdown_stays_under_the_limit},
    {"markdown_escapes_what_it_did_not_write",
     markdown_escapes_what_it_did_not_write},
    {"terminal_table", terminal_table},
    {"changes_as_people_read_them", changes_as_people_read_them},
    {"warnings_and_interval", warnings_and_interval},
    {"self_check", self_check},
    {"json_round_trip", json_round_trip},
    PG_TESTS_END};
