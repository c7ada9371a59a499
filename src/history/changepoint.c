/*
 * changepoint.c - the least-cost cut of a series into levels.
 */
#include "changepoint.h"
#include "cp_fit.h"
#include "str.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define DEFAULT_PENALTY 1.0
#define MIN_SEGMENT 2
/* Costs this close, relatively, are equal. */
#define TIE 1e-12
/* The most points inside a series that are a blip, not a level, when the
 * points on both sides of them are on the same side of them: a run of
 * spikes, or a change undone at once.  Points count by weight: one point
 * among uncertain ones is one. */
#define MAX_BLIP 4
/* The residuals' lag-1 autocorrelation above which the noise is taken for
 * slow (smooth, periodic) and widened: above this and 3 / sqrt(n), which
 * independent noise reaches about once in a thousand series. */
#define RHO_LEAST 0.3
/* The most that widening takes rho to be, and how many times it refits. */
#define RHO_MOST 0.95
#define MAX_REFITS 3
/* A step of values alone must show in the segments' means too, this many
 * times its uncertainty, the means trimmed by TRIM of their points at each
 * end (spikes); segments of fewer than MIN_MEANS points are not asked.
 * IQR_SD: a normal noise's interquartile range in sd. */
#define MEANS_T 4.0
#define TRIM 0.1
#define MIN_MEANS 3
#define MEANS_SHARE 0.5
#define IQR_SD 1.349
/* The quantile of |deviations| that measures a noise's tail, and a
 * normal noise's: 80%, 1.28 sd (above 80%, two steps in ten
 * points would count as noise). */
#define TAIL_QUANTILE 0.8
#define TAIL_NORMAL 1.2816
#define HALF_PI 1.5707963267948966

/* Doubles, or points by their value (a point begins with it). */
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

/* How much wider than a normal noise's the tail of `k` standardized
 * deviations is (sorted here): their TAIL_QUANTILE against the normal's;
 * 1 at least, and 1 for fewer than four. */
static double widening(double *z, size_t k)
{
    double f;

    if (k < 4)
        return 1;
    qsort(z, k, sizeof(*z), by_value);
    f = z[(size_t)(TAIL_QUANTILE * (double)(k - 1) + 0.5)] / TAIL_NORMAL;
    return f > 1 ? f : 1;
}

/*
 * How much wider the noise is than the points' sigmas say, in its tail: the
 * 80th percentile of neighbours' differences in units of their sigma,
 * against a normal noise's (1.28 sd).  1 at least.  Spikes that the median
 * of neighbours' distances does not see widen it, so that a run of two
 * spikes is not a level of its own.
 */
double pg_cp_tail_factor(const double *x, const double *w, size_t m)
{
    double *d = pg_malloc((m ? m : 1) * sizeof(*d)), f = 1;
    size_t i, k = 0;

    for (i = 0; i + 1 < m; i++)
        if (w[i] > 0 && w[i + 1] > 0)
            d[k++] = fabs(x[i + 1] - x[i]) /
                     sqrt(1 / (w[i] * w[i]) + 1 / (w[i + 1] * w[i + 1]));
    f = widening(d, k);
    free(d);
    return f;
}

/*
 * The last PG_CP_SPAN points up to j in order of value, as the first
 * stage walks up the series: at[q] is the index in the series of the q-th
 * smallest, pos[k] where point j - k stands in that order.
 */
typedef struct window {
    point *p;
    size_t *at, *pos, last, n;
} window;

/* Point j joins; the point PG_CP_SPAN before it leaves. */
static void window_push(window *win, const double *x, const double *w, size_t j)
{
    size_t q, k;

    if (win->n == PG_CP_SPAN) {
        q = win->pos[win->n - 1];
        memmove(&win->p[q], &win->p[q + 1], (win->n - q - 1) * sizeof(point));
        memmove(&win->at[q], &win->at[q + 1],
                (win->n - q - 1) * sizeof(size_t));
        win->n--;
    }
    for (q = win->n; q > 0 && win->p[q - 1].x > x[j]; q--) {
        win->p[q] = win->p[q - 1];
        win->at[q] = win->at[q - 1];
    }
    win->p[q].x = x[j];
    win->p[q].w = w[j];
    win->at[q] = j;
    win->n++;
    win->last = j;
    for (k = 0; k < win->n; k++)
        win->pos[j - win->at[k]] = k;
}

