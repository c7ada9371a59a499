/*
 * history_html.c - the history as one page (history.h): a chart per
 * benchmark with every machine's series along the commits, the change
 * points and creeps marked on it and listed under it.
 *
 * Each chart's plot is an inner SVG whose x axis is the points' index and
 * whose y axis is already in pixels, so zooming along the commits is one
 * change of its viewBox (lines and dots keep their width: their strokes
 * do not scale).  The page's one script does that, pinned by its hash.
 */
#include "history.h"
#include "counter.h"
#include "escape.h"
#include "html.h"
#include "str.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define W 760 /* chart width, px */
#define H 230
#define LEFT 70 /* room for the y axis's labels */
#define RIGHT 14
#define TOP 10
#define BOTTOM 24 /* room for the commits under the axis */
#define PW (W - LEFT - RIGHT)
#define PH (H - TOP - BOTTOM)

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#59a14f",
                                      "#b07aa1", "#9c755f", "#76b7b2"};
#define NCOLORS (sizeof(palette) / sizeof(palette[0]))

/* Text as an element's text or an attribute's value. */
static void esc(pg_str *out, const char *text)
{
    pg_escape_html(out, text ? text : "", text ? strlen(text) : 0, 1);
}

/* A point's short label: a commit's first 10 characters, a table's label
 * cut, or "row N". */
static void short_label(pg_str *out, const pg_history *h, size_t at)
{
    const char *l = h->labels ? h->labels[at] : NULL;
    size_t i, n;

    if (!l || !*l) {
        pg_str_printf(out, "row %zu", at + 1);
        return;
    }
    n = pg_utf8_cut(l, 12);
    for (i = 0; i < n; i++) /* one line each in data-labels */
        pg_str_putc(out, l[i] == '\n' || l[i] == '\r' ? ' ' : l[i]);
}

static void value_text(pg_str *out, const pg_history *h, const pg_series *s,
                       double v)
{
    pg_str t = PG_STR_INIT;

    pg_history_value(&t, h, s, v);
    esc(out, pg_str_cstr(&t));
    pg_str_clear(&t);
}

/* `shown` as code, linked to the commit `id`'s page when there is an
 * address for it. */
static void commit_link(pg_str *out, const char *commit_url, const char *id,
                        const char *shown)
{
    if (commit_url && id && *id) {
        pg_str_puts(out, "<a href=\"");
        esc(out, commit_url);
        esc(out, id);
        pg_str_puts(out, "\">");
    }
    pg_str_puts(out, "<code>");
    esc(out, shown);
    pg_str_puts(out, "</code>");
    if (commit_url && id && *id)
        pg_str_puts(out, "</a>");
}

/* A point's commit, by its short label. */
static void commit_cell(pg_str *out, const pg_history *h, size_t at,
                        const char *commit_url)
{
    pg_str t = PG_STR_INIT;

    short_label(&t, h, at);
    commit_link(out, commit_url, h->labels ? h->labels[at] : NULL,
                pg_str_cstr(&t));
    pg_str_clear(&t);
}

/* The cell of the subjects of commits `from` to `to`, when there are
 * subjects. */
static void subject_cell(pg_str *out, const pg_history *h, size_t from,
                         size_t to)
{
    if (!h->subjects)
        return;
    pg_str_puts(out, "<td>");
    esc(out, h->subjects[from] ? h->subjects[from] : "");
    if (to != from) {
        pg_str_puts(out, " .. ");
        esc(out, h->subjects[to] ? h->subjects[to] : "");
    }
    pg_str_puts(out, "</td>");
}

/* The series of one chart: those of one benchmark (every machine), or a
 * table's one column. */
typedef struct group {
    const char *title;
    int metric; /* the series' metric: a count's chart is its own */
    size_t *of; /* indexes into h->series */
    size_t n;
} group;

static size_t groups_of(group **out, const pg_history *h)
{
    group *g = pg_calloc(h->nseries + 1, sizeof(*g));
    size_t n = 0, i, k;

    for (i = 0; i < h->nseries; i++) {
        const pg_series *s = &h->series[i];
        const char *title = s->bench ? s->bench : s->name;
        for (k = 0; k < n && !(s->bench && !strcmp(g[k].title, title) &&
                               g[k].metric == s->metric);
             k++)
            ;
        if (k == n) {
            g[n].title = title;
            g[n].metric = s->metric;
            g[n].of = pg_calloc(h->nseries, sizeof(size_t));
            n++;
        }
        g[k].of[g[k].n++] = i;
    }
    *out = g;
    return n;
}

