/*
 * timer.c - measuring the candidate clocks and picking one.
 */
#include "timer.h"
#include "env.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if PG_HAVE_TSC
#include <cpuid.h>
#include "banned.h"
#endif

#define READS 2000
#define TRIES 5

static pg_timer current;
static int selected;

const char *pg_clock_name(pg_clock_id id)
{
    switch (id) {
    case PG_CLOCK_TSC:
        return "tsc";
    case PG_CLOCK_MONOTONIC_RAW:
        return "clock_monotonic_raw";
    default:
        return "clock_monotonic";
    }
}

double pg_timer_error_ns(const pg_clock_info *c)
{
    return c->overhead_ns + c->resolution_ns;
}

int pg_timer_best(const pg_clock_info *c, size_t n)
{
    int best = -1;
    size_t i;

    for (i = 0; i < n; i++)
        if (c[i].usable && (best < 0 || pg_timer_error_ns(&c[i]) <
                                            pg_timer_error_ns(&c[best])))
            best = (int)i;
    return best;
}

uint64_t pg_clock_read(int raw)
{
    struct timespec ts;

    clock_gettime(raw ? CLOCK_MONOTONIC_RAW : CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t read_ticks(pg_clock_id id)
{
    switch (id) {
    case PG_CLOCK_TSC:
        return pg_tsc_begin();
    case PG_CLOCK_MONOTONIC_RAW:
        return pg_clock_read(1);
    default:
        return pg_clock_read(0);
    }
}

/* Why the TSC cannot be used here, or NULL when it can. */
static const char *tsc_unusable(void)
{
#if PG_HAVE_TSC
    unsigned a, b, c, d;
    FILE *f;

    if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
        return "the CPU does not say whether its TSC is invariant";
    __get_cpuid(0x80000001, &a, &b, &c, &d);
    if (!(d & (1u << 27)))
        return "the CPU has no rdtscp";
    __get_cpuid(0x80000007, &a, &b, &c, &d);
    if (!(d & (1u << 8)))
        return "the TSC is not invariant (its rate follows the CPU clock)";
    /* The kernel drops the TSC from its clock sources when it finds it
     * unsynchronized or drifting; trust its judgement. */
    f = fopen("/sys/devices/system/clocksource/clocksource0/"
              "available_clocksource",
              "r");
    if (f) {
        char line[256] = "";
        int ok = fgets(line, sizeof(line), f) && strstr(line, "tsc");
        fclose(f);
        if (!ok)
            return "the kernel has marked the TSC unstable";
    }
    return NULL;
#else
    return "not an x86 CPU";
#endif
}

/* The TSC's rate against CLOCK_MONOTONIC_RAW, over about 20 ms. */
static double tsc_rate(void)
{
    uint64_t t0, t1, c0, c1;

    t0 = pg_clock_read(1);
    c0 = pg_tsc_begin();
    do {
        t1 = pg_clock_read(1);
        c1 = pg_tsc_end();
    } while (t1 - t0 < 20000000);
    return (double)(c1 - c0) / (double)(t1 - t0);
}

static void measure_clock(pg_clock_info *c)
{
    double best_overhead = INFINITY, step = INFINITY;
    int t, i;

    for (t = 0; t < TRIES; t++) {
        uint64_t first = read_ticks(c->id), prev = first, now = first;
        double per;
        for (i = 0; i < READS; i++) {
            now = read_ticks(c->id);
            if (now > prev && (double)(now - prev) < step)
                step = (double)(now - prev);
            prev = now;
        }
        per = (double)(now - first) / READS;
        if (per < best_overhead)
            best_overhead = per;
    }
    c->overhead_ns = best_overhead / c->ticks_per_ns;
    c->resolution_ns = (isinf(step) ? best_overhead : step) / c->ticks_per_ns;
}

void pg_timer_select(pg_timer *out)
{
    const char *force = pg_env("PERFGATE_TIMER");
    const char *why = tsc_unusable();
    int i, best;

    memset(&current, 0, sizeof(current));
    for (i = 0; i < PG_CLOCK_COUNT; i++) {
        pg_clock_info *c = &current.candidates[i];
        c->id = (pg_clock_id)i;
        c->ticks_per_ns = 1;
        c->usable = c->id != PG_CLOCK_TSC || !why;
    }
    current.why = why;
    if (!why)
        current.candidates[PG_CLOCK_TSC].ticks_per_ns = tsc_rate();
    for (i = 0; i < PG_CLOCK_COUNT; i++)
        if (current.candidates[i].usable)
            measure_clock(&current.candidates[i]);

    best = pg_timer_best(current.candidates, PG_CLOCK_COUNT);
    if (force && *force) {
        int want = !strcmp(force, "tsc")         ? PG_CLOCK_TSC
                   : !strcmp(force, "raw")       ? PG_CLOCK_MONOTONIC_RAW
                   : !strcmp(force, "monotonic") ? PG_CLOCK_MONOTONIC
                                                 : -1;
        if (want >= 0 && current.candidates[want].usable)
            best = want;
    }
    current.chosen = current.candidates[best < 0 ? PG_CLOCK_MONOTONIC : best];
    selected = 1;
    if (out)
        *out = current;
}

const pg_timer *pg_timer_current(void)
{
    if (!selected)
        pg_timer_select(NULL);
    return &current;
}

void pg_timer_use(const pg_clock_info *chosen)
{
    memset(&current, 0, sizeof(current));
    current.chosen = *chosen;
    current.candidates[chosen->id] = *chosen;
    selected = 1;
}
