/*
 * vector_add - c = a + b, elementwise, on n floats.
 *
 * One float addition is correctly rounded whatever the implementation
 * (vectorized, unrolled, threaded), so the check is exact up to a last-bit
 * allowance; an element left unwritten keeps the NaN it was filled with.
 */
#include <math.h>
#include <perfgate/problem.h>
#include <string.h>

typedef void (*vector_add_fn)(const float *a, const float *b, float *c,
                              size_t n);

struct state {
    size_t n;
    float *a, *b, *c;           /* the solution's memory */
    float *host_a, *host_b, *host_c;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long n = pg_param(c, "n", 0);
    size_t i, bytes;

    if (n < 1)
        return pg_fail(c, "n must be at least 1"), NULL;
    s->n = (size_t)n;
    bytes = s->n * sizeof(float);
    s->host_a = pg_host_alloc(c, bytes);
    s->host_b = pg_host_alloc(c, bytes);
    s->host_c = pg_host_alloc(c, bytes);
    if (!s->host_a || !s->host_b || !s->host_c)
        return NULL;
    for (i = 0; i < s->n; i++) {
        s->host_a[i] = pg_random_float(c, -1.0f, 1.0f);
        s->host_b[i] = pg_random_float(c, -1.0f, 1.0f);
    }
    s->a = pg_alloc_copy(c, s->host_a, bytes);
    s->b = pg_alloc_copy(c, s->host_b, bytes);
    s->c = pg_alloc_output(c, s->n);
    return s->a && s->b && s->c ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((vector_add_fn)fn)(s->a, s->b, s->c, s->n);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    size_t i;

    pg_download(c, s->host_c, s->c, s->n * sizeof(float));
    for (i = 0; i < s->n; i++) {
        float want = s->host_a[i] + s->host_b[i];
        float tol = 1e-6f * (fabsf(s->host_a[i]) + fabsf(s->host_b[i]));
        if (!(fabsf(s->host_c[i] - want) <= tol))
            return pg_fail(c, "c[%zu] = %g, expected %g (a[%zu] + b[%zu])", i,
                           (double)s->host_c[i], (double)want, i, i);
    }
    return 0;
}

static double flops(const pg_case *c)
{
    return (double)pg_param(c, "n", 0);
}

static double bytes(const pg_case *c)
{
    return 12.0 * (double)pg_param(c, "n", 0);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "vector_add",
    .signature =
        "void solution(const float *a, const float *b, float *c, size_t n)",
    .default_cases = "n=4096; n=262144; n=4194304",
    .device_cases = "n=1048576; n=16777216",
    .work = "n FLOPs, 12·n bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
