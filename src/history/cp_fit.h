/*
 * cp_fit.h - what changepoint.c's fit and creep.c's rule share: the
 * points as the fit weighs them, its segments, and the rules both apply.
 * Internal to src/history.
 */
#ifndef PG_CP_FIT_H
#define PG_CP_FIT_H

#include <stddef.h>

struct pg_cp_series; /* changepoint.h */

#define DEFAULT_THRESHOLD 4.0
/* How many standard deviations apart a pair and the levels around it
 * disagree. */
#define CONTRADICTION 3.0
/* How many of their standard deviations the levels must move the way a
 * pair says, for the pair to count.  1.5, not 1: at 1 the levels' noise
 * leaned with one heavy-tailed pair in six or so, and pure noise with
 * tight pairs had a change point in up to 12 series of 200 on t3 noise
 * (bench/changepoint.py); at 1.5 up to 6, for 0.76 of 2 sd steps found
 * at 10 points instead of 0.87. */
#define LEVELS_AGREE 1.5

typedef struct point {
    double x, w;
} point;

/* A segment: points [begin, end), its level and the variance of that
 * level. */
typedef struct segment {
    size_t begin, end;
    double level, var;
    double points; /* how many points it has, by weight (Kish's count) */
} segment;

/* What the second look weighs: the points and their weights (1 / sigma,
 * widened by the tail factor), and the paired changes with their
 * variances (NULL when there are none). */
typedef struct fit {
    const double *x, *w;
    const double *d, *dv;
    point *scratch;
} fit;

/* The level of points begin..end-1 (their weighted median) and its
 * variance: 1 / sum(w^2) for the mean of normal points, times pi/2 for
 * a median of three or more. */
void pg_cp_measure_segment(segment *s, const fit *f);

/* noise.c: the changes of the noise's scale among the differences of
 * neighbours inside the nseg segments (at most max, into out), and each
 * point's regime's sd into sd (m points); how many changes. */
struct pg_noise_change;
size_t pg_cp_noise_regimes(struct pg_noise_change *out, size_t max, double *sd,
                           const double *x, const double *w, const segment *seg,
                           size_t nseg, size_t m);

/* The points of `s` as the fit weighs them: x[i] its value over the
 * series' scale (0 where it is none), w[i] 1 / its sd on that scale, or
 * 1 / the sd estimated from the series; 0 where either is not a number
 * above 0.  Returns the scale: the power of two at or below the values'
 * largest magnitude, so that the fit's arithmetic is the same at 1e-300
 * as at 1e300, and dividing by it is exact. */
double pg_cp_points_of(const struct pg_cp_series *s, double *x, double *w);

/* pg_changepoints_noise() on a series every point of which may have a
 * value (gaps.c fits the points that have one). */
struct pg_changepoint;
struct pg_cp_opts;
size_t pg_cp_fit_series(struct pg_changepoint *out,
                        struct pg_noise_change *noise, size_t *nnoise,
                        const struct pg_cp_series *series,
                        const struct pg_cp_opts *opts);

/* How much wider the noise is than the points' sigmas say, in its tail:
 * 1 at least. */
double pg_cp_tail_factor(const double *x, const double *w, size_t m);

#endif
