/*
 * changepoint.c - the least-cost cut of a series into levels.
 */
#include "changepoint.h"
#include "str.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define DEFAULT_PENALTY 3.0
#define MIN_SEGMENT 2

typedef struct point {
    double x, w;
} point;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The weighted median of the sorted `p` (k points) and the cost around it:
 * the weighted sum of distances. */
static double median_cost(const point *p, size_t k, double *median)
{
    double total = 0, run = 0, cost = 0, m = NAN;
    size_t i;

    for (i = 0; i < k; i++)
        total += p[i].w;
    for (i = 0; i < k && isnan(m); i++) {
        run += p[i].w;
        if (run >= total / 2 && p[i].w > 0)
            m = p[i].x;
    }
    if (isnan(m)) /* no weight at all: any level costs nothing */
        m = k ? p[k / 2].x : 0;
    for (i = 0; i < k; i++)
        cost += p[i].w * fabs(p[i].x - m);
    *median = m;
    return cost;
}

/* One sigma for every point: the median distance of neighbours, as the
 * standard deviation of a normal noise it would be (a step moves one
 * distance of n - 1). */
static double estimate_sigma(const double *x, size_t n)
{
    double *d = pg_malloc((n ? n : 1) * sizeof(*d)), s;
    size_t i, k = 0;

    for (i = 0; i + 1 < n; i++)
        if (isfinite(x[i]) && isfinite(x[i + 1]))
            d[k++] = fabs(x[i + 1] - x[i]);
    if (!k) {
        free(d);
        return 1;
    }
    qsort(d, k, sizeof(*d), by_value);
    s = (k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2) * 1.4826 / sqrt(2);
    free(d);
    if (!(s > 0)) {
        /* Neighbours alike (a constant series, or steps only): a scale
         * far below the values, so that any step outweighs the penalty. */
        double big = 0;
        for (i = 0; i < n; i++)
            if (isfinite(x[i]) && fabs(x[i]) > big)
                big = fabs(x[i]);
        s = big > 0 ? big * 1e-9 : 1e-12;
    }
    return s;
}

/* cost[i * m + j]: the cost of the segment of points i..j, and its level. */
static void segment_costs(double *cost, double *level, const double *x,
                          const double *w, size_t m)
{
    point *sorted = pg_malloc(m * sizeof(*sorted));
    size_t i, j, k;

    for (i = 0; i < m; i++) {
        for (j = i, k = 0; j < m; j++, k++) {
            /* Insert point j into the sorted run of i..j-1. */
            point p = {x[j], w[j]};
            size_t at = k;
            while (at > 0 && sorted[at - 1].x > p.x) {
                sorted[at] = sorted[at - 1];
                at--;
            }
            sorted[at] = p;
            cost[i * m + j] = median_cost(sorted, k + 1, &level[i * m + j]);
        }
    }
    free(sorted);
}

/* The cheapest cut: start[j] is where the last segment of points 0..j-1
 * begins; segments are at least MIN_SEGMENT long.  0 when there is none. */
static int best_cut(size_t *start, const double *cost, size_t m, double pen)
{
    double *best = pg_malloc((m + 1) * sizeof(*best));
    size_t i, j;
    int ok;

    best[0] = 0;
    for (j = 1; j <= m; j++) {
        best[j] = INFINITY;
        for (i = 0; i + MIN_SEGMENT <= j; i++) {
            double c = best[i] + cost[i * m + (j - 1)] + pen;
            if (c < best[j]) {
                best[j] = c;
                start[j] = i;
            }
        }
    }
    ok = isfinite(best[m]);
    free(best);
    return ok;
}

size_t pg_changepoints(pg_changepoint *out, const double *values,
                       const double *sigma, size_t n, const pg_cp_opts *opts)
{
    size_t off = n > PG_CP_MAX ? n - PG_CP_MAX : 0, m = n - off, i, j, found;
    double pen = opts && opts->penalty > 0 ? opts->penalty : DEFAULT_PENALTY;
    double min_change = opts ? opts->min_change : 0, scale, *x, *w, *cost,
           *level;
    size_t *start, *cuts, ncuts = 0;

    if (m < 2 * MIN_SEGMENT)
        return 0;
    values += off;
    if (sigma)
        sigma += off;
    scale = sigma ? 1 : estimate_sigma(values, m);
    x = pg_malloc(m * sizeof(*x));
    w = pg_malloc(m * sizeof(*w));
    for (i = 0; i < m; i++) {
        double s = sigma ? sigma[i] : scale;
        int usable = isfinite(values[i]) && isfinite(s) && s > 0;
        x[i] = isfinite(values[i]) ? values[i] : 0;
        w[i] = usable ? 1 / s : 0;
    }
    cost = pg_malloc(m * m * sizeof(*cost));
    level = pg_malloc(m * m * sizeof(*level));
    start = pg_calloc(m + 1, sizeof(*start));
    cuts = pg_malloc((m + 1) * sizeof(*cuts));
    segment_costs(cost, level, x, w, m);
    if (best_cut(start, cost, m, pen * log((double)m)))
        for (j = m; j > 0; j = start[j])
            cuts[ncuts++] = j; /* segment ends, newest first */
    /* Oldest first: segment k is start..end-1. */
    found = 0;
    for (i = ncuts; i-- > 1;) {
        size_t end_prev = cuts[i], end = cuts[i - 1];
        size_t begin_prev = start[end_prev];
        double before = level[begin_prev * m + (end_prev - 1)];
        double after = level[end_prev * m + (end - 1)];
        if (fabs(after - before) <= min_change * fabs(before))
            continue;
        out[found].at = off + end_prev;
        out[found].before = before;
        out[found].after = after;
        found++;
    }
    free(x);
    free(w);
    free(cost);
    free(level);
    free(start);
    free(cuts);
    return found;
}
