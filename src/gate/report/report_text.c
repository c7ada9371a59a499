/*
 * report_text.c - the terminal's report: a table of the benchmarks (and
 * their cases), the details of what failed, the notes under it, coloured
 * when the terminal takes colour (report.h).
 */
#include "report.h"
#include "report_parts.h"
#include "escape.h"
#include "counter.h"
#include "str.h"
#include "cuda.h"
#include "stats.h"
#include "system.h"
#include "units.h"
#include "words.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define DIM "\033[2m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

#define PCOL 5 /* label, base, head, change, what else */
#define PROWS (2 * PROFILE_SHOWN + OUTSIDE_SHOWN + 1)

/* The terminal's profile rows, each a row of PCOL cells. */
typedef struct prows {
    pg_str cells[PROWS][PCOL];
    size_t n;
} prows;

enum { NCOL = 7 };

/* The terminal's table: a row per benchmark, and one per case under it
 * when it shows its cases; bench[j] is row j's benchmark, NULL for a
 * case. */
typedef struct table {
    pg_str (*cells)[NCOL];
    const pg_bench_result **bench;
    size_t nrows;
    size_t w[NCOL];
} table;

static const char *const table_heads[NCOL] = {
    "benchmark", "base", "head", "change", "95% interval", "runs", "status"};

/* What was decided (pg_stats_judge), read, never asked again. */
static const char *status_color(const pg_bench_result *b)
{
    if (b->fails_gate)
        return RED;
    if (b->status == PG_STATUS_IMPROVEMENT)
        return GREEN;
    if (pg_status_failed(b->status) || b->status == PG_STATUS_INCONCLUSIVE)
        return YELLOW;
    return DIM;
}

/* Display width of UTF-8 text: one column per code point. */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void pad(pg_str *out, const char *text, size_t w)
{
    size_t n = width(text);

    pg_str_puts(out, text);
    while (n++ < w)
        pg_str_putc(out, ' ');
}

/* "solution  35,024 → 2,780,021  79.4x  (own 35,024 → 260,021)" */
static void prow_add(prows *t, const pg_profile_row *row, int indent)
{
    pg_str *c = t->cells[t->n++];

    pg_str_printf(&c[0], "%*s", indent, "");
    pg_report_profile_label(&c[0], row);
    pg_format_count(&c[1], row->cost[0]);
    pg_format_count(&c[2], row->cost[1]);
    pg_report_cost_change(&c[3], row->cost[0], row->cost[1]);
    if (!row->file && !row->object && pg_report_calls_cost(row)) {
        pg_str_puts(&c[4], "(own ");
        pg_format_count(&c[4], row->self[0]);
        pg_str_puts(&c[4], " → ");
        pg_format_count(&c[4], row->self[1]);
        pg_str_puts(&c[4], ")");
    } else if (row->text) {
        pg_str_puts(&c[4], row->text);
    }
}

/* Prints the rows aligned, the counts to the right, and frees them. */
static void prows_put(pg_str *out, prows *t)
{
    size_t w[PCOL] = {0}, j, k;

    for (j = 0; j < t->n; j++)
        for (k = 0; k < PCOL; k++)
            if (width(pg_str_cstr(&t->cells[j][k])) > w[k])
                w[k] = width(pg_str_cstr(&t->cells[j][k]));
    for (j = 0; j < t->n; j++) {
        pg_str *c = t->cells[j];
        pg_str_puts(out, "    ");
        pad(out, pg_str_cstr(&c[0]), w[0]);
        for (k = 1; k < 3; k++) {
            size_t n = width(pg_str_cstr(&c[k]));
            pg_str_puts(out, k == 1 ? "  " : " → ");
            while (n++ < w[k])
                pg_str_putc(out, ' ');
            pg_str_puts(out, pg_str_cstr(&c[k]));
        }
        pg_str_puts(out, "  ");
        pad(out, pg_str_cstr(&c[3]), c[4].size ? w[3] : 0);
        if (c[4].size)
            pg_str_printf(out, "  %s", pg_str_cstr(&c[4]));
        pg_str_putc(out, '\n');
        for (k = 0; k < PCOL; k++)
            pg_str_clear(&c[k]);
    }
    t->n = 0;
}

