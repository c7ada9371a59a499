/*
 * softmax - row-wise: for a rows x cols row-major matrix, output[i][j] =
 * exp(input[i][j]) / sum over l of exp(input[i][l]).  The signature is
 * Tensara's "softmax", called with dim = 1, shape = {rows, cols} (in the
 * solution's memory) and ndim = 2, so its solutions drop in.
 *
 * exp is not correctly rounded, and a float sum of cols terms carries up to
 * about cols x 2^-24 of relative error, so the check is relative: 1e-4
 * plus that bound.  Dropping a term, forgetting to normalize or leaving an
 * element unwritten (it keeps a NaN) all fail it.
 */
#include <math.h>
#include <perfgate/problem.h>

typedef void (*softmax_fn)(const float *input, int dim, float *output,
                           const size_t *shape, size_t ndim);

struct state {
    size_t rows, cols, count;
    float *in, *out;
    size_t *shape;
    double *want;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long rows = pg_param(c, "rows", 0), cols = pg_param(c, "cols", 0);
    size_t i, j, host_shape[2];
    float *host_in;

    if (rows < 1 || cols < 1)
        return pg_fail(c, "rows and cols must be at least 1"), NULL;
    s->rows = (size_t)rows;
    s->cols = (size_t)cols;
    s->count = s->rows * s->cols;
    host_in = pg_host_alloc(c, s->count * sizeof(float));
    s->want = pg_host_alloc(c, s->count * sizeof(double));
    if (!host_in || !s->want)
        return NULL;
    for (i = 0; i < s->rows; i++) {
        double top = -INFINITY, sum = 0;
        float *row = host_in + i * s->cols;
        for (j = 0; j < s->cols; j++) {
            row[j] = pg_random_float(c, -8.0f, 8.0f);
            top = fmax(top, row[j]);
        }
        for (j = 0; j < s->cols; j++)
            sum += exp((double)row[j] - top);
        for (j = 0; j < s->cols; j++)
            s->want[i * s->cols + j] = exp((double)row[j] - top) / sum;
    }
    host_shape[0] = s->rows;
    host_shape[1] = s->cols;
    s->in = pg_alloc_copy(c, host_in, s->count * sizeof(float));
    s->out = pg_alloc_output(c, s->count);
    s->shape = pg_alloc_copy(c, host_shape, sizeof(host_shape));
    return s->in && s->out && s->shape ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((softmax_fn)fn)(s->in, 1, s->out, s->shape, 2);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    double rel = 1e-4 + (double)s->cols * 0x1p-24;

    return pg_check_floats(c, "output", s->out, s->want, s->count, 1e-30, rel,
                           s->cols);
}

static double flops(const pg_case *c)
{
    /* max, subtract, exp, sum, divide: five per element. */
    return 5.0 * (double)pg_param(c, "rows", 0) * (double)pg_param(c, "cols", 0);
}

static double bytes(const pg_case *c)
{
    return 8.0 * (double)pg_param(c, "rows", 0) * (double)pg_param(c, "cols", 0);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "softmax",
    .signature = "void solution(const float *input, int dim, float *output, "
                 "const size_t *shape, size_t ndim)",
    .default_cases = "rows=256,cols=1024; rows=4096,cols=256; "
                     "rows=16,cols=65536",
    .device_cases = "rows=4096,cols=1024; rows=8192,cols=4096",
    .work = "5·rows·cols FLOPs, 8·rows·cols bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
