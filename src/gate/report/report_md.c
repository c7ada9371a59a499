/*
 * report_md.c - the pull request's comment: markdown that a pull
 * request's names and messages cannot break out of (report.h).
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

/* The most the footer's list of shards, and then its warnings, take of a
 * comment. */
#define FOOTER_PART_MAX 4096
/* The most benchmarks the comment's chart shows. */
#define CHART_MAX 20

/* "62% of peak bandwidth": the nearer of the two roofs, for the head. */
static void peak_cell(pg_str *out, const pg_result *r, const pg_bench_result *b,
                      const pg_result_case *c)
{
    double bw = pg_cuda_peak_bandwidth(&r->gpu),
           fl = pg_cuda_peak_flops(&r->gpu);
    double t = c->head_ns, fb = 0, ff = 0;

    if (!b->gpu.measured || !isfinite(t) || t <= 0) {
        pg_str_puts(out, "–");
        return;
    }
    if (bw > 0 && c->bytes > 0)
        fb = c->bytes / t * 1e9 / bw;
    if (fl > 0 && c->flops > 0)
        ff = c->flops / t * 1e9 / fl;
    if (fb <= 0 && ff <= 0)
        pg_str_puts(out, "–");
    else if (fb >= ff)
        pg_str_printf(out, "%.0f%% of bandwidth", fb * 100);
    else
        pg_str_printf(out, "%.0f%% of FP32", ff * 100);
}

/* Text inside <pre>: HTML-escaped, line breaks kept. */
static void html_text(pg_str *out, const char *s, size_t max)
{
    pg_report_escaped(out, s, max, 0);
}

static const char *status_icon(const pg_bench_result *b)
{
    if (b->fails_gate)
        return "❌";
    switch (b->status) {
    case PG_STATUS_IMPROVEMENT:
        return "🚀";
    case PG_STATUS_UNCHANGED:
        return "✅";
    case PG_STATUS_NEW:
        return "🆕";
    case PG_STATUS_SKIPPED:
        return "⏭️";
    case PG_STATUS_INCONCLUSIVE:
        return "❔";
    case PG_STATUS_UNRESOLVED:
        return "➖";
    default:
        return "⚠️";
    }
}

/* After a count's status: that it was taken on another code path. */
static void md_other_path_mark(pg_str *out, const pg_bench_result *b)
{
    if (b->other_path)
        pg_str_puts(out, b->other_path_gates ? " (🔀 another code path)"
                                             : " (🔀 another code path, not "
                                               "gating)");
}

static void md_bench_row(pg_str *out, const pg_bench_result *b)
{
    const pg_result_case *hidden;

    pg_str_puts(out, "| **");
    pg_report_md_text(out, b->name, MD_NAME_MAX);
    pg_str_puts(out, "** | ");
    if (isfinite(b->base_ns) && isfinite(b->head_ns)) {
        pg_result_format_figure(out, b, b->base_ns);
        pg_str_puts(out, " → ");
        pg_result_format_figure(out, b, b->head_ns);
    } else if (isfinite(b->head_ns)) {
        pg_result_format_figure(out, b, b->head_ns);
        pg_str_puts(out, " (no baseline)");
    } else {
        pg_str_puts(out, "–");
    }
    if (b->rounds > 0)
        pg_str_printf(out, ", best of %d runs", b->rounds);
    pg_str_puts(out, " | ");
    pg_report_change_text(out, b->change, b->rounds > 0);
    if (isfinite(b->change_lo)) {
        pg_str_puts(out, " <sub>");
        pg_format_interval(out, b->change_lo, b->change_hi);
        pg_str_puts(out, "</sub>");
    }
    pg_str_printf(out, " | %s %s", status_icon(b), pg_status_name(b->status));
    if (b->side != PG_SIDE_NONE && pg_status_failed(b->status))
        pg_str_printf(out, " (%s)", pg_side_name(b->side));
    md_other_path_mark(out, b);
    if (b->counted && b->counted->rounds > 0) {
        pg_str_printf(out, "; %s ", pg_metric_name(b->counted->metric));
        pg_report_change_text(out, b->counted->change, 1);
        pg_str_printf(out, " %s %s", status_icon(b->counted),
                      pg_status_name(b->counted->status));
        md_other_path_mark(out, b->counted);
        if (b->counted->status == PG_STATUS_REGRESSION && b->counted->gates &&
            !b->count_gates)
            pg_str_puts(out, " (⚖️ faster in time, not gating)");
    } else if (b->counted) {
        pg_str_printf(out, "; %s %s", pg_metric_name(b->counted->metric),
                      pg_status_name(b->counted->status));
    }
    if (b->not_affected && b->status == PG_STATUS_UNCHANGED)
        pg_str_puts(out, " (not affected)");
    else if (b->identical && b->status == PG_STATUS_UNCHANGED)
        pg_str_puts(out, " (identical code)");
    if ((hidden = pg_result_slower_case(b))) {
        pg_str_puts(out, ", but ⚠️ ");
        pg_report_md_text(out, hidden->name, MD_NAME_MAX);
        pg_str_puts(out, " is ");
        pg_report_slower_text(out, hidden->change);
    }
    pg_str_puts(out, " |\n");
}