/* "add  146 µs → 181 µs  +24.2%", a kernel's GPU time. */
static void kernel_row_add(prows *t, const pg_profile_row *row)
{
    pg_str *c = t->cells[t->n++];

    pg_str_puts(&c[0], row->function);
    pg_format_ns(&c[1], row->cost[0]);
    pg_format_ns(&c[2], row->cost[1]);
    pg_report_cost_change(&c[3], row->cost[0], row->cost[1]);
}

/* "  achieved occupancy  98.1% → 62.0%  -36.1 pts" */
static void metric_row_add(prows *t, const pg_profile_metric *m)
{
    pg_str *c = t->cells[t->n++];

    pg_str_printf(&c[0], "  %s", m->name);
    pg_report_metric_value(&c[1], m->value[0], m->unit);
    pg_report_metric_value(&c[2], m->value[1], m->unit);
    pg_report_metric_change(&c[3], m);
}

/* A CUDA kernel's profile (ncu): each kernel's GPU time, then the metrics
 * of the costliest, kernel by kernel. */
static void terminal_kernels(pg_str *out, const pg_profile *p)
{
    prows *t = pg_calloc(1, sizeof(*t));
    const char *kernel = NULL;
    size_t i;

    pg_str_printf(out,
                  "where the time went in case %s (ncu: each kernel's GPU "
                  "time, clocks locked to base, base → head)\n",
                  p->case_name ? p->case_name : "?");
    for (i = 0; i < p->nfunctions && i < PROFILE_SHOWN; i++)
        kernel_row_add(t, &p->functions[i]);
    prows_put(out, t);
    for (i = 0; i < p->nmetrics; i++) {
        const pg_profile_metric *m = &p->metrics[i];
        if (!kernel || strcmp(kernel, m->kernel)) {
            prows_put(out, t);
            kernel = m->kernel;
            pg_str_printf(out, "    %s:\n", kernel);
        }
        if (t->n == PROWS)
            prows_put(out, t);
        metric_row_add(t, m);
    }
    prows_put(out, t);
    free(t);
}

/* Where the time went, for a terminal: the costliest functions, what
 * they spent outside the user's code, and the costliest lines (the JSON
 * has them all). */
static void terminal_profile(pg_str *out, const pg_bench_result *b, int color)
{
    const pg_profile *p = b->profile;
    pg_profile_row outside = pg_report_outside_row(p);
    prows *t;
    size_t i;

    pg_str_printf(out, "\n%s%s%s: ", color ? BOLD : "", b->name,
                  color ? RESET : "");
    if (!p->nfunctions) {
        pg_str_printf(out, "no profile: %s\n",
                      p->skipped ? p->skipped : "nothing was recorded");
        return;
    }
    if (p->tool && !strcmp(p->tool, "ncu")) {
        terminal_kernels(out, p);
        return;
    }
    pg_str_printf(out,
                  "where the time went in case %s (%s, %s, base → head; "
                  "each function with all it calls)\n",
                  p->case_name ? p->case_name : "?", p->tool ? p->tool : "?",
                  p->unit ? p->unit : "?");
    t = pg_calloc(1, sizeof(*t));
    for (i = 0; i < p->nfunctions && i < PROFILE_SHOWN; i++)
        prow_add(t, &p->functions[i], 0);
    if (pg_report_some(outside.cost[0]) || pg_report_some(outside.cost[1])) {
        prow_add(t, &outside, 0);
        for (i = 0; i < p->noutside && i < OUTSIDE_SHOWN; i++)
            prow_add(t, &p->outside[i], 2);
    }
    prows_put(out, t);
    for (i = 0; i < p->nlines && i < PROFILE_SHOWN; i++)
        prow_add(t, &p->lines[i], 0);
    prows_put(out, t);
    free(t);
    if (p->nalloc_sites)
        pg_str_puts(out, "\nallocation sites that differ (calls into the "
                         "allocator in one call of the case, base → head):\n");
    for (i = 0; i < p->nalloc_sites; i++) {
        pg_str_puts(out, "  ");
        pg_report_alloc_site(out, &p->alloc_sites[i]);
        pg_str_putc(out, '\n');
    }
}

/* Cases get rows of their own when there are several and they were
 * measured. */
static int shows_cases(const pg_bench_result *b)
{
    return b->ncases > 1 && b->rounds > 0 && !pg_status_failed(b->status);
}