/* A group's title: the benchmark, and what a count counts. */
static void group_title(pg_str *out, const group *g)
{
    esc(out, g->title);
    if (g->metric)
        pg_str_printf(out, " (%s)", pg_series_metric_name(g->metric));
}

static void groups_free(group *g, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(g[i].of);
    free(g);
}

/* The y axis's range over the group's points, with a margin. */
static void y_range(double *lo, double *hi, const pg_history *h, const group *g)
{
    size_t i, k;

    *lo = INFINITY;
    *hi = -INFINITY;
    for (k = 0; k < g->n; k++)
        for (i = 0; i < h->npoints; i++) {
            double v = h->series[g->of[k]].values[i];
            if (isfinite(v)) {
                *lo = v < *lo ? v : *lo;
                *hi = v > *hi ? v : *hi;
            }
        }
    if (!isfinite(*lo)) {
        *lo = 0;
        *hi = 1;
    } else if (*hi - *lo < fabs(*hi) * 1e-3 + 1e-12) {
        double pad = fabs(*hi) * 0.05 + 1e-9;
        *lo -= pad;
        *hi += pad;
    } else {
        double pad = (*hi - *lo) * 0.08;
        *lo -= pad;
        *hi += pad;
    }
    if (h->ns && *lo < 0)
        *lo = 0;
}

static double ypix(double v, double lo, double hi)
{
    return PH - (v - lo) / (hi - lo) * PH;
}

/* The labels under the x axis at the oldest, middle and newest point:
 * what the script moves when the chart is zoomed. */
static void x_labels(pg_str *out, const pg_history *h)
{
    static const char *const anchor[3] = {"start", "middle", "end"};
    size_t n = h->npoints, k;

    for (k = 0; k < 3; k++) {
        size_t at = n ? (n - 1) * k / 2 : 0;
        double x = LEFT + (at + 0.5) / (n ? n : 1) * PW;
        pg_str_printf(out,
                      "<text class=\"xt tick\" x=\"%.1f\" y=\"%d\" "
                      "text-anchor=\"%s\">",
                      x, H - 6, anchor[k]);
        if (n) {
            pg_str t = PG_STR_INIT;
            short_label(&t, h, at);
            esc(out, pg_str_cstr(&t));
            pg_str_clear(&t);
        }
        pg_str_puts(out, "</text>");
    }
}

static void y_axis(pg_str *out, const pg_history *h, const pg_series *s,
                   double lo, double hi)
{
    int k;

    pg_str_printf(out,
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                  "class=\"axis\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
                  "y2=\"%d\" class=\"axis\"/>",
                  LEFT, TOP, LEFT, H - BOTTOM, LEFT, H - BOTTOM, W - RIGHT,
                  H - BOTTOM);
    for (k = 0; k < 3; k++) {
        double v = lo + (hi - lo) * k / 2, y = TOP + ypix(v, lo, hi);
        pg_str_printf(out,
                      "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                      "class=\"axis\"/><text x=\"%d\" y=\"%.1f\" "
                      "class=\"tick\" text-anchor=\"end\">",
                      LEFT - 4, y, LEFT, y, LEFT - 6, y + 4);
        value_text(out, h, s, v);
        pg_str_puts(out, "</text>");
    }
}

/* A point's tooltip: commit, subject, value, paired change. */
static void point_title(pg_str *out, const pg_history *h, const pg_series *s,
                        size_t i)
{
    pg_str t = PG_STR_INIT;

    pg_str_puts(out, "<title>");
    short_label(&t, h, i);
    if (h->subjects && h->subjects[i])
        pg_str_printf(&t, " %s", h->subjects[i]);
    pg_str_puts(&t, "\n");
    if (s->machine)
        pg_str_printf(&t, "%s: ", s->machine);
    esc(out, pg_str_cstr(&t));
    value_text(out, h, s, s->values[i]);
    if (s->carried && s->carried[i])
        pg_str_puts(out, " (the push before's: this push's code was its)");
    else if (s->change && isfinite(s->change[i])) {
        pg_str_clear(&t);
        pg_str_puts(&t, " (");
        pg_format_change(&t, s->change[i]);
        pg_str_puts(&t, " against the push before)");
        esc(out, pg_str_cstr(&t));
    }
    pg_str_clear(&t);
    pg_str_puts(out, "</title>");
}

