/*
 * estimate.h - the change between two sides, its interval, and the rule
 * that says when measuring may stop (README.md, "How perfgate measures").
 *
 * The timing loop (measure.h) records each round's time per call for every
 * case and side, each round at one of a side's placements (copies of its
 * library at other addresses), in one or more measuring processes.  From
 * them, one statistic: a side's time for a case is, in each process, its
 * minimum (noise only ever adds time), and over the processes their
 * median (the luck of one process, where its code and pages landed, is
 * not a best to keep: the next run draws it afresh); the change is between
 * the sums of those times, and its 95% interval comes from a bootstrap
 * that draws processes, then placements within each, then rounds within
 * each placement.  The
 * interval is what the stopping rule asks (it stops once the minimums
 * have settled and the whole interval lies on one side of the floor, or
 * within it) and what the verdict reads (stats.h): there is no other.
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
    PG_STOP_CLEAR,    /* settled, and the change is clear of the floor */
    PG_STOP_SETTLED,  /* settled (one side: nothing to compare) */
    PG_STOP_MAX_TIME, /* the budget ran out first */
    PG_STOP_TOO_FEW   /* it ran out before every placement was seen twice */
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
    int self_check;     /* compare --aa: the same code on both sides, whose
                           question is whether the noise lies within half
                           the floor: "unchanged" is clear only there */
    /* The total's interval no wider than this either side of its change
     * for a stop (0: any): perfgate record's, whose changes are chained
     * along main, where pushes far below the floor add up (history.md). */
    double precision;
} pg_estimate_rule;

/* Bootstrap resamples per interval. */
#define PG_ESTIMATE_RESAMPLES 200

/* "clear", "settled", "max_time", "too_few_rounds" ("running" for
 * PG_STOP_NO). */
const char *pg_estimate_stop_name(pg_stop stop);

/* Fills `out` with the defaults for a given budget and noise floor. */
void pg_estimate_rule_init(pg_estimate_rule *out, int min_rounds,
                           double max_time, double noise_floor);

/*
 * One measuring process's rounds.  samples[(r * ncases + c) * 2 + side] is
 * round r's raw time per call for case c and side; overhead[c] (NULL: 0)
 * the harness's cost per call, discounted from every figure.  Round r ran
 * each side at placement slot (r + shift) % slots (slots 0 or 1: every
 * round at one).
 */
typedef struct pg_estimate_run {
    const double *samples;
    size_t rounds;
    const double *overhead;
    int slots;
    int shift;
} pg_estimate_run;

/* A run's slots, at least 1. */
int pg_estimate_run_slots(const pg_estimate_run *run);

/* 1 when every slot of `run` has at least two rounds: before that no
 * interval of it may stop a measurement or carry a label. */
int pg_estimate_run_ready(const pg_estimate_run *run);

/*
 * The estimate and its interval from `nruns` processes' rounds (header
 * comment): into `out` the total's change (the sums over the cases), with
 * `cases` (NULL: not wanted) each case's, and with `ns` (NULL: not
 * wanted) each case's time per call and side, ns[c * 2 + side], the
 * overhead discounted.  `resamples` bootstrap resamples, percentiles 2.5
 * and 97.5, from a fixed seed so that the same samples always give the
 * same interval; fewer than 2: the point alone.  Every run must have
 * rounds; else all is NAN.
 */
void pg_estimate_pooled(pg_interval *out, pg_interval *cases, double *ns,
                        const pg_estimate_run *runs, size_t nruns,
                        size_t ncases, int resamples);

/* pg_estimate_pooled() of one process whose rounds all ran at one
 * placement: the ratio of the sums of minimums, rounds resampled. */
void pg_estimate_interval(pg_interval *out, pg_interval *cases,
                          const double *samples, const double *overhead,
                          size_t ncases, size_t rounds, int resamples);

/*
 * How much a call's time moves with where its code lies and with the
 * discount of the harness's own cost, as a fraction of that cost: 0.55 ns
 * against 4.05 ns for identical code of a few nanoseconds
 * (docs/accuracy.md, "Cases too small to resolve").
 */
