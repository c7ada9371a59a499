/*
 * html.c - the report as one self-contained page (html.h): everything
 * inline, charts as SVG drawn here, nothing fetched when it is opened.
 */
#include "html.h"
#include "escape.h"
#include "memory.h"
#include "report_parts.h"
#include "str.h"
#include "report.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define W 640   /* chart width, px */
#define H 160   /* chart height */
#define LEFT 66 /* room for the y axis's labels */
#define RIGHT 10
#define TOP 10
#define BOTTOM 22 /* room for the x axis's labels */
#define BINS 30

static const char *const side_color[2] = {"#4e79a7", "#e15759"};

/* Text as an element's text or an attribute's value. */
static void esc(pg_str *out, const char *text)
{
    pg_escape_html(out, text ? text : "", text ? strlen(text) : 0, 1);
}

static void esc_ns(pg_str *out, double ns)
{
    pg_str t = PG_STR_INIT;

    pg_format_ns(&t, ns);
    esc(out, pg_str_cstr(&t));
    pg_str_clear(&t);
}

/*
 * What a case's charts draw: each side's samples as the headline counts
 * them, the harness's overhead per call taken off, on an axis from the
 * smallest (the headline's minimum) to each side's upper fence (third
 * quartile + 3 interquartile ranges) at most, so that one stalled round
 * does not squash the rest into a bar.  Samples beyond are counted and
 * drawn at the axis's end.
 */
typedef struct view {
    double *v[2]; /* in round order; NAN for a sample that is not finite */
    size_t n[2];
    double lo, hi;
    size_t beyond;
} view;

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b;
}

/* The side's upper fence over its `n` finite values; -INFINITY when none. */
static double fence(const double *v, size_t n)
{
    double *sorted = pg_calloc(n + 1, sizeof(*sorted)), q1, q3, top;
    size_t i, k = 0;

    for (i = 0; i < n; i++)
        if (isfinite(v[i]))
            sorted[k++] = v[i];
    if (!k) {
        free(sorted);
        return -INFINITY;
    }
    qsort(sorted, k, sizeof(*sorted), by_value);
    q1 = sorted[(k - 1) / 4];
    q3 = sorted[(3 * (k - 1) + 3) / 4];
    top = q3 + 3 * (q3 - q1);
    top = top < sorted[k - 1] ? top : sorted[k - 1];
    free(sorted);
    return top;
}

static void view_clear(view *w)
{
    free(w->v[0]);
    free(w->v[1]);
}

/* The view of case `c`; 0 when it has no finite sample. */
static int view_of(view *w, const pg_result_case *c)
{
    double off = isfinite(c->overhead_ns) ? c->overhead_ns : 0;
    size_t i;
    int s, any = 0;

    memset(w, 0, sizeof(*w));
    w->lo = INFINITY;
    w->hi = -INFINITY;
    for (s = 0; s < 2; s++) {
        double top;
        w->n[s] = c->nsamples[s];
        w->v[s] = pg_calloc(w->n[s] + 1, sizeof(double));
        for (i = 0; i < w->n[s]; i++) {
            double v = c->samples[s][i] - off;
            w->v[s][i] = isfinite(v) ? v : NAN;
            if (isfinite(v)) {
                any = 1;
                w->lo = v < w->lo ? v : w->lo;
            }
        }
        top = fence(w->v[s], w->n[s]);
        w->hi = top > w->hi ? top : w->hi;
    }
    if (!any) {
        view_clear(w);
        return 0;
    }
    for (s = 0; s < 2; s++)
        for (i = 0; i < w->n[s]; i++)
            w->beyond += w->v[s][i] > w->hi;
    if (w->hi <= w->lo)
        w->hi = w->lo + fabs(w->lo) * 0.01 + 1e-9;
    return 1;
}

/* What a case's charts show, and what their axis clipped. */
static void view_note(pg_str *out, const view *w)
{
    pg_str_puts(out, "<p class=\"note\">Time per call less the harness's "
                     "overhead, as the headline counts it");
    if (w->beyond)
        pg_str_printf(out,
                      "; the time axis is clipped at each side's third "
                      "quartile + 3 interquartile ranges: %zu sample%s "
                      "beyond, drawn at its end",
                      w->beyond, w->beyond == 1 ? "" : "s");
    pg_str_puts(out, ".</p>");
}

