/*
 * matmul - C = A B, with A m x k, B k x n and C m x n, row-major floats.
 *
 * The entries of A and B are nonzero multiples of 1/4 in [-1, 1], so every
 * product is a multiple of 1/16 and every partial dot product (for k below
 * a million) is exact in a float: any loop order, blocking, vectorization
 * or FMA gives the exact result, and a skipped term (at least 1/16) always
 * shows.  Large cases check a sample of rows, drawn from the case's random
 * stream, plus the first and last rows where edge bugs live.
 */
#include <math.h>
#include <perfgate/problem.h>

typedef void (*matmul_fn)(const float *a, const float *b, float *c, size_t m,
                          size_t n, size_t k);

#define FULL_CHECK_MACS (1ULL << 27)
#define SAMPLE_ROWS 48

struct state {
    size_t m, n, k;
    float *a, *b, *c;
    float *host_a, *host_b, *host_c; /* host_c: C read back */
    size_t *rows;  /* the rows verify() checks */
    size_t nrows;
};

static float entry(pg_case *c)
{
    long long v = pg_random_int(c, -4, 3);
    return (float)(v + (v >= 0)) / 4.0f; /* -1..-1/4, 1/4..1 */
}

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long m = pg_param(c, "m", 0), n = pg_param(c, "n", 0),
              k = pg_param(c, "k", 0);
    size_t i;

    if (m < 1 || n < 1 || k < 1)
        return pg_fail(c, "m, n and k must be at least 1"), NULL;
    if (k >= (1 << 20))
        return pg_fail(c, "k must be below 1048576"), NULL;
    s->m = (size_t)m;
    s->n = (size_t)n;
    s->k = (size_t)k;
    s->host_a = pg_host_alloc(c, s->m * s->k * sizeof(float));
    s->host_b = pg_host_alloc(c, s->k * s->n * sizeof(float));
    s->host_c = pg_host_alloc(c, s->m * s->n * sizeof(float));
    if (!s->host_a || !s->host_b || !s->host_c)
        return NULL;
    for (i = 0; i < s->m * s->k; i++)
        s->host_a[i] = entry(c);
    for (i = 0; i < s->k * s->n; i++)
        s->host_b[i] = entry(c);
    s->a = pg_alloc_copy(c, s->host_a, s->m * s->k * sizeof(float));
    s->b = pg_alloc_copy(c, s->host_b, s->k * s->n * sizeof(float));
    s->c = pg_alloc_output(c, s->m * s->n);
    if (!s->a || !s->b || !s->c)
        return NULL;

    if ((unsigned long long)s->m * s->n * s->k <= FULL_CHECK_MACS ||
        s->m <= SAMPLE_ROWS + 2) {
        s->nrows = s->m;
        s->rows = pg_host_alloc(c, s->m * sizeof(size_t));
        for (i = 0; i < s->m; i++)
            s->rows[i] = i;
    } else {
        s->nrows = SAMPLE_ROWS + 2;
        s->rows = pg_host_alloc(c, s->nrows * sizeof(size_t));
        s->rows[0] = 0;
        s->rows[1] = s->m - 1;
        for (i = 2; i < s->nrows; i++)
            s->rows[i] = (size_t)pg_random_int(c, 0, (long long)s->m - 1);
    }
    return s;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((matmul_fn)fn)(s->a, s->b, s->c, s->m, s->n, s->k);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    size_t r, i, j, p;

    pg_download(c, s->host_c, s->c, s->m * s->n * sizeof(float));
    for (r = 0; r < s->nrows; r++) {
        i = s->rows[r];
        for (j = 0; j < s->n; j++) {
            double want = 0, got = s->host_c[i * s->n + j];
            for (p = 0; p < s->k; p++)
                want += (double)s->host_a[i * s->k + p] *
                        (double)s->host_b[p * s->n + j];
            if (!(fabs(got - want) <= 1.0 / 64))
                return pg_fail(c, "C[%zu][%zu] = %.9g, expected %.9g", i, j,
                               got, want);
        }
    }
    return 0;
}

static double flops(const pg_case *c)
{
    return 2.0 * (double)pg_param(c, "m", 0) * (double)pg_param(c, "n", 0) *
           (double)pg_param(c, "k", 0);
}

static double bytes(const pg_case *c)
{
    double m = (double)pg_param(c, "m", 0), n = (double)pg_param(c, "n", 0),
           k = (double)pg_param(c, "k", 0);
    return 4.0 * (m * k + k * n + m * n);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "matmul",
    .signature = "void solution(const float *a, const float *b, float *c, "
                 "size_t m, size_t n, size_t k)",
    .default_cases = "m=64,n=64,k=64; m=128,n=96,k=160; m=256,n=256,k=256",
    .device_cases = "m=1024,n=1024,k=1024; m=2048,n=2048,k=2048",
    .work = "2·m·n·k FLOPs, 4·(m·k + k·n + m·n) bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
