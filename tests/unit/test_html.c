/* The HTML page on what a run may leave empty: no benchmarks, a case with
 * no samples, NaN times and changes, a lone sample (html.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "result.h"
#include "str.h"
#include "test.h"

/* Nothing that a browser would take for a number in the page's drawing
 * is "nan" or "inf": a NaN coordinate draws nothing, silently. */
static void no_nan_drawn(const char *page)
{
    const char *p;

    for (p = page; (p = strstr(p, "nan")) != NULL; p++) {
        /* "nan" inside a word (a name, "finance") is not a number. */
        int inside = p > page && ((p[-1] >= 'a' && p[-1] <= 'z') ||
                                  (p[-1] >= 'A' && p[-1] <= 'Z'));
        int before = (p[3] >= 'a' && p[3] <= 'z');
        CHECK(inside || before);
    }
    CHECK(!strstr(page, "=\"inf") && !strstr(page, "=\"-inf"));
    CHECK(!strstr(page, "NaN\""));
}

static void an_empty_result_is_a_page(void)
{
    pg_result r;
    pg_str page = PG_STR_INIT;

    memset(&r, 0, sizeof(r));
    r.noise_floor = 0.05;
    pg_html_page(&page, &r);
    CHECK_CONTAINS(pg_str_cstr(&page), "<!DOCTYPE html>");
    CHECK_CONTAINS(pg_str_cstr(&page), "</html>");
    no_nan_drawn(pg_str_cstr(&page));
    pg_str_clear(&page);
}

/* A benchmark that never ran (NaN everywhere, no cases, no samples), one
 * with a case but no samples, and one with a single sample a side. */
static void nan_and_missing_samples_draw_nothing_false(void)
{
    pg_result r;
    pg_bench_result *b;
    pg_str page = PG_STR_INIT;
    int s;

    memset(&r, 0, sizeof(r));
    r.noise_floor = 0.05;
    b = pg_result_add(&r, "crashed", "reduce_sum");
    b->status = PG_STATUS_CRASHED;
    b->change = b->change_lo = b->change_hi = NAN;

    b = pg_result_add(&r, "no_samples", "reduce_sum");
    b->status = PG_STATUS_UNCHANGED;
    b->change = NAN;
    b->change_lo = b->change_hi = NAN;
    b->cases = pg_calloc(1, sizeof(*b->cases));
    b->ncases = 1;
    b->cases[0].name = pg_strdup("n=1");
    b->cases[0].base_ns = b->cases[0].head_ns = NAN;
    b->cases[0].change = b->cases[0].change_lo = NAN;
    b->cases[0].change_hi = NAN;

    b = pg_result_add(&r, "one_sample", "reduce_sum");
    b->status = PG_STATUS_UNCHANGED;
    b->rounds = 1;
    b->change = 0.01;
    b->change_lo = b->change_hi = NAN;
    b->cases = pg_calloc(1, sizeof(*b->cases));
    b->ncases = 1;
    b->cases[0].name = pg_strdup("n=2");
    b->cases[0].base_ns = b->cases[0].head_ns = 10;
    b->cases[0].change = 0.01;
    b->cases[0].change_lo = b->cases[0].change_hi = NAN;
    for (s = 0; s < 2; s++) {
        b->cases[0].samples[s] = pg_calloc(1, sizeof(double));
        b->cases[0].samples[s][0] = 10;
        b->cases[0].nsamples[s] = 1;
    }

    pg_html_page(&page, &r);
    CHECK_CONTAINS(pg_str_cstr(&page), "crashed");
    CHECK_CONTAINS(pg_str_cstr(&page), "no_samples");
    CHECK_CONTAINS(pg_str_cstr(&page), "one_sample");
    no_nan_drawn(pg_str_cstr(&page));
    pg_str_clear(&page);
    pg_result_clear(&r);
}

const pg_test pg_tests_html[] = {
    {"an_empty_result_is_a_page", an_empty_result_is_a_page},
    {"nan_and_missing_samples_draw_nothing_false",
     nan_and_missing_samples_draw_nothing_false},
    PG_TESTS_END};