/* A benchmark's figures and status, in the cells after its name. */
static void bench_cells(pg_str *row, const pg_bench_result *b)
{
    pg_result_format_figure(&row[1], b, b->base_ns);
    pg_result_format_figure(&row[2], b, b->head_ns);
    pg_report_change_text(&row[3], b->change, b->rounds > 0);
    pg_format_interval(&row[4], b->change_lo, b->change_hi);
    if (b->rounds > 0 && b->processes > 1)
        pg_str_printf(&row[5], "%d in %d", b->rounds, b->processes);
    else if (b->rounds > 0)
        pg_str_printf(&row[5], "%d", b->rounds);
    else
        pg_str_puts(&row[5], "–");
    pg_report_cell_status(&row[6], b);
}

static void table_fill(table *t, const pg_result *r)
{
    size_t i, j, k;

    t->nrows = 0;
    for (i = 0; i < r->nbenchmarks; i++)
        if (!pg_report_collapsed(&r->benchmarks[i]))
            t->nrows +=
                1 + (r->benchmarks[i].counted != NULL) +
                (shows_cases(&r->benchmarks[i]) ? r->benchmarks[i].ncases : 0);
    t->cells = pg_calloc(t->nrows ? t->nrows : 1, sizeof(*t->cells));
    t->bench = pg_calloc(t->nrows ? t->nrows : 1, sizeof(*t->bench));
    for (i = 0, j = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        pg_str *row = t->cells[j];
        size_t c;
        if (pg_report_collapsed(b))
            continue;
        t->bench[j++] = b;
        pg_str_puts(&row[0], b->name);
        bench_cells(row, b);
        if (b->counted) {
            /* measure: all: the count under the time. */
            t->bench[j] = b->counted;
            row = t->cells[j++];
            pg_str_printf(&row[0], "  %s", pg_metric_name(b->counted->metric));
            bench_cells(row, b->counted);
        }
        for (c = 0; shows_cases(b) && c < b->ncases; c++, j++) {
            const pg_result_case *cr = &b->cases[c];
            row = t->cells[j];
            pg_str_printf(&row[0], "  %s", cr->name);
            pg_result_format_figure(&row[1], b, cr->base_ns);
            pg_result_format_figure(&row[2], b, cr->head_ns);
            pg_report_change_text(&row[3], cr->change, 1);
            pg_format_interval(&row[4], cr->change_lo, cr->change_hi);
            pg_str_puts(&row[6], cr->unresolved ? "unresolved"
                                                : pg_status_name(cr->status));
        }
    }
    for (k = 0; k < NCOL; k++)
        t->w[k] = strlen(table_heads[k]);
    for (j = 0; j < t->nrows; j++)
        for (k = 0; k < NCOL; k++)
            if (width(pg_str_cstr(&t->cells[j][k])) > t->w[k])
                t->w[k] = width(pg_str_cstr(&t->cells[j][k]));
}

/* Prints the table and frees it. */
static void table_put(pg_str *out, table *t, int color)
{
    size_t j, k;

    if (!t->nrows) {
        free(t->cells);
        free(t->bench);
        return;
    }
    pg_str_puts(out, color ? BOLD : "");
    for (k = 0; k < NCOL; k++) {
        pg_str_puts(out, k ? "  " : "");
        pad(out, table_heads[k], k + 1 < NCOL ? t->w[k] : 0);
    }
    pg_str_printf(out, "%s\n", color ? RESET : "");
    for (j = 0; j < t->nrows; j++) {
        const pg_bench_result *b = t->bench[j];
        if (!b && color)
            pg_str_puts(out, DIM);
        for (k = 0; k < NCOL; k++) {
            pg_str_puts(out, k ? "  " : "");
            if (k == NCOL - 1 && color && b)
                pg_str_puts(out, status_color(b));
            pad(out, pg_str_cstr(&t->cells[j][k]), k + 1 < NCOL ? t->w[k] : 0);
            pg_str_clear(&t->cells[j][k]);
        }
        pg_str_printf(out, "%s\n", color ? RESET : "");
    }
    free(t->cells);
    free(t->bench);
}

/* Why, for everything that is not a plain verdict: a case slower under
 * the total, a failure's message and the compiler's or program's log. */