/* One machine's series: its line, broken where a point is missing, and a
 * dot per point. */
static void series_marks(pg_str *out, const pg_history *h, const pg_series *s,
                         const char *color, double lo, double hi)
{
    size_t i;
    int pen = 0;

    pg_str_printf(out, "<path class=\"line\" stroke=\"%s\" d=\"", color);
    for (i = 0; i < h->npoints; i++) {
        if (!isfinite(s->values[i])) {
            pen = 0;
            continue;
        }
        pg_str_printf(out, "%s%zu %.2f ", pen ? "L" : "M", i,
                      ypix(s->values[i], lo, hi));
        pen = 1;
    }
    pg_str_puts(out, "\"/>");
    for (i = 0; i < h->npoints; i++) {
        double y;
        if (!isfinite(s->values[i]))
            continue;
        y = ypix(s->values[i], lo, hi);
        pg_str_printf(out,
                      "<line class=\"pt%s\" stroke=\"%s\" x1=\"%zu\" "
                      "y1=\"%.2f\" x2=\"%zu\" y2=\"%.2f\">",
                      s->carried && s->carried[i] ? " carried" : "", color, i,
                      y, i, y);
        point_title(out, h, s, i);
        pg_str_puts(out, "</line>");
    }
}

/* The step's size as a signed percentage, or "" when the level before is
 * 0. */
static void step_change(pg_str *out, const pg_changepoint *cp)
{
    pg_str t = PG_STR_INIT;

    if (isfinite(pg_cp_change(cp)))
        pg_format_change(&t, pg_cp_change(cp));
    esc(out, pg_str_cstr(&t));
    pg_str_clear(&t);
}

/* The creeps shaded and the change points drawn across the plot. */
static void steps_marks(pg_str *out, const pg_history *h, const pg_series *s)
{
    size_t k;

    for (k = 0; k < s->ncreeps; k++) {
        const pg_creep *c = &s->creeps[k];
        pg_str t = PG_STR_INIT;
        pg_str_printf(out,
                      "<rect class=\"creep\" x=\"%.1f\" y=\"0\" "
                      "width=\"%zu\" height=\"%d\"><title>",
                      c->from - 0.5, c->to - c->from + 1, PH);
        pg_str_puts(&t, "creep ");
        pg_format_change(&t, c->change);
        pg_str_printf(&t, " over %zu pushes", c->to - c->from + 1);
        if (s->machine)
            pg_str_printf(&t, " on %s", s->machine);
        esc(out, pg_str_cstr(&t));
        pg_str_clear(&t);
        pg_str_puts(out, "</title></rect>");
    }
    for (k = 0; k < s->ncps; k++) {
        const pg_changepoint *cp = &s->cps[k];
        pg_str t = PG_STR_INIT;
        pg_str_printf(out,
                      "<line class=\"cp %s\" x1=\"%.1f\" y1=\"0\" "
                      "x2=\"%.1f\" y2=\"%d\"><title>",
                      cp->after > cp->before ? "up" : "down", cp->at - 0.5,
                      cp->at - 0.5, PH);
        short_label(&t, h, cp->at);
        esc(out, pg_str_cstr(&t));
        pg_str_clear(&t);
        pg_str_putc(out, ' ');
        step_change(out, cp);
        if (s->accepted && s->accepted[cp->at]) {
            pg_str_puts(out, ", accepted on purpose: ");
            esc(out, s->accepted[cp->at]);
        }
        pg_str_puts(out, "</title></line>");
    }
    for (k = 0; k < s->nnoise; k++) {
        const pg_noise_change *c = &s->noise[k];
        pg_str_printf(out,
                      "<line class=\"noise\" x1=\"%.1f\" y1=\"0\" "
                      "x2=\"%.1f\" y2=\"%d\"><title>the noise %s here</title>"
                      "</line>",
                      c->at - 0.5, c->at - 0.5, PH,
                      c->sd_after > c->sd_before ? "grew" : "shrank");
    }
}

