/*
 * estimate.c - from the rounds' samples to a change with its interval, and
 * when to stop measuring (the rule is in estimate.h).  Nothing here runs
 * inside a timed region: the timing loop (measure.c) calls it between
 * rounds.
 */
#include "estimate.h"
#include "str.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void pg_estimate_rule_init(pg_estimate_rule *out, int min_rounds,
                           double max_time, double noise_floor)
{
    memset(out, 0, sizeof(*out));
    out->min_rounds = min_rounds;
    out->max_time = max_time;
    /* Long enough for a load that comes and goes to show itself in the
     * rounds, and so in the interval; the rule does the rest. */
    out->min_time = max_time / 20 < 0.25 ? max_time / 20 : 0.25;
    out->settle = 0.002;
    out->noise_floor = noise_floor;
    /* A minimum that moves less than a tenth of the floor cannot change the
     * verdict: it has settled. */
    if (noise_floor / 10 > out->settle)
        out->settle = noise_floor / 10;
    out->margin = noise_floor / 5;
}

const char *pg_estimate_stop_name(pg_stop stop)
{
    switch (stop) {
    case PG_STOP_CLEAR:
        return "clear";
    case PG_STOP_SETTLED:
        return "settled";
    case PG_STOP_MAX_TIME:
        return "max_time";
    default:
        return "running";
    }
}

int pg_estimate_is_clear(const pg_estimate_rule *rule, const pg_interval *c)
{
    double f = rule->noise_floor, m = rule->margin;

    if (isnan(c->change) || isnan(c->lo) || isnan(c->hi))
        return 0;
    if (c->lo > f)
        return c->change - f >= m;
    if (c->hi < -f)
        return -f - c->change >= m;
    if (c->lo > -f && c->hi < f)
        return f - fabs(c->change) >= m;
    return 0;
}

pg_stop pg_estimate_should_stop(const pg_estimate_rule *rule, int rounds,
                                int last_improved, double elapsed,
                                const pg_interval *change)
{
    if (elapsed >= rule->max_time)
        return PG_STOP_MAX_TIME;
    if (rounds < rule->min_rounds || elapsed < rule->min_time)
        return PG_STOP_NO;
    /* Settled: no minimum has moved in the latter half of the rounds. */
    if (rounds < 2 * last_improved)
        return PG_STOP_NO;
    if (!change)
        return PG_STOP_SETTLED;
    return pg_estimate_is_clear(rule, change) ? PG_STOP_CLEAR : PG_STOP_NO;
}

/* xorshift64*: the bootstrap's resampling, reproducible from its seed. */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1DULL;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* head / base - 1, of per-call times with the overhead discounted. */
static double ratio_change(double base, double head)
{
    if (base > 0)
        return head / base - 1;
    /* Two totals of zero (an empty function on both sides) are equal. */
    return head > 0 ? INFINITY : 0;
}

/* Which placements of each side a resample keeps: bit p of keep[side]
 * for the placement of the rounds r with r % placed[side] == p (which of
 * the copies that is, measure.c chooses). */
typedef struct placement_pick {
    const int *placed;
    uint32_t keep[2];
} placement_pick;

/* head / base - 1 of the sums of minimums over the rounds in `pick`
 * (NULL: every round), of each side only the rounds at the placements
 * `pp` keeps (NULL: all); with `cases`, each case's own change too. */
