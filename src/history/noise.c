/*
 * noise.c - where a series' noise changes its scale: the regimes of its
 * neighbours' differences within the levels the fit kept.
 *
 * A difference of two neighbours at one level is the noise alone (the
 * level cancels), and the log of its size is the log of the noise's scale
 * plus a deviate whose variance does not depend on that scale (pi^2 / 8
 * for a normal noise).  So a change of scale is a change in the mean of
 * those logs, found as a step is: the split whose two sides' means differ
 * most in units of their uncertainty, kept when that is NOISE_Z of them
 * and the scale moved by NOISE_RATIO at least, then each side looked at
 * again.
 */

#include "changepoint.h"
#include "cp_fit.h"
#include "str.h"

#include <math.h>
#include <stdlib.h>

#include "banned.h"

/* The differences each side of a change of noise must have. */
#define NOISE_MIN 8
/* How many of its deviations the mean log must move, and by how much the
 * scale at least. */
#define NOISE_Z 5.0
#define NOISE_RATIO 1.5
/* The variance of log|z| for a normal z: pi^2 / 8. */
#define LOG_ABS_NORMAL_VAR 1.2337005501361697
/* A normal noise's sd from the median size of neighbours' differences. */
#define MEDIAN_DIFF_SD (1.4826 / 1.4142135623730951)

typedef struct diffs {
    double *y;    /* log of each difference's size */
    double *size; /* the size itself */
    size_t *at;   /* the point each difference ends at */
    double *sum;  /* sum[k]: y[0] + ... + y[k - 1] */
    double *sum2; /* and of their squares */
    size_t n;
} diffs;

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static double median_of(const double *v, size_t n)
{
    double *c = pg_malloc((n ? n : 1) * sizeof(*c)), m;
    size_t i;

    for (i = 0; i < n; i++)
        c[i] = v[i];
    qsort(c, n, sizeof(*c), by_double);
    m = n ? (n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2) : 0;
    free(c);
    return m;
}

/* The differences of measured neighbours inside each segment; false when
 * too few, or when most are ties (a noiseless or discrete series: no
 * scale to follow). */
static int collect(diffs *d, const double *x, const double *w,
                   const segment *seg, size_t nseg, size_t m)
{
    double floor;
    size_t k, i;

    d->y = pg_malloc(m * sizeof(*d->y));
    d->size = pg_malloc(m * sizeof(*d->size));
    d->at = pg_malloc(m * sizeof(*d->at));
    d->sum = pg_malloc((m + 1) * sizeof(*d->sum));
    d->sum2 = pg_malloc((m + 1) * sizeof(*d->sum2));
    d->n = 0;
    for (k = 0; k < nseg; k++)
        for (i = seg[k].begin; i + 1 < seg[k].end; i++)
            if (w[i] > 0 && w[i + 1] > 0) {
                d->size[d->n] = fabs(x[i + 1] - x[i]);
                d->at[d->n++] = i + 1;
            }
    if (d->n < 2 * NOISE_MIN)
        return 0;
    floor = median_of(d->size, d->n);
    if (!(floor > 0))
        return 0;
    floor *= 1e-3; /* a tie: far below the noise, not minus infinity */
    d->sum[0] = d->sum2[0] = 0;
    for (i = 0; i < d->n; i++) {
        d->y[i] = log(fmax(d->size[i], floor));
        d->sum[i + 1] = d->sum[i] + d->y[i];
        d->sum2[i + 1] = d->sum2[i] + d->y[i] * d->y[i];
    }
    return 1;
}

/* The sum of squared distances of y[a..b-1] from their mean. */
static double log_ss(const diffs *d, size_t a, size_t b)
{
    double s = d->sum[b] - d->sum[a];

    return fmax(d->sum2[b] - d->sum2[a] - s * s / (double)(b - a), 0);
}

/* The strongest split of y[a..b-1] into two of NOISE_MIN at least, its z
 * into *z; 0 when none is allowed. */