static void terminal_details(pg_str *out, const pg_result *r, int color)
{
    size_t i;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        const pg_result_case *hidden = pg_result_slower_case(b);
        const char *p;
        if (hidden) {
            pg_str_printf(out, "\n%s%s%s: ", color ? BOLD : "", b->name,
                          color ? RESET : "");
            pg_report_hidden_line(out, b, hidden);
            pg_str_putc(out, '\n');
        }
        if (b->culprit) {
            pg_str_printf(out, "\n%s%s%s: ", color ? BOLD : "", b->name,
                          color ? RESET : "");
            pg_report_culprit_line(out, b);
            pg_str_putc(out, '\n');
        }
        if (b->profile)
            terminal_profile(out, b, color);
        if (!b->message)
            continue;
        pg_str_printf(out, "\n%s%s%s: %s\n", color ? BOLD : "", b->name,
                      color ? RESET : "", b->message);
        for (p = b->log ? b->log : ""; *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            pg_str_puts(out, "    ");
            pg_str_put(out, p, len);
            pg_str_putc(out, '\n');
            p += len + (nl != NULL);
        }
    }
}

/* What a count taken under callgrind cannot see ("uncounted: NAME: ..."),
 * and that it was taken on another code path than the machine runs
 * ("other path: NAME: counted on ...: WHAT"). */
static void other_path_line(pg_str *out, const pg_bench_result *b)
{
    if (b->uncounted)
        pg_str_printf(out, "uncounted: %s: %s\n", b->name, b->uncounted);
    if (b->other_path)
        pg_str_printf(out,
                      "other path: %s: counted on another code path than "
                      "the machine runs, so the count %s: %s\n",
                      b->name,
                      b->other_path_gates ? "gates anyway (path_check: gate)"
                                          : "does not gate (path_check: gate "
                                            "to gate on it)",
                      b->other_path);
}

/* measure: all: each benchmark whose time and count disagree, and what
 * that likely means; a counted one that could not be counted, why. */
static void disagreement_lines(pg_str *out, const pg_result *r)
{
    size_t i;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (b->disagreement)
            pg_str_printf(out, "disagree: %s: %s\n", b->name, b->disagreement);
        other_path_line(out, b);
        if (b->counted)
            other_path_line(out, b->counted);
        if (b->counted && b->counted->message &&
            b->counted->status != PG_STATUS_UNCHANGED &&
            b->counted->rounds <= 0)
            pg_str_printf(out, "%s: %s\n", b->name, b->counted->message);
    }
}

/* A line per benchmark that got no label, and why. */
static void no_label_lines(pg_str *out, const pg_result *r, int color)
{
    size_t i;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (b->status != PG_STATUS_INCONCLUSIVE &&
            b->status != PG_STATUS_UNRESOLVED)
            continue;
        pg_str_printf(out, "%s%s%s: ", color ? YELLOW : "", b->name,
                      color ? RESET : "");
        pg_report_no_label(out, r, b);
        pg_str_putc(out, '\n');
    }
}

/* A line for each benchmark with an accept: entry: accepted, or slower
 * than the entry allows. */
static void accept_lines(pg_str *out, const pg_result *r)
{
    size_t i;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (!(b->accept_up_to > 0) || b->status != PG_STATUS_REGRESSION)
            continue;
        int label = !!strchr(b->accept_from, '-');
        pg_str_printf(out, "%s: %+.1f%% %s (", b->name, b->change * 100,
                      b->accepted ? "accepted"
                      : *b->accept_from
                          ? "is more than its Perf-Accepted: trailer allows"
                          : "is more than its accept: entry allows");
        if (label) { /* any slowdown: the reason names the label */
            pg_str_printf(out, "%s)\n", b->accept_why);
            continue;
        }
        if (*b->accept_from)
            pg_str_printf(out, "Perf-Accepted: in %s", b->accept_from);
        else
            pg_str_puts(out, "accept:");
        pg_str_printf(out, " up to %.3g%%%s%s, \"%s\")\n",
                      b->accept_up_to * 100, *b->accept_until ? " until " : "",
                      b->accept_until, b->accept_why);
    }
}

/* A line for each benchmark held to a floor of its own. */
static void own_floor_lines(pg_str *out, const pg_result *r)
{
    size_t i;

    for (i = 0; i < r->nbenchmarks; i++)
        if (r->benchmarks[i].noise_floor > 0 && !r->benchmarks[i].metric)
            pg_str_printf(out,
                          "%s: held to a floor of its own, %.3g%% "
                          "(noise_floor: in its entry)\n",
                          r->benchmarks[i].name,
                          r->benchmarks[i].noise_floor * 100);
}

