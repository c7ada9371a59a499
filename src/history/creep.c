/*
 * creep.c - a run of pushes, each within the floor, that moved main
 * beyond it (changepoint.h: pg_creeps).
 */
#include "changepoint.h"
#include "cp_fit.h"
#include "str.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* A creep's ends must each have moved by this many deviations at least;
 * more in a longer series, where more pushes of noise could reach it
 * (about the level one push of pure noise in 100 series would reach). */
#define CREEP_END_Z 3.0

static double end_z(size_t n)
{
    double z = sqrt(2 * log((double)n / 0.01));
    return z > CREEP_END_Z ? z : CREEP_END_Z;
}

/* A candidate creep: [from, to] of one sign. */
typedef struct run {
    size_t from, to;
    double sum, var;
} run;

/* Whether push i moved `sign`'s way by `ends` of its deviations. */
static int evident(const double *x, const double *v, size_t i, double sign,
                   double ends)
{
    return v[i] > 0 && sign * x[i] >= ends * sqrt(v[i]);
}

/*
 * The best run of `sign` inside [a, b] (Kadane's maximum sum of sign * x),
 * its ends trimmed to evident moves; 0 when there is none.
 */
static int best_run(run *out, const double *x, const double *v, size_t a,
                    size_t b, double sign, double ends)
{
    double sum = 0, best = 0;
    size_t i, begin = a, from = 0, to = 0;
    int found = 0;

    for (i = a; i <= b; i++) {
        if (sum <= 0) {
            sum = 0;
            begin = i;
        }
        sum += sign * x[i];
        if (sum > best) {
            best = sum;
            from = begin;
            to = i;
            found = 1;
        }
    }
    if (!found)
        return 0;
    /* Ends: each moved by itself, the run's way. */
    while (from < to && !evident(x, v, from, sign, ends))
        from++;
    while (to > from && !evident(x, v, to, sign, ends))
        to--;
    if (to <= from)
        return 0;
    out->from = from;
    out->to = to;
    out->sum = out->var = 0;
    for (i = from; i <= to; i++) {
        out->sum += sign * x[i];
        out->var += v[i];
    }
    return 1;
}

/* How many points on either side of a creep its levels are measured over
 * (fewer where a change point is nearer). */
#define CREEP_LEVEL_POINTS 10

/*
 * Whether the levels on either side of the run (the fit's points) bear
 * the run out, as a step's must bear out its pair (step_z): the same way,
 * by one of their deviations, and not contradicting its size.  Levels
 * that are not there (no point on a side) say nothing against it.  A
 * chain of paired changes whose deviations are too small adds up to a
 * drift that the levels do not show.
 */
static int levels_agree(const run *r, double sign, const fit *f, size_t n,
                        const pg_changepoint *cps, size_t ncps)
{
    segment a = {0, r->from, 0, 0, 0}, b = {r->to, n, 0, 0, 0};
    double l, lv, d = sign * r->sum;
    size_t k;

    if (r->from > CREEP_LEVEL_POINTS)
        a.begin = r->from - CREEP_LEVEL_POINTS;
    if (r->to + CREEP_LEVEL_POINTS < n)
        b.end = r->to + CREEP_LEVEL_POINTS;
    for (k = 0; k < ncps; k++) {
        if (cps[k].at <= r->from && cps[k].at > a.begin)
            a.begin = cps[k].at;
        if (cps[k].at > r->to && cps[k].at < b.end)
            b.end = cps[k].at;
    }
    if (!f->x || a.begin >= a.end || b.begin >= b.end)
        return 1;
    pg_cp_measure_segment(&a, f);
    pg_cp_measure_segment(&b, f);
    if (!isfinite(a.var) || !isfinite(b.var) || !(a.level > 0) ||
        !(b.level > 0))
        return 1;
    l = log(b.level / a.level);
    lv = (a.var + b.var) / (a.level * a.level);
    return l * d > 0 && fabs(l) >= LEVELS_AGREE * sqrt(lv) &&
           fabs(d - l) <= CONTRADICTION * sqrt(r->var + lv);
}

/* How many of a run's evident pushes each end is tried at. */
#define CREEP_ENDS_TRIED 12

/*
 * The run that stands of the best run `r` (Kadane's): with the sum beyond
 * `limit` and `threshold` times its deviation, and levels that bear it
 * out.  When the levels deny the whole run (a chain of small pairs can
 * run on past the pushes that moved, over noise that leans one way), its
 * parts between evident pushes are tried, the greatest sum that stands
 * kept.  0 when none does.
 */