static void chart_open(pg_str *out, const char *kind, const char *title)
{
    pg_str_printf(out, "<figure><figcaption>%s", title);
    pg_str_printf(out,
                  "</figcaption><svg class=\"chart\" data-kind=\"%s\" "
                  "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                  "role=\"img\">",
                  kind, W, H, W, H);
    pg_str_printf(out,
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                  "class=\"axis\"/>",
                  LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM);
}

static void chart_close(pg_str *out)
{
    pg_str_puts(out, "</svg></figure>\n");
}

/* x of value v on an axis from lo to hi. */
static double xof(double v, double lo, double hi)
{
    return LEFT + (v - lo) / (hi - lo) * (W - LEFT - RIGHT);
}

/* y of value v on an axis from lo (the bottom) to hi. */
static double yof(double v, double lo, double hi)
{
    return H - BOTTOM - (v - lo) / (hi - lo) * (H - BOTTOM - TOP);
}

typedef enum unit { NS, CHANGE, COUNT } unit;

static void tick_text(pg_str *out, double v, unit u)
{
    pg_str t = PG_STR_INIT;

    if (u == NS)
        pg_format_ns(&t, v);
    else if (u == CHANGE)
        pg_format_change(&t, v);
    else
        pg_format_count(&t, v);
    esc(out, pg_str_cstr(&t));
    pg_str_clear(&t);
}

/* A tick's mark, from (x1, y1) to (x2, y2), and its label `v` at (tx, ty)
 * anchored at `anchor`. */
static void tick(pg_str *out, const double mark[4], double tx, double ty,
                 const char *anchor, double v, unit u)
{
    pg_str_printf(out,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                  "class=\"axis\"/><text x=\"%.1f\" y=\"%.1f\" "
                  "class=\"tick\" text-anchor=\"%s\">",
                  mark[0], mark[1], mark[2], mark[3], tx, ty, anchor);
    tick_text(out, v, u);
    pg_str_puts(out, "</text>");
}

/* Three labelled ticks along the x axis: its ends and its middle. */
static void x_ticks(pg_str *out, double lo, double hi, unit u)
{
    static const char *const anchor[3] = {"start", "middle", "end"};
    int k;

    for (k = 0; k < 3; k++) {
        double v = lo + (hi - lo) * k / 2, x = xof(v, lo, hi);
        double mark[4] = {x, H - BOTTOM, x, H - BOTTOM + 4};
        tick(out, mark, x, H - 6, anchor[k], v, u);
    }
}

/* The y axis with three labelled ticks: bottom, middle and top. */
static void y_ticks(pg_str *out, double lo, double hi, unit u)
{
    int k;

    pg_str_printf(out,
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                  "class=\"axis\"/>",
                  LEFT, TOP, LEFT, H - BOTTOM);
    for (k = 0; k < 3; k++) {
        double v = lo + (hi - lo) * k / 2, y = yof(v, lo, hi);
        double mark[4] = {LEFT - 4, y, LEFT, y};
        tick(out, mark, LEFT - 6, y + 4, "end", v, u);
    }
}

/* Both sides' samples as histograms on one axis. */
static void distribution(pg_str *out, const view *w)
{
    unsigned counts[2][BINS];
    unsigned most = 1;
    double lo = w->lo, hi = w->hi;
    size_t i;
    int s, k;

    memset(counts, 0, sizeof(counts));
    for (s = 0; s < 2; s++)
        for (i = 0; i < w->n[s]; i++) {
            double v = w->v[s][i];
            if (!isfinite(v) || v > hi)
                continue;
            k = (int)((v - lo) / (hi - lo) * BINS);
            k = k < 0 ? 0 : k >= BINS ? BINS - 1 : k;
            if (++counts[s][k] > most)
                most = counts[s][k];
        }
    chart_open(out, "distribution",
               "How many rounds took each time; base blue, head red");
    for (s = 0; s < 2; s++)
        for (k = 0; k < BINS; k++) {
            double x0 = xof(lo + (hi - lo) * k / BINS, lo, hi);
            double x1 = xof(lo + (hi - lo) * (k + 1) / BINS, lo, hi);
            double y = yof(counts[s][k], 0, most);
            if (!counts[s][k])
                continue;
            pg_str_printf(out,
                          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                          "height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.55\" "
                          "data-side=\"%s\"/>",
                          x0, y, x1 - x0 - 0.5, H - BOTTOM - y, side_color[s],
                          s ? "head" : "base");
        }
    x_ticks(out, lo, hi, NS);
    y_ticks(out, 0, most, COUNT);
    chart_close(out);
}

