/*
 * The problem ABI's header as its users compile it: a problem that uses
 * every declaration of include/perfgate/problem.h, written in the C and
 * C++ both accept, so that CMake's abi.c99 and abi.cxx tests can compile
 * it as strict C99 and as C++ (-pedantic-errors, warnings as errors).
 * Nothing here runs.
 */
#include <perfgate/problem.h>

typedef struct state {
    float *in, *out;
    int *hist;
    size_t n;
} state;

static void *setup(pg_case *c)
{
    static state s;
    static const float host[4] = {1, 2, 3, 4};
    float *scratch;
    long long n = pg_param(c, "n", 4);
    pg_fn self = pg_lookup(c, "solution");

    (void)self;
    s.n = (size_t)n;
    s.in = (float *)pg_alloc_copy(c, host, sizeof(host));
    s.out = pg_alloc_output(c, s.n);
    s.hist = (int *)pg_alloc(c, s.n * sizeof(int));
    scratch = (float *)pg_host_alloc(c, s.n * sizeof(float));
    if (!s.in || !s.out || !s.hist || !scratch)
        return NULL;
    scratch[0] = pg_random_float(c, 0.0f, 1.0f) +
                 pg_random_grid(c, -4, 4, 0.25f) +
                 (float)pg_random_int(c, 0, 9) + (float)(pg_random(c) & 1u);
    pg_upload(c, s.in, scratch, sizeof(float));
    pg_download(c, scratch, s.out, sizeof(float));
    return &s;
}

static void run(void *p, pg_fn fn)
{
    state *s = (state *)p;

    ((void (*)(const float *, float *, size_t))fn)(s->in, s->out, s->n);
}

static int verify(void *p, pg_case *c)
{
    state *s = (state *)p;
    double want[1] = {1.0};
    int ints[1] = {0};

    if (pg_check_ints(c, "hist", s->hist, ints, 1) != 0)
        return -1;
    if (pg_check_floats(c, "out", s->out, want, 1, 1e-3, 0.0, 0) != 0)
        return pg_fail(c, "out[%d] is wrong", 0);
    return 0;
}

/* Every field, in order: a field added to pg_problem fails to compile
 * here until this test (and the ABI number) say so. */
static const pg_problem problem = {
    PG_PROBLEM_ABI,
    "abi_header",
    "void solution(const float *in, float *out, size_t n)",
    "n=4",
    setup,
    run,
    verify,
    NULL /* flops */,
    NULL /* bytes */,
    NULL /* teardown */,
    NULL /* device_cases */,
    NULL /* work */,
    0 /* side_setup */,
    NULL /* compare */,
    NULL /* between */};

PG_EXPORT_PROBLEM(problem)