static void legend(pg_str *out, const pg_history *h, const group *g)
{
    size_t k;

    if (!h->series[g->of[0]].machine)
        return;
    pg_str_puts(out, "<p class=\"legend\">");
    for (k = 0; k < g->n; k++) {
        pg_str_printf(out, "<span><i style=\"background:%s\"></i>",
                      palette[k % NCOLORS]);
        esc(out, h->series[g->of[k]].machine);
        pg_str_puts(out, "</span> ");
    }
    pg_str_puts(out, "</p>");
}

static void chart(pg_str *out, const pg_history *h, const group *g)
{
    double lo, hi;
    size_t i, k;

    y_range(&lo, &hi, h, g);
    pg_str_printf(out, "<figure class=\"hist\" data-n=\"%zu\" data-labels=\"",
                  h->npoints);
    for (i = 0; i < h->npoints; i++) {
        pg_str t = PG_STR_INIT;
        short_label(&t, h, i);
        if (i)
            pg_str_puts(out, "&#10;");
        esc(out, pg_str_cstr(&t));
        pg_str_clear(&t);
    }
    pg_str_printf(out,
                  "\"><svg class=\"chart\" data-kind=\"history\" "
                  "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "role=\"img\">",
                  W, H, W, H);
    y_axis(out, h, &h->series[g->of[0]], lo, hi);
    x_labels(out, h);
    pg_str_printf(out,
                  "<svg class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" "
                  "height=\"%d\" viewBox=\"-0.5 0 %zu %d\" "
                  "preserveAspectRatio=\"none\">",
                  LEFT, TOP, PW, PH, h->npoints ? h->npoints : 1, PH);
    for (k = 0; k < g->n; k++)
        steps_marks(out, h, &h->series[g->of[k]]);
    for (k = 0; k < g->n; k++)
        series_marks(out, h, &h->series[g->of[k]], palette[k % NCOLORS], lo,
                     hi);
    pg_str_puts(out, "</svg></svg></figure>\n");
}

/* What became of a change point or creep: suspected, or what measuring
 * it again said, and the commit a bisect found. */
static void state_cell(pg_str *out, const pg_recheck *c, int up,
                       const char *commit_url)
{
    pg_recheck_state st = pg_recheck_state_of(c, up);
    pg_str t = PG_STR_INIT;

    pg_str_printf(out, "<td class=\"state %s\">",
                  st == PG_CONFIRMED       ? "confirmed"
                  : st == PG_NOT_CONFIRMED ? "refuted"
                                           : "open");
    esc(out, pg_recheck_state_name(st));
    if (c && isfinite(c->change)) {
        pg_str_puts(&t, " (measured again: ");
        pg_format_change(&t, c->change);
        pg_str_puts(&t, ")");
        esc(out, pg_str_cstr(&t));
    }
    if (c && c->culprit) {
        char shown[11];
        snprintf(shown, sizeof(shown), "%s", c->culprit);
        pg_str_puts(out, "; bisected to ");
        commit_link(out, commit_url, c->culprit, shown);
        pg_str_putc(out, ' ');
        esc(out, c->culprit_subject);
    }
    pg_str_puts(out, "</td>");
    pg_str_clear(&t);
}

/* The change points and creeps of the group, in a table. */
/* The machine's cell, when the table has the column. */
static void machine_cell(pg_str *out, const pg_series *s, int machines)
{
    if (!machines)
        return;
    pg_str_puts(out, "<td>");
    esc(out, s->machine);
    pg_str_puts(out, "</td>");
}

/* The row of change point `j` of `s`. */
static void step_row(pg_str *out, const pg_history *h, const pg_series *s,
                     size_t j, int machines, const char *commit_url)
{
    const pg_changepoint *cp = &s->cps[j];

    pg_str_printf(out, "<tr class=\"cp %s\">",
                  cp->after > cp->before ? "up" : "down");
    machine_cell(out, s, machines);
    pg_str_puts(out, "<td>step");
    if (s->accepted && s->accepted[cp->at]) {
        pg_str_puts(out, "<br><span class=\"accepted\">accepted on "
                         "purpose: ");
        esc(out, s->accepted[cp->at]);
        pg_str_puts(out, "</span>");
    }
    pg_str_puts(out, "</td><td>");
    commit_cell(out, h, cp->at, commit_url);
    pg_str_puts(out, "</td><td class=\"num\">");
    value_text(out, h, s, cp->before);
    pg_str_puts(out, " → ");
    value_text(out, h, s, cp->after);
    pg_str_puts(out, "</td><td class=\"num\">");
    step_change(out, cp);
    if (isfinite(cp->z))
        pg_str_printf(out, "</td><td>%.1f times its uncertainty", fabs(cp->z));
    else
        pg_str_puts(out, "</td><td>the gate's own verdict");
    pg_str_puts(out, "</td>");
    if (s->metric) /* a count is what it is: nothing to measure again */
        pg_str_puts(out, "<td class=\"state\">counted</td>");
    else
        state_cell(out, s->cp_check ? s->cp_check[j] : NULL,
                   cp->after > cp->before, commit_url);
    subject_cell(out, h, cp->at, cp->at);
    pg_str_puts(out, "</tr>");
}

