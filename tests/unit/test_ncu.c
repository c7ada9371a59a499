/*
 * Nsight Compute's report read as ncu 2025.3 writes it on an H200 (its
 * "--csv --page raw --print-units base": a row of names, a row of units,
 * a row per launch, numbers grouped with commas, ncu's own lines between),
 * and the two sides' kernels paired for --profile.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "ncu.h"
#include "result.h"
#include "str.h"
#include "test.h"

#define HEAD                                                                   \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\","    \
    "\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","   \
    "\"dram__bytes.avg\",\"dram__bytes.sum\",\"gpu__time_duration.sum\","      \
    "\"launch__registers_per_thread\",\"lts__t_sector_hit_rate.pct\","         \
    "\"sm__warps_active.avg.pct_of_peak_sustained_active\","                   \
    "\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active."    \
    "ratio\",\"smsp__average_warps_issue_stalled_short_scoreboard_per_issue_"  \
    "active.ratio\",\"smsp__average_warps_issue_stalled_wait_per_issue_"       \
    "active.ratio\",\"smsp__average_warps_issue_stalled_gmma_per_issue_"       \
    "active.ratio\"\n"
#define UNITS                                                                  \
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\","         \
    "\"byte\","                                                                \
    "\"ns\",\"register/thread\",\"%\",\"%\",\"inst\",\"inst\",\"inst\","       \
    "\"inst\"\n"
#define LAUNCH(id, name, bytes, ns, occ, ls)                                   \
    "\"" id "\",\"678\",\"perfgate-measure\",\"127.0.0.1\",\"" name "\","      \
    "\"1\",\"7\",\"(256, 1, 1)\",\"(16384, 1, 1)\",\"0\",\"9.0\","             \
    "\"360,304\",\"" bytes "\",\"" ns "\",\"16\",\"50.26\",\"" occ "\","       \
    "\"" ls "\",\"4.73\",\"3.59\",\"0.00\"\n"

static char *report(const char *text)
{
    char *dir = pg_test_scratch();
    char *path = pg_path_join(dir, "r.csv");

    REQUIRE(pg_write_file(path, text, strlen(text), 0600) == 0);
    free(dir);
    return path;
}

static double metric(const pg_ncu_kernel *k, const char *label)
{
    size_t i;

    for (i = 0; i < k->nvalues; i++)
        if (!strcmp(k->values[i].label, label))
            return k->values[i].value;
    return NAN;
}

static void reads_each_launch_of_a_report(void)
{
    char *path = report(
        "==PROF== Connected to process 678 (/tmp/k)\n" HEAD UNITS LAUNCH(
            "0", "pg_gate", "0", "2,000", "1.00", "0.00")
            LAUNCH("1", "add(const float *, float *, int)", "17,294,592",
                   "14,048", "73.06", "36.82")
                LAUNCH("2", "add(const float *, float *, int)", "17,318,400",
                       "42,144", "72.54", "33.09")
                    LAUNCH("3", "scale", "1,024", "n/a", "10.00",
                           "n/a") "==PROF== Disconnected from process 678\n");
    pg_ncu_side s;
    char *why = NULL;
    const pg_ncu_kernel *k;

    REQUIRE(pg_ncu_read(&s, path, &why) == 0);
    CHECK(why == NULL);
    /* perfgate's own kernel left out; the longest first; a kernel's
     * parameters are not its name. */
    REQUIRE(s.nkernels == 2);
    k = &s.kernels[0];
    CHECK_STR(k->name, "add");
    CHECK(k->launches == 2);
    CHECK_NEAR(k->duration_ns, 14048 + 42144, 1e-9);
    /* Sums add up; shares and stalls are means weighted by time. */
    CHECK_NEAR(metric(k, "DRAM traffic"), 17294592.0 + 17318400.0, 1e-6);
    CHECK_NEAR(metric(k, "achieved occupancy"),
               (73.06 * 14048 + 72.54 * 42144) / (14048 + 42144), 1e-9);
    CHECK_NEAR(metric(k, "stall: long scoreboard"),
               (36.82 * 14048 + 33.09 * 42144) / (14048 + 42144), 1e-9);
    CHECK_NEAR(metric(k, "registers per thread"), 16, 1e-9);
    /* What the report lacks is absent, not zero. */
    CHECK(isnan(metric(k, "DRAM throughput")));
    /* A launch without a duration still counts; "n/a" is no value. */
    k = &s.kernels[1];
    CHECK_STR(k->name, "scale");
    CHECK(k->launches == 1 && k->duration_ns == 0);
    CHECK(isnan(metric(k, "stall: long scoreboard")));
    pg_ncu_side_clear(&s);
    free(path);
}

