/*
 * history.c: a table of other tools' results read as series (which
 * columns are series, labels, deviations, paired changes; what is left
 * out, and said), a step found in each, and the text and JSON made of it.
 * The change-point method itself is changepoint.c's suite.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "error.h"
#include "history.h"
#include "str.h"
#include "test.h"

/* Reads `text` as a history; `only` may be NULL.  0, or the error. */
static int read_table(pg_history *h, const char *text, const char *const *only)
{
    pg_csv t;
    int err;

    pg_error_clear();
    REQUIRE(pg_csv_parse(&t, text, strlen(text), "h.csv") == 0);
    err = pg_history_from_csv(h, &t, "h.csv", only, NULL);
    pg_csv_clear(&t);
    return err;
}

/* A table of 40 commits: "parse" steps from 100 to 130 at row 20 (a
 * little noise), "render" stays at 50; a date column; parse's
 * deviations. */
static char *table(void)
{
    pg_str s = PG_STR_INIT;
    int i;

    pg_str_puts(&s, "commit,date,parse,parse:sd,render\n");
    for (i = 0; i < 40; i++)
        pg_str_printf(&s, "c%02d,2026-11-%02d,%g,1,%g\n", i, 1 + i % 28,
                      (i < 20 ? 100 : 130) + (i % 3) * 0.5,
                      50 + (i % 2) * 0.25);
    return pg_str_detach(&s);
}

static void columns_become_series_labels_and_deviations(void)
{
    char *text = table();
    pg_history h;
    size_t i;

    REQUIRE(read_table(&h, text, NULL) == 0);
    CHECK(h.npoints == 40);
    REQUIRE(h.nseries == 2);
    CHECK_STR(h.series[0].name, "parse");
    CHECK_STR(h.series[1].name, "render");
    CHECK(h.labels && !strcmp(h.labels[0], "c00") &&
          !strcmp(h.labels[39], "c39"));
    CHECK(h.series[0].sd && h.series[0].sd[5] == 1);
    CHECK(!h.series[1].sd);
    CHECK(h.series[0].values[0] == 100 && h.series[0].values[25] == 130.5);
    /* The date is neither a series nor a label, and is said to be so. */
    for (i = 0; i < h.ignored.n && strcmp(h.ignored.v[i], "date"); i++)
        ;
    CHECK(i < h.ignored.n);
    pg_history_clear(&h);
    free(text);
}

static void only_the_series_asked_for(void)
{
    static const char *const only[] = {"render", NULL};
    static const char *const none[] = {"paint", NULL};
    char *text = table();
    pg_history h;

    REQUIRE(read_table(&h, text, only) == 0);
    REQUIRE(h.nseries == 1);
    CHECK_STR(h.series[0].name, "render");
    pg_history_clear(&h);
    CHECK(read_table(&h, text, none) == PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "paint");
    pg_error_clear();
    free(text);
}

/* The step is found where it is, with its levels; the flat series has
 * none; the text and the JSON say so. */
static void a_step_is_found_and_reported(void)
{
    char *text = table(), *json;
    pg_cp_opts opts;
    pg_str out = PG_STR_INIT;
    pg_history h;

    memset(&opts, 0, sizeof(opts));
    REQUIRE(read_table(&h, text, NULL) == 0);
    pg_history_detect(&h, &opts);
    REQUIRE(h.series[0].ncps == 1);
    CHECK(h.series[0].cps[0].at == 20);
    CHECK(fabs(h.series[0].cps[0].before - 100.5) <= 0.5);
    CHECK(fabs(h.series[0].cps[0].after - 130.5) <= 0.5);
    CHECK(h.series[1].ncps == 0);
    pg_history_render_text(&out, &h);
    CHECK_CONTAINS(pg_str_cstr(&out), "parse");
    CHECK_CONTAINS(pg_str_cstr(&out), "c20");
    json = pg_history_to_json(&h);
    CHECK_CONTAINS(json, "\"c20\"");
    free(json);
    pg_str_clear(&out);
    pg_history_clear(&h);
    free(text);
}

/* What is not a number is refused naming its column and row. */
static void a_bad_cell_names_its_place(void)
{
    pg_history h;

    CHECK(read_table(&h, "commit,parse,parse:sd\na,1,1\nb,2,-1\n", NULL) ==
          PG_ERR_USAGE);
    CHECK_CONTAINS(pg_error_last(), "parse:sd");
    pg_error_clear();
    CHECK(read_table(&h, "commit,date\na,monday\nb,tuesday\n", NULL) ==
          PG_ERR_USAGE);
    pg_error_clear();
}

/* A heap's series from records: every pair that differs is a step, to
 * and from a level of 0 too (no fraction leaves 0), said in allocations
 * and counted exactly. */
static void a_heap_steps_to_and_from_nothing(void)
{
    pg_cp_opts opts;
    pg_str out = PG_STR_INIT;
    pg_history h;
    pg_series *s;

    memset(&opts, 0, sizeof(opts));
    REQUIRE(read_table(&h,
                       "commit,heap,heap:change,heap:change_sd\n"
                       "c0,2,,\nc1,2,0,0\nc2,0,-1,0\nc3,0,0,0\n"
                       "c4,3,,\nc5,3,0,0\nc6,3,0,0\nc7,3,0,0\n",
                       NULL) == 0);
    s = &h.series[0];
    s->metric = PG_SERIES_ALLOCS;
    s->sure = calloc(h.npoints, 1);
    REQUIRE(s->sure);
    s->sure[2] = s->sure[4] = 1;
    pg_history_detect(&h, &opts);
    REQUIRE(s->ncps == 2);
    CHECK(s->cps[0].at == 2 && s->cps[0].before == 2 && s->cps[0].after == 0);
    CHECK(s->cps[1].at == 4 && s->cps[1].before == 0 && s->cps[1].after == 3);
    pg_history_render_text(&out, &h);
    CHECK_CONTAINS(pg_str_cstr(&out), "at c2: 2 allocs → 0 allocs (-100.0%)");
    CHECK_CONTAINS(pg_str_cstr(&out), "at c4: 0 allocs → 3 allocs, counted "
                                      "exactly");
    CHECK_STR(pg_series_metric_name(PG_SERIES_PEAK), "peak heap");
    pg_str_clear(&out);
    pg_history_clear(&h);
}

const pg_test pg_tests_history[] = {
    {"columns_become_series_labels_and_deviations",
     columns_become_series_labels_and_deviations},
    {"only_the_series_asked_for", only_the_series_asked_for},
    {"a_step_is_found_and_reported", a_step_is_found_and_reported},
    {"a_bad_cell_names_its_place", a_bad_cell_names_its_place},
    {"a_heap_steps_to_and_from_nothing", a_heap_steps_to_and_from_nothing},
    PG_TESTS_END};