/* Each side's samples, round after round: noise and drift show. */
static void over_time(pg_str *out, const view *w)
{
    size_t n = w->n[0] > w->n[1] ? w->n[0] : w->n[1];
    size_t i;
    int s;

    if (n < 2)
        return;
    chart_open(out, "rounds", "Round after round; base blue, head red");
    for (s = 0; s < 2; s++) {
        if (!w->n[s])
            continue;
        pg_str_printf(out,
                      "<polyline fill=\"none\" stroke=\"%s\" "
                      "stroke-width=\"1\" data-side=\"%s\" points=\"",
                      side_color[s], s ? "head" : "base");
        for (i = 0; i < w->n[s]; i++) {
            double v = w->v[s][i];
            if (!isfinite(v))
                continue;
            pg_str_printf(out, "%.1f,%.1f ",
                          LEFT +
                              (double)i / (double)(n - 1) * (W - LEFT - RIGHT),
                          yof(v < w->hi ? v : w->hi, w->lo, w->hi));
        }
        pg_str_puts(out, "\"/>");
    }
    y_ticks(out, w->lo, w->hi, NS);
    pg_str_printf(out,
                  "<text x=\"%d\" y=\"%d\" class=\"tick\">round 1</text>"
                  "<text x=\"%d\" y=\"%d\" class=\"tick\" "
                  "text-anchor=\"end\">round %zu</text>",
                  LEFT, H - 6, W - RIGHT, H - 6, n);
    chart_close(out);
}

/* The change, its interval, and the floor around zero. */
static void against_floor(pg_str *out, double change, double lo, double hi,
                          double floor)
{
    double a = -2 * floor, b = 2 * floor;

    if (!isfinite(change))
        return;
    if (isfinite(lo) && lo < a)
        a = lo;
    if (isfinite(hi) && hi > b)
        b = hi;
    if (change < a)
        a = change;
    if (change > b)
        b = change;
    a -= (b - a) * 0.05;
    b += (b - a) * 0.05;
    a = a < -1 ? -1 : a; /* nothing gets faster than instant */
    chart_open(out, "change",
               "Change with its 95% interval; the grey band is the floor");
    pg_str_printf(out,
                  "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                  "fill=\"#ccc\" fill-opacity=\"0.6\"/>",
                  xof(-floor, a, b), TOP, xof(floor, a, b) - xof(-floor, a, b),
                  H - BOTTOM - TOP);
    pg_str_printf(out,
                  "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                  "class=\"zero\"/>",
                  xof(0, a, b), TOP, xof(0, a, b), H - BOTTOM);
    if (isfinite(lo) && isfinite(hi))
        pg_str_printf(out,
                      "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                      "stroke=\"#333\" stroke-width=\"3\"/>",
                      xof(lo, a, b), (H - BOTTOM + TOP) / 2, xof(hi, a, b),
                      (H - BOTTOM + TOP) / 2);
    pg_str_printf(out, "<circle cx=\"%.1f\" cy=\"%d\" r=\"6\" fill=\"%s\"/>",
                  xof(change, a, b), (H - BOTTOM + TOP) / 2,
                  change > floor ? side_color[1] : side_color[0]);
    x_ticks(out, a, b, CHANGE);
    chart_close(out);
}

/* A cell: a count with thousands separators, or "–". */
static void count_cell(pg_str *out, double v)
{
    pg_str_puts(out, "<td class=\"num\">");
    pg_format_count(out, v);
    pg_str_puts(out, "</td>");
}