static void md_rate(pg_str *out, double amount, double ns, double unit)
{
    if (amount > 0 && isfinite(ns) && ns > 0)
        pg_str_printf(out, "%.2f", amount / ns * 1e9 / unit);
    else
        pg_str_puts(out, "–");
}

/* Whether a case of the first `shown` benchmarks says its items per call
 * (a suite's SetItemsProcessed): then the table has their rate. */
static int has_items(const pg_result *r, size_t shown)
{
    size_t i, c;

    for (i = 0; i < shown; i++)
        for (c = 0; c < r->benchmarks[i].ncases; c++)
            if (r->benchmarks[i].cases[c].items > 0)
                return 1;
    return 0;
}

static void md_case_rows(pg_str *out, const pg_result *r,
                         const pg_bench_result *b, int items)
{
    size_t i;

    for (i = 0; i < b->ncases; i++) {
        const pg_result_case *c = &b->cases[i];
        pg_str_puts(out, "| ");
        pg_report_md_text(out, b->name, MD_NAME_MAX);
        pg_str_puts(out, " | ");
        pg_report_md_text(out, c->name, MD_NAME_MAX);
        pg_str_puts(out, " | ");
        pg_result_format_figure(out, b, c->base_ns);
        pg_str_puts(out, " | ");
        pg_result_format_figure(out, b, c->head_ns);
        pg_str_puts(out, " | ");
        pg_report_change_text(out, c->change, 1);
        if (isfinite(c->change_lo)) {
            pg_str_puts(out, " <sub>");
            pg_format_interval(out, c->change_lo, c->change_hi);
            pg_str_puts(out, "</sub>");
        }
        pg_str_printf(out, " | %s | ",
                      c->unresolved         ? "unresolved"
                      : isfinite(c->change) ? pg_status_name(c->status)
                                            : "–");
        /* Rates are of time; a count has none. */
        md_rate(out, c->flops, b->metric ? NAN : c->head_ns, 1e9);
        pg_str_puts(out, " | ");
        md_rate(out, c->bytes, b->metric ? NAN : c->head_ns, 1e9);
        if (items) {
            pg_str_puts(out, " | ");
            md_rate(out, c->items, b->metric ? NAN : c->head_ns, 1e6);
        }
        if (r->gpu.present) {
            pg_str_puts(out, " | ");
            peak_cell(out, r, b, c);
        }
        pg_str_puts(out, " |\n");
    }
}

static void md_failure(pg_str *out, const pg_bench_result *b)
{
    pg_str_puts(out, "<details><summary><code>");
    html_text(out, b->name, 200);
    pg_str_printf(out, "</code>: %s", pg_status_name(b->status));
    if (b->side != PG_SIDE_NONE)
        pg_str_printf(out, " (%s)", pg_side_name(b->side));
    pg_str_puts(out, "</summary>\n\n<pre>");
    html_text(out, b->message, 1000);
    if (b->log && *b->log) {
        pg_str_puts(out, "\n\n");
        html_text(out, b->log, DETAIL_LOG_MAX);
    }
    pg_str_puts(out, "</pre>\n</details>\n\n");
}