static size_t best_split(const diffs *d, size_t a, size_t b, double *z)
{
    double best = 0;
    size_t k, at = 0;

    for (k = a + NOISE_MIN; k + NOISE_MIN <= b; k++) {
        double left = (d->sum[k] - d->sum[a]) / (double)(k - a);
        double right = (d->sum[b] - d->sum[k]) / (double)(b - k);
        /* Each side's spread about its own mean, at least a normal
         * noise's: tails wider than it do not make a change. */
        double v =
            fmax((log_ss(d, a, k) + log_ss(d, k, b)) / (double)(b - a - 2),
                 LOG_ABS_NORMAL_VAR);
        double s = (right - left) /
                   sqrt(v * (1 / (double)(k - a) + 1 / (double)(b - k)));
        if (fabs(s) > fabs(best) && fabs(right - left) >= log(NOISE_RATIO)) {
            best = s;
            at = k;
        }
    }
    *z = best;
    return at;
}

/* Where between a + NOISE_MIN and b - NOISE_MIN, near k, the split of the
 * differences is likeliest for a normal noise of one scale on each side
 * (the log of the mean square on each side, weighed by how many): the
 * logs of sizes test a change robustly, their squares place it more
 * sharply. */
static size_t likeliest(const diffs *d, size_t a, size_t b, size_t k)
{
    double *sq = pg_malloc((b - a + 1) * sizeof(*sq)), best = -INFINITY;
    size_t reach = (b - a) / 4, lo, hi, j, at = k;

    sq[0] = 0;
    for (j = a; j < b; j++)
        sq[j - a + 1] = sq[j - a] + d->size[j] * d->size[j];
    lo = k > a + NOISE_MIN + reach ? k - reach : a + NOISE_MIN;
    hi = k + reach + NOISE_MIN <= b ? k + reach : b - NOISE_MIN;
    for (j = lo; j <= hi; j++) {
        double left = sq[j - a] / (double)(j - a);
        double right = (sq[b - a] - sq[j - a]) / (double)(b - j);
        double ll;
        if (!(left > 0) || !(right > 0))
            continue;
        ll = -(double)(j - a) * log(left) - (double)(b - j) * log(right);
        if (ll > best) {
            best = ll;
            at = j;
        }
    }
    free(sq);
    return at;
}

/* The splits of y[a..b-1] that hold, in order, into cut[] (their z into
 * zs[]); how many. */
static size_t splits(const diffs *d, size_t a, size_t b, size_t *cut,
                     double *zs, size_t max)
{
    double z;
    size_t k = best_split(d, a, b, &z), n;

    if (!k || fabs(z) < NOISE_Z || max == 0)
        return 0;
    k = likeliest(d, a, b, k);
    n = splits(d, a, k, cut, zs, max - 1);
    cut[n] = k;
    zs[n] = z;
    n++;
    return n + splits(d, k, b, cut + n, zs + n, max - n);
}

size_t pg_cp_noise_regimes(pg_noise_change *out, size_t max, double *sd,
                           const double *x, const double *w, const segment *seg,
                           size_t nseg, size_t m)
{
    diffs d = {0};
    size_t *cut = pg_malloc((max + 1) * sizeof(*cut)), n = 0, r, i, from;
    double *zs = pg_malloc((max + 1) * sizeof(*zs));

    if (collect(&d, x, w, seg, nseg, m))
        n = splits(&d, 0, d.n, cut, zs, max);
    for (r = 0, from = 0; r <= n; r++) {
        size_t to = r < n ? cut[r] : d.n;
        double s =
            d.n ? median_of(d.size + from, to - from) * MEDIAN_DIFF_SD : 0;
        size_t first = r ? d.at[from] : 0, last = r < n ? d.at[to] : m;
        for (i = first; sd && i < last; i++)
            sd[i] = s;
        if (r) {
            out[r - 1].at = first;
            out[r - 1].sd_after = s;
            out[r - 1].z = zs[r - 1];
        }
        if (r < n)
            out[r].sd_before = s;
        from = to;
    }
    free(cut);
    free(zs);
    free(d.y);
    free(d.size);
    free(d.at);
    free(d.sum);
    free(d.sum2);
    return n;
}
