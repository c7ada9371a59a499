/* nvbench: an nvbench program's listing, command line and JSON (nvbench.h),
 * on text as nvbench's markdown and JSON printers write it. */
#include <math.h>
#include <stdlib.h>

#include "nvbench.h"
#include "str.h"
#include "strvec.h"
#include "test.h"

/* --list as markdown_printer writes it: the devices first (their "## [0]"
 * lines are not benchmarks), an axis of each kind, a benchmark without
 * axes. */
static const char listing_text[] = "# Devices\n\n"
                                   "## [0] `NVIDIA H100 80GB HBM3`\n"
                                   "* SM Version: 900 (PTX Version: 900)\n"
                                   "* Number of SMs: 132\n\n"
                                   "# Benchmarks\n\n"
                                   "## [0] `copy` (4 configurations)\n\n"
                                   "### Axes\n\n"
                                   "* `T` : type\n"
                                   "  * `I32` (int32_t)\n"
                                   "  * `F64` (double)\n"
                                   "* `Elements` : int64 [pow2]\n"
                                   "  * `20` (2^20 = 1048576)\n"
                                   "  * `24` (2^24 = 16777216)\n\n"
                                   "## [1] `noop` (1 configurations)\n\n"
                                   "### Axes\n\n\n"
                                   "## [2] `sort pairs` (2 configurations)\n\n"
                                   "### Axes\n\n"
                                   "* `Entropy` : float64\n"
                                   "  * `0.201`\n"
                                   "  * `1`\n";

static void listing(void)
{
    pg_strvec names = PG_STRVEC_INIT;
    char *why = NULL;

    REQUIRE(pg_nvbench_take_list(&names, listing_text) == 0);
    REQUIRE(names.n == 7);
    CHECK_STR(names.v[0], "copy/T=I32/Elements[pow2]=20");
    CHECK_STR(names.v[1], "copy/T=I32/Elements[pow2]=24");
    CHECK_STR(names.v[2], "copy/T=F64/Elements[pow2]=20");
    CHECK_STR(names.v[3], "copy/T=F64/Elements[pow2]=24");
    CHECK_STR(names.v[4], "noop");
    CHECK_STR(names.v[5], "sort pairs/Entropy=0.201");
    CHECK_STR(names.v[6], "sort pairs/Entropy=1");

    /* A filter: an extended regex over the names. */
    CHECK(pg_nvbench_keep(&names, &why, "^copy/T=F64|noop") == 0);
    REQUIRE(names.n == 3);
    CHECK_STR(names.v[2], "noop");
    CHECK(pg_nvbench_keep(&names, &why, "copy(") == 1);
    CHECK_STR(why, "filter 'copy(' is not an extended regular expression");
    free(why);
    pg_strvec_clear(&names);

    /* Not an nvbench listing: a Google Benchmark one, a usage line, a
     * benchmark line it cannot read. */
    CHECK(pg_nvbench_take_list(&names, "BM_copy/8\nBM_copy/64\n") < 0);
    CHECK(pg_nvbench_take_list(&names, "usage: tool FILE\n") < 0);
    CHECK(pg_nvbench_take_list(&names, "# Benchmarks\n\n## [0] copy\n") < 0);
    pg_strvec_clear(&names);
    /* No benchmarks at all is a listing of none. */
    CHECK(pg_nvbench_take_list(&names, "# Devices\n\n# Benchmarks\n\n") == 0);
    CHECK(names.n == 0);
}

/* The arguments a case's name gives back, joined by spaces. */
static char *args_of(const char *name)
{
    pg_strvec args = PG_STRVEC_INIT;
    pg_str s = PG_STR_INIT;
    size_t i;

    if (pg_nvbench_args(&args, name, 40, "out.json") < 0)
        return NULL;
    for (i = 0; i < args.n; i++)
        pg_str_printf(&s, "%s%s", i ? " " : "", args.v[i]);
    pg_strvec_clear(&args);
    return pg_str_detach(&s);
}

static void arguments(void)
{
    char *a;

    a = args_of("copy/T=I32/Elements[pow2]=20");
    CHECK_STR(a, "--benchmark copy --axis T=I32 --axis Elements[pow2]=20 "
                 "--min-samples 40 --min-time 0 --max-noise 1e9 "
                 "--json out.json");
    free(a);
    a = args_of("noop");
    CHECK_STR(a, "--benchmark noop --min-samples 40 --min-time 0 "
                 "--max-noise 1e9 --json out.json");
    free(a);
    /* A '/' in a benchmark's name or a string axis's value stays there. */
    a = args_of("io/read/Path=a/b/Mode=fast");
    CHECK_STR(a, "--benchmark io/read --axis Path=a/b --axis Mode=fast "
                 "--min-samples 40 --min-time 0 --max-noise 1e9 "
                 "--json out.json");
    free(a);
    a = pg_nvbench_bench_name("io/read/Path=a/b");
    CHECK_STR(a, "io/read");
    free(a);
    CHECK(args_of("") == NULL);
}