static void cost_cells(pg_str *out, const double cost[2])
{
    pg_str t = PG_STR_INIT;

    count_cell(out, cost[0]);
    count_cell(out, cost[1]);
    pg_report_cost_change(&t, cost[0], cost[1]);
    pg_str_puts(out, "<td class=\"num\">");
    esc(out, pg_str_cstr(&t));
    pg_str_puts(out, "</td>");
    pg_str_clear(&t);
}

static void profile_row(pg_str *out, const pg_profile_row *row, int sub)
{
    pg_str t = PG_STR_INIT;

    pg_report_profile_label(&t, row);
    pg_str_printf(out, "<tr%s><td>", sub ? " class=\"sub\"" : "");
    esc(out, pg_str_cstr(&t));
    pg_str_puts(out, "</td>");
    if (row->file) {
        pg_str_puts(out, "<td><code>");
        esc(out, row->text);
        pg_str_puts(out, "</code></td>");
    }
    cost_cells(out, row->cost);
    if (!row->file) {
        count_cell(out, row->object ? NAN : row->self[0]);
        count_cell(out, row->object ? NAN : row->self[1]);
    }
    pg_str_puts(out, "</tr>");
    pg_str_clear(&t);
}

/* One cell of text, escaped, in the class `cls` (NULL: none). */
static void text_cell(pg_str *out, const char *text, const char *cls)
{
    pg_str_printf(out, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "",
                  cls ? "\"" : "");
    esc(out, text);
    pg_str_puts(out, "</td>");
}

/* A CUDA kernel's profile (ncu): each kernel's GPU time, and each of the
 * costliest kernels' metrics. */
static void kernel_tables(pg_str *out, const pg_profile *p)
{
    pg_str t = PG_STR_INIT;
    const char *kernel = NULL;
    size_t i;
    int s;

    pg_str_puts(out, "<p>Case ");
    esc(out, p->case_name);
    pg_str_puts(out, ", Nsight Compute (ncu): each kernel's GPU time, its "
                     "clocks locked to the base clock.</p><table><tr><th>"
                     "Kernel</th><th>Base</th><th>Head</th><th>Change</th>"
                     "</tr>");
    for (i = 0; i < p->nfunctions; i++) {
        const pg_profile_row *r = &p->functions[i];
        pg_str_puts(out, "<tr>");
        text_cell(out, r->function, NULL);
        for (s = 0; s < 2; s++) {
            pg_str_reset(&t);
            pg_format_ns(&t, r->cost[s]);
            text_cell(out, pg_str_cstr(&t), "num");
        }
        pg_str_reset(&t);
        pg_report_cost_change(&t, r->cost[0], r->cost[1]);
        text_cell(out, pg_str_cstr(&t), "num");
        pg_str_puts(out, "</tr>");
    }
    pg_str_puts(out, "</table>");
    for (i = 0; i < p->nmetrics; i++) {
        const pg_profile_metric *m = &p->metrics[i];
        if (!kernel || strcmp(kernel, m->kernel)) {
            if (kernel)
                pg_str_puts(out, "</table>");
            kernel = m->kernel;
            pg_str_puts(out, "<table><tr><th><code>");
            esc(out, kernel);
            pg_str_puts(out, "</code></th><th>Base</th><th>Head</th>"
                             "<th>Change</th></tr>");
        }
        pg_str_puts(out, "<tr>");
        text_cell(out, m->name, NULL);
        for (s = 0; s < 2; s++) {
            pg_str_reset(&t);
            pg_report_metric_value(&t, m->value[s], m->unit);
            text_cell(out, pg_str_cstr(&t), "num");
        }
        pg_str_reset(&t);
        pg_report_metric_change(&t, m);
        text_cell(out, pg_str_cstr(&t), "num");
        pg_str_puts(out, "</tr>");
    }
    if (kernel)
        pg_str_puts(out, "</table>");
    pg_str_clear(&t);
}

