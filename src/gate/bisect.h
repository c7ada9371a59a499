/*
 * bisect.h - which commit made a benchmark slower: `perfgate bisect`.
 *
 * The range is the commits after GOOD up to BAD (first parents only by
 * default).  Every probe is a comparison of GOOD against that commit,
 * measured interleaved as `perfgate compare` measures (never against its
 * neighbour, so that small steps cannot hide a slowdown).  A probe is
 * slower when a benchmark's change is beyond the noise floor with its
 * whole interval, not slower when its whole interval is within it, and
 * unclear otherwise: then it is measured again, up to a number of
 * attempts, and a probe still unclear is skipped as a commit that does not
 * build or is wrong is (as `git bisect skip` does).  BAD is measured first:
 * the benchmarks slower there are the ones followed, and when none is, there
 * is nothing to find.
 */
#ifndef PG_BISECT_H
#define PG_BISECT_H

#include "compare.h"
#include "result.h"
#include "revision.h"
#include "str.h"
#include "strvec.h"

typedef enum pg_probe_outcome {
    PG_PROBE_NOT_SLOWER,
    PG_PROBE_SLOWER,
    PG_PROBE_UNCLEAR,
    PG_PROBE_SKIPPED /* does not build, is wrong, crashed: cannot tell */
} pg_probe_outcome;

const char *pg_probe_outcome_name(pg_probe_outcome o);

/* A benchmark at a probe, against GOOD. */
typedef struct pg_probe_bench {
    char *name;
    pg_status status;
    pg_side side; /* for failures: the side that failed */
    pg_probe_outcome outcome;
    int same; /* both sides build from the same files, or load the same
                 code: not measured */
    double change, change_lo, change_hi; /* NAN when not measured */
    char *message;
} pg_probe_bench;

typedef struct pg_probe {
    size_t index; /* of the commit in the range, 0 the oldest */
    pg_probe_outcome outcome;
    int attempts;   /* measurements taken */
    double seconds; /* all of them, builds included */
    pg_probe_bench *benchmarks;
    size_t nbenchmarks;
    /* Skipped before anything was built: why (the commit's tree cannot be
     * checked out, as one with an entry named .git); NULL otherwise. */
    char *why;
} pg_probe;

typedef struct pg_bisect_result pg_bisect_result;

typedef struct pg_bisect_opts {
    /* How each probe is compared: repository, config, -b, floor, timing,
     * cache, jobs, progress.  base, head, aa and ci are the bisect's. */
    pg_compare_opts compare;
    const char *good, *bad;
    int all_parents; /* 0: first parents only */
    int attempts;    /* an unclear probe is measured up to this many times */
    /* Seconds for the whole bisect (0: none): no probe starts after them,
     * and the answer is then the commits still untold. */
    double budget;
    /* Called after each probe (the result so far); may be NULL. */
    void (*on_probe)(void *payload, const pg_bisect_result *r,
                     const pg_probe *p);
    void *payload;
} pg_bisect_opts;

struct pg_bisect_result {
    pg_rev good, bad;
    int all_parents;
    double noise_floor;
    pg_commit_info *commits; /* the range, oldest first; BAD last */
    size_t ncommits;
    pg_probe *probes; /* in the order they were measured, BAD first */
    size_t nprobes;
    pg_strvec followed; /* the benchmarks slower at BAD */
    int no_regression;  /* none is slower at BAD: nothing to find */
    /* The first commit that is slower (an index into commits), or -1; with
     * commits that could not be told apart before it (skipped), the first
     * of those: any of commits[first..culprit] may be it. */
    long culprit, first;
    int budget_spent; /* stopped at opts.budget: commits[first..culprit]
                         were not told apart */
    double budget;
    double seconds;
};

/* The default budget: an hour, in a 6-hour CI job with room to spare,
 * whatever the commits' builds do. */
#define PG_BISECT_BUDGET 3600.0

void pg_bisect_opts_init(pg_bisect_opts *opts);

/*
 * A probe's outcome from its comparison with GOOD, `r`: slower when any
 * benchmark is a regression (its whole interval above the floor, stats.h);
 * else what cannot be told (skipped: a benchmark did not build, was wrong
 * or failed; then unclear: one is inconclusive or unresolved); else not
 * slower.
 */
pg_probe_outcome pg_bisect_outcome(const pg_result *r);

/*
 * The commit to probe between lo and hi (exclusive), `skipped[i]` set for
 * those that could not be told: the middle one, or the nearest to it that
 * was not skipped (below first at equal distance); -1 when none is left.
 */
long pg_bisect_next(const unsigned char *skipped, long lo, long hi);

/*
 * Bisects.  0 with `out` filled (a culprit, a range of candidates, or
 * no_regression); PG_ERR_USAGE for bad revisions or config, or a GOOD or
 * BAD that cannot be measured; PG_ERR_INTERRUPTED.  `out` is to be
 * pg_bisect_result_clear()ed either way.
 */
int pg_bisect(pg_bisect_result *out, const pg_bisect_opts *opts);

/* The probe of commits[index], or NULL when it was not measured. */
const pg_probe *pg_bisect_probe_of(const pg_bisect_result *r, size_t index);

/* The report for a terminal; the JSON (a new string). */
void pg_bisect_render_text(pg_str *out, const pg_bisect_result *r);
char *pg_bisect_to_json(const pg_bisect_result *r);

void pg_bisect_result_clear(pg_bisect_result *r);

/* Regressions bisected at most by pg_bisect_regressions(): each is a
 * bisect of its own. */
#define PG_BISECT_MOST 5

/*
 * `compare --bisect`: for each regression of `r` (up to PG_BISECT_MOST),
 * the commit between r's base and head that made it slower, found as
 * pg_bisect() finds it, into the benchmark's culprit fields; `opts` are
 * how `r` was compared.  The head must be a commit: uncommitted changes
 * have no history to search.  What cannot be bisected (that, or a bisect
 * that failed) is said to say(payload, message) and passed over: the
 * verdict stands as measured.  0, or PG_ERR_INTERRUPTED.
 */
int pg_bisect_regressions(pg_result *r, const pg_compare_opts *opts,
                          void (*say)(void *payload, const char *what),
                          void *payload);

#endif