/* The row of change of noise `j` of `s`: not a step, no state. */
static void noise_row(pg_str *out, const pg_history *h, const pg_series *s,
                      size_t j, int machines, const char *commit_url)
{
    const pg_noise_change *c = &s->noise[j];

    pg_str_puts(out, "<tr class=\"noise\">");
    machine_cell(out, s, machines);
    pg_str_printf(out, "<td>the noise %s</td><td>",
                  c->sd_after > c->sd_before ? "grew" : "shrank");
    commit_cell(out, h, c->at, commit_url);
    pg_str_puts(out, "</td><td class=\"num\">sd ");
    value_text(out, h, s, c->sd_before);
    pg_str_puts(out, " → ");
    value_text(out, h, s, c->sd_after);
    pg_str_puts(out, "</td><td class=\"num\">");
    if (c->sd_before > 0)
        pg_str_printf(out, "x%.2g", c->sd_after / c->sd_before);
    pg_str_printf(out,
                  "</td><td>%.1f times its uncertainty</td><td>not a "
                  "step</td>",
                  fabs(c->z));
    subject_cell(out, h, c->at, c->at);
    pg_str_puts(out, "</tr>");
}

/* The row of creep `j` of `s`. */
static void creep_row(pg_str *out, const pg_history *h, const pg_series *s,
                      size_t j, int machines, const char *commit_url)
{
    const pg_creep *c = &s->creeps[j];
    pg_str t = PG_STR_INIT;

    pg_str_puts(out, "<tr class=\"creep\">");
    machine_cell(out, s, machines);
    pg_str_printf(out, "<td>creep, %zu pushes</td><td>", c->to - c->from + 1);
    commit_cell(out, h, c->from, commit_url);
    pg_str_puts(out, " .. ");
    commit_cell(out, h, c->to, commit_url);
    pg_str_puts(out, "</td><td class=\"num\">");
    if (c->from > 0 && isfinite(s->values[c->from - 1]))
        value_text(out, h, s, s->values[c->from - 1]);
    pg_str_puts(out, " → ");
    if (isfinite(s->values[c->to]))
        value_text(out, h, s, s->values[c->to]);
    pg_str_puts(out, "</td><td class=\"num\">");
    pg_format_change(&t, c->change);
    esc(out, pg_str_cstr(&t));
    pg_str_clear(&t);
    pg_str_printf(out,
                  "</td><td>each within the %.3g%% floor; %.1f times its "
                  "uncertainty</td>",
                  pg_series_floor(h, s) * 100, fabs(c->z));
    if (s->metric)
        pg_str_puts(out, "<td class=\"state\">counted</td>");
    else
        state_cell(out, s->creep_check ? s->creep_check[j] : NULL,
                   c->change > 0, commit_url);
    subject_cell(out, h, c->from, c->to);
    pg_str_puts(out, "</tr>");
}

static void steps_table(pg_str *out, const pg_history *h, const group *g,
                        const char *commit_url)
{
    size_t k, j, rows = 0;
    int machines = h->series[g->of[0]].machine != NULL;

    for (k = 0; k < g->n; k++)
        rows += h->series[g->of[k]].ncps + h->series[g->of[k]].ncreeps +
                h->series[g->of[k]].nnoise;
    if (!rows) {
        pg_str_puts(out, "<p class=\"note\">No change point, no creep.</p>\n");
        return;
    }
    pg_str_printf(out,
                  "<table class=\"steps\"><tr>%s<th>What</th><th>"
                  "Commit</th><th>Level</th><th>Change</th><th>"
                  "Evidence</th><th>State</th>%s</tr>",
                  machines ? "<th>Machine</th>" : "",
                  h->subjects ? "<th>Subject</th>" : "");
    for (k = 0; k < g->n; k++) {
        const pg_series *s = &h->series[g->of[k]];
        for (j = 0; j < s->ncps; j++)
            step_row(out, h, s, j, machines, commit_url);
        for (j = 0; j < s->ncreeps; j++)
            creep_row(out, h, s, j, machines, commit_url);
        for (j = 0; j < s->nnoise; j++)
            noise_row(out, h, s, j, machines, commit_url);
    }
    pg_str_puts(out, "</table>\n");
}

