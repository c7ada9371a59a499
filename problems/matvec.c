/*
 * matvec - output_c = input_a x input_b: an m x k row-major matrix times a
 * k-vector (Tensara's "matrix-vector").
 *
 * The inputs are multiples of 1/4 in [-1, 1]: every product is a multiple
 * of 1/16 and every partial sum one below 2^20, which a float holds exactly
 * (setup keeps k within that), so any order of summation, fused or not,
 * gives the exact answer.  1/64 of slack leaves room for nothing but a
 * wrong sum.
 */
#include <math.h>
#include <perfgate/problem.h>

typedef void (*matvec_fn)(const float *input_a, const float *input_b,
                          float *output_c, size_t m, size_t k);

struct state {
    size_t m, k;
    float *a, *b, *c;
    double *want;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long m = pg_param(c, "m", 0), k = pg_param(c, "k", 0);
    float *host_a, *host_b;
    size_t i, j;

    if (m < 1 || k < 1 || k > (1LL << 20))
        return pg_fail(c, "want 1 <= m and 1 <= k <= 1048576"), NULL;
    s->m = (size_t)m;
    s->k = (size_t)k;
    host_a = pg_host_alloc(c, s->m * s->k * sizeof(float));
    host_b = pg_host_alloc(c, s->k * sizeof(float));
    s->want = pg_host_alloc(c, s->m * sizeof(double));
    if (!host_a || !host_b || !s->want)
        return NULL;
    for (j = 0; j < s->k; j++)
        host_b[j] = pg_random_grid(c, -4, 4, 0.25f);
    for (i = 0; i < s->m; i++) {
        double sum = 0;
        for (j = 0; j < s->k; j++) {
            host_a[i * s->k + j] = pg_random_grid(c, -4, 4, 0.25f);
            sum += (double)host_a[i * s->k + j] * host_b[j];
        }
        s->want[i] = sum;
    }
    s->a = pg_alloc_copy(c, host_a, s->m * s->k * sizeof(float));
    s->b = pg_alloc_copy(c, host_b, s->k * sizeof(float));
    s->c = pg_alloc_output(c, s->m);
    return s->a && s->b && s->c ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((matvec_fn)fn)(s->a, s->b, s->c, s->m, s->k);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;

    return pg_check_floats(c, "output_c", s->c, s->want, s->m, 1.0 / 64, 0, 0);
}

static double flops(const pg_case *c)
{
    return 2.0 * (double)pg_param(c, "m", 0) * (double)pg_param(c, "k", 0);
}

static double bytes(const pg_case *c)
{
    double m = (double)pg_param(c, "m", 0), k = (double)pg_param(c, "k", 0);
    return 4.0 * (m * k + k + m);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "matvec",
    .signature = "void solution(const float *input_a, const float *input_b, "
                 "float *output_c, size_t m, size_t k)",
    .default_cases = "m=256,k=256; m=2048,k=2048; m=8192,k=1024",
    .device_cases = "m=4096,k=4096; m=8192,k=8192",
    .work = "2·m·k FLOPs, 4·(m·k + k + m) bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
