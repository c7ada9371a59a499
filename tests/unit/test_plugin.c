/*
 * The host side of the problem ABI: the helpers problems check with, the
 * random stream, and checking a case against the problem's parameters.
 */
#include <math.h>
#include <string.h>

#include "casespec.h"
#include "plugin.h"
#include "test.h"

/* A case of problem "p" with host memory, from "k=v,...". */
static void host_case(pg_case *c, pg_casespec *spec, const char *text)
{
    REQUIRE(pg_casespec_parse(spec, text) == 0);
    pg_plugin_case_init(c, "p", spec, NULL);
}

static void outputs_start_as_nan(void)
{
    pg_casespec spec;
    pg_case c;
    float *out;
    double want[3] = {1, 2, 3};

    host_case(&c, &spec, "n=3");
    out = pg_alloc_output(&c, 3);
    REQUIRE(out != NULL);
    CHECK(isnan(out[0]) && isnan(out[1]) && isnan(out[2]));
    /* An element never written fails, even with any tolerance. */
    out[0] = 1;
    out[2] = 3;
    CHECK(pg_check_floats(&c, "out", out, want, 3, 1e9, 1, 0) == -1);
    CHECK_STR(pg_plugin_case_message(&c),
              "out[1] = nan, expected 2 (within 1e+09)");
    pg_plugin_case_clear(&c);
    pg_casespec_clear(&spec);
}

static void floats_within_tolerance(void)
{
    pg_casespec spec;
    pg_case c;
    float *out;
    double want[6] = {1, 2, 3, 4, 5, 6};
    const float got[6] = {1, 2, 3, 4, 5.001f, 6};

    host_case(&c, &spec, "n=6");
    REQUIRE((out = pg_alloc_copy(&c, got, sizeof(got))) != NULL);
    CHECK(memcmp(out, got, sizeof(got)) == 0);
    /* Absolute, relative, and exact. */
    CHECK(pg_check_floats(&c, "out", out, want, 6, 0.01, 0, 0) == 0);
    CHECK(pg_check_floats(&c, "out", out, want, 6, 0, 1e-3, 0) == 0);
    CHECK(pg_check_floats(&c, "out", out, want, 6, 0, 0, 0) == -1);
    CHECK_CONTAINS(pg_plugin_case_message(&c),
                   "out[4] = 5.00099993, expected 5");
    /* A matrix names row and column. */
    CHECK(pg_check_floats(&c, "C", out, want, 6, 0, 0, 3) == -1);
    CHECK_CONTAINS(pg_plugin_case_message(&c), "C[1][1] = ");
    pg_plugin_case_clear(&c);
    pg_casespec_clear(&spec);
}

static void ints_exactly(void)
{
    pg_casespec spec;
    pg_case c;
    const int got[3] = {7, 8, 9};
    const int want[3] = {7, 8, 10};
    int *out;

    host_case(&c, &spec, "n=3");
    REQUIRE((out = pg_alloc_copy(&c, got, sizeof(got))) != NULL);
    CHECK(pg_check_ints(&c, "hist", out, want, 2) == 0);
    CHECK(pg_check_ints(&c, "hist", out, want, 3) == -1);
    CHECK_STR(pg_plugin_case_message(&c), "hist[2] = 9, expected 10");
    pg_plugin_case_clear(&c);
    pg_casespec_clear(&spec);
}

static void random_stream_is_the_case_s(void)
{
    pg_casespec spec, other;
    pg_case a, b, d;
    int i, differ = 0;

    host_case(&a, &spec, "n=5");
    pg_plugin_case_init(&b, "p", &spec, NULL);
    REQUIRE(pg_casespec_parse(&other, "n=6") == 0);
    pg_plugin_case_init(&d, "p", &other, NULL);
    for (i = 0; i < 100; i++) {
        float g = pg_random_grid(&a, -4, 4, 0.25f);
        /* Same case, same stream: both sides see the same inputs. */
        CHECK(g == pg_random_grid(&b, -4, 4, 0.25f));
        CHECK(g >= -1 && g <= 1 && g * 4 == floorf(g * 4));
    }
    for (i = 0; i < 100; i++)
        differ += pg_random(&d) != pg_random(&a);
    CHECK(differ > 90); /* another case, another stream */
    pg_plugin_case_clear(&a);
    pg_plugin_case_clear(&b);
    pg_plugin_case_clear(&d);
    pg_casespec_clear(&spec);
    pg_casespec_clear(&other);
}

static void case_parameters_are_checked(void)
{
    pg_casespec spec;
    pg_str why = PG_STR_INIT;

    REQUIRE(pg_casespec_parse(&spec, "rows=4,colz=8") == 0);
    CHECK(pg_plugin_check_case("softmax", "rows=1,cols=2; rows=3,cols=4", &spec,
                               &why) == -1);
    CHECK_STR(pg_str_cstr(&why), "unknown parameter 'colz' for problem "
                                 "'softmax' (did you mean 'cols'?)");
    pg_casespec_clear(&spec);
    pg_str_reset(&why);
    REQUIRE(pg_casespec_parse(&spec, "cols=8") == 0);
    CHECK(pg_plugin_check_case("softmax", "rows=1,cols=2", &spec, &why) == 0);
    pg_casespec_clear(&spec);
    pg_str_clear(&why);
}

const pg_test pg_tests_plugin[] = {
    {"outputs_start_as_nan", outputs_start_as_nan},
    {"floats_within_tolerance", floats_within_tolerance},
    {"ints_exactly", ints_exactly},
    {"random_stream_is_the_case_s", random_stream_is_the_case_s},
    {"case_parameters_are_checked", case_parameters_are_checked},
    PG_TESTS_END};