/*
 * The cost of each segment of the window's points that ends at its last,
 * growing back from it: each point's weighted distance from the segment's
 * weighted median, as median_cost reckons it, without sorting again.  The
 * median is followed along the window's order as points join: q is the
 * first at which the weight of the segment's points up to it reaches half
 * their total.  cost[k] is the segment of points last - k .. last.
 */
static void window_costs(double *cost, const window *win, double centre)
{
    double W = 0, WX = 0, below = 0, xbelow = 0;
    size_t k, q = 0, from;

#define PRESENT(r) (win->at[r] >= from ? win->p[r].w : 0)
    for (k = 0; k < win->n; k++) {
        size_t r = win->pos[k];
        double wk = win->p[r].w, med, wq;
        from = win->last - k;
        W += wk;
        WX += wk * (win->p[r].x - centre);
        if (r < q) {
            below += wk;
            xbelow += wk * (win->p[r].x - centre);
        }
        while (q > 0 && below >= W / 2) {
            q--;
            below -= PRESENT(q);
            xbelow -= PRESENT(q) * (win->p[q].x - centre);
        }
        while (q + 1 < win->n && below + PRESENT(q) < W / 2) {
            below += PRESENT(q);
            xbelow += PRESENT(q) * (win->p[q].x - centre);
            q++;
        }
        if (!(W > 0)) {
            cost[k] = 0;
            continue;
        }
        med = win->p[q].x - centre;
        wq = PRESENT(q);
        cost[k] = (med * below - xbelow) +
                  ((WX - xbelow - wq * med) - med * (W - below - wq));
    }
#undef PRESENT
}

/*
 * The cheapest cut of points 0..m-1 into segments of MIN_SEGMENT to
 * PG_CP_SPAN points, each costing its points' distances from its median
 * and `pen`: start[j] is where the last segment of points 0..j-1 begins
 * (the earliest, of cuts that cost the same: distances from a median tie
 * often, and costs that differ by rounding alone are the same).  Each segment's
 * cost is reckoned once, as it grows back from its last point, and nothing of
 * size m * m is kept.  0 when there is none.
 */
static int best_cut(size_t *start, const double *x, const double *w, size_t m,
                    double pen)
{
    double *best = pg_malloc((m + 1) * sizeof(*best));
    double cost[PG_CP_SPAN], centre = x[m / 2];
    window win = {pg_malloc(PG_CP_SPAN * sizeof(point)),
                  pg_malloc(PG_CP_SPAN * sizeof(size_t)),
                  pg_malloc(PG_CP_SPAN * sizeof(size_t)), 0, 0};
    size_t j, k;
    int ok;

    best[0] = 0;
    for (j = 1; j <= m; j++) {
        window_push(&win, x, w, j - 1);
        window_costs(cost, &win, centre);
        best[j] = INFINITY;
        for (k = win.n; k-- > MIN_SEGMENT - 1;) { /* earliest start first */
            double c = best[j - 1 - k] + cost[k] + pen;
            if (c < best[j] - TIE * fabs(c)) {
                best[j] = c;
                start[j] = j - 1 - k;
            }
        }
    }
    ok = isfinite(best[m]);
    free(best);
    free(win.p);
    free(win.at);
    free(win.pos);
    return ok;
}

void pg_cp_measure_segment(segment *s, const fit *f)
{
    double sumw = 0, sumw2 = 0;
    size_t k = 0, i;

    for (i = s->begin; i < s->end; i++, k++) {
        f->scratch[k].x = f->x[i];
        f->scratch[k].w = f->w[i];
        sumw += f->w[i];
        sumw2 += f->w[i] * f->w[i];
    }
    qsort(f->scratch, k, sizeof(*f->scratch), by_value);
    s->points = sumw2 > 0 ? sumw * sumw / sumw2 : 0;
    (void)median_cost(f->scratch, k, &s->level);
    s->var = sumw2 > 0 ? (k >= 3 ? HALF_PI : 1) / sumw2 : INFINITY;
}

/* Point k's paired change in units of its uncertainty; 0 when there is
 * none, or it is exactly no change (a change that could not reach it). */
static double pair_z(const fit *f, size_t k)
{
    if (!f->d || !isfinite(f->d[k]) || !(f->dv[k] >= 0) || f->d[k] == 0)
        return 0;
    return f->dv[k] > 0 ? f->d[k] / sqrt(f->dv[k])
                        : copysign(INFINITY, f->d[k]);
}

/*
 * A short segment at either end of the series has nothing after (or
 * before) it to tell a new level from a run of spikes, so, unless a pair
 * says it stepped, it stands at its point nearest `toward` (the level
 * beside it): each of its points must have moved.  A copy of `s` so
 * levelled.
 */