/* The machine's own warnings, collapsed: on a hosted runner they are the
 * same on every comment ("running in a virtual machine"), so they are said
 * once, in the details, not above every verdict. */
static void md_machine(pg_str *footer, const pg_result *r)
{
    size_t i;

    if (!r->system.nwarnings)
        return;
    pg_str_printf(
        footer,
        "\n<details><summary>⚠️ The machine (%zu note%s)</summary>"
        "\n\n",
        r->system.nwarnings, r->system.nwarnings == 1 ? "" : "s");
    for (i = 0; i < r->system.nwarnings && i < 16; i++) {
        pg_str_puts(footer, "- ");
        pg_report_md_text(footer, r->system.warnings[i], 400);
        pg_str_putc(footer, '\n');
    }
    pg_str_puts(footer, "\n</details>\n");
}

/* How main moved before the base, for the benchmarks this change reaches,
 * where the repository keeps a history. */
static void md_main_moves(pg_str *out, const pg_result *r)
{
    size_t i, listed = 0, more = 0;
    int pushes = 0;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (b->main_pushes > 0 && !b->not_affected)
            pushes = b->main_pushes > pushes ? b->main_pushes : pushes;
    }
    if (!pushes || !r->main_machine)
        return;
    pg_str_printf(out,
                  "\nMain before the base, over its last %d recorded "
                  "push%s (history on ",
                  pushes, pushes == 1 ? "" : "es");
    pg_report_md_text(out, r->main_machine, MD_NAME_MAX);
    pg_str_puts(out, "):");
    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (b->main_pushes <= 0 || b->not_affected)
            continue;
        if (listed == 10) {
            more++;
            continue;
        }
        pg_str_puts(out, listed ? ", " : " ");
        pg_report_md_text(out, b->name, MD_NAME_MAX);
        pg_str_putc(out, ' ');
        pg_format_change(out, b->main_change);
        if (b->main_metric)
            pg_str_printf(out, " in %s", pg_metric_name(b->main_metric));
        if (b->main_steps || b->main_creeps) {
            pg_str_puts(out, " (");
            if (b->main_steps)
                pg_str_printf(out, "%d step%s", b->main_steps,
                              b->main_steps == 1 ? "" : "s");
            if (b->main_creeps)
                pg_str_printf(out, "%s%d creep%s", b->main_steps ? ", " : "",
                              b->main_creeps, b->main_creeps == 1 ? "" : "s");
            pg_str_putc(out, ')');
        }
        listed++;
    }
    if (more)
        pg_str_printf(out, " and %zu more", more);
    pg_str_puts(out, ". `perfgate history` shows them.\n");
}

/* The comment's footer: the sides, the floor, the GPU, the warnings. */
/* The benchmarks whose heap did not change, in a sentence. */
static void md_memory_same(pg_str *footer, const pg_result *r)
{
    pg_str line = PG_STR_INIT;

    if (pg_report_memory_same(&line, r, 1)) {
        pg_str_puts(footer, " The heap per call, counted exactly apart from "
                            "the timing, is the same on both sides in ");
        pg_str_put(footer, line.ptr,
                   line.size > FOOTER_PART_MAX
                       ? pg_utf8_cut(pg_str_cstr(&line), FOOTER_PART_MAX)
                       : line.size);
        pg_str_puts(footer, line.size > FOOTER_PART_MAX ? " …." : ".");
    }
    pg_str_clear(&line);
}