#define PG_ESTIMATE_PLACEMENT_JITTER 0.15

/*
 * 1 when a case of `base_ns` and `head_ns` per call (overhead discounted)
 * is below what this machine resolves at `noise_floor`: on both sides a
 * call is so short that PG_ESTIMATE_PLACEMENT_JITTER of the harness's
 * own cost `overhead_ns` is more than the floor of it.
 */
int pg_estimate_unresolved(double base_ns, double head_ns, double overhead_ns,
                           double noise_floor);

/*
 * How closely a time per call repeats from one measuring process to the
 * next beyond what the rounds of two processes show, as a fraction of it:
 * identical 20 ms calls (bench/coverage.py) read changes that moved from
 * run to run by 0.11-0.24% (one standard deviation), and the pooled
 * interval of two processes held the median of 20 runs in 85% of cases;
 * with each side known to no better than this, in 95-100%.
 */
#define PG_ESTIMATE_REPEATABILITY 0.0003

/*
 * Widens each case's interval (cases[c], of times ns[c * 2 + side]) by
 * what is known of neither side better than quantum[c] ns (one sample's
 * timer error over its calls; NULL: 0), and, with `jitter` > 0 (times,
 * not counts), by PG_ESTIMATE_REPEATABILITY of the slower side, and a
 * case that pg_estimate_unresolved() finds below the machine's resolution
 * by jitter x overhead[c] as well; the total by the sum of them.
 */
void pg_estimate_widen_all(pg_interval *total, pg_interval *cases,
                           const double *ns, const double *overhead,
                           const double *quantum, size_t ncases, double jitter,
                           double noise_floor);

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
 * move cannot carry the estimate across), but no more than half the
 * floor (the size said must be right too), and at least rule->settle.
 */
double pg_estimate_settle_threshold(const pg_estimate_rule *rule,
                                    const pg_interval *change);

/* 1 when `change` lies clear of +-rule->noise_floor by rule->margin. */
int pg_estimate_is_clear(const pg_estimate_rule *rule,
                         const pg_interval *change);

/* 1 when the total's interval `change` is as narrow as rule->precision
 * asks (always, without precision). */
int pg_estimate_is_precise(const pg_estimate_rule *rule,
                           const pg_interval *change);

/*
 * Whether the estimate pooled from several processes (`total`, and each
 * case's of times ns[c * 2 + side] with the harness's cost overhead[c])
 * earns its stop: the total clear of the floor, and as precise as the
 * rule asks; under gate: cases every
 * case too; and in a self-check every case it resolves, which the
 * self-check judges: one process whose luck put one side of a short case
 * 12-25% off (conv1d's 15 us case beside its 43 ms one) is outvoted only
 * by the processes that follow it.
 */
int pg_estimate_pooled_clear(const pg_estimate_rule *rule,
                             const pg_interval *total, const pg_interval *cases,
                             const double *ns, const double *overhead,
                             size_t ncases);

/*
 * The last round (1-based) in which a minimum improved by more than
 * `threshold`, from gain[r], the largest relative improvement of any
 * minimum in round r; 0 if none.
 */
int pg_estimate_last_gain(const double *gain, int rounds, double threshold);

/*
 * One check of a two-sided measurement after `rounds` rounds, given the
 * interval of the change and of each case (ncases of them), from
 * pg_estimate_pooled() and widened as reported: whether to stop.  Under
 * gate: cases the minimums must settle for the case nearest the floor,
 * and every case must be clear too; the total must be as precise as the
 * rule asks.  Not `ready` (pg_estimate_run_ready):
 * never clear, and the budget spent is PG_STOP_TOO_FEW.
 */
pg_stop pg_estimate_check(const pg_estimate_rule *rule,
                          const pg_interval *change, const pg_interval *cases,
                          size_t ncases, const double *gain, int rounds,
                          double elapsed, int ready);

#endif
