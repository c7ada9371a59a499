/*
 * relu - output = max(0, input), elementwise, on an n x m matrix (Tensara's
 * "relu").
 *
 * Exact whatever the implementation: the check is equality, and an element
 * left unwritten keeps the NaN it was filled with.
 */
#include <math.h>
#include <perfgate/problem.h>

typedef void (*relu_fn)(const float *input, float *output, size_t n,
                        size_t m);

struct state {
    size_t n, m, count;
    float *in, *out;
    float *host_in, *host_out;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long n = pg_param(c, "n", 0), m = pg_param(c, "m", 0);
    size_t i, bytes;

    if (n < 1 || m < 1)
        return pg_fail(c, "n and m must be at least 1"), NULL;
    s->n = (size_t)n;
    s->m = (size_t)m;
    s->count = s->n * s->m;
    bytes = s->count * sizeof(float);
    s->host_in = pg_host_alloc(c, bytes);
    s->host_out = pg_host_alloc(c, bytes);
    if (!s->host_in || !s->host_out)
        return NULL;
    for (i = 0; i < s->count; i++)
        s->host_in[i] = pg_random_float(c, -1.0f, 1.0f);
    s->in = pg_alloc_copy(c, s->host_in, bytes);
    s->out = pg_alloc_output(c, s->count);
    return s->in && s->out ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((relu_fn)fn)(s->in, s->out, s->n, s->m);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    size_t i;

    pg_download(c, s->host_out, s->out, s->count * sizeof(float));
    for (i = 0; i < s->count; i++) {
        float want = s->host_in[i] > 0 ? s->host_in[i] : 0.0f;
        if (!(s->host_out[i] == want))
            return pg_fail(c, "output[%zu] = %g, expected %g (input %g)", i,
                           (double)s->host_out[i], (double)want,
                           (double)s->host_in[i]);
    }
    return 0;
}

static double flops(const pg_case *c)
{
    return (double)pg_param(c, "n", 0) * (double)pg_param(c, "m", 0);
}

static double bytes(const pg_case *c)
{
    return 8.0 * flops(c);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "relu",
    .signature = "void solution(const float *input, float *output, size_t n, "
                 "size_t m)",
    .default_cases = "n=256,m=256; n=1024,m=1024; n=4096,m=1024",
    .device_cases = "n=1024,m=1024; n=4096,m=4096",
    .work = "n·m FLOPs, 8·n·m bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
