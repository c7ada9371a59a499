/*
 * history.c - a history's series from a table, their change points, and
 * how they are shown.
 */
#include "history.h"
#include "error.h"
#include "json.h"
#include "parallel.h"
#include "counter.h"
#include "result.h"
#include "units.h"
#include "words.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "banned.h"

#define CHART_WIDTH 40
#define HISTORY_MAX_COLUMNS 10000

/* Columns that name their rows, not a series: the first of them is the
 * rows' labels (--label-column names another). */
static const char *const label_names[] = {
    "commit", "sha",  "hash",      "revision", "index",
    "time",   "date", "timestamp", "datetime", NULL};

static int is_label_column(const char *name)
{
    size_t i;

    for (i = 0; label_names[i]; i++)
        if (!strcasecmp(name, label_names[i]))
            return 1;
    return 0;
}

/* A cell as a number: 1 and *v, or 0 when it is not one, or 2 when it is
 * one but not a finite one (nan, inf, 1e400); an empty cell (spaces only)
 * is a missing point, NaN. */
static int cell_number(const char *cell, double *v)
{
    char *end;

    while (*cell == ' ' || *cell == '\t')
        cell++;
    if (!*cell) {
        *v = NAN;
        return 1;
    }
    *v = strtod(cell, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (*end || end == cell)
        return 0;
    return isfinite(*v) ? 1 : 2;
}

/* The first row of `col` that holds a number but not a finite one, when
 * every other cell is a number; else 0. */
static size_t not_finite(const pg_csv *t, size_t col)
{
    size_t r, first = 0;
    double v;

    for (r = 1; r < t->rows; r++) {
        int k = cell_number(pg_csv_cell(t, r, col), &v);
        if (k == 0)
            return 0;
        if (k == 2 && !first)
            first = r;
    }
    return first;
}

/* The first row whose cell in `col` is not a number, or 0 when all are. */
static size_t not_numbers(const pg_csv *t, size_t col)
{
    size_t r;
    double v;

    for (r = 1; r < t->rows; r++)
        if (cell_number(pg_csv_cell(t, r, col), &v) != 1)
            return r;
    return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n >= k && !strcmp(s + n - k, suffix);
}

static double *column_values(const pg_csv *t, size_t col)
{
    double *v = pg_malloc((t->rows - 1) * sizeof(*v));
    size_t r;

    for (r = 1; r < t->rows; r++)
        if (cell_number(pg_csv_cell(t, r, col), &v[r - 1]) != 1)
            v[r - 1] = NAN;
    return v;
}

static long find_column(const pg_csv *t, const char *name)
{
    size_t c;

    for (c = 0; c < t->cols; c++)
        if (!strcmp(pg_csv_cell(t, 0, c), name))
            return (long)c;
    return -1;
}

/* The columns that describe a series' points, "NAME" SUFFIX, and where
 * they go. */
static const struct companion {
    const char *suffix;
    size_t field; /* offsetof the array in pg_series */
    int nonnegative;
    const char *what;
} companions[] = {
    {":sd", offsetof(pg_series, sd), 1, "standard deviations"},
    {":change", offsetof(pg_series, change), 0, "paired changes"},
    {":change_sd", offsetof(pg_series, change_sd), 1,
     "paired changes' standard deviations"},
};

#define NCOMPANIONS (sizeof(companions) / sizeof(companions[0]))

/* Which companion column `name` is (the longest suffix), or NULL. */
static const struct companion *companion_of(const char *name)
{
    const struct companion *best = NULL;
    size_t i;

    for (i = 0; i < NCOMPANIONS; i++)
        if (has_suffix(name, companions[i].suffix) &&
            strlen(name) > strlen(companions[i].suffix) &&
            (!best || strlen(companions[i].suffix) > strlen(best->suffix)))
            best = &companions[i];
    return best;
}

/* Column `col`, a companion, into its series. */
static int add_companion(pg_history *h, const pg_csv *t, size_t col,
                         const struct companion *c)
{
    const char *header = pg_csv_cell(t, 0, col);
    size_t n = strlen(header) - strlen(c->suffix), i, bad;
    pg_series *s = NULL;
    double **field;

    for (i = 0; i < h->nseries && !s; i++)
        if (strlen(h->series[i].name) == n &&
            !strncmp(h->series[i].name, header, n))
            s = &h->series[i];
    if (!s)
        return 0; /* of a series not wanted, or not of numbers */
    if ((bad = not_numbers(t, col)))
        return pg_error_set(PG_ERR_USAGE,
                            "%s:%zu: column '%s' is %s, but holds '%.40s' "
                            "here, not a finite number",
                            h->source, pg_csv_line(t, bad), header, c->what,
                            pg_csv_cell(t, bad, col));
    field = (double **)((char *)s + c->field);
    free(*field);
    *field = column_values(t, col);
    for (i = 0; c->nonnegative && i < h->npoints; i++)
        if ((*field)[i] < 0)
            return pg_error_set(
                PG_ERR_USAGE, "%s:%zu: column '%s': below 0 (it is %s)",
                h->source, pg_csv_line(t, i + 1), header, c->what);
    return 0;
}

static int wanted(const char *name, const char *const *only)
{
    size_t i;

    if (!only)
        return 1;
    for (i = 0; only[i]; i++)
        if (!strcmp(only[i], name))
            return 1;
    return 0;
}

/* Every name of `only` must be a series of numbers in `t`. */
static int check_only(const pg_history *h, const pg_csv *t,
                      const char *const *only)
{
    size_t i, k, bad;
    long col;

    for (i = 0; only && only[i]; i++) {
        for (k = 0; k < h->nseries; k++)
            if (!strcmp(h->series[k].name, only[i]))
                break;
        if (k < h->nseries)
            continue;
        if ((col = find_column(t, only[i])) < 0) {
            char hint[128];
            const char **names = pg_malloc((t->cols + 1) * sizeof(*names));
            for (k = 0; k < t->cols; k++)
                names[k] = pg_csv_cell(t, 0, k);
            names[t->cols] = NULL;
            pg_suggest_text(hint, sizeof(hint), only[i], names);
            free(names);
            return pg_error_set(PG_ERR_USAGE, "%s has no column '%s'%s",
                                h->source, only[i], hint);
        }
        bad = not_numbers(t, (size_t)col);
        return pg_error_set(PG_ERR_USAGE,
                            "%s:%zu: column '%s' is not a series: it holds "
                            "'%.40s' here, not a finite number",
                            h->source, pg_csv_line(t, bad ? bad : 1), only[i],
                            pg_csv_cell(t, bad ? bad : 1, (size_t)col));
    }
    return 0;
}

static void add_series(pg_history *h, const pg_csv *t, size_t col)
{
    pg_series *s;

    h->series = pg_realloc(h->series, (h->nseries + 1) * sizeof(*h->series));
    s = &h->series[h->nseries++];
    memset(s, 0, sizeof(*s));
    s->name = pg_text_clean(pg_csv_cell(t, 0, col));
    s->values = column_values(t, col);
}

/* Column `col` holds numbers, one of them not finite: said at its line. */
static int refuse_not_finite(const pg_history *h, const pg_csv *t, size_t col,
                             size_t row)
{
    return pg_error_set(PG_ERR_USAGE,
                        "%s:%zu: column '%s' holds '%.40s', not a finite "
                        "number (a missing point is an empty cell)",
                        h->source, pg_csv_line(t, row), pg_csv_cell(t, 0, col),
                        pg_csv_cell(t, row, col));
}

int pg_history_from_csv(pg_history *h, const pg_csv *t, const char *source,
                        const char *const *only, const char *label_column)
{
    long label = -1;
    size_t c, r, bad;
    int err = 0;

    memset(h, 0, sizeof(*h));
    /* Each companion column looks for its series among all of them: a
     * bound, so that a hostile header cannot make that last for hours. */
    if (t->cols > HISTORY_MAX_COLUMNS)
        return pg_error_set(PG_ERR_USAGE,
                            "%s has %zu columns; perfgate reads at most %d",
                            source, t->cols, HISTORY_MAX_COLUMNS);
    if (t->rows < 2)
        return pg_error_set(PG_ERR_USAGE, "%s has a header but no rows",
                            source);
    h->source = pg_strdup(source);
    h->npoints = t->rows - 1;
    if (label_column && (label = find_column(t, label_column)) < 0)
        err =
            pg_error_set(PG_ERR_USAGE, "%s has no column '%s' (--label-column)",
                         source, label_column);
    for (c = 0; c < t->cols && !err; c++) {
        const char *name = pg_csv_cell(t, 0, c);
        if ((long)c == label)
            continue;
        if (label < 0 && !label_column && is_label_column(name))
            label = (long)c;
        else if (companion_of(name))
            continue; /* after the series */
        else if ((bad = not_finite(t, c)) && wanted(name, only))
            err = refuse_not_finite(h, t, c, bad);
        else if (not_numbers(t, c))
            pg_strvec_push_owned(&h->ignored, pg_text_clean(name));
        else if (wanted(name, only))
            add_series(h, t, c);
    }
    for (c = 0; c < t->cols && !err; c++) {
        const struct companion *of = companion_of(pg_csv_cell(t, 0, c));
        if ((long)c != label && of)
            err = add_companion(h, t, c, of);
    }
    for (c = 0; c < h->nseries && !err; c++)
        if (!h->series[c].change != !h->series[c].change_sd)
            err = pg_error_set(PG_ERR_USAGE,
                               "%s: series '%s' has a column %s:%s but no "
                               "%s:%s: paired changes need both",
                               source, h->series[c].name, h->series[c].name,
                               h->series[c].change ? "change" : "change_sd",
                               h->series[c].name,
                               h->series[c].change ? "change_sd" : "change");
    if (!err)
        err = check_only(h, t, only);
    if (!err && !h->nseries)
        err = pg_error_set(PG_ERR_USAGE,
                           "%s has no column of numbers: a series is a "
                           "column whose every cell is a number (or empty)",
                           source);
    if (!err && label >= 0) {
        h->labels = pg_malloc(h->npoints * sizeof(*h->labels));
        for (r = 1; r < t->rows; r++)
            h->labels[r - 1] = pg_text_clean(pg_csv_cell(t, r, (size_t)label));
    }
    if (err)
        pg_history_clear(h);
    return err;
}

/*
 * The steps the gate itself measured beyond the floor, where the fit did
 * not find them: the levels around a push come from other runs (another
 * load on the machine, another hour) and can hide what the interleaved
 * pair saw.  Its levels are the pair's: the point, and it over 1 + change.
 */
static void add_sure_steps(const pg_history *h, pg_series *s)
{
    size_t i, k;

    for (i = 1; s->sure && s->change && i < h->npoints; i++) {
        double c = s->change[i], v = s->values[i], before = s->values[i - 1];
        int fraction = isfinite(c) && c > -1;
        /* To or from 0 (a heap that allocated nothing, or no longer
         * does): the point before, which the pair measured. */
        if (!s->sure[i] || !isfinite(v) ||
            (!fraction &&
             (!isfinite(before) || before == v || (before != 0 && v != 0))))
            continue;
        if (fraction)
            before = v / (1 + c);
        else
            c = v > before ? INFINITY : -1;
        for (k = 0; k < s->ncps && s->cps[k].at < i; k++)
            ;
        if (k < s->ncps && s->cps[k].at == i)
            continue;
        memmove(&s->cps[k + 1], &s->cps[k], (s->ncps - k) * sizeof(*s->cps));
        s->cps[k].at = i;
        s->cps[k].before = before;
        s->cps[k].after = v;
        s->cps[k].z = s->change_sd && s->change_sd[i] > 0
                          ? log1p(c) / (s->change_sd[i] / (1 + c))
                          : (c > 0 ? INFINITY : -INFINITY);
        s->ncps++;
    }
}

const char *pg_recheck_state_name(pg_recheck_state s)
{
    switch (s) {
    case PG_CONFIRMED:
        return "confirmed";
    case PG_NOT_CONFIRMED:
        return "not confirmed";
    case PG_UNTOLD:
        return "untold";
    default:
        return "suspected";
    }
}

pg_recheck_state pg_recheck_state_of(const pg_recheck *c, int up)
{
    if (!c)
        return PG_SUSPECTED;
    if (c->status == (up ? PG_STATUS_REGRESSION : PG_STATUS_IMPROVEMENT))
        return PG_CONFIRMED;
    if (c->status == PG_STATUS_UNCHANGED || c->status == PG_STATUS_REGRESSION ||
        c->status == PG_STATUS_IMPROVEMENT)
        return PG_NOT_CONFIRMED;
    return PG_UNTOLD;
}

/* Whether point i was measured: a time, or a pair (of 0: unreached). */
static int measured(const pg_series *s, size_t i)
{
    return isfinite(s->values[i]) || (s->change && isfinite(s->change[i]));
}

int pg_history_span(const pg_history *h, const pg_series *s, size_t from,
                    size_t to, size_t *before, size_t *after)
{
    size_t i;

    for (i = from; i > 0 && !measured(s, i - 1); i--)
        ;
    if (i == 0)
        return -1;
    *before = i - 1;
    for (i = to; i < h->npoints && !measured(s, i); i++)
        ;
    if (i == h->npoints)
        return -1;
    *after = i;
    return 0;
}

/* The newest check of series `s` between points `before` and `after`. */
static const pg_recheck *check_of(const pg_history *h, const pg_series *s,
                                  size_t from, size_t to)
{
    size_t before, after, i;
    const pg_recheck *found = NULL;

    if (!s->bench || !s->machine || !h->labels ||
        pg_history_span(h, s, from, to, &before, &after) < 0)
        return NULL;
    for (i = 0; i < h->nchecks; i++) {
        const pg_recheck *c = &h->checks[i];
        if (!strcmp(c->commit, h->labels[after]) &&
            !strcmp(c->parent, h->labels[before]) &&
            !strcmp(c->machine, s->machine) && !strcmp(c->bench, s->bench))
            found = c; /* the checks are oldest first */
    }
    return found;
}

static void match_checks(const pg_history *h, pg_series *s)
{
    size_t k;

    free(s->cp_check);
    free(s->creep_check);
    s->cp_check = pg_calloc(s->ncps + 1, sizeof(*s->cp_check));
    s->creep_check = pg_calloc(s->ncreeps + 1, sizeof(*s->creep_check));
    if (s->metric) /* checks measure times */
        return;
    for (k = 0; k < s->ncps; k++)
        s->cp_check[k] = check_of(h, s, s->cps[k].at, s->cps[k].at);
    for (k = 0; k < s->ncreeps; k++)
        s->creep_check[k] = check_of(h, s, s->creeps[k].from, s->creeps[k].to);
}

/* The points whose code was their parent's drawn at the level before
 * them (a chain of them at the last measured one), once the fit, which
 * weighs only what was measured, is done; one with no level before it
 * stays blank, and is not marked. */
static void carry(const pg_history *h, pg_series *s)
{
    size_t i;

    for (i = 0; s->carried && i < h->npoints; i++) {
        if (!s->carried[i] || !isnan(s->values[i]))
            continue;
        if (i > 0 && isfinite(s->values[i - 1]))
            s->values[i] = s->values[i - 1];
        else
            s->carried[i] = 0;
    }
}

/* What pg_history_detect() hands each series' search. */
typedef struct detect_job {
    pg_history *h;
    const pg_cp_opts *opts;
} detect_job;

static void detect_one(void *payload, size_t i)
{
    const detect_job *j = payload;
    pg_history *h = j->h;
    pg_series *s = &h->series[i];
    pg_cp_opts own = {0};
    double floor = pg_series_floor(h, s);
    pg_cp_series cs = {s->values, s->sd, s->change, s->change_sd, h->npoints};

    free(s->cps);
    s->cps = pg_malloc((h->npoints + 1) * sizeof(*s->cps));
    /* A count is judged at its own floor. */
    if (j->opts)
        own = *j->opts;
    if (s->floor > 0 && own.min_change > 0)
        own.min_change = s->floor;
    /* The heap is counted exactly: its steps are the pushes whose pairs
     * differ, and only those (no noise to fit, nothing to creep). */
    s->ncps = s->nnoise = 0;
    if (!PG_SERIES_HEAP(s->metric))
        s->ncps =
            pg_changepoints_noise(s->cps, s->noise, &s->nnoise, &cs, &own);
    add_sure_steps(h, s);
    free(s->creeps);
    s->creeps = NULL;
    s->ncreeps = 0;
    if (floor > 0 && s->change && h->npoints && !PG_SERIES_HEAP(s->metric)) {
        s->creeps = pg_malloc(h->npoints * sizeof(*s->creeps));
        s->ncreeps = pg_creeps(s->creeps, h->npoints, &cs, s->cps, s->ncps,
                               floor, own.threshold);
    }
    match_checks(h, s);
    carry(h, s);
}

void pg_history_detect(pg_history *h, const pg_cp_opts *opts)
{
    detect_job j = {h, opts};

    /* Each series apart, over the CPUs: 40 benchmarks of 5,000 pushes
     * are most of `history --last 5000`'s time. */
    pg_parallel_for(h->nseries, detect_one, &j);
}

/* A chart of `n` values in at most CHART_WIDTH block characters: each the
 * median of the points it stands for (of their first 64); a blank where
 * none is a number. */
static void chart(pg_str *out, const double *v, size_t n)
{
    static const char *const blocks[] = {"▁", "▂", "▃", "▄",
                                         "▅", "▆", "▇", "█"};
    size_t width = n < CHART_WIDTH ? n : CHART_WIDTH, i, j, k;
    double cell[CHART_WIDTH], lo = INFINITY, hi = -INFINITY, buf[64];

    for (i = 0; i < width; i++) {
        size_t from = i * n / width, to = (i + 1) * n / width;
        for (j = from, k = 0; j < to && k < 64; j++) {
            size_t at = k;
            if (isnan(v[j]))
                continue;
            for (; at > 0 && buf[at - 1] > v[j]; at--)
                buf[at] = buf[at - 1];
            buf[at] = v[j];
            k++;
        }
        cell[i] = k ? buf[k / 2] : NAN;
        if (k) {
            lo = cell[i] < lo ? cell[i] : lo;
            hi = cell[i] > hi ? cell[i] : hi;
        }
    }
    for (i = 0; i < width; i++) {
        int level = 0;
        if (isnan(cell[i])) {
            pg_str_putc(out, ' ');
            continue;
        }
        if (hi > lo) {
            /* Halves, so that a span of 1e308 to -1e308 stays finite. */
            double f = (cell[i] / 2 - lo / 2) / (hi / 2 - lo / 2) * 7.999;
            level = f >= 0 && f < 8 ? (int)f : f >= 8 ? 7 : 0;
        }
        pg_str_puts(out, blocks[level]);
    }
}

static const char *label_of(const pg_history *h, size_t at, char *buf,
                            size_t size)
{
    if (h->labels && h->labels[at][0]) /* a commit's short form */
        snprintf(buf, size, "%.*s", (int)pg_utf8_cut(h->labels[at], 12),
                 h->labels[at]);
    else
        snprintf(buf, size, "row %zu", at + 1);
    return buf;
}

const char *pg_series_metric_name(int metric)
{
    switch (metric) {
    case PG_SERIES_ALLOCS:
        return "allocations";
    case PG_SERIES_PEAK:
        return "peak heap";
    default:
        return pg_metric_name((pg_metric)metric);
    }
}

void pg_history_value(pg_str *out, const pg_history *h, const pg_series *s,
                      double v)
{
    int metric = s ? s->metric : PG_METRIC_TIME;

    if (metric == PG_SERIES_PEAK && isfinite(v)) {
        pg_format_bytes(out, v);
    } else if (metric == PG_SERIES_ALLOCS && isfinite(v)) {
        pg_format_count(out, v);
        pg_str_puts(out, v == 1 ? " alloc" : " allocs");
    } else if (metric || h->ns) {
        pg_result_format_metric(out, metric, v);
    } else {
        pg_str_printf(out, "%.4g", v);
    }
}

double pg_series_floor(const pg_history *h, const pg_series *s)
{
    return s->floor > 0 ? s->floor : h->floor;
}

/* The subject on a line of its own, and the line's end. */
static void subject(pg_str *out, const pg_history *h, size_t at)
{
    if (h->subjects && h->subjects[at])
        pg_str_printf(out, "\n%*s%.*s", 6, "",
                      (int)pg_utf8_cut(h->subjects[at], 72), h->subjects[at]);
    pg_str_putc(out, '\n');
}

/* What a check of a change point or creep said, on a line of its own;
 * counts those not checked (only in histories from records). */
static void state_line(pg_str *out, const pg_history *h, const pg_recheck *c,
                       int up, size_t *suspected)
{
    pg_recheck_state st = pg_recheck_state_of(c, up);

    if (!c) {
        *suspected += h->labels && h->subjects; /* records */
        return;
    }
    pg_str_printf(out, "%*s%s: measured again %.10s..%.10s", 6, "",
                  pg_recheck_state_name(st), c->parent, c->commit);
    if (isfinite(c->change))
        pg_str_printf(out, ", %+.1f%%", c->change * 100);
    if (st == PG_UNTOLD)
        pg_str_printf(out, " (%s)", pg_status_name((pg_status)c->status));
    if (c->culprit)
        pg_str_printf(out, "; bisected to %.10s %.*s", c->culprit,
                      (int)pg_utf8_cut(c->culprit_subject, 50),
                      c->culprit_subject);
    pg_str_putc(out, '\n');
}

/* Change point `k` of `s`: where, from what to what, how sure, its
 * commit, and what a check found (*suspected counts those not checked). */
static void step_lines(pg_str *out, const pg_history *h, const pg_series *s,
                       size_t k, size_t wname, size_t *suspected)
{
    const pg_changepoint *cp = &s->cps[k];
    char label[32];

    pg_str_printf(out, "%*s  at %s: ", (int)wname, "",
                  label_of(h, cp->at, label, sizeof(label)));
    pg_history_value(out, h, s, cp->before);
    pg_str_puts(out, " → ");
    pg_history_value(out, h, s, cp->after);
    if (isfinite(pg_cp_change(cp)))
        pg_str_printf(out, " (%+.1f%%)", pg_cp_change(cp) * 100);
    if (isfinite(cp->z))
        pg_str_printf(out, ", %.1f times its uncertainty", fabs(cp->z));
    else
        pg_str_puts(out, PG_SERIES_HEAP(s->metric)
                             ? ", counted exactly"
                             : ", as the gate measured it");
    subject(out, h, cp->at);
    if (s->accepted && s->accepted[cp->at])
        pg_str_printf(out, "%*saccepted on purpose: %.*s\n", 6, "",
                      (int)pg_utf8_cut(s->accepted[cp->at], 72),
                      s->accepted[cp->at]);
    if (!s->metric) /* a count is what it is: nothing to measure again */
        state_line(out, h, s->cp_check ? s->cp_check[k] : NULL,
                   cp->after > cp->before, suspected);
}

/* Change of noise `k` of `s`: where, and the sd before and after. */
static void noise_line(pg_str *out, const pg_history *h, const pg_series *s,
                       size_t k, size_t wname)
{
    const pg_noise_change *c = &s->noise[k];
    char label[32];

    pg_str_printf(out, "%*s  at %s: the noise %s, sd ", (int)wname, "",
                  label_of(h, c->at, label, sizeof(label)),
                  c->sd_after > c->sd_before ? "grew" : "shrank");
    pg_history_value(out, h, s, c->sd_before);
    pg_str_puts(out, " → ");
    pg_history_value(out, h, s, c->sd_after);
    if (c->sd_before > 0)
        pg_str_printf(out, " (x%.2g)", c->sd_after / c->sd_before);
    pg_str_printf(out, ", %.1f times its uncertainty; not a step\n",
                  fabs(c->z));
}

/* Creep `k` of `s`, as step_lines() says a change point. */
static void creep_lines(pg_str *out, const pg_history *h, const pg_series *s,
                        size_t k, size_t wname, size_t *suspected)
{
    const pg_creep *c = &s->creeps[k];
    char from[32], to[32];

    pg_str_printf(out,
                  "%*s  creep %+.1f%% over %zu pushes, %s..%s, each within "
                  "the %.3g%% floor; %.1f times its uncertainty\n",
                  (int)wname, "", c->change * 100, c->to - c->from + 1,
                  label_of(h, c->from, from, sizeof(from)),
                  label_of(h, c->to, to, sizeof(to)),
                  pg_series_floor(h, s) * 100, fabs(c->z));
    if (h->subjects && h->subjects[c->from] && h->subjects[c->to])
        pg_str_printf(
            out, "%*s%.*s .. %.*s\n", 6, "",
            (int)pg_utf8_cut(h->subjects[c->from], 34), h->subjects[c->from],
            (int)pg_utf8_cut(h->subjects[c->to], 34), h->subjects[c->to]);
    if (!s->metric)
        state_line(out, h, s->creep_check ? s->creep_check[k] : NULL,
                   c->change > 0, suspected);
}

void pg_history_render_text(pg_str *out, const pg_history *h)
{
    size_t i, k, wname = 0, suspected = 0;

    pg_str_printf(out, "%zu series of %zu point%s, oldest first (%s)\n\n",
                  h->nseries, h->npoints, h->npoints == 1 ? "" : "s",
                  h->source);
    for (i = 0; i < h->nseries; i++)
        if (strlen(h->series[i].name) > wname)
            wname = strlen(h->series[i].name);
    wname = wname > 24 ? 24 : wname;
    for (i = 0; i < h->nseries; i++) {
        const pg_series *s = &h->series[i];
        size_t cut = pg_utf8_cut(s->name, wname);
        pg_str_printf(out, "%.*s%*s  ", (int)cut, s->name, (int)(wname - cut),
                      "");
        chart(out, s->values, h->npoints);
        if (!s->ncps)
            pg_str_puts(out, "  no change point\n");
        else
            pg_str_printf(out, "  %zu change point%s\n", s->ncps,
                          s->ncps == 1 ? "" : "s");
        for (k = 0; k < s->ncps; k++)
            step_lines(out, h, s, k, wname, &suspected);
        for (k = 0; k < s->ncreeps; k++)
            creep_lines(out, h, s, k, wname, &suspected);
        for (k = 0; k < s->nnoise; k++)
            noise_line(out, h, s, k, wname);
    }
    if (suspected)
        pg_str_printf(out,
                      "\n%zu suspected: 'perfgate history --confirm' measures "
                      "each again on this machine (and bisects a slowdown "
                      "that spans several commits)\n",
                      suspected);
    for (i = 0; i < h->notes.n; i++)
        pg_str_printf(out, "%snote: %s\n", i ? "" : "\n", h->notes.v[i]);
    if (h->ignored.n) {
        pg_str_puts(out, "\nnot series (not all numbers):");
        for (i = 0; i < h->ignored.n; i++)
            pg_str_printf(out, "%s %.*s", i ? "," : "",
                          (int)pg_utf8_cut(h->ignored.v[i], 40),
                          h->ignored.v[i]);
        pg_str_putc(out, '\n');
    }
}

/* "state", and what the check measured: "check": {parent, commit,
 * status, change, culprit}. */
static void add_state(cJSON *o, const pg_recheck *c, int up)
{
    cJSON *co;

    cJSON_AddStringToObject(o, "state",
                            pg_recheck_state_name(pg_recheck_state_of(c, up)));
    if (!c)
        return;
    co = cJSON_AddObjectToObject(o, "check");
    cJSON_AddStringToObject(co, "parent", c->parent);
    cJSON_AddStringToObject(co, "commit", c->commit);
    cJSON_AddStringToObject(co, "status", pg_status_name((pg_status)c->status));
    pg_json_add_number(co, "change", c->change);
    if (c->culprit) {
        cJSON *cu = cJSON_AddObjectToObject(co, "culprit");
        cJSON_AddStringToObject(cu, "commit", c->culprit);
        cJSON_AddStringToObject(cu, "subject", c->culprit_subject);
    }
}

static void add_strings(cJSON *o, const char *key, char *const *v, size_t n)
{
    cJSON *arr = cJSON_AddArrayToObject(o, key);
    size_t i;

    for (i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, v[i] ? cJSON_CreateString(v[i])
                                       : cJSON_CreateNull());
}

/* Numbers, null where one is not finite. */
static void add_numbers(cJSON *o, const char *key, const double *v, size_t n)
{
    cJSON *arr = cJSON_AddArrayToObject(o, key);
    size_t i;

    for (i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, isfinite(v[i]) ? cJSON_CreateNumber(v[i])
                                                 : cJSON_CreateNull());
}

/* "noise_changes": where the noise changed its scale: {index, label,
 * sd_before, sd_after, z}. */
static void add_noise(cJSON *so, const pg_history *h, const pg_series *s)
{
    cJSON *arr = cJSON_AddArrayToObject(so, "noise_changes");
    size_t k;

    for (k = 0; k < s->nnoise; k++) {
        const pg_noise_change *c = &s->noise[k];
        cJSON *co = cJSON_CreateObject();
        cJSON_AddNumberToObject(co, "index", (double)c->at);
        if (h->labels)
            cJSON_AddStringToObject(co, "label", h->labels[c->at]);
        else
            cJSON_AddNullToObject(co, "label");
        pg_json_add_number(co, "sd_before", c->sd_before);
        pg_json_add_number(co, "sd_after", c->sd_after);
        pg_json_add_number(co, "z", c->z);
        cJSON_AddItemToArray(arr, co);
    }
}

/* A series' change points, as JSON. */
static void add_changepoints(cJSON *so, const pg_history *h, const pg_series *s)
{
    cJSON *cps = cJSON_AddArrayToObject(so, "changepoints");
    size_t k;

    for (k = 0; k < s->ncps; k++) {
        const pg_changepoint *cp = &s->cps[k];
        cJSON *co = cJSON_CreateObject();
        cJSON_AddNumberToObject(co, "index", (double)cp->at);
        if (h->labels)
            cJSON_AddStringToObject(co, "label", h->labels[cp->at]);
        else
            cJSON_AddNullToObject(co, "label");
        pg_json_add_number(co, "before", cp->before);
        pg_json_add_number(co, "after", cp->after);
        pg_json_add_number(co, "change", pg_cp_change(cp));
        pg_json_add_number(co, "z", cp->z);
        if (h->subjects)
            cJSON_AddStringToObject(co, "subject", h->subjects[cp->at]);
        if (s->accepted && s->accepted[cp->at])
            cJSON_AddStringToObject(co, "accepted", s->accepted[cp->at]);
        add_state(co, s->cp_check ? s->cp_check[k] : NULL,
                  cp->after > cp->before);
        cJSON_AddItemToArray(cps, co);
    }
}

/* A series' creeps, as JSON. */
static void add_creeps(cJSON *so, const pg_history *h, const pg_series *s)
{
    cJSON *cps = cJSON_AddArrayToObject(so, "creeps");
    size_t k;

    for (k = 0; k < s->ncreeps; k++) {
        const pg_creep *c = &s->creeps[k];
        cJSON *co = cJSON_CreateObject();
        cJSON_AddNumberToObject(co, "from", (double)c->from);
        cJSON_AddNumberToObject(co, "to", (double)c->to);
        if (h->labels) {
            cJSON_AddStringToObject(co, "from_label", h->labels[c->from]);
            cJSON_AddStringToObject(co, "to_label", h->labels[c->to]);
        }
        pg_json_add_number(co, "change", c->change);
        pg_json_add_number(co, "z", c->z);
        add_state(co, s->creep_check ? s->creep_check[k] : NULL, c->change > 0);
        cJSON_AddItemToArray(cps, co);
    }
}

char *pg_history_to_json(const pg_history *h)
{
    cJSON *root = cJSON_CreateObject(), *arr;
    size_t i;

    cJSON_AddStringToObject(root, "source", h->source);
    cJSON_AddNumberToObject(root, "points", (double)h->npoints);
    if (h->labels)
        add_strings(root, "labels", h->labels, h->npoints);
    if (h->subjects)
        add_strings(root, "subjects", h->subjects, h->npoints);
    arr = cJSON_AddArrayToObject(root, "series");
    for (i = 0; i < h->nseries; i++) {
        const pg_series *s = &h->series[i];
        cJSON *so = cJSON_CreateObject();
        cJSON_AddStringToObject(so, "name", s->name);
        if (s->bench)
            cJSON_AddStringToObject(so, "benchmark", s->bench);
        if (s->machine)
            cJSON_AddStringToObject(so, "machine", s->machine);
        if (s->metric)
            cJSON_AddStringToObject(so, "metric",
                                    pg_series_metric_name(s->metric));
        if (s->metric && !PG_SERIES_HEAP(s->metric)) {
            cJSON_AddStringToObject(so, "counter",
                                    s->counter ? s->counter : "");
            pg_json_add_number(so, "floor", pg_series_floor(h, s));
        }
        add_numbers(so, "values", s->values, h->npoints);
        if (s->carried) {
            cJSON *c = cJSON_AddArrayToObject(so, "carried");
            size_t j;
            for (j = 0; j < h->npoints; j++)
                cJSON_AddItemToArray(c, cJSON_CreateBool(s->carried[j]));
        }
        if (s->sd)
            add_numbers(so, "sd", s->sd, h->npoints);
        if (s->change)
            add_numbers(so, "change", s->change, h->npoints);
        if (s->change_sd)
            add_numbers(so, "change_sd", s->change_sd, h->npoints);
        add_changepoints(so, h, s);
        add_noise(so, h, s);
        add_creeps(so, h, s);
        cJSON_AddItemToArray(arr, so);
    }
    if (h->floor > 0)
        pg_json_add_number(root, "noise_floor", h->floor);
    arr = cJSON_AddArrayToObject(root, "notes");
    for (i = 0; i < h->notes.n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(h->notes.v[i]));
    return pg_json_print(root, 1);
}

void pg_history_clear(pg_history *h)
{
    size_t i, k;

    for (i = 0; i < h->nseries; i++) {
        free(h->series[i].name);
        free(h->series[i].bench);
        free(h->series[i].machine);
        free(h->series[i].counter);
        free(h->series[i].values);
        free(h->series[i].sd);
        free(h->series[i].change);
        free(h->series[i].change_sd);
        free(h->series[i].cps);
        free(h->series[i].creeps);
        free(h->series[i].sure);
        free(h->series[i].carried);
        for (k = 0; h->series[i].accepted && k < h->npoints; k++)
            free(h->series[i].accepted[k]);
        free(h->series[i].accepted);
        free(h->series[i].cp_check);
        free(h->series[i].creep_check);
    }
    free(h->series);
    for (i = 0; i < h->nchecks; i++) {
        free(h->checks[i].commit);
        free(h->checks[i].parent);
        free(h->checks[i].machine);
        free(h->checks[i].bench);
        free(h->checks[i].culprit);
        free(h->checks[i].culprit_subject);
    }
    free(h->checks);
    for (i = 0; h->labels && i < h->npoints; i++)
        free(h->labels[i]);
    free(h->labels);
    for (i = 0; h->subjects && i < h->npoints; i++)
        free(h->subjects[i]);
    free(h->subjects);
    free(h->source);
    pg_strvec_clear(&h->notes);
    pg_strvec_clear(&h->ignored);
    memset(h, 0, sizeof(*h));
}
