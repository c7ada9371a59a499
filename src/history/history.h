/*
 * history.h - series of measurements along main and where they change
 * level: what `perfgate history` shows.
 *
 * A history is a table: one row per commit, oldest first, one column per
 * series.  This file reads one from a CSV file (another tool's export, or
 * perfgate's own), finds each series' change points (changepoint.h) and
 * shows them in the terminal and as JSON.
 */
#ifndef PG_HISTORY_H
#define PG_HISTORY_H

#include "changepoint.h"
#include "csv.h"
#include "str.h"
#include "strvec.h"

/*
 * A span of main measured again to confirm what the history showed there
 * (`perfgate history --confirm`): `commit` against the earlier `parent`,
 * interleaved, on `machine`, for benchmark `bench`; bisected when it was
 * slower and more than one commit apart.
 */
typedef struct pg_recheck {
    char *commit, *parent, *machine, *bench;
    int status;    /* pg_status */
    double change; /* NAN when not measured */
    char *culprit; /* the first slower commit, or NULL */
    char *culprit_subject;
    long long when; /* when it was measured */
} pg_recheck;

/* What became of a change point or creep. */
typedef enum pg_recheck_state {
    PG_SUSPECTED,     /* found in the records, not measured again */
    PG_CONFIRMED,     /* measured again: beyond the floor, the same way */
    PG_NOT_CONFIRMED, /* measured again: no such change */
    PG_UNTOLD         /* measured again, and it could not be told (a side
                         failed to build or run) */
} pg_recheck_state;

const char *pg_recheck_state_name(pg_recheck_state s);

/*
 * The heap's series, from records that kept it (memory.h): beside
 * pg_metric's time and counts, metrics of the history's own, exact, so
 * that every change between a push and its parent is a step.
 */
enum {
    PG_SERIES_ALLOCS = 16, /* allocations per call, the cases summed */
    PG_SERIES_PEAK         /* the peak of live bytes, the largest case's */
};
#define PG_SERIES_HEAP(metric) ((metric) >= PG_SERIES_ALLOCS)

/* What a series' values are: "time", "instructions", "cycles",
 * "allocations", "peak heap". */
const char *pg_series_metric_name(int metric);

typedef struct pg_series {
    char *name;
    /* For records: the benchmark and the machine the series is of (its
     * name is "BENCH @ MACHINE" when there are several machines); NULL
     * for a table's columns. */
    char *bench, *machine;
    /* What the values are, a pg_metric: PG_METRIC_TIME (0), times (or a
     * table's numbers); else a count per call, from records that kept
     * one (record --measure all|instructions|cycles), by `counter`; or
     * the heap per call (PG_SERIES_ALLOCS, PG_SERIES_PEAK). */
    int metric;
    char *counter;
    /* Its own floor, for its steps and creeps: the records' count floor
     * for a count; 0: the history's. */
    double floor;
    double *values; /* npoints; NaN where the row has none */
    double *sd;     /* each value's standard deviation, or NULL */
    double *change; /* each point's paired change against the one before
                     * (a fraction), or NULL; and its standard deviation */
    double *change_sd;
    pg_changepoint *cps;
    size_t ncps;
    /* Where the noise changed its scale (values alone). */
    pg_noise_change noise[PG_CP_NOISE_MAX];
    size_t nnoise;
    /* npoints flags, or NULL: the pair at this point was judged beyond
     * the floor by the gate itself (perfgate's record said regression or
     * improvement), a step whatever the levels of other runs say. */
    unsigned char *sure;
    /* npoints, or NULL: where the push's record says its regression was
     * accepted on purpose, the reason given; NULL elsewhere. */
    char **accepted;
    /* npoints flags, or NULL: the push's code was its parent's (its record
     * says the change could not reach the benchmark), so its value is the
     * point before's, carried for the chart after the fit (which weighs
     * only what was measured). */
    unsigned char *carried;
    pg_creep *creeps; /* with paired changes and a floor */
    size_t ncreeps;
    /* The check of each change point and creep (into pg_history.checks),
     * or NULL: suspected. */
    const pg_recheck **cp_check, **creep_check;
} pg_series;

typedef struct pg_history {
    char *source;    /* where it was read from, for messages */
    char **labels;   /* npoints row labels (commits), or NULL */
    char **subjects; /* npoints commit subjects, or NULL */
    size_t npoints;
    /* The noise floor (a fraction) a creep must add up beyond; 0: no
     * creeps are looked for. */
    double floor;
    int ns; /* the values are times in nanoseconds (shown as such) */
    pg_series *series;
    size_t nseries;
    pg_recheck *checks; /* re-measurements from the records */
    size_t nchecks;
    pg_strvec ignored; /* columns that are neither series nor labels */
    pg_strvec notes;   /* what the reader should know: files left out */
} pg_history;

/*
 * The series of CSV table `t` (read from `source`):
 *  - the first column named commit, sha, hash, revision, index, time,
 *    date, timestamp or datetime labels the rows (`label_column`, when not
 *    NULL, names it instead);
 *  - a column of numbers (empty cells are missing points) is a series; a
 *    cell of one that is a number but not a finite one (nan, inf, 1e400)
 *    is an error at its line;
 *  - a column named "NAME:sd" holds the standard deviation of NAME's
 *    points (numbers of 0 or more);
 *  - columns "NAME:change" and "NAME:change_sd" hold each point's change
 *    against the row before, measured in pairs (0.03: 3% more), and its
 *    standard deviation (pg_cp_series);
 *  - other columns (dates, branches) are ignored.
 * `only`, NULL-terminated or NULL, names the series wanted.  0, or
 * PG_ERR_USAGE saying which column and line is wrong and `h` empty.
 */
int pg_history_from_csv(pg_history *h, const pg_csv *t, const char *source,
                        const char *const *only, const char *label_column);

/* Finds the change points of every series, and with h->floor set, the
 * creeps of those with paired changes. */
void pg_history_detect(pg_history *h, const pg_cp_opts *opts);

/*
 * The commits a change point at `from` (to = from), or a creep from `from`
 * to `to`, lies between, as indexes of points with a measurement: *before
 * the last before `from`, *after the first from `to` on.  0, or -1 when
 * there is no such point on either side.
 */
int pg_history_span(const pg_history *h, const pg_series *s, size_t from,
                    size_t to, size_t *before, size_t *after);

/* The state a check gives a step that went `up` (slower) or not. */
pg_recheck_state pg_recheck_state_of(const pg_recheck *c, int up);

/* A value of `s` for people: a time, a count ("84,492 instr"), or a
 * table's number. */
void pg_history_value(pg_str *out, const pg_history *h, const pg_series *s,
                      double v);

/* The floor `s` is judged at: its own, else the history's. */
double pg_series_floor(const pg_history *h, const pg_series *s);

/* A line per series with a small chart, then its change points. */
void pg_history_render_text(pg_str *out, const pg_history *h);

/*
 * The history as one page for a browser (history_html.c): per benchmark a
 * chart of each machine's series with the commits along the x axis, the
 * change points and creeps marked and listed; zoom along the commits.
 * `commit_url`, when not NULL, is an http(s) address a commit id is
 * appended to for its link.  Self-contained, as the report's page.
 */
void pg_history_html(pg_str *out, const pg_history *h, const char *commit_url);

/* The history and its change points as JSON (a new string). */
char *pg_history_to_json(const pg_history *h);

void pg_history_clear(pg_history *h);

#endif