/* A run's JSON as json_printer writes it (values as strings), one state. */
static const char run_json[] =
    "{\"devices\": [{\"id\": 0, \"name\": \"Test GPU\"}],\n"
    " \"benchmarks\": [{\"name\": \"copy\", \"devices\": [0],\n"
    "  \"states\": [{\"name\": \"Device=0 Elements=2^20\", \"device\": 0,\n"
    "   \"summaries\": [\n"
    "    {\"tag\": \"nv/cold/sample_size\", \"data\": [{\"name\": \"value\", "
    "\"type\": \"int64\", \"value\": \"40\"}]},\n"
    "    {\"tag\": \"nv/cold/time/gpu/min\", \"hide\": \"yes\", \"data\": "
    "[{\"name\": \"value\", \"type\": \"float64\", \"value\": \"1.0e-6\"}]},\n"
    "    {\"tag\": \"nv/cold/time/gpu/mean\", \"data\": [{\"name\": \"value\", "
    "\"type\": \"float64\", \"value\": \"1.25e-6\"}]},\n"
    "    {\"tag\": \"nv/cold/bw/global/bytes_per_second\", \"data\": "
    "[{\"name\": \"value\", \"type\": \"float64\", \"value\": \"8e9\"}]},\n"
    "    {\"tag\": \"nv/cold/bw/item_rate\", \"data\": [{\"name\": "
    "\"value\", \"type\": \"float64\", \"value\": \"1e9\"}]}],\n"
    "   \"is_skipped\": false}]}]}\n";

static void reading(void)
{
    pg_nvbench_state st;
    const char *skipped =
        "{\"benchmarks\": [{\"name\": \"copy\", \"states\": [{\"is_skipped\": "
        "true, \"skip_reason\": \"needs sm_90\"}]}]}";
    /* An older printer: summaries keyed by tag, numbers as numbers, a
     * CPU-only benchmark's times. */
    const char *older =
        "{\"benchmarks\": [{\"name\": \"host\", \"states\": [{\"summaries\": "
        "{\"nv/cpu_only/time/cpu/mean\": {\"values\": [{\"name\": \"value\", "
        "\"type\": \"float64\", \"value\": 2e-3}]}}, \"is_skipped\": "
        "false}]}]}";
    const char *hot_only =
        "{\"benchmarks\": [{\"name\": \"copy\", \"states\": [{\"summaries\": "
        "[{\"tag\": \"nv/batch/time/gpu/mean\", \"data\": [{\"name\": "
        "\"value\", \"type\": \"float64\", \"value\": \"1e-6\"}]}]}]}]}";

    REQUIRE(pg_nvbench_read(&st, run_json, strlen(run_json), "copy") == 0);
    CHECK_NEAR(st.ns, 1250, 1e-6);
    CHECK_NEAR(st.samples, 40, 0);
    CHECK_NEAR(st.bytes, 10000, 1e-6); /* 8e9 B/s over 1.25 us */
    CHECK_NEAR(st.items, 1250, 1e-6);
    CHECK(st.skipped == NULL && st.error == NULL);
    pg_nvbench_state_clear(&st);

    REQUIRE(pg_nvbench_read(&st, skipped, strlen(skipped), "copy") == 0);
    CHECK_STR(st.skipped, "needs sm_90");
    pg_nvbench_state_clear(&st);

    REQUIRE(pg_nvbench_read(&st, older, strlen(older), "host") == 0);
    CHECK_NEAR(st.ns, 2e6, 1e-6);
    CHECK(st.bytes == 0 && st.samples == 0);
    pg_nvbench_state_clear(&st);

    CHECK(pg_nvbench_read(&st, hot_only, strlen(hot_only), "copy") < 0);
    CHECK(strstr(st.error, "no cold GPU time") != NULL);
    pg_nvbench_state_clear(&st);
    CHECK(pg_nvbench_read(&st, run_json, strlen(run_json), "other") < 0);
    CHECK_STR(st.error, "its output has no state of other");
    pg_nvbench_state_clear(&st);
    CHECK(pg_nvbench_read(&st, "{", 1, "copy") < 0);
    CHECK_STR(st.error, "its output is not JSON");
    pg_nvbench_state_clear(&st);
}

const pg_test pg_tests_nvbench[] = {{"listing", listing},
                                    {"arguments", arguments},
                                    {"reading", reading},
                                    PG_TESTS_END};