static void profile_table(pg_str *out, const pg_profile *p)
{
    size_t i;

    pg_str_puts(out, "<h3>Where the time went</h3>");
    if (!p->nfunctions) {
        pg_str_puts(out, "<p>No profile: ");
        esc(out, p->skipped ? p->skipped : "nothing was recorded");
        pg_str_puts(out, "</p>");
        return;
    }
    if (p->tool && !strcmp(p->tool, "ncu")) {
        kernel_tables(out, p);
        return;
    }
    pg_str_puts(out, "<p>Case ");
    esc(out, p->case_name);
    pg_str_puts(out, ", ");
    esc(out, p->tool);
    pg_str_puts(out, " (");
    esc(out, p->unit);
    pg_str_puts(out, "). Each function counts all it calls, libc's "
                     "included; its own instructions are beside.</p>"
                     "<table><tr><th>Function</th><th>Base</th><th>Head</th>"
                     "<th>Change</th><th>Own, base</th><th>Own, head</th>"
                     "</tr>");
    for (i = 0; i < p->nfunctions; i++)
        profile_row(out, &p->functions[i], 0);
    if (isfinite(p->outside_total[0]) || isfinite(p->outside_total[1])) {
        pg_profile_row all = pg_report_outside_row(p);
        profile_row(out, &all, 0);
        for (i = 0; i < p->noutside; i++)
            profile_row(out, &p->outside[i], 1);
    }
    pg_str_puts(out, "</table>");
    if (!p->nlines)
        return;
    pg_str_puts(out, "<table><tr><th>Line</th><th>Code</th><th>Base</th>"
                     "<th>Head</th><th>Change</th></tr>");
    for (i = 0; i < p->nlines; i++)
        profile_row(out, &p->lines[i], 0);
    pg_str_puts(out, "</table>");
}

static void change_text(pg_str *out, double change, double lo, double hi)
{
    pg_str t = PG_STR_INIT;

    pg_format_change(&t, change);
    if (isfinite(lo)) {
        pg_str_puts(&t, " (");
        pg_format_interval(&t, lo, hi);
        pg_str_puts(&t, ")");
    }
    esc(out, pg_str_cstr(&t));
    pg_str_clear(&t);
}

/* "12.3 ns → 97.1 ns: +689.0% (+688.2 … +690.1%)", or the change alone
 * when a side has no time. */
static void times_and_change(pg_str *out, double base, double head,
                             double change, double lo, double hi)
{
    if (isfinite(base) && isfinite(head)) {
        esc_ns(out, base);
        pg_str_puts(out, " → ");
        esc_ns(out, head);
        pg_str_puts(out, ": ");
    }
    change_text(out, change, lo, hi);
}

static void case_charts(pg_str *out, const pg_result_case *c)
{
    view w;

    pg_str_puts(out, "<h3>Case ");
    esc(out, c->name);
    pg_str_puts(out, ": ");
    times_and_change(out, c->base_ns, c->head_ns, c->change, c->change_lo,
                     c->change_hi);
    pg_str_puts(out, "</h3>");
    if (view_of(&w, c)) {
        view_note(out, &w);
        pg_str_puts(out, "<div class=\"row\">");
        distribution(out, &w);
        over_time(out, &w);
        pg_str_puts(out, "</div>");
        view_clear(&w);
    }
}

/* "1 → 2": a figure of the heap on each side, bytes as sizes. */
static void heap_cell(pg_str *out, double base, double head, int bytes)
{
    int s;

    pg_str_puts(out, "<td>");
    for (s = 0; s < 2; s++) {
        double v = s ? head : base;
        if (s)
            pg_str_puts(out, " → ");
        if (bytes && v < 0)
            pg_str_putc(out, '-');
        if (bytes)
            pg_format_bytes(out, fabs(v));
        else
            pg_str_printf(out, "%g", v);
    }
    pg_str_puts(out, "</td>");
}

