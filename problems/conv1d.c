/*
 * conv1d - C[i] = sum over j < K of A[i + j - (K - 1) / 2] * B[j], with A
 * taken as zero outside [0, N) (Tensara's "conv-1d": the kernel centred,
 * zero padding).  K is odd and smaller than N.
 *
 * The inputs are multiples of 1/4 in [-1, 1]: products are multiples of
 * 1/16, and sums of at most K of them stay exact in a float, so any order
 * of summation gives the exact answer.
 */
#include <math.h>
#include <perfgate/problem.h>

typedef void (*conv1d_fn)(const float *A, const float *B, float *C,
                          size_t N, size_t K);

struct state {
    size_t n, k;
    float *a, *b, *c;
    double *want;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long n = pg_param(c, "N", 0), k = pg_param(c, "K", 0);
    float *host_a, *host_b;
    size_t i, j, r;

    if (n < 1 || k < 1 || k % 2 == 0 || k >= n || k > (1LL << 20))
        return pg_fail(c, "want an odd K smaller than N"), NULL;
    s->n = (size_t)n;
    s->k = (size_t)k;
    r = (s->k - 1) / 2;
    host_a = pg_host_alloc(c, s->n * sizeof(float));
    host_b = pg_host_alloc(c, s->k * sizeof(float));
    s->want = pg_host_alloc(c, s->n * sizeof(double));
    if (!host_a || !host_b || !s->want)
        return NULL;
    for (i = 0; i < s->n; i++)
        host_a[i] = pg_random_grid(c, -4, 4, 0.25f);
    for (j = 0; j < s->k; j++)
        host_b[j] = pg_random_grid(c, -4, 4, 0.25f);
    for (i = 0; i < s->n; i++) {
        double sum = 0;
        for (j = 0; j < s->k; j++)
            if (i + j >= r && i + j - r < s->n)
                sum += (double)host_a[i + j - r] * host_b[j];
        s->want[i] = sum;
    }
    s->a = pg_alloc_copy(c, host_a, s->n * sizeof(float));
    s->b = pg_alloc_copy(c, host_b, s->k * sizeof(float));
    s->c = pg_alloc_output(c, s->n);
    return s->a && s->b && s->c ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((conv1d_fn)fn)(s->a, s->b, s->c, s->n, s->k);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;

    return pg_check_floats(c, "C", s->c, s->want, s->n, 1.0 / 64, 0, 0);
}

static double flops(const pg_case *c)
{
    return 2.0 * (double)pg_param(c, "N", 0) * (double)pg_param(c, "K", 0);
}

static double bytes(const pg_case *c)
{
    return 4.0 * (2.0 * (double)pg_param(c, "N", 0) +
                  (double)pg_param(c, "K", 0));
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "conv1d",
    .signature = "void solution(const float *A, const float *B, float *C, "
                 "size_t N, size_t K)",
    .default_cases = "N=4096,K=7; N=262144,K=31; N=1048576,K=63",
    .device_cases = "N=1048576,K=31; N=4194304,K=63",
    .work = "2·N·K FLOPs, 4·(2·N + K) bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