static segment at_the_edge(const segment *s, const fit *f, double toward)
{
    segment e = *s;
    size_t i;

    if (s->points >= MAX_BLIP + 0.5)
        return e;
    for (i = s->begin; i < s->end; i++)
        if (f->w[i] > 0 && (e.level == s->level ||
                            fabs(f->x[i] - toward) < fabs(e.level - toward))) {
            e.level = f->x[i];
            e.var = 1 / (f->w[i] * f->w[i]);
        }
    return e;
}

/*
 * The step's size as a fraction of the level before: the levels', or with
 * a pair at the cut, the levels and the pair weighed by their variances
 * (the pair measured that one push; levels that rose over a creep's pushes
 * do not make the first of them a step of their whole size).
 */
static double step_size(const fit *f, const segment *a, const segment *b)
{
    double var = a->var + b->var, l, lv, dv, wsum;
    size_t k = b->begin;

    if (!(a->level > 0) || !(b->level > 0)) {
        /* From 0, any step is beyond any fraction; below 0, the step's
         * direction keeps its sign. */
        if (a->level == 0)
            return b->level == 0 ? 0 : copysign(INFINITY, b->level);
        return (b->level - a->level) / fabs(a->level);
    }
    l = log(b->level / a->level);
    if (!f->d || !isfinite(f->d[k]) || !(f->dv[k] > 0) ||
        !(isfinite(var) && var > 0))
        return expm1(l);
    lv = var / (a->level * a->level);
    dv = f->dv[k];
    wsum = 1 / lv + 1 / dv;
    return expm1((l / lv + f->d[k] / dv) / wsum);
}

/*
 * The step from segment a to b in units of its uncertainty.  With a
 * paired change at b's first point, the two estimates of the step (the
 * levels' ratio, and the pair) are weighed by their variances when they
 * agree, and there is no step when they do not; a pair that says "no
 * change at all" (0, with no uncertainty) leaves no step.
 */
static double step_z(const fit *f, const segment *a, const segment *b)
{
    double var = a->var + b->var, lv, l, d, dv, wsum;
    size_t k = b->begin;

    if (!(isfinite(var) && var > 0))
        return 0;
    if (!f->d || !isfinite(f->d[k]) || !(f->dv[k] >= 0) || !(a->level > 0) ||
        !(b->level > 0))
        return (b->level - a->level) / sqrt(var);
    d = f->d[k];
    dv = f->dv[k];
    if (dv == 0)
        return pair_z(f, k);
    l = log(b->level / a->level);
    lv = var / (a->level * a->level);
    /* Both must say it: a pair the levels contradict, or do not bear out
     * at all, is a fluke of one measurement; levels that moved where the
     * pair says the code did not are the machine, not the code. */
    if (fabs(d - l) > CONTRADICTION * sqrt(dv + lv) || l * d <= 0 ||
        fabs(l) < LEVELS_AGREE * sqrt(lv))
        return 0;
    wsum = 1 / lv + 1 / dv;
    return (l / lv + d / dv) / wsum * sqrt(wsum);
}

/* Joins segments i and i + 1 (measured again). */
static size_t join(segment *seg, size_t nseg, size_t i, const fit *f)
{
    seg[i].end = seg[i + 1].end;
    memmove(&seg[i + 1], &seg[i + 2], (nseg - i - 2) * sizeof(*seg));
    pg_cp_measure_segment(&seg[i], f);
    return nseg - 1;
}

/* A blip: a short segment inside the series whose neighbours are both on
 * one side of it (a run of spikes, or a change undone at once), unless
 * paired changes say both that it went and that it came back.  Its index,
 * or 0 when there is none. */
static size_t find_blip(const segment *seg, size_t nseg, const fit *f,
                        double threshold)
{
    size_t i;

    for (i = 1; i + 1 < nseg; i++) {
        double in = pair_z(f, seg[i].begin), out = pair_z(f, seg[i + 1].begin);
        if (seg[i].points < MAX_BLIP + 0.5 &&
            (seg[i].level > seg[i - 1].level) ==
                (seg[i].level > seg[i + 1].level) &&
            !(fabs(in) >= threshold && fabs(out) >= threshold &&
              (in > 0) != (out > 0)))
            return i;
    }
    return 0;
}