static void md_footer(pg_str *footer, const pg_result *r)
{
    pg_system notes;
    size_t i;

    pg_str_puts(footer, "Base ");
    pg_report_describe_side(footer, &r->base, 1);
    pg_str_puts(footer, " → head ");
    pg_report_describe_side(footer, &r->head, 1);
    pg_str_puts(footer, ". Noise floor ");
    pg_report_floor_line(footer, r);
    pg_str_puts(footer, ": a change within it counts as unchanged. "
                        "Times are the sum over the cases of each case's "
                        "minimum time per call; under each change, its 95% "
                        "interval from the paired rounds.");
    pg_report_counted_line(footer, r, 1);
    md_memory_same(footer, r);
    pg_str_putc(footer, '\n');
    md_main_moves(footer, r);
    if (r->gpu.present) {
        pg_str_puts(footer, "\nGPU: ");
        pg_report_md_text(footer, r->gpu.name, MD_NAME_MAX);
        pg_report_gpu_line(footer, r);
        pg_str_puts(footer, ". Kernels are timed with CUDA events, "
                            "launches queued back to back; cold benchmarks "
                            "flush the L2 before each sample.\n");
    }
    if (r->nshards) {
        pg_str line = PG_STR_INIT;
        pg_report_shards_line(&line, r, 1);
        pg_str_puts(footer, "\nMeasured in shards: ");
        /* A saved result may claim any number of shards. */
        if (line.size > FOOTER_PART_MAX) {
            pg_str_put(footer, line.ptr,
                       pg_utf8_cut(pg_str_cstr(&line), FOOTER_PART_MAX));
            pg_str_puts(footer, " … (see the JSON report)");
        } else {
            pg_str_put(footer, line.ptr, line.size);
        }
        pg_str_puts(footer, ".\n");
        pg_str_clear(&line);
    }
    memset(&notes, 0, sizeof(notes));
    pg_report_warnings(&notes, r, 0);
    md_machine(footer, r);
    if (notes.nwarnings)
        pg_str_puts(footer, "\n");
    for (i = 0; i < notes.nwarnings; i++) {
        if (footer->size > 2 * FOOTER_PART_MAX) {
            pg_str_printf(footer,
                          "> ⚠️ %zu more warnings: see the JSON report\n",
                          notes.nwarnings - i);
            break;
        }
        pg_str_puts(footer, "> ⚠️ ");
        pg_report_md_text(footer, notes.warnings[i], 400);
        pg_str_puts(footer, "\n");
    }
    pg_system_clear(&notes);
}

/* Each benchmark that got no label, and why, as a quote above the table:
 * an inconclusive verdict passes by default, and the reader must see it. */
static void md_no_label(pg_str *out, const pg_result *r, size_t room)
{
    size_t i, start = out->size;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        pg_str tmp = PG_STR_INIT;
        if (b->status != PG_STATUS_INCONCLUSIVE &&
            b->status != PG_STATUS_UNRESOLVED)
            continue;
        if (out->size - start > room) {
            pg_str_puts(out, "More without a label: see the JSON report.\n\n");
            break;
        }
        pg_report_no_label(&tmp, r, b);
        pg_str_printf(out, "> %s **", status_icon(b));
        pg_report_md_text(out, b->name, MD_NAME_MAX);
        pg_str_puts(out, "**: ");
        pg_report_md_text(out, pg_str_cstr(&tmp), 800);
        pg_str_puts(out, "\n\n");
        pg_str_clear(&tmp);
    }
}

/* The marker, the headline and the table of benchmarks, as many rows as
 * fit in `room` bytes; how many were shown. */