static double change_of(const double *samples, const double *overhead,
                        size_t ncases, size_t rounds, const uint32_t *pick,
                        const placement_pick *pp, double *min_buf,
                        double *cases)
{
    double sum[2] = {0, 0};
    size_t r, c;
    int s;

    for (c = 0; c < ncases * 2; c++)
        min_buf[c] = INFINITY;
    for (r = 0; r < rounds; r++) {
        size_t at = pick ? pick[r] : r;
        const double *row = samples + at * ncases * 2;
        for (c = 0; c < ncases * 2; c++) {
            s = (int)(c & 1);
            if (pp && !(pp->keep[s] >> (at % (size_t)pp->placed[s]) & 1))
                continue;
            if (row[c] < min_buf[c])
                min_buf[c] = row[c];
        }
    }
    /* A side none of whose kept placements was picked: all of its picks. */
    for (c = 0; pp && c < ncases * 2; c++)
        if (!isfinite(min_buf[c]))
            for (r = 0; r < rounds; r++) {
                const double *row = samples + (pick ? pick[r] : r) * ncases * 2;
                if (row[c] < min_buf[c])
                    min_buf[c] = row[c];
            }
    for (c = 0; c < ncases; c++) {
        double ns[2];
        for (s = 0; s < 2; s++) {
            ns[s] = min_buf[c * 2 + s] - overhead[c];
            ns[s] = ns[s] > 0 ? ns[s] : 0;
            sum[s] += ns[s];
        }
        if (cases)
            cases[c] = ratio_change(ns[0], ns[1]);
    }
    return ratio_change(sum[0], sum[1]);
}

/* The 95% interval of `n` sorted-in-place estimates around `point`. */
static void percentile_interval(pg_interval *out, double point, double *est,
                                int n)
{
    qsort(est, (size_t)n, sizeof(*est), compare_doubles);
    out->change = point;
    out->lo = est[(size_t)(0.025 * (n - 1) + 0.5)];
    out->hi = est[(size_t)(0.975 * (n - 1) + 0.5)];
    /* A resampled minimum is never below the sample's own: keep the point
     * estimate inside its interval. */
    if (point < out->lo)
        out->lo = point;
    if (point > out->hi)
        out->hi = point;
}

void pg_estimate_interval(pg_interval *out, pg_interval *cases,
                          const double *samples, const double *overhead,
                          size_t ncases, size_t rounds, int resamples)
{
    pg_estimate_interval_placed(out, cases, samples, overhead, ncases, rounds,
                                resamples, NULL);
}

/* A resample of `n` placements (with replacement), as a set. */
static uint32_t pick_placements(uint64_t *seed, int n)
{
    uint32_t keep = 0;
    int i;

    if (n <= 1)
        return 1;
    for (i = 0; i < n; i++)
        keep |= 1u << (next_random(seed) % (uint64_t)n);
    return keep;
}

void pg_estimate_interval_placed(pg_interval *out, pg_interval *cases,
                                 const double *samples, const double *overhead,
                                 size_t ncases, size_t rounds, int resamples,
                                 const int placed[2])
{
    placement_pick pp;
    double *est, *min_buf, *point, *row;
    uint32_t *pick;
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    size_t r, c, ncols = cases ? ncases + 1 : 1;
    int b;

    out->change = out->lo = out->hi = NAN;
    for (c = 0; cases && c < ncases; c++)
        cases[c] = *out;
    if (!rounds || !ncases)
        return;
    min_buf = pg_malloc(ncases * 2 * sizeof(*min_buf));
    point = pg_malloc(ncols * sizeof(*point));
    point[0] = change_of(samples, overhead, ncases, rounds, NULL, NULL, min_buf,
                         cases ? point + 1 : NULL);
    if (placed) {
        pp.placed = placed;
        /* More than 32 placements: resampled among the first 32. */
        pp.keep[0] = pp.keep[1] = 0;
    }
    if (resamples < 2) {
        for (c = 0; c < ncols; c++) {
            pg_interval *iv = c ? &cases[c - 1] : out;
            iv->change = iv->lo = iv->hi = point[c];
        }
        free(point);
        free(min_buf);
        return;
    }
    /* est[c * resamples + b]: column c (the total, then each case). */
    est = pg_malloc(ncols * (size_t)resamples * sizeof(*est));
    row = pg_malloc(ncols * sizeof(*row));
    pick = pg_malloc(rounds * sizeof(*pick));
    for (b = 0; b < resamples; b++) {
        for (r = 0; r < rounds; r++)
            pick[r] = (uint32_t)(next_random(&seed) % rounds);
        if (placed) {
            pp.keep[0] =
                pick_placements(&seed, placed[0] < 32 ? placed[0] : 32);
            pp.keep[1] =
                pick_placements(&seed, placed[1] < 32 ? placed[1] : 32);
        }
        row[0] =
            change_of(samples, overhead, ncases, rounds, pick,
                      placed ? &pp : NULL, min_buf, cases ? row + 1 : NULL);
        for (c = 0; c < ncols; c++)
            est[c * (size_t)resamples + (size_t)b] = row[c];
    }
    for (c = 0; c < ncols; c++)
        percentile_interval(c ? &cases[c - 1] : out, point[c],
                            est + c * (size_t)resamples, resamples);
    free(est);
    free(row);
    free(pick);
    free(point);
    free(min_buf);
}

