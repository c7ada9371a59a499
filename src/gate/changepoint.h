/*
 * changepoint.h - where a series of measurements along main steps to
 * another level: what the history of main looks for.
 *
 * The series is cut into segments, each at one level, by the cut that
 * costs least: each point costs its distance from its segment's median in
 * units of its own uncertainty (robust: an outlier costs its distance,
 * not its square), and each cut costs a penalty that grows with the
 * series' length, so that pure noise is left whole.  A segment has at
 * least two points, so that a single spike is never a step of its own;
 * a step is found two points after it happens.  Exact (dynamic
 * programming over every cut), for the last PG_CP_MAX points.
 */
#ifndef PG_CHANGEPOINT_H
#define PG_CHANGEPOINT_H

#include <stddef.h>

/* The longest series looked at: the newest points of a longer one. */
#define PG_CP_MAX 1000

typedef struct pg_changepoint {
    size_t at;     /* the first point at the new level */
    double before; /* the level (median) of the segment before */
    double after;  /* and of the one from `at` */
} pg_changepoint;

typedef struct pg_cp_opts {
    /* The cost of a cut, in units of the points' uncertainty, per natural
     * log of the series' length; 0: the default, 3. */
    double penalty;
    /* Steps smaller than this fraction of the level before are not
     * reported (0: all steps the fit keeps). */
    double min_change;
} pg_cp_opts;

/*
 * The change points of `values` (`n` points, oldest first) into `out`
 * (room for n / 2), oldest first; returns how many.  `sigma[i]` is point
 * i's uncertainty (a standard deviation; NULL: one for all, estimated from
 * the series by the median absolute difference of neighbours, which a
 * step barely moves).  Points that are not finite, or whose sigma is not
 * above 0, weigh nothing.  Of a series longer than PG_CP_MAX, the newest
 * PG_CP_MAX points; `at` still counts from values[0].  `opts` may be NULL.
 */
size_t pg_changepoints(pg_changepoint *out, const double *values,
                       const double *sigma, size_t n, const pg_cp_opts *opts);

#endif