static size_t md_head(pg_str *out, const pg_result *r, size_t room)
{
    pg_str row = PG_STR_INIT;
    size_t start = out->size, shown, rows = 0;
    int passed = r->verdict.passed;

    pg_str_puts(out, PG_COMMENT_MARKER "\n");
    if (r->aa) {
        pg_str_printf(out, "### %s perfgate self-check (A/A) — ",
                      passed ? "✅" : "❌");
        pg_report_aa_line(out, r);
    } else {
        pg_str_printf(out, "### %s perfgate: %s — ", passed ? "✅" : "❌",
                      passed ? "no regression" : "this change fails the gate");
        pg_report_summary(out, r);
    }
    pg_str_puts(out, "\n\n");
    if (pg_stats_noisy_run(r)) {
        pg_str_puts(out, "> ");
        pg_report_noise_line(out, r);
        pg_str_puts(out, "\n\n");
    }
    md_no_label(out, r, room / 4);
    for (shown = 0; shown < r->nbenchmarks; shown++) {
        if (pg_report_collapsed(&r->benchmarks[shown]))
            continue;
        pg_str_reset(&row);
        md_bench_row(&row, &r->benchmarks[shown]);
        if (out->size - start + row.size + 200 > room)
            break;
        if (!rows++)
            pg_str_puts(out, "| Benchmark | Runtime (base → head) | Change | "
                             "Status |\n|---|---|---|---|\n");
        pg_str_put(out, row.ptr, row.size);
    }
    pg_str_clear(&row);
    if (rows)
        pg_str_putc(out, '\n');
    pg_report_collapsed_line(out, r, shown, 0, 1);
    pg_report_collapsed_line(out, r, shown, 1, 1);
    if (shown < r->nbenchmarks)
        pg_str_printf(out, "\n…and %zu more benchmarks: see the JSON report.\n",
                      r->nbenchmarks - shown);
    pg_str_putc(out, '\n');
    return shown;
}

/*
 * A small chart of the measured benchmarks' changes against the floor,
 * collapsed: GitHub renders Mermaid in comments (xychart-beta; where it
 * does not, the block shows as text under its summary).  Benchmark names
 * are letters, digits and _ . - only: safe in quotes.
 */
static void md_chart(pg_str *out, const pg_result *r, size_t shown)
{
    size_t i, n = 0;
    double floor = NAN;
    int floors = 0; /* how many floors the bars are held to: 1, or 2 */

    for (i = 0; i < shown && n < CHART_MAX; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (b->rounds <= 0 || !isfinite(b->change))
            continue;
        n++;
        if (!floors || pg_result_floor(r, b) != floor)
            floors++;
        floor = pg_result_floor(r, b);
    }
    if (n < 1)
        return;
    pg_str_puts(out, "<details><summary>📊 Chart</summary>\n\n```mermaid\n"
                     "xychart-beta\n    title \"Change against the base (%), ");
    /* A count's bar is held to the count floor, a time's to the noise
     * floor: the title names the one the line is at, or both. */
    if (floors == 1)
        pg_str_printf(out, "floor %.3g%%", floor * 100);
    else
        pg_str_puts(out, "each bar against its own floor (the line)");
    pg_str_puts(out, "\"\n    x-axis [");
    for (i = 0, n = 0; i < shown && n < CHART_MAX; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (b->rounds <= 0 || !isfinite(b->change) || !pg_valid_name(b->name))
            continue;
        pg_str_printf(out, "%s\"%s\"", n++ ? ", " : "", b->name);
    }
    pg_str_puts(out, "]\n    y-axis \"change (%)\"\n    bar [");
    for (i = 0, n = 0; i < shown && n < CHART_MAX; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (b->rounds <= 0 || !isfinite(b->change) || !pg_valid_name(b->name))
            continue;
        pg_str_printf(out, "%s%.1f", n++ ? ", " : "", b->change * 100);
    }
    pg_str_puts(out, "]\n    line [");
    for (i = 0, n = 0; i < shown && n < CHART_MAX; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (b->rounds <= 0 || !isfinite(b->change) || !pg_valid_name(b->name))
            continue;
        pg_str_printf(out, "%s%.1f", n++ ? ", " : "",
                      pg_result_floor(r, b) * 100);
    }
    pg_str_puts(out, "]\n```\n\n</details>\n\n");
}

/* "> MARK **NAME**: LEAD TEXT", a note above the table. */
static void md_quote(pg_str *out, const char *mark, const char *name,
                     const char *lead, const char *text)
{
    pg_str_printf(out, "> %s **", mark);
    pg_report_md_text(out, name, MD_NAME_MAX);
    pg_str_printf(out, "**: %s", lead);
    pg_report_md_text(out, text, 600);
    pg_str_puts(out, "\n\n");
}