static int settle_run(run *r, const double *x, const double *v, double sign,
                      double ends, double limit, double threshold, const fit *f,
                      size_t n, const pg_changepoint *cps, size_t ncps)
{
    size_t ev[2 * CREEP_ENDS_TRIED], nev = 0, first, i, j, k;
    run best = {0, 0, 0, 0}, t;

    if (r->sum < limit || !(r->var > 0) || r->sum < threshold * sqrt(r->var))
        return 0;
    if (levels_agree(r, sign, f, n, cps, ncps))
        return 1;
    /* The first and last evident pushes of the run (its ends are). */
    for (i = r->from; i <= r->to && nev < CREEP_ENDS_TRIED; i++)
        if (evident(x, v, i, sign, ends))
            ev[nev++] = i;
    for (first = nev, i = r->to; i > ev[first - 1] && nev < 2 * first; i--)
        if (evident(x, v, i, sign, ends))
            ev[nev++] = i;
    for (i = 0; i < nev; i++)
        for (j = 0; j < nev; j++) {
            if (ev[j] <= ev[i])
                continue;
            t.from = ev[i];
            t.to = ev[j];
            t.sum = t.var = 0;
            for (k = t.from; k <= t.to; k++) {
                t.sum += sign * x[k];
                t.var += v[k];
            }
            if (t.sum > best.sum && t.sum >= limit && t.var > 0 &&
                t.sum >= threshold * sqrt(t.var) &&
                levels_agree(&t, sign, f, n, cps, ncps))
                best = t;
        }
    if (!(best.sum > 0))
        return 0;
    *r = best;
    return 1;
}

/*
 * The strongest run of pushes not `used` yet that settles as a creep
 * (best_run, settle_run) into *best; its sign, or 0 when there is none.
 */
static double strongest_run(run *best, const double *x, const double *v,
                            const char *used, size_t n, double limit,
                            double threshold, const fit *f,
                            const pg_changepoint *cps, size_t ncps)
{
    double best_sign = 0;
    size_t a = 0, b;
    run r;

    while (a < n) {
        int sign;
        if (used[a]) {
            a++;
            continue;
        }
        for (b = a; b + 1 < n && !used[b + 1]; b++)
            ;
        for (sign = -1; sign <= 1; sign += 2)
            if (best_run(&r, x, v, a, b, sign, end_z(n)) &&
                settle_run(&r, x, v, sign, end_z(n), limit, threshold, f, n,
                           cps, ncps) &&
                r.sum > best->sum) {
                *best = r;
                best_sign = sign;
            }
        a = b + 1;
    }
    return best_sign;
}

size_t pg_creeps(pg_creep *out, size_t max, const pg_cp_series *s,
                 const pg_changepoint *cps, size_t ncps, double floor,
                 double threshold)
{
    size_t n = s->n, i, found = 0;
    double *x, *v, *lx = NULL, *lw = NULL, tail;
    double limit = log1p(floor > 0 ? floor : 0);
    char *used;
    fit f = {NULL, NULL, NULL, NULL, NULL};

    if (!s->change || !s->change_sd || n < 3 || !max)
        return 0;
    if (threshold <= 0)
        threshold = DEFAULT_THRESHOLD;
    /* The levels, weighed as the change points' fit weighs them. */
    if (s->values) {
        lx = pg_malloc(n * sizeof(*lx));
        lw = pg_malloc(n * sizeof(*lw));
        pg_cp_points_of(s, lx, lw);
        tail = pg_cp_tail_factor(lx, lw, n);
        for (i = 0; i < n; i++)
            lw[i] /= tail;
        f.x = lx;
        f.w = lw;
        f.scratch = pg_malloc(n * sizeof(*f.scratch));
    }
    /* The pairs: each push's change as a log, and its variance. */
    x = pg_malloc(n * sizeof(*x));
    v = pg_malloc(n * sizeof(*v));
    used = pg_calloc(n, 1);
    for (i = 0; i < n; i++) {
        double c = s->change[i], sd = s->change_sd[i];
        int ok = i > 0 && isfinite(c) && c > -1 && isfinite(sd) && sd >= 0 &&
                 fabs(c) <= floor;
        x[i] = ok ? log1p(c) : 0;
        v[i] = ok ? sd * sd / ((1 + c) * (1 + c)) : 0;
        used[i] = !ok;
    }
    for (i = 0; i < ncps; i++)
        if (cps[i].at < n)
            used[cps[i].at] = 1;
    while (found < max) {
        run best = {0, 0, 0, 0};
        double best_sign = strongest_run(&best, x, v, used, n, limit, threshold,
                                         &f, cps, ncps);
        if (best_sign == 0)
            break;
        out[found].from = best.from;
        out[found].to = best.to;
        out[found].change = expm1(best_sign * best.sum);
        out[found].z = best_sign * best.sum / sqrt(best.var);
        found++;
        for (i = best.from; i <= best.to; i++)
            used[i] = 1;
    }
    free(used);
    free(v);
    free(x);
    free(lx);
    free(lw);
    free(f.scratch);
    /* Oldest first. */
    for (i = 1; i < found; i++) {
        pg_creep t = out[i];
        size_t j = i;
        for (; j > 0 && out[j - 1].from > t.from; j--)
            out[j] = out[j - 1];
        out[j] = t;
    }
    return found;
}
