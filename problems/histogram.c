/*
 * histogram - histogram_output[b] = how many of the height x width pixels
 * of input_image equal b, for b < num_bins (Tensara's "histogram").  The
 * solution writes every bin, zeros included: the output holds garbage
 * before the first call and the last call's counts after it.
 *
 * Counts are integers: the check is equality.
 */
#include <perfgate/problem.h>
#include <string.h>

typedef void (*histogram_fn)(const int *input_image, int *histogram_output,
                             size_t height, size_t width, int num_bins);

struct state {
    size_t height, width;
    int bins;
    int *image, *hist;
    int *want;
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long h = pg_param(c, "height", 0), w = pg_param(c, "width", 0);
    long long bins = pg_param(c, "num_bins", 256);
    size_t i, pixels;
    int *host_image, *host_hist;

    if (h < 1 || w < 1 || bins < 1 || bins > (1 << 24) ||
        h * w >= (1LL << 31))
        return pg_fail(c, "want height, width >= 1, fewer than 2^31 pixels "
                          "and 1 <= num_bins <= 16777216"),
               NULL;
    s->height = (size_t)h;
    s->width = (size_t)w;
    s->bins = (int)bins;
    pixels = s->height * s->width;
    host_image = pg_host_alloc(c, pixels * sizeof(int));
    host_hist = pg_host_alloc(c, (size_t)s->bins * sizeof(int));
    s->want = pg_host_alloc(c, (size_t)s->bins * sizeof(int));
    if (!host_image || !host_hist || !s->want)
        return NULL;
    for (i = 0; i < pixels; i++) {
        host_image[i] = (int)pg_random_int(c, 0, s->bins - 1);
        s->want[host_image[i]]++;
    }
    /* Not zero: a solution must clear the histogram itself. */
    memset(host_hist, 0xA5, (size_t)s->bins * sizeof(int));
    s->image = pg_alloc_copy(c, host_image, pixels * sizeof(int));
    s->hist = pg_alloc_copy(c, host_hist, (size_t)s->bins * sizeof(int));
    return s->image && s->hist ? s : NULL;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    ((histogram_fn)fn)(s->image, s->hist, s->height, s->width, s->bins);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;

    return pg_check_ints(c, "histogram_output", s->hist, s->want,
                         (size_t)s->bins);
}

static double flops(const pg_case *c)
{
    return (double)pg_param(c, "height", 0) * (double)pg_param(c, "width", 0);
}

static double bytes(const pg_case *c)
{
    return 4.0 * (flops(c) + (double)pg_param(c, "num_bins", 256));
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "histogram",
    .signature = "void solution(const int *input_image, int *histogram_output, "
                 "size_t height, size_t width, int num_bins)",
    .default_cases = "height=256,width=256,num_bins=256; "
                     "height=2048,width=2048,num_bins=256; "
                     "height=4096,width=4096,num_bins=64",
    .device_cases = "height=4096,width=4096,num_bins=256; height=8192,width=8192,num_bins=256",
    .work = "height·width FLOPs (one count per pixel), 4·(height·width + num_bins) bytes",
    .setup = setup,
    .run = run,
    .verify = verify,
    .flops = flops,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