/* The heap per call: what changed, and each case's figures. */
static void memory_table(pg_str *out, const pg_bench_result *b)
{
    pg_str line = PG_STR_INIT;
    size_t i;

    if (pg_report_memory_text(&line, b)) {
        pg_str_puts(out, "<p><b>Heap per call</b>: ");
        esc(out, pg_str_cstr(&line));
        pg_str_puts(out, "</p>");
    }
    pg_str_clear(&line);
    if (!pg_memory_counted(b))
        return;
    pg_str_puts(out, "<table class=\"heap\"><tr><th>Case</th><th>Allocations"
                     "</th><th>Bytes</th><th>Peak</th><th>Left allocated"
                     "</th></tr>");
    for (i = 0; i < b->ncases; i++) {
        const pg_memory_use *m = b->cases[i].mem;
        pg_str_puts(out, "<tr><td>");
        esc(out, b->cases[i].name);
        pg_str_puts(out, "</td>");
        heap_cell(out, m[0].allocs, m[1].allocs, 0);
        heap_cell(out, m[0].bytes, m[1].bytes, 1);
        heap_cell(out, m[0].peak, m[1].peak, 1);
        heap_cell(out, m[0].leaked, m[1].leaked, 1);
        pg_str_puts(out, "</tr>");
    }
    pg_str_puts(out, "</table>");
}

static void bench_section(pg_str *out, const pg_result *r,
                          const pg_bench_result *b, size_t index)
{
    size_t i;

    pg_str_printf(out, "<section class=\"bench\" id=\"b%zu\"><h2>", index);
    esc(out, b->name);
    pg_str_printf(out, " <span class=\"status %s\">",
                  pg_status_name(b->status));
    esc(out, pg_status_name(b->status));
    pg_str_puts(out, "</span></h2><p>");
    if (isfinite(b->base_ns) && isfinite(b->head_ns)) {
        times_and_change(out, b->base_ns, b->head_ns, b->change, b->change_lo,
                         b->change_hi);
        pg_str_printf(out, ", best of %d rounds", b->rounds);
    }
    if (b->not_affected)
        pg_str_puts(out, "Not affected: both sides build from the same "
                         "files, neither built nor measured.");
    else if (b->identical)
        pg_str_puts(out, "Identical code: both sides load the same code, "
                         "not measured.");
    if (b->message) {
        pg_str_puts(out, " ");
        esc(out, b->message);
    }
    pg_str_puts(out, "</p>");
    if (b->status == PG_STATUS_INCONCLUSIVE ||
        b->status == PG_STATUS_UNRESOLVED) {
        pg_str why = PG_STR_INIT;
        pg_report_no_label(&why, r, b);
        pg_str_puts(out, "<p class=\"nolabel\">");
        esc(out, pg_str_cstr(&why));
        pg_str_puts(out, "</p>");
        pg_str_clear(&why);
    }
    if (b->culprit) {
        pg_str_printf(
            out, "<p><b>Culprit</b>: first slower at %s commit <code>",
            b->culprit_candidates > 1 ? "one of the commits up to" : "");
        esc(out, b->culprit);
        pg_str_puts(out, "</code> ");
        esc(out, b->culprit_subject);
        pg_str_puts(out, " (");
        esc(out, b->culprit_author);
        pg_str_puts(out, ")</p>");
    }
    if (b->rounds > 0)
        against_floor(out, b->change, b->change_lo, b->change_hi,
                      r->noise_floor);
    for (i = 0; i < b->ncases; i++)
        if (b->cases[i].nsamples[0] || b->cases[i].nsamples[1])
            case_charts(out, &b->cases[i]);
    memory_table(out, b);
    if (b->profile)
        profile_table(out, b->profile);
    pg_str_puts(out, "</section>\n");
}

static void time_cell(pg_str *out, double ns)
{
    pg_str_puts(out, "<td class=\"num\">");
    if (isfinite(ns))
        esc_ns(out, ns);
    else
        pg_str_puts(out, "–");
    pg_str_puts(out, "</td>");
}