/* other_path_line()'s notes, for the comment. */
static void md_other_path(pg_str *out, const pg_bench_result *b)
{
    if (b->uncounted)
        md_quote(out, "🕳️", b->name, "", b->uncounted);
    if (b->other_path)
        md_quote(out, "🔀", b->name,
                 b->other_path_gates
                     ? "counted on another code path than the machine runs "
                       "(gating anyway): "
                     : "counted on another code path than the machine runs "
                       "(not gating): ",
                 b->other_path);
}

/* For each benchmark: the commit that made it slower, when bisected, and a
 * case slower under a total that does not say so. */
static void md_hidden(pg_str *out, const pg_result *r, size_t shown,
                      size_t room)
{
    size_t i, start = out->size;

    for (i = 0; i < shown; i++) {
        if (out->size - start > room) {
            pg_str_puts(out, "More notes: see the JSON report.\n\n");
            break;
        }
        const pg_bench_result *b = &r->benchmarks[i];
        const pg_result_case *hidden = pg_result_slower_case(b);
        pg_str tmp = PG_STR_INIT;
        if (b->culprit) {
            pg_report_culprit_line(&tmp, b);
            md_quote(out, "🔎", b->name, "", pg_str_cstr(&tmp));
            pg_str_reset(&tmp);
        }
        if (b->disagreement)
            md_quote(out, "⚖️", b->name,
                     "time and count disagree: ", b->disagreement);
        md_other_path(out, b);
        if (b->counted)
            md_other_path(out, b->counted);
        if (pg_report_memory_text(&tmp, b))
            md_quote(out, "🧠", b->name,
                     "the heap per call: ", pg_str_cstr(&tmp));
        pg_str_reset(&tmp);
        if (hidden) {
            pg_report_hidden_line(&tmp, b, hidden);
            md_quote(out, "⚠️", b->name, "", pg_str_cstr(&tmp));
        }
        pg_str_clear(&tmp);
    }
}

/* The per-case figures, collapsed, into `section`. */
static void md_cases(pg_str *section, const pg_result *r, size_t shown)
{
    size_t i;

    int items = has_items(r, shown);

    pg_str_puts(section, "<details><summary>Per-case results</summary>\n\n"
                         "| Benchmark | Case | Base | Head | Change | Status | "
                         "GFLOPS (head) | GB/s (head) |");
    if (items)
        pg_str_puts(section, " Mitems/s (head) |");
    pg_str_puts(section,
                r->gpu.present ? " Of the GPU's peak (head) |\n" : "\n");
    pg_str_puts(section, "|---|---|---|---|---|---|---|---|");
    pg_str_puts(section, items ? "---|" : "");
    pg_str_puts(section, r->gpu.present ? "---|\n" : "\n");
    for (i = 0; i < shown; i++)
        if (r->benchmarks[i].rounds > 0)
            md_case_rows(section, r, &r->benchmarks[i], items);
    pg_str_puts(section, "\n");
    {
        pg_str notes = PG_STR_INIT;
        pg_report_unresolved_lines(&notes, r);
        if (notes.size) {
            const char *line = pg_str_cstr(&notes), *nl;
            for (; (nl = strchr(line, '\n')); line = nl + 1) {
                char *one = pg_strdupf("%.*s", (int)(nl - line), line);
                pg_str_puts(section, "- ");
                pg_report_md_text(section, one, 1000);
                pg_str_puts(section, "\n");
                free(one);
            }
            pg_str_puts(section, "\n");
        }
        pg_str_clear(&notes);
    }
    pg_str_puts(section, "</details>\n\n");
}

/* A row of figures: base, head and the change, each a cell. */
static void md_costs(pg_str *out, const double cost[2])
{
    pg_format_count(out, cost[0]);
    pg_str_puts(out, " | ");
    pg_format_count(out, cost[1]);
    pg_str_puts(out, " | ");
    pg_report_cost_change(out, cost[0], cost[1]);
    pg_str_puts(out, " |");
}