/*
 * The second look at the cuts of the fit.  A blip is no level: it joins
 * a neighbour.  Then each cut must be a step of at least `threshold`
 * times its uncertainty between the segments on either side; the weakest
 * that is not is dropped (its segments joined) and the others looked at
 * again, until every cut left is.  Returns how many segments are left.
 */
static size_t keep_strong_cuts(segment *seg, size_t nseg, const fit *f,
                               double threshold)
{
    size_t i, weakest = 0, blip;
    int pass;

    for (i = 0; i < nseg; i++)
        pg_cp_measure_segment(&seg[i], f);
    while (nseg > 1) {
        double least = threshold;
        if ((blip = find_blip(seg, nseg, f, threshold)) > 0) {
            /* Into the neighbour nearer its level: the cut left between
             * the neighbours is then looked at as any other. */
            double left = fabs(seg[blip].level - seg[blip - 1].level);
            double right = fabs(seg[blip].level - seg[blip + 1].level);
            nseg = join(seg, nseg, right < left ? blip : blip - 1, f);
            continue;
        }
        /* Cuts that no pair says happened go first: one of them beside a
         * step can leave the step's segment too short to show it. */
        for (pass = 0; pass < 2 && least >= threshold; pass++) {
            least = INFINITY;
            for (i = 0, weakest = 0; i + 1 < nseg; i++) {
                double z = fabs(step_z(f, &seg[i], &seg[i + 1]));
                if (pass == 0 && fabs(pair_z(f, seg[i + 1].begin)) >= threshold)
                    continue;
                if (z < least) {
                    least = z;
                    weakest = i;
                }
            }
        }
        if (least >= threshold)
            break;
        nseg = join(seg, nseg, weakest, f);
    }
    return nseg;
}

/*
 * Where paired changes say more than the fit of the levels: a cut moves
 * to the strongest pair within two points of it (inside its segments),
 * and a pair beyond `threshold` where there is no cut makes one.  A cut
 * at a point with no pair (a push nobody recorded) moves only to a pair
 * beyond the threshold: there the levels are all the evidence, and a cut
 * moved onto a pair of noise beside it would be judged by that pair (a
 * 50% step across unrecorded pushes was read as no step at all).
 */
static size_t cut_at_pairs(segment *seg, size_t nseg, const fit *f,
                           double threshold, size_t m)
{
    size_t i, k, best;

    for (i = 1; i < nseg; i++) {
        size_t lo = seg[i].begin >= 2 ? seg[i].begin - 2 : 0;
        size_t hi = seg[i].begin + 2;
        lo = lo > seg[i - 1].begin ? lo : seg[i - 1].begin + 1;
        hi = hi < seg[i].end - 1 ? hi : seg[i].end - 1;
        double least = isfinite(f->d[seg[i].begin]) ? 0 : threshold;
        for (k = lo, best = seg[i].begin; k <= hi; k++)
            if (fabs(pair_z(f, k)) >= least &&
                fabs(pair_z(f, k)) > fabs(pair_z(f, best)))
                best = k;
        seg[i - 1].end = seg[i].begin = best;
    }
    for (k = 1; k < m; k++) {
        if (fabs(pair_z(f, k)) < threshold)
            continue;
        for (i = 0; i < nseg && !(seg[i].begin < k && k < seg[i].end); i++)
            ;
        if (i == nseg)
            continue; /* a cut already */
        memmove(&seg[i + 1], &seg[i], (nseg - i) * sizeof(*seg));
        seg[i].end = seg[i + 1].begin = k;
        nseg++;
    }
    return nseg;
}

/* How many times the pairs are widened, at most. */
#define MAX_WIDENINGS 3

/*
 * Whether the levels on either side of point k inside segment `in`
 * contradict its pair: the pair and the levels' ratio further apart than
 * CONTRADICTION of their deviations together.  Levels too noisy to show
 * the pair do not contradict it: 2% pushes measured to +-0.2% among times
 * that move 2% with each process's luck are the creep a history is for,
 * not intervals a spike broke.  Levels that cannot be measured (no point
 * on a side) contradict nothing.
 */
static int levels_contradict(const segment *in, size_t k, const fit *f)
{
    segment a = {in->begin, k, 0, 0, 0}, b = {k, in->end, 0, 0, 0};
    double l, lv;

    if (a.begin >= a.end || b.begin >= b.end)
        return 0;
    pg_cp_measure_segment(&a, f);
    pg_cp_measure_segment(&b, f);
    if (!(a.level > 0) || !(b.level > 0) || !isfinite(a.var + b.var))
        return 0;
    l = log(b.level / a.level);
    lv = (a.var + b.var) / (a.level * a.level);
    return fabs(f->d[k] - l) > CONTRADICTION * sqrt(f->dv[k] + lv);
}