/* A line for each function measured in batches: its times are per call. */
static void batch_lines(pg_str *out, const pg_result *r)
{
    size_t i;

    for (i = 0; i < r->nbenchmarks; i++)
        if (r->benchmarks[i].batch > 1)
            pg_str_printf(out,
                          "%s: times per call of the function; each timed "
                          "call made %d of them (batch: %d)\n",
                          r->benchmarks[i].name, r->benchmarks[i].batch,
                          r->benchmarks[i].batch);
}

/* The heap: "memory: NAME: ..." for each that changed or was not
 * counted, then those that did not change, in one line. */
static void memory_lines(pg_str *out, const pg_result *r)
{
    pg_str line = PG_STR_INIT;
    size_t i;

    for (i = 0; i < r->nbenchmarks; i++) {
        pg_str_reset(&line);
        if (pg_report_memory_text(&line, &r->benchmarks[i]))
            pg_str_printf(out, "memory: %s: %s\n", r->benchmarks[i].name,
                          pg_str_cstr(&line));
    }
    pg_str_reset(&line);
    if (pg_report_memory_same(&line, r, 0))
        pg_str_printf(out,
                      "memory: the same on both sides, per call at most: "
                      "%s\n",
                      pg_str_cstr(&line));
    pg_str_clear(&line);
}

static void terminal_notes(pg_str *out, const pg_result *r, int color)
{
    pg_system notes;
    size_t i;

    pg_str_puts(out, "\nnoise floor ");
    pg_report_floor_line(out, r);
    pg_str_puts(out, "; a label needs its whole interval on one side of "
                     "it; runs: rounds, in that many processes");
    pg_report_counted_line(out, r, 0);
    pg_str_putc(out, '\n');
    no_label_lines(out, r, color);
    accept_lines(out, r);
    own_floor_lines(out, r);
    batch_lines(out, r);
    pg_report_unresolved_lines(out, r);
    disagreement_lines(out, r);
    memory_lines(out, r);
    if (r->gpu.present) {
        pg_str_printf(out, "gpu %s", r->gpu.name);
        pg_report_gpu_line(out, r);
        pg_str_putc(out, '\n');
    }
    if (r->nshards) {
        pg_str_puts(out, "shards ");
        pg_report_shards_line(out, r, 0);
        pg_str_putc(out, '\n');
    }
    memset(&notes, 0, sizeof(notes));
    pg_report_warnings(&notes, r, 1);
    for (i = 0; i < notes.nwarnings; i++)
        pg_str_printf(out, "%swarning:%s %s\n", color ? YELLOW : "",
                      color ? RESET : "", notes.warnings[i]);
    pg_system_clear(&notes);
}

void pg_report_terminal(pg_str *out, const pg_result *r, int color)
{
    int passed = r->verdict.passed;
    size_t i;
    table t;

    table_fill(&t, r);
    pg_str_puts(out, "base  ");
    pg_report_describe_side(out, &r->base, 0);
    pg_str_puts(out, "\nhead  ");
    pg_report_describe_side(out, &r->head, 0);
    pg_str_puts(out, "\n\n");
    table_put(out, &t, color);
    for (i = 0; t.nrows && i < r->nbenchmarks; i++)
        if (pg_report_collapsed(&r->benchmarks[i])) {
            pg_str_putc(out, '\n');
            break;
        }
    pg_report_collapsed_line(out, r, r->nbenchmarks, 0, 0);
    pg_report_collapsed_line(out, r, r->nbenchmarks, 1, 0);
    terminal_details(out, r, color);
    terminal_notes(out, r, color);
    pg_str_printf(out, "\n%s%s%s: %s", color ? (passed ? GREEN : RED) : "",
                  passed ? "PASS" : "FAIL", color ? RESET : "",
                  r->aa ? "self-check: " : "");
    if (r->aa)
        pg_report_aa_line(out, r);
    else
        pg_report_summary(out, r);
    pg_str_putc(out, '\n');
    if (pg_stats_noisy_run(r)) {
        pg_report_noise_line(out, r);
        pg_str_putc(out, '\n');
    }
}
