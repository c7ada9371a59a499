/*
 * reduce_sum - out[0] = the sum of n floats.
 *
 * The inputs are nonzero multiples of 1/16 in [-1, 1].  Every partial sum
 * of such values is then a multiple of 1/16 far below 2^20, which a float
 * holds exactly: any summation order (sequential, pairwise, tree, SIMD
 * lanes, Kahan, double accumulators) gives the exact sum, so the check can
 * be tight, and a skipped or doubled term (at least 1/16) always shows.
 */
#include <math.h>
#include <perfgate/problem.h>

typedef void (*reduce_sum_fn)(const float *in, float *out, size_t n);

struct state {
    size_t n;
    float *in, *out;
    double want;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long n = pg_param(c, "n", 0);
    float *host_in;
    long long sum16 = 0;
    size_t i;

    if (n < 1)
        return pg_fail(c, "n must be at least 1"), NULL;
    s->n = (size_t)n;
    host_in = pg_host_alloc(c, s->n * sizeof(float));
    if (!host_in)
        return NULL;
    for (i = 0; i < s->n; i++) {
        long long k = pg_random_int(c, -16, 15);
        k += k >= 0; /* -16..-1, 1..16: never zero */
        host_in[i] = (float)k / 16.0f;
        sum16 += k;
    }
    s->want = (double)sum16 / 16.0;
    s->in = pg_alloc_copy(c, host_in, s->n * sizeof(float));
    s->out = pg_alloc_output(c, 1);
    return s->in && s->out ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((reduce_sum_fn)fn)(s->in, s->out, s->n);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;

    /* Exact in theory; 1/64 leaves room for nothing but a wrong sum. */
    return pg_check_floats(c, "out", s->out, &s->want, 1, 1.0 / 64, 0, 0);
}

static double flops(const pg_case *c)
{
    return (double)pg_param(c, "n", 0);
}

static double bytes(const pg_case *c)
{
    return 4.0 * (double)pg_param(c, "n", 0);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "reduce_sum",
    .signature = "void solution(const float *in, float *out, size_t n)",
    .default_cases = "n=4096; n=262144; n=4194304",
    .device_cases = "n=1048576; n=16777216",
    .work = "n FLOPs, 4·n bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