/*
 * A pair beyond the threshold that the levels deny (no cut was kept at
 * it, and the levels around it contradict it) shows what the pairs'
 * deviations are worth: an interval that a spike broke.  The factor that
 * brings the largest such pair under the threshold, by which every pair
 * of the series is then widened; 0 when there is none.
 */
static double denied_pair(const segment *seg, size_t nseg, const fit *f,
                          double threshold, size_t m)
{
    double worst = 0;
    size_t k, i = 1;

    for (k = 1; k < m; k++) {
        double z = fabs(pair_z(f, k));
        while (i < nseg && seg[i].begin < k)
            i++;
        if (z >= threshold && isfinite(z) && !(i < nseg && seg[i].begin == k) &&
            z > worst && levels_contradict(&seg[i - 1], k, f))
            worst = z;
    }
    return worst > 0 ? worst / threshold * (1 + 1e-9) : 0;
}

double pg_cp_points_of(const pg_cp_series *s, double *x, double *w)
{
    double scale = 0, sigma;
    size_t i;

    for (i = 0; i < s->n; i++)
        if (isfinite(s->values[i]) && fabs(s->values[i]) > scale)
            scale = fabs(s->values[i]);
    if (scale > 0) {
        /* A power of two: dividing by it is exact, so that the fit's
         * sums (and its ties) are those of the values themselves. */
        int e;
        frexp(scale, &e);
        scale = ldexp(1, e - 1); /* at most DBL_MAX's own power */
    } else {
        scale = 1;
    }
    for (i = 0; i < s->n; i++)
        x[i] = isfinite(s->values[i]) ? s->values[i] / scale : NAN;
    sigma = s->sd ? 1 : estimate_sigma(x, s->n);
    for (i = 0; i < s->n; i++) {
        double v = x[i], sd = s->sd ? s->sd[i] / scale : sigma;
        x[i] = isfinite(v) ? v : 0;
        w[i] = isfinite(v) && isfinite(sd) && sd > 0 ? 1 / sd : 0;
    }
    return scale;
}

double pg_cp_change(const pg_changepoint *cp)
{
    if (cp->before == 0 || !isfinite(cp->before) || !isfinite(cp->after))
        return NAN;
    return (cp->after - cp->before) / fabs(cp->before);
}

/* The paired changes' variances, widened as the points' are, by the tail
 * of the pairs within `threshold` of their deviations: those beyond it
 * are changes (where every push that touched the code moved it, as in a
 * creep, a tail of them all would widen the creep away); NULL without
 * pairs. */
static double *pair_variances(const pg_cp_series *s, size_t m, double threshold)
{
    double *dv, *z, f = 1;
    size_t i, k = 0;

    if (!s->change || !s->change_sd)
        return NULL;
    dv = pg_malloc(m * sizeof(*dv));
    z = pg_malloc(m * sizeof(*z));
    for (i = 0; i < m; i++) {
        double sd = s->change_sd[i], d = s->change[i];
        dv[i] = isfinite(sd) && sd >= 0 ? sd * sd : NAN;
        if (isfinite(d) && sd > 0 && fabs(d) < threshold * sd)
            z[k++] = fabs(d) / sd;
    }
    f = widening(z, k);
    for (i = 0; f > 1 && i < m; i++)
        dv[i] *= f * f;
    free(z);
    return dv;
}

/* Whether push k's own pair puts it within `floor` either way: its 95%
 * interval (the change +-1.96 of its deviations, as its record had it)
 * inside +-floor, a push the gate judged unchanged. */
static int pair_within(const pg_cp_series *s, size_t k, double floor)
{
    double c, sd;

    if (!s->change || !s->change_sd || !(floor > 0))
        return 0;
    c = s->change[k];
    sd = s->change_sd[k];
    return isfinite(c) && isfinite(sd) && sd > 0 && c - 1.96 * sd > -floor &&
           c + 1.96 * sd < floor;
}

/* The segments the best cut of `m` points (`x`, weights `w`) at cost
 * `cost` per cut makes, oldest first, into `seg`; how many (0: none). */