static void summary(pg_str *out, const pg_history *h, const group *g, size_t ng)
{
    size_t i, k;

    pg_str_puts(out, "<table class=\"summary\"><tr><th>Series</th><th>"
                     "Change points</th><th>Creeps</th><th>Newest</th>"
                     "</tr>");
    for (i = 0; i < ng; i++) {
        const pg_series *first = &h->series[g[i].of[0]];
        size_t cps = 0, creeps = 0, j;
        double newest = NAN;
        for (k = 0; k < g[i].n; k++) {
            cps += h->series[g[i].of[k]].ncps;
            creeps += h->series[g[i].of[k]].ncreeps;
        }
        for (j = h->npoints; j > 0 && isnan(newest); j--)
            newest = first->values[j - 1];
        pg_str_printf(out, "<tr><td><a href=\"#h%zu\">", i);
        group_title(out, &g[i]);
        pg_str_printf(out,
                      "</a></td><td class=\"num\">%zu</td><td "
                      "class=\"num\">%zu</td><td class=\"num\">",
                      cps, creeps);
        if (isfinite(newest))
            value_text(out, h, first, newest);
        pg_str_puts(out, "</td></tr>");
    }
    pg_str_puts(out, "</table>\n");
}

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222}"
    "h1{font-size:20px}h2{font-size:17px;margin-top:28px}"
    "figure{margin:4px 0}.note{font-size:12px;color:#555;margin:2px 0}"
    "svg.chart{background:#fafafa;border:1px solid #ddd}"
    "svg.plot{cursor:grab}svg.plot *{vector-effect:non-scaling-stroke}"
    ".axis{stroke:#999}.tick{font-size:11px;fill:#555}"
    ".line{fill:none;stroke-width:1.5}"
    ".pt{stroke-width:6;stroke-linecap:round}"
    ".pt.carried{stroke-width:3;stroke-opacity:.5}"
    ".cp{stroke-width:2;stroke-dasharray:4 3}.cp.up{stroke:#e15759}"
    ".cp.down{stroke:#59a14f}.creep{fill:#f28e2b;fill-opacity:.13}"
    ".noise{stroke:#888;stroke-width:1;stroke-dasharray:1 3}"
    ".legend i{display:inline-block;width:10px;height:10px;margin-right:4px}"
    "table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid "
    "#ddd;padding:2px 8px;text-align:left}td.num{text-align:right;"
    "font-variant-numeric:tabular-nums}tr.cp.up td{background:#fbeaea}"
    "tr.cp.down td{background:#e8f5e8}tr.creep td{background:#fdf1e4}"
    "tr.noise td{color:#555}"
    ".accepted{color:#555;font-size:90%}"
    "td.state.confirmed{font-weight:600}td.state.refuted{color:#777}";

/* Zoom along the commits: the wheel zooms at the pointer, a drag moves,
 * a double click shows every point again; "#zoom=A-B" in the address
 * opens each chart at points A to B (1: the oldest).  data-zoom says
 * what each chart shows, data-charts how many were drawn (for tests). */