/* Every benchmark in one table, each linked to its section. */
static void summary(pg_str *out, const pg_result *r)
{
    size_t i;

    pg_str_puts(out, "<table class=\"summary\"><tr><th>Benchmark</th>"
                     "<th>Status</th><th>Base</th><th>Head</th>"
                     "<th>Change (95% interval)</th></tr>");
    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        const char *status = pg_status_name(b->status);
        pg_str_printf(out, "<tr><td><a href=\"#b%zu\">", i);
        esc(out, b->name);
        pg_str_printf(out, "</a></td><td><span class=\"status %s\">", status);
        esc(out, b->not_affected ? "not affected"
                 : b->identical  ? "identical"
                                 : status);
        pg_str_puts(out, "</span></td>");
        time_cell(out, b->rounds > 0 ? b->base_ns : NAN);
        time_cell(out, b->rounds > 0 ? b->head_ns : NAN);
        pg_str_puts(out, "<td class=\"num\">");
        if (b->rounds > 0 && isfinite(b->change))
            change_text(out, b->change, b->change_lo, b->change_hi);
        else
            pg_str_puts(out, "–");
        pg_str_puts(out, "</td></tr>");
    }
    pg_str_puts(out, "</table>\n");
}

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222}"
    "h1{font-size:20px}h2{font-size:17px;margin-top:28px}"
    "h3{font-size:14px;margin:14px 0 4px}"
    "figure{display:inline-block;margin:4px 12px 4px 0}"
    "figcaption{font-size:12px;color:#555}.note{font-size:12px;color:#555;"
    "margin:2px 0}"
    "svg.chart{background:#fafafa;border:1px solid #ddd}"
    ".axis{stroke:#999}.zero{stroke:#555;stroke-dasharray:3 3}"
    ".tick{font-size:11px;fill:#555}"
    ".status{font-size:13px;padding:1px 6px;border-radius:4px;"
    "background:#eee}.status.regression,.status.incorrect,.status.crashed,"
    ".status.timeout,.status.build_failed{background:#f8d0d0}"
    ".status.improvement{background:#d0f0d0}"
    "table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid "
    "#ddd;padding:2px 8px;text-align:left}td.num{text-align:right;"
    "font-variant-numeric:tabular-nums}tr.sub td:first-child{padding-left:"
    "22px}";

/* Counts what was drawn, once the page is open: a check that the page's
 * one script ran (a browser test reads it back). */
static const char script[] =
    "document.addEventListener('DOMContentLoaded',function(){"
    "document.body.setAttribute('data-charts',"
    "String(document.querySelectorAll('svg.chart').length));});";

/* The script's SHA-256, base64: the page runs that script and no other
 * (no 'unsafe-inline': an inline handler that escaping missed would not
 * run).  Change the script, change this: the Html tests compare them. */
#define SCRIPT_SHA256 "9jJ5oE9dhCxyPO7LJbHGdOvhlVeosGNp/ojLJIPYy6s="

void pg_html_page(pg_str *out, const pg_result *r)
{
    size_t i;

    pg_str_puts(out, "<!DOCTYPE html>\n<html lang=\"en\"><head>"
                     "<meta charset=\"utf-8\"><title>perfgate: ");
    esc(out, r->verdict.passed ? "pass" : "fail");
    pg_str_printf(out,
                  "</title><meta http-equiv=\"Content-Security-Policy\" "
                  "content=\"default-src 'none'; style-src 'unsafe-inline'; "
                  "script-src 'sha256-" SCRIPT_SHA256 "'; img-src data:\">"
                  "<style>%s</style><script>%s</script></head><body>\n",
                  style, script);
    pg_str_puts(out, "<h1>perfgate: ");
    esc(out, r->verdict.passed ? "the gate passes" : "the gate fails");
    pg_str_puts(out, "</h1><p>Base ");
    esc(out, r->base.rev);
    pg_str_puts(out, " (");
    esc(out, r->base.commit);
    pg_str_puts(out, "), head ");
    esc(out, r->head.rev);
    pg_str_puts(out, " (");
    esc(out, r->head.commit);
    pg_str_printf(out, "); noise floor %.1f%%.</p>\n", r->noise_floor * 100);
    summary(out, r);
    for (i = 0; i < r->nbenchmarks; i++)
        bench_section(out, r, &r->benchmarks[i], i);
    pg_str_puts(out, "<p class=\"tick\">perfgate ");
    esc(out, r->version);
    pg_str_puts(out, "</p></body></html>\n");
}
