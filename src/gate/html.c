/*
 * html.c - the report as one self-contained page (html.h): everything
 * inline, charts as SVG drawn here, nothing fetched when it is opened.
 */
#include "html.h"
#include "report.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define W 640 /* chart width, px */
#define H 150 /* chart height */
#define PAD 36
#define BINS 30

static const char *const side_color[2] = {"#4e79a7", "#e15759"};

/* Text into HTML: & < > " ' escaped (text is already valid UTF-8). */
static void esc(pg_str *out, const char *text)
{
    const char *p;

    for (p = text ? text : ""; *p; p++)
        switch (*p) {
        case '&':
            pg_str_puts(out, "&amp;");
            break;
        case '<':
            pg_str_puts(out, "&lt;");
            break;
        case '>':
            pg_str_puts(out, "&gt;");
            break;
        case '"':
            pg_str_puts(out, "&quot;");
            break;
        case '\'':
            pg_str_puts(out, "&#39;");
            break;
        default:
            pg_str_putc(out, *p);
        }
}

static void esc_ns(pg_str *out, double ns)
{
    pg_str t = PG_STR_INIT;

    pg_format_ns(&t, ns);
    esc(out, pg_str_cstr(&t));
    pg_str_clear(&t);
}

/* The finite range of both sides' samples; 0 when there are none. */
static int range_of(const pg_case_result *c, double *lo, double *hi)
{
    size_t i;
    int s, any = 0;

    *lo = INFINITY;
    *hi = -INFINITY;
    for (s = 0; s < 2; s++)
        for (i = 0; i < c->nsamples[s]; i++) {
            double v = c->samples[s][i];
            if (!isfinite(v))
                continue;
            any = 1;
            *lo = v < *lo ? v : *lo;
            *hi = v > *hi ? v : *hi;
        }
    if (any && *hi <= *lo)
        *hi = *lo * 1.01 + 1e-9;
    return any;
}

static void chart_open(pg_str *out, const char *kind, const char *title)
{
    pg_str_printf(out,
                  "<figure><figcaption>%s</figcaption>"
                  "<svg class=\"chart\" data-kind=\"%s\" width=\"%d\" "
                  "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
                  title, kind, W, H, W, H);
    pg_str_printf(out,
                  "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                  "class=\"axis\"/>",
                  PAD, H - PAD / 2, W - 8, H - PAD / 2);
}

static void chart_close(pg_str *out)
{
    pg_str_puts(out, "</svg></figure>\n");
}

/* x of value v on an axis from lo to hi. */
static double xof(double v, double lo, double hi)
{
    return PAD + (v - lo) / (hi - lo) * (W - PAD - 8);
}

static void axis_labels(pg_str *out, double lo, double hi, int ns)
{
    pg_str a = PG_STR_INIT, b = PG_STR_INIT;

    if (ns) {
        pg_format_ns(&a, lo);
        pg_format_ns(&b, hi);
    } else {
        pg_format_change(&a, lo);
        pg_format_change(&b, hi);
    }
    pg_str_printf(out, "<text x=\"%d\" y=\"%d\" class=\"tick\">", PAD, H - 4);
    esc(out, pg_str_cstr(&a));
    pg_str_printf(out,
                  "</text><text x=\"%d\" y=\"%d\" class=\"tick\" "
                  "text-anchor=\"end\">",
                  W - 8, H - 4);
    esc(out, pg_str_cstr(&b));
    pg_str_puts(out, "</text>");
    pg_str_clear(&a);
    pg_str_clear(&b);
}

/* Both sides' samples as histograms on one axis. */
static void distribution(pg_str *out, const pg_case_result *c)
{
    unsigned counts[2][BINS];
    unsigned most = 1;
    double lo, hi;
    size_t i;
    int s, k;

    if (!range_of(c, &lo, &hi))
        return;
    memset(counts, 0, sizeof(counts));
    for (s = 0; s < 2; s++)
        for (i = 0; i < c->nsamples[s]; i++) {
            double v = c->samples[s][i];
            if (!isfinite(v))
                continue;
            k = (int)((v - lo) / (hi - lo) * BINS);
            k = k < 0 ? 0 : k >= BINS ? BINS - 1 : k;
            if (++counts[s][k] > most)
                most = counts[s][k];
        }
    chart_open(out, "distribution",
               "Samples (time per call): base blue, head red");
    for (s = 0; s < 2; s++)
        for (k = 0; k < BINS; k++) {
            double x0 = xof(lo + (hi - lo) * k / BINS, lo, hi);
            double x1 = xof(lo + (hi - lo) * (k + 1) / BINS, lo, hi);
            double h = (double)counts[s][k] / most * (H - PAD);
            if (!counts[s][k])
                continue;
            pg_str_printf(out,
                          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                          "height=\"%.1f\" fill=\"%s\" fill-opacity=\"0.55\"/>",
                          x0, H - PAD / 2 - h, x1 - x0 - 0.5, h, side_color[s]);
        }
    axis_labels(out, lo, hi, 1);
    chart_close(out);
}