static void md_profile_row(pg_str *out, const pg_profile_row *row,
                           const char *prefix)
{
    pg_str cell = PG_STR_INIT;

    pg_report_profile_label(&cell, row);
    pg_str_printf(out, "| %s", prefix);
    pg_report_md_text(out, pg_str_cstr(&cell), MD_NAME_MAX);
    pg_str_puts(out, " | ");
    if (row->file) {
        if (row->text) {
            pg_str_puts(out, "<code>");
            pg_report_md_text(out, row->text, MD_NAME_MAX);
            pg_str_puts(out, "</code>");
        }
        pg_str_puts(out, " | ");
    }
    md_costs(out, row->cost);
    if (!row->file) {
        pg_str_puts(out, " ");
        if (!row->object && pg_report_calls_cost(row))
            pg_report_cost_change(out, row->self[0], row->self[1]);
        pg_str_puts(out, " |");
    }
    pg_str_putc(out, '\n');
    pg_str_clear(&cell);
}

/* A CUDA kernel's profile, collapsed: each kernel's GPU time, and a
 * table of each costliest kernel's metrics. */
static void md_kernels(pg_str *out, const pg_profile *p)
{
    const char *kernel = NULL;
    size_t i;

    pg_str_puts(out, "ncu's GPU time per kernel, its clocks locked to the "
                     "base clock.\n\n| Kernel | Base | Head | Change |\n"
                     "|---|---|---|---|\n");
    for (i = 0; i < p->nfunctions && i < PROFILE_SHOWN; i++) {
        const pg_profile_row *r = &p->functions[i];
        pg_str_puts(out, "| ");
        pg_report_md_text(out, r->function, MD_NAME_MAX);
        pg_str_puts(out, " | ");
        pg_format_ns(out, r->cost[0]);
        pg_str_puts(out, " | ");
        pg_format_ns(out, r->cost[1]);
        pg_str_puts(out, " | ");
        pg_report_cost_change(out, r->cost[0], r->cost[1]);
        pg_str_puts(out, " |\n");
    }
    for (i = 0; i < p->nmetrics; i++) {
        const pg_profile_metric *m = &p->metrics[i];
        if (!kernel || strcmp(kernel, m->kernel)) {
            kernel = m->kernel;
            pg_str_puts(out, "\n| **");
            pg_report_md_text(out, kernel, MD_NAME_MAX);
            pg_str_puts(out,
                        "** | Base | Head | Change |\n|---|---|---|---|\n");
        }
        pg_str_puts(out, "| ");
        pg_report_md_text(out, m->name, MD_NAME_MAX);
        pg_str_puts(out, " | ");
        pg_report_metric_value(out, m->value[0], m->unit);
        pg_str_puts(out, " | ");
        pg_report_metric_value(out, m->value[1], m->unit);
        pg_str_puts(out, " | ");
        pg_report_metric_change(out, m);
        pg_str_puts(out, " |\n");
    }
}

/* Where the time went, collapsed: the costliest functions with what they
 * called outside the user's code, and the lines of the first of them,
 * base and head side by side. */
