/*
 * estimate.h - the change between two sides, its interval, and the rule
 * that says when measuring may stop (README.md, "How perfgate measures").
 *
 * The timing loop (measure.h) records each round's time per call for every
 * case and side.  From them: the change between the sums of per-case
 * minimums, with a 95% interval from a bootstrap over whole rounds; and
 * the stopping rule, which ends a measurement once the minimums have
 * settled and the change lies clear of the noise floor, or the budget is
 * spent.
 */
#ifndef PG_ESTIMATE_H
#define PG_ESTIMATE_H

#include <stddef.h>

/* A change (head / base - 1) with its 95% interval. */
typedef struct pg_interval {
    double change, lo, hi;
} pg_interval;

typedef enum {
    PG_STOP_NO = 0,
    PG_STOP_CLEAR,   /* settled, and the change is clear of the floor */
    PG_STOP_SETTLED, /* settled (one side: nothing to compare) */
    PG_STOP_MAX_TIME /* the budget ran out first */
} pg_stop;

/* When to stop measuring. */
typedef struct pg_estimate_rule {
    int min_rounds;
    double max_time;    /* seconds for the whole measurement */
    double min_time;    /* seconds measured at least, unless max_time ends it */
    double settle;      /* a minimum that improves less than this has settled */
    double noise_floor; /* the verdict's floor, for the stopping margin */
    double margin;      /* stop once the change is this far from the floor */
    int gate_cases;     /* gate: cases: every case must be clear to stop */
} pg_estimate_rule;

/* Bootstrap resamples per interval. */
#define PG_ESTIMATE_RESAMPLES 200

/* "clear", "settled", "max_time" ("running" for PG_STOP_NO). */
const char *pg_estimate_stop_name(pg_stop stop);

/* Fills `out` with the defaults for a given budget and noise floor. */
void pg_estimate_rule_init(pg_estimate_rule *out, int min_rounds,
                           double max_time, double noise_floor);

/*
 * The change between the sums of per-case minimums, and its interval from
 * the paired rounds: `resamples` bootstrap resamples of whole rounds (both
 * sides and every case of a round stay together, so what hit a round hits
 * both sides of it), percentiles 2.5 and 97.5, from a fixed seed so that
 * the same samples always give the same interval.  With `cases` (NULL:
 * not wanted), each case's own change and interval too, from the same
 * resamples.
 *
 * samples[(r * ncases + c) * 2 + side] is round r's time per call for case
 * c and side (raw); overhead[c] is discounted from every case-c figure.
 */
void pg_estimate_interval(pg_interval *out, pg_interval *cases,
                          const double *samples, const double *overhead,
                          size_t ncases, size_t rounds, int resamples);

/*
 * The same, when each side's code was timed at several placements (copies
 * of its library at other addresses, taken in turn: the rounds r with the
 * same r % placed[side] at one placement): each resample also draws, for
 * each side, which of its placements it keeps (as many as there are, with
 * replacement), so that the interval holds how much a side's minimum owes
 * to the luck of the addresses it drew, which no resampling of one
 * process's rounds can see and the next run draws afresh.  `placed` NULL:
 * pg_estimate_interval().
 */
void pg_estimate_interval_placed(pg_interval *out, pg_interval *cases,
                                 const double *samples, const double *overhead,
                                 size_t ncases, size_t rounds, int resamples,
                                 const int placed[2]);

/*
 * Widens `iv`, the interval of a change from `base` to `head` ns (NAN
 * change: left alone), by what is known of neither side better than
 * `quantum` ns: each end moves out by as much as the change can move when
 * each side is off by up to `quantum` against the other.
 */
void pg_estimate_widen(pg_interval *iv, double base, double head,
                       double quantum);

/*
 * The stopping rule.  `rounds` rounds are complete, a minimum last
 * improved by more than the settle threshold in round `last_improved`,
 * `elapsed` seconds have passed; `change` is the change so far (NULL with
 * one side, or when not computed yet).
 */
pg_stop pg_estimate_should_stop(const pg_estimate_rule *rule, int rounds,
                                int last_improved, double elapsed,
                                const pg_interval *change);

/*
 * How much a minimum may still improve and count as settled, given the
 * change so far: half its distance to the nearer of +-floor (a smaller
 * move cannot carry the estimate across), and at least rule->settle.
 */
double pg_estimate_settle_threshold(const pg_estimate_rule *rule,
                                    const pg_interval *change);

/* 1 when `change` lies clear of +-rule->noise_floor by rule->margin. */
int pg_estimate_is_clear(const pg_estimate_rule *rule,
                         const pg_interval *change);

/*
 * The last round (1-based) in which a minimum improved by more than
 * `threshold`, from gain[r], the largest relative improvement of any
 * minimum in round r; 0 if none.
 */
int pg_estimate_last_gain(const double *gain, int rounds, double threshold);

/*
 * One check of a two-sided measurement after `rounds` rounds: computes
 * `change` and each case's (`cases`, ncases of them) from the samples, as
 * pg_estimate_interval(), and says whether to stop.  Under gate: cases the
 * minimums must settle for the case nearest the floor, and every case must
 * be clear too.
 */
pg_stop pg_estimate_check(pg_interval *change, pg_interval *cases,
                          const pg_estimate_rule *rule, const double *samples,
                          const double *overhead, const double *gain,
                          size_t ncases, int rounds, double elapsed);

#endif
