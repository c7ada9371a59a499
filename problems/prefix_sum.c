/*
 * prefix_sum - the inclusive scan: output[i] = input[0] + ... + input[i]
 * (Tensara's "cumsum").
 *
 * The inputs are nonzero multiples of 1/16 in [-1, 1], so every sum of a
 * run of them is a multiple of 1/16 that a float holds exactly while it
 * stays below 2^20 (setup checks the prefix sums do): sequential, blocked
 * and tree scans all give the exact answer, and the check is equality.
 */
#include <math.h>
#include <perfgate/problem.h>
#include <stdlib.h>

typedef void (*prefix_sum_fn)(const float *input, float *output, size_t n);

struct state {
    size_t n;
    float *in, *out;
    double *want;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long n = pg_param(c, "n", 0), sum16 = 0, top = 0;
    float *host_in;
    size_t i, bytes;

    if (n < 1)
        return pg_fail(c, "n must be at least 1"), NULL;
    s->n = (size_t)n;
    bytes = s->n * sizeof(float);
    host_in = pg_host_alloc(c, bytes);
    s->want = pg_host_alloc(c, s->n * sizeof(double));
    if (!host_in || !s->want)
        return NULL;
    for (i = 0; i < s->n; i++) {
        long long k = pg_random_int(c, -16, 15);
        k += k >= 0; /* -16..-1, 1..16: never zero */
        host_in[i] = (float)k / 16.0f;
        sum16 += k;
        s->want[i] = (double)sum16 / 16.0;
        if (llabs(sum16) > top)
            top = llabs(sum16);
    }
    /* A run's sum is at most twice the largest prefix: keep it exact. */
    if (2 * top >= (1LL << 24))
        return pg_fail(c, "n = %zu: the sums outgrow a float's precision",
                       s->n),
               NULL;
    s->in = pg_alloc_copy(c, host_in, bytes);
    s->out = pg_alloc_output(c, s->n);
    return s->in && s->out ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((prefix_sum_fn)fn)(s->in, s->out, s->n);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;

    /* Exact: every prefix is a multiple of 1/16 that a float holds. */
    return pg_check_floats(c, "output", s->out, s->want, s->n, 0, 0, 0);
}

static double flops(const pg_case *c)
{
    return (double)pg_param(c, "n", 0);
}

static double bytes(const pg_case *c)
{
    return 8.0 * (double)pg_param(c, "n", 0);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "prefix_sum",
    .signature = "void solution(const float *input, float *output, size_t n)",
    .default_cases = "n=4096; n=262144; n=4194304",
    .device_cases = "n=1048576; n=16777216",
    .work = "n FLOPs, 8·n bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