static void md_profile(pg_str *out, const pg_bench_result *b)
{
    const pg_profile *p = b->profile;
    pg_profile_row outside = pg_report_outside_row(p);
    size_t i;

    if (!p->nfunctions) {
        pg_str_puts(out, "> 🔍 **");
        pg_report_md_text(out, b->name, MD_NAME_MAX);
        pg_str_puts(out, "**: no profile: ");
        pg_report_md_text(out, p->skipped ? p->skipped : "nothing was recorded",
                          300);
        pg_str_puts(out, "\n\n");
        return;
    }
    pg_str_puts(out, "<details><summary>🔍 Where the time went: ");
    pg_report_md_text(out, b->name, MD_NAME_MAX);
    pg_str_puts(out, ", case ");
    pg_report_md_text(out, p->case_name ? p->case_name : "?", MD_NAME_MAX);
    pg_str_puts(out, " (");
    pg_report_md_text(out, p->tool ? p->tool : "?", 40);
    pg_str_puts(out, ", ");
    pg_report_md_text(out, p->unit ? p->unit : "?", 40);
    pg_str_puts(out, ")</summary>\n\n");
    if (p->tool && !strcmp(p->tool, "ncu")) {
        md_kernels(out, p);
        pg_str_puts(out, "\n</details>\n\n");
        return;
    }
    pg_str_puts(out, "Each function counts all it calls; "
                     "its own instructions change as the last column "
                     "says.\n\n| Function | Base | Head | Change | Own |\n"
                     "|---|---|---|---|---|\n");
    for (i = 0; i < p->nfunctions && i < PROFILE_SHOWN; i++)
        md_profile_row(out, &p->functions[i], "");
    if (pg_report_some(outside.cost[0]) || pg_report_some(outside.cost[1])) {
        md_profile_row(out, &outside, "");
        for (i = 0; i < p->noutside && i < PROFILE_SHOWN; i++)
            md_profile_row(out, &p->outside[i], "↳ ");
    }
    if (p->nlines) {
        pg_str_puts(out, "\n| Line | Code | Base | Head | Change |\n"
                         "|---|---|---|---|---|\n");
        for (i = 0; i < p->nlines && i < PROFILE_SHOWN; i++)
            md_profile_row(out, &p->lines[i], "");
    }
    if (p->nalloc_sites)
        pg_str_puts(out, "\nAllocation sites that differ (calls into the "
                         "allocator in one call of the case, base → head):"
                         "\n\n");
    for (i = 0; i < p->nalloc_sites; i++) {
        pg_str site = PG_STR_INIT;
        pg_report_alloc_site(&site, &p->alloc_sites[i]);
        pg_str_puts(out, "- ");
        pg_report_md_text(out, pg_str_cstr(&site), 400);
        pg_str_putc(out, '\n');
        pg_str_clear(&site);
    }
    pg_str_puts(out, "\n</details>\n\n");
}

void pg_report_markdown(pg_str *out, const pg_result *r)
{
    /* Room kept for the closing lines and the "and N more" notes. */
    const size_t limit = PG_COMMENT_MAX - 2048;
    pg_str footer = PG_STR_INIT, section = PG_STR_INIT;
    size_t start = out->size, i, shown;

    md_footer(&footer, r);
    shown =
        md_head(out, r, footer.size < limit / 2 ? limit / 2 - footer.size : 0);
    md_hidden(out, r, shown, limit / 4);
    md_chart(out, r, shown);

    /* Per-case figures, collapsed; dropped whole when they do not fit. */
    md_cases(&section, r, shown);
    if (out->size - start + section.size + footer.size < limit)
        pg_str_put(out, section.ptr, section.size);
    else
        pg_str_puts(out, "Per-case results do not fit in a comment: see the "
                         "JSON report.\n\n");

    for (i = 0; i < shown; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (!b->profile)
            continue;
        pg_str_reset(&section);
        md_profile(&section, b);
        if (out->size - start + section.size + footer.size >= limit) {
            pg_str_puts(out, "More profiles: see the JSON report.\n\n");
            break;
        }
        pg_str_put(out, section.ptr, section.size);
    }
    for (i = 0; i < shown; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (!b->message)
            continue;
        pg_str_reset(&section);
        md_failure(&section, b);
        if (out->size - start + section.size + footer.size >= limit) {
            pg_str_puts(out, "More messages: see the JSON report.\n\n");
            break;
        }
        pg_str_put(out, section.ptr, section.size);
    }

    pg_str_put(out, footer.ptr, footer.size);
    pg_str_clear(&footer);
    pg_str_clear(&section);
    /* Whatever a saved result holds, the comment fits (bytes are never
     * fewer than characters). */
    if (out->size - start > PG_COMMENT_MAX - 64) {
        out->size = start + pg_utf8_cut(out->ptr + start, PG_COMMENT_MAX - 64);
        out->ptr[out->size] = '\0';
        pg_str_puts(out, "\n\n(cut: see the JSON report)\n");
    }
}
