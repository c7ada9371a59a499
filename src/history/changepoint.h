/*
 * changepoint.h - where a series of measurements along main steps to
 * another level: what the history of main looks for.
 *
 * First the cut that costs least proposes segments, each at one level:
 * each point costs its distance from its segment's median in units of its
 * own uncertainty (robust: an outlier costs its distance, not its square),
 * and each cut a small penalty.  Exact (dynamic programming over every
 * cut) into segments of at most PG_CP_SPAN points, so that its time grows
 * with the series' length, not its cube: a longer level is cut there, and
 * joined again by what follows.  Then each cut must be a step of
 * several times its uncertainty between the segments on either side
 * (the noise widened, and the series fitted again, when the residuals
 * around the levels move together: a smooth or periodic series); a
 * short run of spikes is no level; and paired changes, where given, place
 * the cuts and must agree with the levels.  docs/history.md has the method
 * and its scores.
 */
#ifndef PG_CHANGEPOINT_H
#define PG_CHANGEPOINT_H

#include <stddef.h>

/* The longest segment the first stage proposes. */
#define PG_CP_SPAN 200

typedef struct pg_changepoint {
    size_t at;     /* the first point at the new level */
    double before; /* the level (median) of the segment before */
    double after;  /* and of the one from `at` */
    double z;      /* after - before in units of its uncertainty */
} pg_changepoint;

typedef struct pg_cp_opts {
    /* The cost of a cut, in units of the points' uncertainty, per natural
     * log of the series' length; 0: the default, 1.  Low: the cut only
     * proposes; `threshold` decides. */
    double penalty;
    /* A cut is kept when the step it makes between the segments on
     * either side is this many times its uncertainty; 0: the default,
     * 4. */
    double threshold;
    /* Steps smaller than this fraction of the level before are not
     * reported (0: all steps the fit keeps). */
    double min_change;
} pg_cp_opts;

/* A series, oldest point first. */
typedef struct pg_cp_series {
    const double *values; /* n points */
    /* Each point's uncertainty, a standard deviation; NULL: one for all,
     * estimated from the series by the median absolute difference of
     * neighbours, which a step barely moves. */
    const double *sd;
    /* Each point's paired change against the point before it, measured
     * together (perfgate's per-push result), as a fraction (0.03: 3%
     * more), and its standard deviation; NULL: none.  A change of 0
     * with a deviation of 0 is "no change here" (the change could not
     * reach it).  Points 0, and any NaN, have none. */
    const double *change;
    const double *change_sd;
    size_t n;
} pg_cp_series;

/* A change point's step as a fraction of the level before, its sign the
 * step's direction (-100 to -120 is -20%); NAN when the level before is 0,
 * where only the difference says how far it moved. */
/* A change of the noise's scale (values alone): from point `at` on, the
 * noise's sd is sd_after where it was sd_before; z: the change of its log
 * in units of its uncertainty. */
typedef struct pg_noise_change {
    size_t at;
    double sd_before, sd_after, z;
} pg_noise_change;

/* The most changes of noise a series is said to have. */
#define PG_CP_NOISE_MAX 8

double pg_cp_change(const pg_changepoint *cp);

/*
 * The change points of `series` into `out` (room for n: with paired
 * changes, every point but the first may be one), oldest
 * first; returns how many.  Points that are not finite, or whose sd is
 * not above 0, weigh nothing.  The fit works on the values over their
 * largest magnitude, so that its arithmetic is the same at 1e-300 as at
 * 1e300 (and a noiseless series' scale is a billionth of it).  `opts` may
 * be NULL.
 */
size_t pg_changepoints(pg_changepoint *out, const pg_cp_series *series,
                       const pg_cp_opts *opts);

/* The same, and (values alone) where the noise changed its scale: up to
 * PG_CP_NOISE_MAX into `noise`, how many into *nnoise.  Each point is
 * weighed by its own regime's noise. */
size_t pg_changepoints_noise(pg_changepoint *out, pg_noise_change *noise,
                             size_t *nnoise, const pg_cp_series *series,
                             const pg_cp_opts *opts);

/*
 * A creep: a run of pushes none of which is a step by itself (each within
 * the floor), whose paired changes add up beyond it: the slow drift a gate
 * on each pull request cannot see.
 */
typedef struct pg_creep {
    size_t from, to; /* its first and last push (points), inclusive */
    double change;   /* their changes chained: the product of (1 + c), - 1 */
    double z;        /* the sum of their logs in units of its uncertainty */
} pg_creep;

/*
 * The creeps of `series` (paired changes needed: none without them) into
 * `out` (room for `max`), oldest first; returns how many.  A push beyond
 * `floor` by itself, or at one of the change points `cps`, is a step and
 * ends a run; a run's first and last push each moved evidently, the same
 * way as the run (by sqrt(2 ln(100 n)) deviations, at least 3: about what
 * one push of noise in 100 series of n reaches); the changes together are
 * beyond `floor` and `threshold` (0: 4) times their deviation.
 */
size_t pg_creeps(pg_creep *out, size_t max, const pg_cp_series *series,
                 const pg_changepoint *cps, size_t ncps, double floor,
                 double threshold);

#endif