static size_t first_cut(segment *seg, const double *x, const double *w,
                        size_t m, double cost)
{
    size_t *start = pg_calloc(m + 1, sizeof(*start));
    size_t nseg = 0, i, j;

    if (best_cut(start, x, w, m, cost)) {
        for (j = m; j > 0; j = start[j], nseg++) {
            seg[nseg].begin = start[j];
            seg[nseg].end = j;
        }
        for (i = 0; i < nseg / 2; i++) { /* oldest first */
            segment t = seg[i];
            seg[i] = seg[nseg - 1 - i];
            seg[nseg - 1 - i] = t;
        }
    }
    free(start);
    return nseg;
}

/* The measured points of begin..end-1 into v, sorted; how many. */
static size_t sorted_points(double *v, const fit *f, size_t begin, size_t end)
{
    size_t k = 0, i;

    for (i = begin; i < end; i++)
        if (f->w[i] > 0)
            v[k++] = f->x[i];
    qsort(v, k, sizeof(*v), by_value);
    return k;
}

/* The q-quantile of the k sorted v (interpolated). */
static double quantile(const double *v, size_t k, double q)
{
    double at = q * (double)(k - 1), lo = floor(at);
    size_t i = (size_t)lo;

    return i + 1 < k ? v[i] + (at - lo) * (v[i + 1] - v[i]) : v[k - 1];
}

/* The TRIM-trimmed mean of the k sorted v. */
static double trimmed(const double *v, size_t k)
{
    size_t g = (size_t)(TRIM * (double)k), i;
    double sum = 0;

    for (i = g; i < k - g; i++)
        sum += v[i];
    return sum / (double)(k - 2 * g);
}

/* The standard deviation of the k sorted r with their lowest and highest
 * TRIM / 2 each moved in to the next (winsorized). */
static double winsorized_sd(const double *r, size_t k)
{
    size_t g = (size_t)(TRIM / 2 * (double)k), i;
    double sum = 0, ss = 0;

    for (i = 0; i < k; i++)
        sum += r[i < g ? g : i >= k - g ? k - g - 1 : i];
    sum /= (double)k;
    for (i = 0; i < k; i++) {
        double y = r[i < g ? g : i >= k - g ? k - g - 1 : i] - sum;
        ss += y * y;
    }
    return sqrt(ss / (double)(k - 1));
}

/*
 * Whether the step from segment a to b shows in their trimmed means too,
 * `threshold` times its uncertainty by the points' spread around their own
 * segment's median (its interquartile range, as a normal noise's sd):
 * a series of two levels at random (a benchmark with two modes) moves its
 * medians by the whole gap where the mix nears half and half, its means by
 * the mix alone; spikes move neither the trimmed means nor that spread.
 * The means must also move by MEANS_SHARE of the medians' step: over
 * hundreds of such points, some stretch's mix is uneven enough to pass the
 * first test, its means moving by a fifth of the gap its medians jump.
 */
static int means_agree(const fit *f, const segment *a, const segment *b,
                       double threshold)
{
    double *v = (double *)f->scratch, *r, ta, tb, sd;
    size_t ka, kb, i;

    ka = sorted_points(v, f, a->begin, a->end);
    kb = sorted_points(v + ka, f, b->begin, b->end);
    if (ka < MIN_MEANS || kb < MIN_MEANS)
        return 1;
    ta = trimmed(v, ka);
    tb = trimmed(v + ka, kb);
    r = v + ka + kb;
    for (i = 0; i < ka; i++)
        r[i] = v[i] - quantile(v, ka, 0.5);
    for (i = 0; i < kb; i++)
        r[ka + i] = v[ka + i] - quantile(v + ka, kb, 0.5);
    qsort(r, ka + kb, sizeof(*r), by_value);
    sd = (quantile(r, ka + kb, 0.75) - quantile(r, ka + kb, 0.25)) / IQR_SD;
    if (!(sd > 0))
        sd = winsorized_sd(r, ka + kb);
    return fabs(tb - ta) >=
               threshold * sd * sqrt(1 / (double)ka + 1 / (double)kb) &&
           fabs(tb - ta) >= MEANS_SHARE * fabs(b->level - a->level);
}

/* The steps between the `nseg` segments the fit kept that are steps: at
 * least `threshold` uncertainties, more than `min_change`, and not a push
 * whose own pair lies within it.  How many, into `out`. */
