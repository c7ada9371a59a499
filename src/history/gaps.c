/*
 * gaps.c - a series with points that have no value (a push that could not
 * reach the benchmark, recorded at no cost; a row with an empty cell)
 * fitted on the points it has (changepoint.h).
 *
 * A point without a value weighs nothing in the fit, but it still takes a
 * place in the first stage's window and its time: in a history of records
 * most pushes do not reach most benchmarks, and 70% of the places held
 * nothing.  The points that have a value are fitted as a series of their
 * own, and what is found is put back at their places.  A paired change
 * moves with its point when the places skipped before it say "no change
 * here" (the change could not reach them: the code was the point before's);
 * else its pair is not the one before's, and it is left out.
 */
#include "changepoint.h"
#include "cp_fit.h"
#include "str.h"

#include <math.h>
#include <stdlib.h>

#include "banned.h"

/* Whether place i is "no change here": the change could not reach it. */
static int unreached(const pg_cp_series *s, size_t i)
{
    return s->change && s->change_sd && s->change[i] == 0 &&
           s->change_sd[i] == 0;
}

/* The points of `s` that have a value, into `out` (arrays to free with
 * gaps_clear()), and their places in `at`; how many. */
static size_t measured(pg_cp_series *out, size_t *at, const pg_cp_series *s)
{
    double *v = pg_malloc((s->n + 1) * sizeof(*v));
    double *sd = s->sd ? pg_malloc((s->n + 1) * sizeof(*sd)) : NULL;
    double *ch = s->change ? pg_malloc((s->n + 1) * sizeof(*ch)) : NULL;
    double *chsd = s->change_sd ? pg_malloc((s->n + 1) * sizeof(*chsd)) : NULL;
    size_t i, k, n = 0;

    for (i = 0; i < s->n; i++) {
        int pair = n > 0;
        if (!isfinite(s->values[i]))
            continue;
        for (k = n ? at[n - 1] + 1 : i; pair && k < i; k++)
            pair = unreached(s, k);
        at[n] = i;
        v[n] = s->values[i];
        if (sd)
            sd[n] = s->sd[i];
        if (ch)
            ch[n] = pair ? s->change[i] : NAN;
        if (chsd)
            chsd[n] = pair ? s->change_sd[i] : NAN;
        n++;
    }
    out->values = v;
    out->sd = sd;
    out->change = ch;
    out->change_sd = chsd;
    out->n = n;
    return n;
}

static void gaps_clear(pg_cp_series *s)
{
    free((void *)s->values);
    free((void *)s->sd);
    free((void *)s->change);
    free((void *)s->change_sd);
}

size_t pg_changepoints_noise(pg_changepoint *out, pg_noise_change *noise,
                             size_t *nnoise, const pg_cp_series *series,
                             const pg_cp_opts *opts)
{
    pg_cp_series dense;
    size_t *at, found, i;

    for (i = 0; i < series->n && isfinite(series->values[i]); i++)
        ;
    if (i == series->n) /* no gap */
        return pg_cp_fit_series(out, noise, nnoise, series, opts);
    at = pg_malloc((series->n + 1) * sizeof(*at));
    measured(&dense, at, series);
    found = pg_cp_fit_series(out, noise, nnoise, &dense, opts);
    for (i = 0; i < found; i++)
        out[i].at = at[out[i].at];
    for (i = 0; noise && nnoise && i < *nnoise; i++)
        noise[i].at = at[noise[i].at];
    gaps_clear(&dense);
    free(at);
    return found;
}
