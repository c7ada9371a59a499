/* The progress line and its estimate of the time left. */
#include <string.h>

#include "progress.h"
#include "str.h"
#include "test.h"

/* About how long is left never rises while a benchmark measures (it rose
 * with the time the current one had taken), and starts from the mean of
 * those done. */
static void time_left_never_rises_while_measuring(void)
{
    double before = 1e300, t;

    /* 3 of 10 done in 3 s: 6 to come after the current one, 1 s each. */
    CHECK_NEAR(pg_progress_left(3, 3, 10, 0), 7, 1e-9);
    for (t = 0; t < 5; t += 0.25) {
        double left = pg_progress_left(3, 3, 10, t);
        CHECK(left <= before);
        CHECK(left >= 6);
        before = left;
    }
    CHECK_NEAR(pg_progress_left(3, 3, 10, 4), 6, 1e-9);
    /* Nothing done: nothing to go by; all done: nothing left. */
    CHECK_NEAR(pg_progress_left(0, 0, 10, 5), 0, 0);
    CHECK_NEAR(pg_progress_left(10, 10, 10, 5), 0, 0);
}

static void keep(void *payload, const char *line)
{
    pg_str_puts(payload, line);
}

static void the_line_says_where_and_how_long(void)
{
    pg_str got = PG_STR_INIT;
    pg_progress p;

    memset(&p, 0, sizeof(p));
    p.on_line = keep;
    p.payload = &got;
    p.count = 10;
    p.index = 4;
    p.measured = 3;
    p.skipped = 1;
    p.bench = "sum";
    p.loop_start = 0;
    p.bench_start = (int64_t)4e9; /* 4 done in 4 s */
    pg_progress_say(&p, "measuring, round 3", (int64_t)4.5e9);
    CHECK_STR(pg_str_cstr(&got), "[5/10] sum: measuring, round 3 · 3 "
                                 "measured, 1 not affected · about 5.5 s "
                                 "left");
    /* The first benchmark: no pace yet, no estimate. */
    pg_str_reset(&got);
    p.index = 0;
    p.measured = p.skipped = 0;
    pg_progress_say(&p, "verifying", 0);
    CHECK_STR(pg_str_cstr(&got), "[1/10] sum: verifying");
    /* Between benchmarks, the message alone; without a listener, nothing. */
    pg_str_reset(&got);
    p.bench = NULL;
    pg_progress_say(&p, "checking the machine", 0);
    CHECK_STR(pg_str_cstr(&got), "checking the machine");
    p.on_line = NULL;
    pg_progress_say(&p, "unheard", 0);
    CHECK_STR(pg_str_cstr(&got), "checking the machine");
    pg_str_clear(&got);
}

const pg_test pg_tests_progress[] = {
    {"time_left_never_rises_while_measuring",
     time_left_never_rises_while_measuring},
    {"the_line_says_where_and_how_long", the_line_says_where_and_how_long},
    PG_TESTS_END};