static size_t steps_of(pg_changepoint *out, const segment *seg, size_t nseg,
                       const fit *f, const pg_cp_series *series,
                       double threshold, double min_change)
{
    size_t found = 0, i;

    for (i = 1; i < nseg; i++) {
        segment a = seg[i - 1], b = seg[i];
        int paired = fabs(pair_z(f, seg[i].begin)) >= threshold;
        if (i == 1 && !paired)
            a = at_the_edge(&seg[0], f, seg[1].level);
        if (i + 1 == nseg && !paired)
            b = at_the_edge(&seg[i], f, seg[i - 1].level);
        /* A push whose own pair lies within the floor is no step beyond
         * it, whatever the levels say: two records' times can differ by
         * several percent with each process's luck (history.Creep: a push
         * of 1.7% +-0.3% read as a step of 8%). */
        if (fabs(step_z(f, &a, &b)) < threshold ||
            fabs(step_size(f, &seg[i - 1], &seg[i])) <= min_change ||
            pair_within(series, seg[i].begin, min_change) ||
            (!series->sd && !paired &&
             !means_agree(f, &seg[i - 1], &seg[i], MEANS_T)))
            continue;
        out[found].at = seg[i].begin;
        out[found].before = seg[i - 1].level;
        out[found].after = seg[i].level;
        out[found].z = step_z(f, &a, &b);
        found++;
    }
    return found;
}

/* The lag-1 autocorrelation of the standardized residuals around the
 * segments' levels, neighbours within one segment, each segment's
 * residuals taken about their own mean: a segment's median need not be its
 * mean (two modes at random: every residual 0 or the gap), and an offset
 * they share is no correlation.  0 when too few. */
static double residual_rho(const segment *seg, size_t nseg, const fit *f)
{
    double num = 0, den = 0;
    size_t k, i;

    for (k = 0; k < nseg; k++) {
        double mean = 0, n = 0;
        for (i = seg[k].begin; i < seg[k].end; i++)
            if (f->w[i] > 0) {
                mean += (f->x[i] - seg[k].level) * f->w[i];
                n++;
            }
        if (n < 2)
            continue;
        mean /= n;
        for (i = seg[k].begin; i < seg[k].end; i++) {
            double r = (f->x[i] - seg[k].level) * f->w[i] - mean;
            if (!(f->w[i] > 0))
                continue;
            den += r * r;
            if (i + 1 < seg[k].end && f->w[i + 1] > 0)
                num += r * ((f->x[i + 1] - seg[k].level) * f->w[i + 1] - mean);
        }
    }
    return den > 0 ? num / den : 0;
}

/*
 * Whether the measured points are a noiseless staircase: runs of equal
 * values, most neighbours alike, and no value met again once left (a
 * count that only ever steps).  Its differences that are not 0 are all
 * steps, not the noise's tail, and widening the noise by them would hide
 * a step every other push.
 */
static int staircase(const double *x, const double *w, size_t m)
{
    double *run = pg_malloc((m ? m : 1) * sizeof(*run)), last = NAN;
    size_t nrun = 0, ties = 0, pairs, i;
    int yes = 1;

    for (i = 0; i < m; i++) {
        if (!(w[i] > 0))
            continue;
        if (nrun && x[i] == last)
            ties++;
        else
            run[nrun++] = x[i];
        last = x[i];
    }
    pairs = nrun + ties > 0 ? nrun + ties - 1 : 0;
    qsort(run, nrun, sizeof(*run), by_value);
    for (i = 1; i < nrun && yes; i++)
        yes = run[i] != run[i - 1];
    free(run);
    return yes && nrun > 1 && 2 * ties >= pairs;
}

/* The fit's rounds: the first cut, the strong cuts kept (with pairs, the
 * pairs' widening), and, without pairs, the points widened by their
 * residuals' autocorrelation and fitted again.  w starts as w0; how many
 * segments, into seg. */
static size_t fit_rounds(segment *seg, segment *first, fit *f, double *w,
                         const double *w0, double *dv, size_t m, double cost,
                         double threshold)
{
    size_t nseg, nfirst, pass, i;
    double denied, rho, inflate = 1, tail;
    int round;

    memcpy(w, w0, m * sizeof(*w));
    for (round = 0;; round++) {
        nseg = first_cut(seg, f->x, w, m, cost);
        tail = staircase(f->x, w, m) ? 1 : pg_cp_tail_factor(f->x, w, m);
        for (i = 0; i < m; i++)
            w[i] /= tail;
        memcpy(first, seg, nseg * sizeof(*seg));
        nfirst = nseg;
        for (pass = 0;; pass++) {
            if (f->d)
                nseg = cut_at_pairs(seg, nseg, f, threshold, m);
            nseg = keep_strong_cuts(seg, nseg, f, threshold);
            if (!f->d || pass == MAX_WIDENINGS ||
                !(denied = denied_pair(seg, nseg, f, threshold, m)))
                break;
            for (i = 0; i < m; i++)
                dv[i] *= denied * denied;
            memcpy(seg, first, nfirst * sizeof(*seg));
            nseg = nfirst;
        }
        /* Residuals that move together: noise slower than the points,
         * which neighbours' differences underrate (a sine, a drift).  With
         * pairs, they decide instead. */
        if (f->d || round == MAX_REFITS ||
            !((rho = residual_rho(seg, nseg, f)) >
              fmax(RHO_LEAST, 3 / sqrt((double)m))))
            break;
        rho = fmin(rho, RHO_MOST);
        inflate *= sqrt((1 + rho) / (1 - rho));
        for (i = 0; i < m; i++)
            w[i] = w0[i] / inflate;
    }
    return nseg;
}