/* Under gate: cases, every case must be clear of the floor as well. */
static int cases_clear(const pg_estimate_rule *rule, const pg_interval *cases,
                       size_t ncases)
{
    size_t c;

    for (c = 0; rule->gate_cases && c < ncases; c++)
        if (!pg_estimate_is_clear(rule, &cases[c]))
            return 0;
    return 1;
}

/* The settle threshold of the total and, under gate: cases, of the case
 * nearest the floor. */
static double settle_threshold(const pg_estimate_rule *rule,
                               const pg_interval *change,
                               const pg_interval *cases, size_t ncases)
{
    double t = pg_estimate_settle_threshold(rule, change);
    size_t c;

    for (c = 0; rule->gate_cases && c < ncases; c++)
        t = fmin(t, pg_estimate_settle_threshold(rule, &cases[c]));
    return t;
}

double pg_estimate_settle_threshold(const pg_estimate_rule *rule,
                                    const pg_interval *change)
{
    double f = rule->noise_floor, d;

    if (!change || isnan(change->change))
        return rule->settle;
    d = fmin(fabs(change->change - f), fabs(change->change + f));
    return d / 2 > rule->settle ? d / 2 : rule->settle;
}

int pg_estimate_last_gain(const double *gain, int rounds, double threshold)
{
    int r;

    for (r = rounds; r > 0; r--)
        if (gain[r - 1] > threshold)
            return r;
    return 0;
}

pg_stop pg_estimate_check(pg_interval *change, pg_interval *cases,
                          const pg_estimate_rule *rule, const double *samples,
                          const double *overhead, const double *gain,
                          size_t ncases, int rounds, double elapsed)
{
    pg_stop stop;

    pg_estimate_interval(change, cases, samples, overhead, ncases,
                         (size_t)rounds, PG_ESTIMATE_RESAMPLES);
    stop = pg_estimate_should_stop(
        rule, rounds,
        pg_estimate_last_gain(gain, rounds,
                              settle_threshold(rule, change, cases, ncases)),
        elapsed, change);
    if (stop == PG_STOP_CLEAR && !cases_clear(rule, cases, ncases))
        stop = PG_STOP_NO;
    return stop;
}

void pg_estimate_widen(pg_interval *iv, double base, double head,
                       double quantum)
{
    double lo, hi;

    if (!isfinite(iv->change) || !(base >= 0) || !(head >= 0) || !(quantum > 0))
        return;
    /* An interval not known (0 against 0) is the change itself. */
    if (isnan(iv->lo) || isnan(iv->hi))
        iv->lo = iv->hi = iv->change;
    lo = (head > quantum ? head - quantum : 0) / (base + quantum) - 1;
    hi = base > quantum ? (head + quantum) / (base - quantum) - 1 : INFINITY;
    iv->lo = fmax(iv->lo - fmax(iv->change - lo, 0), -1);
    iv->hi += fmax(hi - iv->change, 0);
}
