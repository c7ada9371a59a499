/*
 * The CUDA backend's arithmetic, and the engine driven by a device clock
 * whose samples are known exactly (no GPU needed: the clock is simulated).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cuda.h"
#include "gpu.h"
#include "measure.h"
#include "test.h"

static void copies(void)
{
    /* Enough copies to fill twice the L2... */
    CHECK(pg_gpu_copies_for(1 << 20, 50 << 20, SIZE_MAX, 1000) == 100);
    /* ...at most `max`... */
    CHECK(pg_gpu_copies_for(4096, 50 << 20, SIZE_MAX, 128) == 128);
    /* ...no more than fit the budget... */
    CHECK(pg_gpu_copies_for(1 << 20, 50 << 20, 10 << 20, 1000) == 10);
    /* ...and one when a case alone is twice the L2, or nothing fits. */
    CHECK(pg_gpu_copies_for(100 << 20, 50 << 20, SIZE_MAX, 128) == 1);
    CHECK(pg_gpu_copies_for(1 << 20, 50 << 20, 0, 128) == 1);
    CHECK(pg_gpu_copies_for(0, 50 << 20, SIZE_MAX, 128) == 128);
}

static void throttling(void)
{
    CHECK(!pg_gpu_throttled(1.98e9, 1.98e9));
    CHECK(!pg_gpu_throttled(1.50e9, 1.98e9)); /* 76%: working clocks */
    CHECK(pg_gpu_throttled(1.40e9, 1.98e9));  /* 71% */
    CHECK(!pg_gpu_throttled(0, 1.98e9));      /* unknown: not judged */
    CHECK(!pg_gpu_throttled(1e9, 0));
}

static void peaks(void)
{
    pg_gpu_info h100;

    memset(&h100, 0, sizeof(h100));
    strcpy(h100.arch, "sm_90");
    h100.sm_count = 132;
    h100.sm_clock_khz = 1980000;
    h100.mem_clock_khz = 2619000;
    h100.bus_width = 5120;
    /* H100 SXM: 3.35 TB/s and 66.9 TFLOPS of FP32, as NVIDIA lists. */
    CHECK_NEAR(pg_cuda_peak_bandwidth(&h100), 3.35e12, 0.01e12);
    CHECK_NEAR(pg_cuda_peak_flops(&h100), 66.9e12, 0.1e12);
    CHECK(pg_cuda_fp32_lanes(8, 0) == 64);  /* A100 */
    CHECK(pg_cuda_fp32_lanes(8, 6) == 128); /* RTX 30 */
    CHECK(pg_cuda_fp32_lanes(10, 0) == 128);
    CHECK(pg_cuda_fp32_lanes(3, 5) == 0);
    strcpy(h100.arch, "sm_100"); /* two digits of major */
    CHECK_NEAR(pg_cuda_peak_flops(&h100), 66.9e12, 0.1e12);
    strcpy(h100.arch, "");
    CHECK(pg_cuda_peak_flops(&h100) == 0);
}

/* ---- the engine on a simulated device ---- */

static void base_fn(void) {}
static void head_fn(void) {}

struct sim {
    uint64_t largest; /* the largest batch asked for */
    int cold_seen, warm_seen;
    int sides_seen[2];
    pg_watch *watch;
};

static void sim_run(void *state, pg_fn fn)
{
    (void)state;
    (void)fn;
}

/* 1000 ns a call for the base, 1100 for the head, 10 for the harness. */
static double sim_time(void *ctx, const pg_target *t, uint64_t n, int cold)
{
    struct sim *s = ctx;
    double per = t->fn == (pg_fn)base_fn   ? 1010
                 : t->fn == (pg_fn)head_fn ? 1110
                                           : 10;

    if (n > s->largest)
        s->largest = n;
    s->cold_seen |= cold;
    s->warm_seen |= !cold;
    if (s->watch->side >= 0)
        s->sides_seen[s->watch->side] = 1;
    return per * (double)n;
}

static const pg_problem sim_problem = {
    .abi = PG_PROBLEM_ABI, .name = "sim", .run = sim_run};

static void run_sim(struct sim *s, int cold, size_t ncopies, pg_timing *t,
                    pg_measure_summary *sum)
{
    static void *copy_states[7];
    static pg_watch watch;
    static const int sides[2] = {PG_BASE, PG_HEAD};
    pg_device_clock clock = {sim_time, s, 500.0, 256};
    pg_target targets[1][2];
    pg_measure_opts opts;
    int k;

    memset(targets, 0, sizeof(targets));
    for (k = 0; k < 2; k++) {
        targets[0][k].problem = &sim_problem;
        targets[0][k].fn = k ? (pg_fn)head_fn : (pg_fn)base_fn;
        targets[0][k].copies = ncopies ? copy_states : NULL;
        targets[0][k].ncopies = ncopies;
    }
    memset(&watch, 0, sizeof(watch));
    watch.side = -1;
    s->watch = &watch;
    pg_measure_opts_init(&opts, 5, 0.5, 0.05);
    opts.device = &clock;
    opts.device_cold = cold;
    opts.watch = &watch;
    opts.sides = sides;
    pg_measure(t, sum, targets, 1, 2, &opts);
}

static void device_clock(void)
{
    struct sim s;
    pg_timing t;
    pg_measure_summary sum;

    /* Warm: samples of 1000 x 500 ns, but no batch over the device's 256
     * calls. */
    memset(&s, 0, sizeof(s));
    run_sim(&s, 0, 0, &t, &sum);
    CHECK(t.inner == 256);
    CHECK(s.largest == 256);
    CHECK(s.warm_seen && !s.cold_seen);
    CHECK(s.sides_seen[0] && s.sides_seen[1]);
    /* The device's own figures, the harness's 10 ns discounted. */
    CHECK_NEAR(t.ns[0], 1000, 1e-6);
    CHECK_NEAR(t.ns[1], 1100, 1e-6);
    CHECK_NEAR(t.overhead_ns, 10, 1e-9);
    CHECK_NEAR(sum.change.change, 0.10, 1e-9);
    CHECK(sum.stop == PG_STOP_CLEAR);

    /* Cold: a batch never calls a copy twice. */
    memset(&s, 0, sizeof(s));
    run_sim(&s, 1, 7, &t, &sum);
    CHECK(t.inner == 7);
    CHECK(s.largest == 7);
    CHECK(s.cold_seen && !s.warm_seen);

    /* Cold with one set-up: one call per sample. */
    memset(&s, 0, sizeof(s));
    run_sim(&s, 1, 0, &t, &sum);
    CHECK(t.inner == 1);
    CHECK_NEAR(sum.change.change, 0.10, 1e-9);
}

const pg_test pg_tests_gpu[] = {
    {"copies", copies},
    {"throttling", throttling},
    {"peaks", peaks},
    {"device_clock", device_clock},
    PG_TESTS_END};