/*
 * Values alone: where the noise changes its scale (noise.c), each point
 * weighed by its own regime's scale and the series fitted again, so that
 * the noisy part's wiggles are not steps against the quiet part's scale.
 * How many changes of noise, into `noise` (on the fit's scale).
 */
static size_t noise_refit(pg_noise_change *noise, size_t *nseg, segment *seg,
                          segment *first, fit *f, double *w, double *w0,
                          size_t m, double cost, double threshold)
{
    double *sd = pg_malloc(m * sizeof(*sd));
    size_t n, i;

    n = pg_cp_noise_regimes(noise, PG_CP_NOISE_MAX, sd, f->x, w0, seg, *nseg,
                            m);
    if (n) {
        for (i = 0; i < m; i++)
            if (w0[i] > 0 && sd[i] > 0)
                w0[i] = 1 / sd[i];
        *nseg = fit_rounds(seg, first, f, w, w0, NULL, m, cost, threshold);
    }
    free(sd);
    return n;
}

size_t pg_cp_fit_series(pg_changepoint *out, pg_noise_change *noise,
                        size_t *nnoise, const pg_cp_series *series,
                        const pg_cp_opts *opts)
{
    size_t m = series->n, i, found, nseg, nn = 0;
    double pen = opts && opts->penalty > 0 ? opts->penalty : DEFAULT_PENALTY;
    double threshold =
        opts && opts->threshold > 0 ? opts->threshold : DEFAULT_THRESHOLD;
    double min_change = opts ? opts->min_change : 0, *x, *w, *d = NULL, *dv;
    double scale, *w0;
    segment *seg, *first;
    pg_noise_change own[PG_CP_NOISE_MAX];
    fit f;

    if (nnoise)
        *nnoise = 0;
    if (m < 2 * MIN_SEGMENT)
        return 0;
    x = pg_malloc(m * sizeof(*x));
    w = pg_malloc(m * sizeof(*w));
    w0 = pg_malloc(m * sizeof(*w0));
    scale = pg_cp_points_of(series, x, w0);
    if ((dv = pair_variances(series, m, threshold)) != NULL) {
        d = pg_malloc(m * sizeof(*d));
        for (i = 0; i < m; i++) /* as the log of a ratio */
            d[i] = series->change[i] > -1 ? log1p(series->change[i]) : NAN;
    }
    seg = pg_malloc(m * sizeof(*seg));
    first = pg_malloc(m * sizeof(*first));
    f.x = x;
    f.w = w;
    f.d = d;
    f.dv = dv;
    f.scratch = pg_malloc(m * sizeof(*f.scratch));
    nseg = fit_rounds(seg, first, &f, w, w0, dv, m, pen * log((double)m),
                      threshold);
    if (!d && !series->sd)
        nn = noise_refit(noise ? noise : own, &nseg, seg, first, &f, w, w0, m,
                         pen * log((double)m), threshold);
    free(w0);
    free(first);
    found = steps_of(out, seg, nseg, &f, series, threshold, min_change);
    for (i = 0; i < found; i++) { /* back on the values' scale */
        out[i].before *= scale;
        out[i].after *= scale;
    }
    for (i = 0; noise && i < nn; i++) {
        noise[i].sd_before *= scale;
        noise[i].sd_after *= scale;
    }
    if (nnoise)
        *nnoise = nn;
    free(x);
    free(w);
    free(d);
    free(dv);
    free(seg);
    free(f.scratch);
    return found;
}

size_t pg_changepoints(pg_changepoint *out, const pg_cp_series *series,
                       const pg_cp_opts *opts)
{
    return pg_changepoints_noise(out, NULL, NULL, series, opts);
}