static void says_what_ncu_said_when_it_profiled_nothing(void)
{
    char *path = report("==PROF== Connected to process 1 (x)\n"
                        "==ERROR== ERR_NVGPUCTRPERM - The user does not have "
                        "permission to access NVIDIA GPU Performance "
                        "Counters on the target device 0.\n");
    pg_ncu_side s;
    char *why = NULL;

    CHECK(pg_ncu_read(&s, path, &why) == 1);
    CHECK(s.nkernels == 0);
    CHECK_CONTAINS(why, "ncu: ERR_NVGPUCTRPERM - The user does not have");
    free(why);
    free(path);
    /* Only perfgate's own kernel ran: nothing of the side's. */
    why = NULL;
    path = report(HEAD UNITS LAUNCH("0", "pg_gate", "0", "2,000", "1", "0"));
    CHECK(pg_ncu_read(&s, path, &why) == 1);
    CHECK_STR(why, "ncu saw no kernel of the side's code run");
    free(why);
    free(path);
    why = NULL;
    CHECK(pg_ncu_read(&s, "/nonexistent/r.csv", &why) == 1);
    CHECK_CONTAINS(why, "ncu wrote no report");
    free(why);
}

/* A side of kernels named `names` (NULL-ended), each a launch of `ns`. */
static void side_of(pg_ncu_side *s, const char *const *names, double ns)
{
    size_t i;

    memset(s, 0, sizeof(*s));
    for (i = 0; names[i]; i++) {
        pg_ncu_kernel *k;
        s->kernels = pg_realloc(s->kernels, (i + 1) * sizeof(*k));
        k = &s->kernels[i];
        memset(k, 0, sizeof(*k));
        k->name = pg_strdup(names[i]);
        k->launches = 1;
        k->duration_ns = ns * (double)(i + 1);
        k->values[0].label = "achieved occupancy";
        k->values[0].unit = "%";
        k->values[0].value = 50;
        k->nvalues = 1;
        s->nkernels++;
    }
}

static void pairs_kernels_by_name_and_a_renamed_one(void)
{
    static const char *const tiled[] = {"matmul_tiled", "fill", NULL};
    static const char *const naive[] = {"matmul", "fill", NULL};
    static const char *const two[] = {"a", "b", NULL};
    static const char *const one[] = {"c", NULL};
    pg_ncu_side sides[2];
    pg_profile *p = pg_calloc(1, sizeof(*p));
    int s;

    side_of(&sides[0], tiled, 100);
    side_of(&sides[1], naive, 300);
    pg_ncu_pair(p, sides);
    /* fill on both sides; matmul_tiled alone on the base and matmul alone
     * on the head: the same kernel, renamed. */
    REQUIRE(p->nfunctions == 2);
    CHECK_STR(p->functions[0].function, "fill");
    CHECK_NEAR(p->functions[0].cost[0], 200, 1e-9);
    CHECK_NEAR(p->functions[0].cost[1], 600, 1e-9);
    CHECK_STR(p->functions[1].function, "matmul_tiled → matmul");
    CHECK_NEAR(p->functions[1].cost[0], 100, 1e-9);
    CHECK_NEAR(p->functions[1].cost[1], 300, 1e-9);
    REQUIRE(p->nmetrics == 2);
    CHECK_STR(p->metrics[1].kernel, "matmul_tiled → matmul");
    CHECK_NEAR(p->metrics[1].value[1], 50, 1e-9);
    for (s = 0; s < 2; s++)
        pg_ncu_side_clear(&sides[s]);
    pg_profile_free(p);

    /* Two kernels gone and one new: which became which is not known. */
    p = pg_calloc(1, sizeof(*p));
    side_of(&sides[0], two, 100);
    side_of(&sides[1], one, 50);
    pg_ncu_pair(p, sides);
    REQUIRE(p->nfunctions == 3);
    CHECK_STR(p->functions[0].function, "b");
    CHECK(isnan(p->functions[0].cost[1]));
    CHECK_STR(p->functions[1].function, "a");
    CHECK_STR(p->functions[2].function, "c");
    CHECK(isnan(p->functions[2].cost[0]));
    for (s = 0; s < 2; s++)
        pg_ncu_side_clear(&sides[s]);
    pg_profile_free(p);
}

const pg_test pg_tests_ncu[] = {
    {"reads_each_launch_of_a_report", reads_each_launch_of_a_report},
    {"says_what_ncu_said_when_it_profiled_nothing",
     says_what_ncu_said_when_it_profiled_nothing},
    {"pairs_kernels_by_name_and_a_renamed_one",
     pairs_kernels_by_name_and_a_renamed_one},
    PG_TESTS_END};
