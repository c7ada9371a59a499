/*
 * conv2d - C[i][j] = sum over k < Kh, l < Kw of
 * A[i + k - (Kh - 1) / 2][j + l - (Kw - 1) / 2] * B[k][l], with A taken as
 * zero outside the H x W image (Tensara's "conv-2d": the kernel centred,
 * zero padding, row-major).  Kh and Kw are odd and smaller than H and W.
 *
 * The inputs are multiples of 1/4 in [-1, 1], so every partial sum is exact
 * in a float and any order of summation gives the exact answer.
 */
#include <math.h>
#include <perfgate/problem.h>

typedef void (*conv2d_fn)(const float *A, const float *B, float *C,
                          size_t H, size_t W, size_t Kh, size_t Kw);

struct state {
    size_t h, w, kh, kw;
    float *a, *b, *c;
    double *want;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long h = pg_param(c, "H", 0), w = pg_param(c, "W", 0);
    long long kh = pg_param(c, "Kh", 0), kw = pg_param(c, "Kw", 0);
    float *host_a, *host_b;
    size_t i, j, k, l, rh, rw, image, kernel;

    if (h < 1 || w < 1 || kh < 1 || kw < 1 || kh % 2 == 0 || kw % 2 == 0 ||
        kh >= h || kw >= w || kh * kw > (1LL << 20))
        return pg_fail(c, "want odd Kh, Kw smaller than H, W"), NULL;
    s->h = (size_t)h, s->w = (size_t)w, s->kh = (size_t)kh, s->kw = (size_t)kw;
    rh = (s->kh - 1) / 2;
    rw = (s->kw - 1) / 2;
    image = s->h * s->w;
    kernel = s->kh * s->kw;
    host_a = pg_host_alloc(c, image * sizeof(float));
    host_b = pg_host_alloc(c, kernel * sizeof(float));
    s->want = pg_host_alloc(c, image * sizeof(double));
    if (!host_a || !host_b || !s->want)
        return NULL;
    for (i = 0; i < image; i++)
        host_a[i] = pg_random_grid(c, -4, 4, 0.25f);
    for (i = 0; i < kernel; i++)
        host_b[i] = pg_random_grid(c, -4, 4, 0.25f);
    for (i = 0; i < s->h; i++)
        for (j = 0; j < s->w; j++) {
            double sum = 0;
            for (k = 0; k < s->kh; k++) {
                size_t y = i + k - rh; /* wraps around when above */
                if (i + k < rh || y >= s->h)
                    continue;
                for (l = 0; l < s->kw; l++) {
                    size_t x = j + l - rw;
                    if (j + l < rw || x >= s->w)
                        continue;
                    sum += (double)host_a[y * s->w + x] * host_b[k * s->kw + l];
                }
            }
            s->want[i * s->w + j] = sum;
        }
    s->a = pg_alloc_copy(c, host_a, image * sizeof(float));
    s->b = pg_alloc_copy(c, host_b, kernel * sizeof(float));
    s->c = pg_alloc_output(c, image);
    return s->a && s->b && s->c ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((conv2d_fn)fn)(s->a, s->b, s->c, s->h, s->w, s->kh, s->kw);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;

    return pg_check_floats(c, "C", s->c, s->want, s->h * s->w, 1.0 / 64, 0,
                           s->w);
}

static double flops(const pg_case *c)
{
    return 2.0 * (double)pg_param(c, "H", 0) * (double)pg_param(c, "W", 0) *
           (double)pg_param(c, "Kh", 0) * (double)pg_param(c, "Kw", 0);
}

static double bytes(const pg_case *c)
{
    return 4.0 * (2.0 * (double)pg_param(c, "H", 0) *
                      (double)pg_param(c, "W", 0) +
                  (double)pg_param(c, "Kh", 0) * (double)pg_param(c, "Kw", 0));
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "conv2d",
    .signature = "void solution(const float *A, const float *B, float *C, "
                 "size_t H, size_t W, size_t Kh, size_t Kw)",
    .default_cases = "H=64,W=64,Kh=3,Kw=3; H=512,W=512,Kh=5,Kw=5; "
                     "H=1024,W=1024,Kh=7,Kw=7",
    .device_cases = "H=2048,W=2048,Kh=3,Kw=3; H=4096,W=4096,Kh=5,Kw=5",
    .work = "2·H·W·Kh·Kw FLOPs, 4·(2·H·W + Kh·Kw) bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