static const char script[] =
    "document.addEventListener('DOMContentLoaded',function(){"
    "var m=/^#zoom=(\\d+)-(\\d+)$/.exec(location.hash),"
    "f=document.querySelectorAll('figure.hist'),i;"
    "for(i=0;i<f.length;i++)zoomable(f[i]);"
    "document.body.setAttribute('data-charts',"
    "String(document.querySelectorAll('svg.chart').length));"
    "function zoomable(f){"
    "var p=f.querySelector('svg.plot'),n=+f.getAttribute('data-n'),"
    "l=f.getAttribute('data-labels').split('\\n'),"
    "t=f.querySelectorAll('text.xt'),h=p.viewBox.baseVal.height,"
    "x0=p.x.baseVal.value,pw=p.width.baseVal.value,a=-0.5,b=n-0.5,d=null;"
    "function set(x,y){var w=Math.min(Math.max(y-x,2),n),k,j,lo,hi;"
    "x=(x+y-w)/2;if(x+w>n-0.5)x=n-0.5-w;if(x<-0.5)x=-0.5;a=x;b=x+w;"
    "p.setAttribute('viewBox',a+' 0 '+w+' '+h);"
    "lo=Math.ceil(a);hi=Math.floor(b);"
    "for(k=0;k<t.length;k++){j=Math.round(lo+(hi-lo)*k/(t.length-1));"
    "t[k].textContent=l[j];"
    "t[k].setAttribute('x',(x0+(j-a)/w*pw).toFixed(1));}"
    "f.setAttribute('data-zoom',(lo+1)+'-'+(hi+1));}"
    "p.addEventListener('wheel',function(e){e.preventDefault();"
    "var r=p.getBoundingClientRect(),c=a+(e.clientX-r.left)/r.width*(b-a),"
    "s=e.deltaY<0?0.8:1.25;set(c-(c-a)*s,c+(b-c)*s);},{passive:false});"
    "p.addEventListener('mousedown',function(e){e.preventDefault();"
    "d={x:e.clientX,a:a,b:b};});"
    "window.addEventListener('mousemove',function(e){if(!d)return;"
    "var s=(e.clientX-d.x)/p.getBoundingClientRect().width*(d.b-d.a);"
    "set(d.a-s,d.b-s);});"
    "window.addEventListener('mouseup',function(){d=null;});"
    "p.addEventListener('dblclick',function(){set(-0.5,n-0.5);});"
    "set(m?+m[1]-1.5:a,m?+m[2]-0.5:b);}});";

/* The script's SHA-256, base64 (the page runs it and nothing else): change
 * the script, change this; the tests compare them. */
#define SCRIPT_SHA256 "RLwn/WpIvgdlGN/0PGru5w4s252nchK33xtL2OsfGfs="

void pg_history_html(pg_str *out, const pg_history *h, const char *commit_url)
{
    group *g = NULL;
    size_t ng = groups_of(&g, h), i;

    pg_str_puts(out,
                "<!DOCTYPE html>\n<html lang=\"en\"><head>"
                "<meta charset=\"utf-8\"><title>perfgate: history"
                "</title><meta http-equiv=\"Content-Security-Policy\" "
                "content=\"default-src 'none'; style-src "
                "'unsafe-inline'; script-src 'sha256-" SCRIPT_SHA256 "'\">");
    pg_str_printf(out, "<style>%s</style><script>%s</script></head><body>\n",
                  style, script);
    pg_str_puts(out, "<h1>perfgate: history</h1><p>");
    esc(out, h->source);
    pg_str_printf(out, ": %zu series of %zu point%s, oldest on the left",
                  h->nseries, h->npoints, h->npoints == 1 ? "" : "s");
    if (h->floor > 0)
        pg_str_printf(out, "; noise floor %.3g%%", h->floor * 100);
    pg_str_puts(out, ".</p><p class=\"note\">Each dot is a push (hover for "
                     "its commit, time and change against the push before); "
                     "a dashed line is a change point, before the first "
                     "commit at the new level; a shaded band is a creep; a "
                     "dotted line is where the noise changed its scale. "
                     "Scroll over a chart to zoom along the commits, drag "
                     "to move, double-click to see all; #zoom=A-B in the "
                     "address opens every chart at pushes A to B.</p>\n");
    summary(out, h, g, ng);
    for (i = 0; i < ng; i++) {
        pg_str_printf(out, "<section id=\"h%zu\"><h2>", i);
        group_title(out, &g[i]);
        pg_str_puts(out, "</h2>");
        legend(out, h, &g[i]);
        chart(out, h, &g[i]);
        steps_table(out, h, &g[i], commit_url);
        pg_str_puts(out, "</section>\n");
    }
    if (h->notes.n) {
        pg_str_puts(out, "<h2>Notes</h2><ul>");
        for (i = 0; i < h->notes.n; i++) {
            pg_str_puts(out, "<li>");
            esc(out, h->notes.v[i]);
            pg_str_puts(out, "</li>");
        }
        pg_str_puts(out, "</ul>\n");
    }
    pg_str_puts(out, "</body></html>\n");
    groups_free(g, ng);
}