/* Each side's samples, round after round: noise and drift show. */
static void over_time(pg_str *out, const pg_case_result *c)
{
    size_t n =
        c->nsamples[0] > c->nsamples[1] ? c->nsamples[0] : c->nsamples[1];
    double lo, hi;
    size_t i;
    int s;

    if (n < 2 || !range_of(c, &lo, &hi))
        return;
    chart_open(out, "rounds", "Rounds over time: base blue, head red");
    for (s = 0; s < 2; s++) {
        if (!c->nsamples[s])
            continue;
        pg_str_printf(out,
                      "<polyline fill=\"none\" stroke=\"%s\" "
                      "stroke-width=\"1\" points=\"",
                      side_color[s]);
        for (i = 0; i < c->nsamples[s]; i++) {
            double v = c->samples[s][i];
            if (!isfinite(v))
                continue;
            pg_str_printf(out, "%.1f,%.1f ",
                          PAD + (double)i / (double)(n - 1) * (W - PAD - 8),
                          H - PAD / 2 - (v - lo) / (hi - lo) * (H - PAD));
        }
        pg_str_puts(out, "\"/>");
    }
    axis_labels(out, lo, hi, 1);
    pg_str_puts(out, "<text x=\"4\" y=\"12\" class=\"tick\">slow</text>");
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
    chart_open(out, "change",
               "Change with its 95% interval; the grey band is the floor");
    pg_str_printf(out,
                  "<rect x=\"%.1f\" y=\"10\" width=\"%.1f\" height=\"%d\" "
                  "fill=\"#ccc\" fill-opacity=\"0.6\"/>",
                  xof(-floor, a, b), xof(floor, a, b) - xof(-floor, a, b),
                  H - PAD);
    pg_str_printf(out,
                  "<line x1=\"%.1f\" y1=\"10\" x2=\"%.1f\" y2=\"%d\" "
                  "class=\"zero\"/>",
                  xof(0, a, b), xof(0, a, b), H - PAD / 2);
    if (isfinite(lo) && isfinite(hi))
        pg_str_printf(out,
                      "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                      "stroke=\"#333\" stroke-width=\"3\"/>",
                      xof(lo, a, b), H / 2, xof(hi, a, b), H / 2);
    pg_str_printf(out, "<circle cx=\"%.1f\" cy=\"%d\" r=\"6\" fill=\"%s\"/>",
                  xof(change, a, b), H / 2,
                  change > floor ? side_color[1] : side_color[0]);
    axis_labels(out, a, b, 0);
    chart_close(out);
}

static void cost_cell(pg_str *out, double v)
{
    if (isfinite(v))
        pg_str_printf(out, "<td>%.0f</td>", v);
    else
        pg_str_puts(out, "<td>–</td>");
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
    pg_str_puts(out, "<p>Case ");
    esc(out, p->case_name);
    pg_str_puts(out, ", ");
    esc(out, p->tool);
    pg_str_puts(out, " (");
    esc(out, p->unit);
    pg_str_puts(out, ")</p><table><tr><th>Function</th><th>Line</th>"
                     "<th>Base</th><th>Head</th></tr>");
    for (i = 0; i < p->nfunctions + p->nlines; i++) {
        const pg_profile_row *row =
            i < p->nfunctions ? &p->functions[i] : &p->lines[i - p->nfunctions];
        pg_str_puts(out, "<tr><td>");
        esc(out, row->function);
        pg_str_puts(out, "</td><td>");
        if (row->file) {
            esc(out, row->file);
            pg_str_printf(out, ":%d", row->line);
        }
        pg_str_puts(out, "</td>");
        cost_cell(out, row->cost[0]);
        cost_cell(out, row->cost[1]);
        pg_str_puts(out, "</tr>");
    }
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

static void bench_section(pg_str *out, const pg_result *r,
                          const pg_bench_result *b)
{
    size_t i;

    pg_str_puts(out, "<section class=\"bench\"><h2>");
    esc(out, b->name);
    pg_str_printf(out, " <span class=\"status %s\">",
                  pg_status_name(b->status));
    esc(out, pg_status_name(b->status));
    pg_str_puts(out, "</span></h2><p>");
    if (isfinite(b->base_ns) && isfinite(b->head_ns)) {
        esc_ns(out, b->base_ns);
        pg_str_puts(out, " → ");
        esc_ns(out, b->head_ns);
        pg_str_puts(out, ": ");
        change_text(out, b->change, b->change_lo, b->change_hi);
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
    for (i = 0; i < b->ncases; i++) {
        const pg_case_result *c = &b->cases[i];
        if (!c->nsamples[0] && !c->nsamples[1])
            continue;
        pg_str_puts(out, "<h3>Case ");
        esc(out, c->name);
        pg_str_puts(out, ": ");
        change_text(out, c->change, c->change_lo, c->change_hi);
        pg_str_puts(out, "</h3><div class=\"row\">");
        distribution(out, c);
        over_time(out, c);
        pg_str_puts(out, "</div>");
    }
    if (b->profile)
        profile_table(out, b->profile);
    pg_str_puts(out, "</section>\n");
}

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222}"
    "h1{font-size:20px}h2{font-size:17px;margin-top:28px}"
    "h3{font-size:14px;margin:14px 0 4px}"
    "figure{display:inline-block;margin:4px 12px 4px 0}"
    "figcaption{font-size:12px;color:#555}"
    "svg.chart{background:#fafafa;border:1px solid #ddd}"
    ".axis{stroke:#999}.zero{stroke:#555;stroke-dasharray:3 3}"
    ".tick{font-size:11px;fill:#555}"
    ".status{font-size:13px;padding:1px 6px;border-radius:4px;"
    "background:#eee}.status.regression,.status.incorrect,.status.crashed,"
    ".status.timeout,.status.build_failed{background:#f8d0d0}"
    ".status.improvement{background:#d0f0d0}"
    "table{border-collapse:collapse}td,th{border:1px solid #ddd;"
    "padding:2px 8px;text-align:left}";

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

void pg_report_html(pg_str *out, const pg_result *r)
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
    for (i = 0; i < r->nbenchmarks; i++)
        bench_section(out, r, &r->benchmarks[i]);
    pg_str_puts(out, "<p class=\"tick\">perfgate ");
    esc(out, r->version);
    pg_str_puts(out, "</p></body></html>\n");
}
