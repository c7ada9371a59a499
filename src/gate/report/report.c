/*
 * report.c - what the terminal's report and the comment say alike
 * (report_parts.h), and the one-line forms (report.h); the terminal's
 * table is report_text.c's, the comment report_md.c's.
 */
#include "report.h"
#include "report_parts.h"
#include "escape.h"
#include "memory.h"
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

/* "NVIDIA H200 (sm_90, 132 SMs at 1980 MHz, 4.92 TB/s), driver 13.0,
 * runtime 13.0" */
void pg_report_gpu_line(pg_str *out, const pg_result *r)
{
    const pg_gpu_info *g = &r->gpu;
    double bw = pg_cuda_peak_bandwidth(g);

    pg_str_printf(out, " (%s, %d SMs at %.0f MHz", g->arch, g->sm_count,
                  g->sm_clock_khz / 1e3);
    if (bw > 0)
        pg_str_printf(out, ", %.2f TB/s", bw / 1e12);
    pg_str_printf(out, "), driver %d.%d", g->driver_version / 1000,
                  g->driver_version % 1000 / 10);
    if (g->runtime_version)
        pg_str_printf(out, ", runtime %d.%d", g->runtime_version / 1000,
                      g->runtime_version % 1000 / 10);
}

/*
 * Everything a reader should be warned of, a line each, into `out` (a
 * zeroed pg_system; free it with pg_system_clear): the machine's warnings
 * (with `machine`), the box, then what the GPU did.
 */
void pg_report_warnings(pg_system *out, const pg_result *r, int machine)
{
    size_t i;

    if (r->base.note)
        pg_system_warn(out, "%s", r->base.note);
    for (i = 0; machine && i < r->system.nwarnings; i++)
        pg_system_warn(out, "%s", r->system.warnings[i]);
    if (r->unboxed)
        pg_system_warn(out,
                       "the revisions' code ran outside the box, with every "
                       "file this user may write and the network in reach "
                       "(%s); --sandbox require makes this an error",
                       r->unboxed);
    if (r->held_env)
        pg_system_warn(out,
                       "pass_env: %s not let into the box: the base "
                       "revision's config does not name it, and a change's "
                       "own config may not add a name (it could name a "
                       "token); it takes effect once merged, or with "
                       "--pass-env",
                       r->held_env);
    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        const pg_gpu_run *g = &b->gpu;
        if (!g->measured)
            continue;
        if (g->throttled)
            pg_system_warn(out,
                           "%s: the GPU's clock dropped below 75%% of its "
                           "peak in %llu of %llu samples; they were taken "
                           "again%s",
                           b->name, (unsigned long long)g->throttled,
                           (unsigned long long)g->samples,
                           g->kept_throttled ? ", and some stayed throttled"
                                             : "");
        if (!g->gated)
            pg_system_warn(out,
                           "%s: kernel launches could not be queued ahead of "
                           "the timed region (does a solution wait for the "
                           "device, with cudaMemcpy or "
                           "cudaDeviceSynchronize?); times of short kernels "
                           "include the host's launch gaps",
                           b->name);
    }
}

static int fixed_by_head(const pg_bench_result *b)
{
    return pg_status_failed(b->status) && b->side == PG_SIDE_BASE;
}

/* A regression that does not gate: a count taken on another code path
 * than the machine runs (pathcheck.h). */
static int ungated(const pg_bench_result *b)
{
    return b->counts_as == PG_STATUS_REGRESSION && !b->gates;
}

void pg_report_summary(pg_str *out, const pg_result *r)
{
    static const pg_status order[] = {
        PG_STATUS_REGRESSION,  PG_STATUS_INCORRECT,    PG_STATUS_CRASHED,
        PG_STATUS_TIMEOUT,     PG_STATUS_BUILD_FAILED, PG_STATUS_INCONCLUSIVE,
        PG_STATUS_IMPROVEMENT, PG_STATUS_UNCHANGED,    PG_STATUS_UNRESOLVED,
        PG_STATUS_NEW,         PG_STATUS_SKIPPED};
    size_t i, j, n, fixed = 0, other = 0, accepted = 0, parts = 0;

    /* A failure of the base alone is a head that fixed it: counted as
     * such, not under its status ("PASS: 1 incorrect"); a regression
     * accepted on purpose, as accepted. */
    for (j = 0; j < r->nbenchmarks; j++) {
        fixed += fixed_by_head(&r->benchmarks[j]);
        other += ungated(&r->benchmarks[j]);
        accepted += (size_t)r->benchmarks[j].accepted;
    }
    for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
        for (j = 0, n = 0; j < r->nbenchmarks; j++)
            n += r->benchmarks[j].counts_as == order[i] &&
                 !fixed_by_head(&r->benchmarks[j]) &&
                 !ungated(&r->benchmarks[j]) && !r->benchmarks[j].accepted;
        if (!n)
            continue;
        pg_str_printf(out, "%s%zu %s", parts++ ? ", " : "", n,
                      order[i] == PG_STATUS_REGRESSION
                          ? (n == 1 ? "regression" : "regressions")
                      : order[i] == PG_STATUS_IMPROVEMENT
                          ? (n == 1 ? "improvement" : "improvements")
                          : pg_status_name(order[i]));
    }
    if (fixed)
        pg_str_printf(out,
                      "%s%zu fixed (broken on the base, right on the "
                      "head)",
                      parts++ ? ", " : "", fixed);
    if (accepted)
        pg_str_printf(out, "%s%zu accepted (slower on purpose: see below)",
                      parts++ ? ", " : "", accepted);
    if (other)
        pg_str_printf(out,
                      "%s%zu slower as counted, on another code path than "
                      "the machine runs (not gating)",
                      parts++ ? ", " : "", other);
    for (j = 0, n = 0; j < r->nbenchmarks; j++)
        n += r->benchmarks[j].memory.status == PG_STATUS_REGRESSION &&
             !r->benchmarks[j].memory.gate;
    if (n)
        pg_str_printf(out, "%s%zu with more heap per call (not gating)",
                      parts++ ? "; " : "", n);
    if (!parts)
        pg_str_puts(out, "no benchmarks");
}

/* Not built or measured: said in one line under the table, not a row of
 * figures nobody measured. */
int pg_report_collapsed(const pg_bench_result *b)
{
    return b->status == PG_STATUS_UNCHANGED &&
           (b->not_affected || b->identical);
}

/* "15 not affected (neither built nor measured): a, b, c and 12 more";
 * nothing when none. */
void pg_report_collapsed_line(pg_str *out, const pg_result *r, size_t shown,
                              int identical, int markdown)
{
    size_t i, n = 0, listed = 0;

    for (i = 0; i < shown; i++)
        n += pg_report_collapsed(&r->benchmarks[i]) &&
             !!r->benchmarks[i].not_affected != identical;
    if (!n)
        return;
    pg_str_printf(out, "%s%zu %s: ", markdown ? "✅ " : "", n,
                  identical ? "with identical code (not measured)"
                            : "not affected (neither built nor measured)");
    for (i = 0; i < shown; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (!pg_report_collapsed(b) || !!b->not_affected == identical)
            continue;
        if (listed == 8) {
            pg_str_printf(out, " and %zu more", n - listed);
            break;
        }
        pg_str_puts(out, listed++ ? ", " : "");
        if (markdown) {
            pg_str_putc(out, '`');
            pg_report_md_text(out, b->name, MD_NAME_MAX);
            pg_str_putc(out, '`');
        } else {
            pg_str_puts(out, b->name);
        }
    }
    pg_str_putc(out, '\n');
}

/* How much slower: "2.9x slower" from 2x on, else "7.7% slower". */
void pg_report_slower_text(pg_str *out, double change)
{
    if (change >= 1)
        pg_str_printf(out, "%.1fx slower", change + 1);
    else
        pg_str_printf(out, "%.1f%% slower", change * 100);
}

/* A change as people read it: "+4.2%", "7.9x slower" from 2x on, "2.5x
 * faster"; "–" when nothing was measured. */
void pg_report_change_text(pg_str *out, double change, int measured)
{
    if (!measured || !isfinite(change))
        pg_str_puts(out, "–");
    else if (change >= 1)
        pg_str_printf(out, "%.1fx slower", change + 1);
    else if (change <= -0.5)
        pg_str_printf(out, "%.1fx faster", 1 / (change + 1));
    else
        pg_format_change(out, change);
}

void pg_report_bench_line(pg_str *out, const pg_bench_result *b)
{
    pg_str_printf(out, "%s: ", b->name);
    pg_report_cell_status(out, b);
    if (b->rounds > 0 && isfinite(b->change)) {
        pg_str_puts(out, ", ");
        pg_report_change_text(out, b->change, 1);
        if (isfinite(b->change_lo)) {
            pg_str_puts(out, " (");
            pg_format_interval(out, b->change_lo, b->change_hi);
            pg_str_putc(out, ')');
        }
    }
    if (b->seconds > 0)
        pg_str_printf(out, ", %.1f s", b->seconds);
}

/* "1a2b3c4d5e (HEAD~1)", "working tree (uncommitted changes)"; `md`
 * escapes what came from outside for markdown. */
void pg_report_describe_side(pg_str *out, const pg_side_info *s, int md)
{
    const char *q = md ? "`" : "";

    if (s->worktree) {
        pg_str_puts(out, "working tree");
        if (s->dirty)
            pg_str_puts(out, " (uncommitted changes)");
        else if (s->commit && *s->commit)
            pg_str_printf(out, " (clean, at %s%.*s%s)", q, SHORT_SHA, s->commit,
                          q);
        return;
    }
    pg_str_printf(out, "%s%.*s%s", q, SHORT_SHA, s->commit ? s->commit : "?",
                  q);
    if (s->rev && s->commit && strncmp(s->rev, s->commit, strlen(s->rev))) {
        pg_str_puts(out, " (");
        if (md)
            pg_report_md_text(out, s->rev, MD_NAME_MAX);
        else
            pg_str_puts(out, s->rev);
        pg_str_putc(out, ')');
    }
}

void pg_report_floor_line(pg_str *out, const pg_result *r)
{
    pg_str_printf(out, "%.3g%% (", r->noise_floor * 100);
    switch (r->floor_source) {
    case PG_FLOOR_DEFAULT:
        pg_str_puts(out, "default");
        break;
    case PG_FLOOR_GITHUB_ACTIONS:
        pg_str_puts(out, "GITHUB_ACTIONS is set: shared runners are noisier");
        break;
    case PG_FLOOR_CONFIG:
        pg_str_puts(out, "perfgate.yml");
        break;
    case PG_FLOOR_FLAG:
        pg_str_puts(out, "--noise-floor");
        break;
    }
    pg_str_putc(out, ')');
}

/*
 * Why `b` got no label, and what to do ("its interval ... straddles the 5%
 * floor ..."), for an inconclusive or unresolved benchmark; nothing for
 * any other.  The terminal, the comment and the HTML say the same.
 */
void pg_report_no_label(pg_str *out, const pg_result *r,
                        const pg_bench_result *b)
{
    double floor = pg_result_floor(r, b) * 100;

    if (b->status == PG_STATUS_UNRESOLVED) {
        pg_str_puts(out, "unresolved: every case is too short to resolve "
                         "here, so it gets no label (give each call more "
                         "work: a larger input, or several calls in one)");
        return;
    }
    if (b->status != PG_STATUS_INCONCLUSIVE)
        return;
    pg_str_puts(out, "inconclusive: ");
    if (pg_stats_too_few(b)) {
        pg_str_printf(out,
                      "the budget ran out after %d rounds, before every "
                      "placement of the code was measured twice, so no "
                      "label rests on what one draw of it found",
                      b->rounds);
    } else {
        pg_str_puts(out, "its interval (");
        pg_format_interval(out, b->change_lo, b->change_hi);
        pg_str_printf(out,
                      ") still holds both sides of the %.3g%% floor when "
                      "the budget ran out, after %d rounds",
                      floor, b->rounds);
    }
    pg_str_printf(out,
                  "; it %s the gate (inconclusive: %s).  To decide it: a "
                  "quieter runner, a longer --max-time, a larger floor, or "
                  "--measure all (a count has a 1%% floor and no noise)",
                  b->inconclusive_fails ? "fails" : "passes",
                  b->inconclusive_fails ? "fail" : "pass");
}

/* A compare whose own noise is more than half its floor
 * (pg_stats_noisy_run()), in one sentence. */
void pg_report_noise_line(pg_str *out, const pg_result *r)
{
    const pg_verdict *v = &r->verdict;

    pg_str_printf(out,
                  "this run's own noise was more than half the floor: %s's "
                  "interval spans ±%.1f%% against a %.3g%% floor, more than a "
                  "self-check (--aa) would trust the floor with; a verdict "
                  "near the floor may not repeat (quiet the machine, a longer "
                  "--max-time, or a larger floor)",
                  r->benchmarks[v->noise_bench].name, v->noise * 100,
                  v->noise_floor * 100);
}

/* The verdict of a self-check (A/A), in words. */
void pg_report_aa_line(pg_str *out, const pg_result *r)
{
    double noise = r->verdict.aa_noise, floor = r->verdict.aa_floor * 100;
    /* Named when it is not the time's: a count is held to its own. */
    const char *which = r->verdict.aa_floor != r->noise_floor ? " count" : "";

    if (isnan(noise)) {
        size_t i, c, unresolved = 0;
        for (i = 0; i < r->nbenchmarks; i++)
            for (c = 0; c < r->benchmarks[i].ncases; c++)
                unresolved += (size_t)r->benchmarks[i].cases[c].unresolved;
        pg_str_puts(out, unresolved ? "nothing resolved: every case it "
                                      "measured is too short to resolve here "
                                      "(see the unresolved lines)"
                                    : "self-check measured nothing");
        return;
    }
    pg_str_printf(out, "this machine's noise is up to %.1f%%, ", noise * 100);
    if (r->verdict.aa_trusted && r->verdict.aa_bench >= 0) {
        const pg_bench_result *b = &r->benchmarks[r->verdict.aa_bench];
        const pg_result_case *c = &b->cases[r->verdict.aa_case];
        pg_str_printf(out,
                      "within half the %.3g%%%s floor, but case %s of %s "
                      "reads %+.1f%% on identical code: the floor cannot be "
                      "trusted for it here (give it more work per call, or "
                      "raise the floor)",
                      floor, which, c->name, b->name, c->change * 100);
    } else if (r->verdict.aa_trusted)
        pg_str_printf(out,
                      "within half the %.3g%%%s floor: the floor can be "
                      "trusted here",
                      floor, which);
    else
        pg_str_printf(out,
                      "more than half the %.3g%%%s floor: the floor "
                      "cannot be trusted here (quiet the machine, or "
                      "raise the floor to %.0f%% or more)",
                      floor, which, ceil(noise * 200));
}

void pg_report_cell_status(pg_str *out, const pg_bench_result *b)
{
    const pg_result_case *hidden = pg_result_slower_case(b);

    pg_str_puts(out, pg_status_name(b->status));
    if (b->side != PG_SIDE_NONE && pg_status_failed(b->status))
        pg_str_printf(out, " (%s)", pg_side_name(b->side));
    if (b->not_affected && b->status == PG_STATUS_UNCHANGED)
        pg_str_puts(out, " (not affected)");
    else if (b->identical && b->status == PG_STATUS_UNCHANGED)
        pg_str_puts(out, " (identical code)");
    if (hidden) {
        pg_str_printf(out, ", but %s is ", hidden->name);
        pg_report_slower_text(out, hidden->change);
    }
    /* The heap, said under the table; here, that it grew. */
    if (b->memory.status == PG_STATUS_REGRESSION)
        pg_str_puts(out,
                    b->memory.gate ? "; more heap, gating" : "; more heap");
}

/* "the total is unchanged, but case n=64 is 2.9x slower (+190.0 … +196.2%);
 * 'gate: cases' fails the gate on any case" */
void pg_report_hidden_line(pg_str *out, const pg_bench_result *b,
                           const pg_result_case *c)
{
    pg_str_printf(out, "the total is %s, but case %s is ",
                  b->status == PG_STATUS_IMPROVEMENT
                      ? "an improvement"
                      : pg_status_name(b->status),
                  c->name);
    pg_report_slower_text(out, c->change);
    pg_str_puts(out, " (");
    pg_format_interval(out, c->change_lo, c->change_hi);
    pg_str_puts(out, "); 'gate: cases' in perfgate.yml fails the gate on "
                     "any case");
}

/* "first slower at abc1234567 (subject, author)", or "at one of 2 commits
 * up to abc1234567 ...": what perfgate bisect found. */
void pg_report_culprit_line(pg_str *out, const pg_bench_result *b)
{
    if (b->culprit_candidates > 1)
        pg_str_printf(out, "first slower at one of %d commits up to %.10s",
                      b->culprit_candidates, b->culprit);
    else
        pg_str_printf(out, "first slower at commit %.10s", b->culprit);
    pg_str_printf(out, " \"%s\" (%s)",
                  b->culprit_subject ? b->culprit_subject : "",
                  b->culprit_author ? b->culprit_author : "");
}

void pg_report_profile_label(pg_str *out, const pg_profile_row *row)
{
    if (row->file) {
        pg_str_printf(out, "%s:%d", row->file, row->line);
        if (row->base_line && row->base_line != row->line)
            pg_str_printf(out, " (was %d)", row->base_line);
    } else if (row->object) {
        pg_str_printf(out, "%s (%s)", row->function, row->object);
    } else {
        pg_str_puts(out, row->function);
    }
}

int pg_report_some(double v)
{
    return isfinite(v) && v > 0;
}

void pg_report_cost_change(pg_str *out, double base, double head)
{
    if (!pg_report_some(base) && !pg_report_some(head))
        return;
    if (!pg_report_some(base))
        pg_str_puts(out, "new");
    else if (!pg_report_some(head))
        pg_str_puts(out, "gone");
    else if (head >= 2 * base)
        pg_str_printf(out, "%.1fx", head / base);
    else
        pg_format_change(out, head / base - 1);
}

/* Whether a function's own cost tells more than its inclusive one: it
 * called something that cost. */
int pg_report_calls_cost(const pg_profile_row *row)
{
    int s;

    for (s = 0; s < 2; s++)
        if (isfinite(row->cost[s]) && isfinite(row->self[s]) &&
            row->cost[s] > row->self[s] * 1.005)
            return 1;
    return 0;
}

pg_profile_row pg_report_outside_row(const pg_profile *p)
{
    pg_profile_row row;

    memset(&row, 0, sizeof(row));
    row.function = (char *)"outside your code";
    row.cost[0] = p->outside_total[0];
    row.cost[1] = p->outside_total[1];
    row.self[0] = row.self[1] = NAN;
    return row;
}

void pg_report_metric_value(pg_str *out, double v, const char *unit)
{
    if (!isfinite(v))
        pg_str_puts(out, "–");
    else if (!strcmp(unit, "%"))
        pg_str_printf(out, "%.1f%%", v);
    else if (!strcmp(unit, "bytes"))
        pg_format_bytes(out, v);
    else if (!strcmp(unit, "ns"))
        pg_format_ns(out, v);
    else if (!strcmp(unit, "warps"))
        pg_str_printf(out, "%.2f", v);
    else
        pg_format_count(out, v);
}

void pg_report_metric_change(pg_str *out, const pg_profile_metric *m)
{
    int share = !strcmp(m->unit, "%"), warps = !strcmp(m->unit, "warps");

    if (!share && !warps) {
        pg_report_cost_change(out, m->value[0], m->value[1]);
        return;
    }
    if (isfinite(m->value[0]) && isfinite(m->value[1]))
        pg_str_printf(out, share ? "%+.1f pts" : "%+.2f",
                      m->value[1] - m->value[0]);
}

/* Which machine measured what: "1/2 on ci-a (3 benchmarks, 12.5 s), ...". */
void pg_report_shards_line(pg_str *out, const pg_result *r, int markdown)
{
    size_t i;

    for (i = 0; i < r->nshards; i++) {
        const pg_shard_info *s = &r->shards[i];
        pg_str_printf(out, "%s%d/%d on ", i ? ", " : "", s->index, s->count);
        if (markdown)
            pg_report_md_text(out, s->host ? s->host : "?", 100);
        else
            pg_str_puts(out, s->host ? s->host : "?");
        pg_str_printf(out, " (%zu benchmark%s, ", s->benchmarks,
                      s->benchmarks == 1 ? "" : "s");
        pg_format_seconds(out, s->seconds);
        pg_str_putc(out, ')');
    }
}

/*
 * One line per case too small to resolve: what a call takes against the
 * harness's own cost, and what to do.  Also in the comment.
 */
void pg_report_unresolved_lines(pg_str *out, const pg_result *r)
{
    size_t i, c;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        for (c = 0; c < b->ncases; c++) {
            const pg_result_case *cr = &b->cases[c];
            if (!cr->unresolved)
                continue;
            pg_str_printf(out, "unresolved: %s %s takes ", b->name, cr->name);
            pg_format_ns(out, fmax(cr->base_ns, cr->head_ns));
            pg_str_puts(out, " a call, against the harness's own ");
            pg_format_ns(out, cr->overhead_ns);
            pg_str_printf(out,
                          " around it: too short to resolve to the %.3g%% "
                          "floor here, so it gets no label (give it more "
                          "work per call: a larger input, several calls in "
                          "one, or for a function: benchmark batch: N)\n",
                          r->noise_floor * 100);
        }
    }
}

/*
 * The counted benchmarks, when there are any: " Counted, with a floor of
 * 1%: spin (instructions per call, by callgrind, ...)." (`md`: a sentence
 * of the comment's footer, the names as Markdown text; else a line of its
 * own).
 */
void pg_report_counted_line(pg_str *out, const pg_result *r, int md)
{
    size_t i, n = 0;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (b->counted)
            b = b->counted;
        if (!b->metric || !b->counter)
            continue;
        if (!n++)
            pg_str_printf(out, "%sounted, with a floor of %.3g%%: ",
                          md ? " C" : "\nc", r->count_floor * 100);
        else
            pg_str_puts(out, ", ");
        if (md)
            pg_report_md_text(out, b->name, MD_NAME_MAX);
        else
            pg_str_puts(out, b->name);
        pg_str_printf(out, " (%s per call, by %s%s)",
                      pg_metric_name((pg_metric)b->metric), b->counter,
                      !strcmp(b->counter, "callgrind")
                          ? ", valgrind's simulated CPU"
                          : ", the CPU's own counter");
    }
    if (n)
        pg_str_putc(out, '.');
}

/*
 * `s`, at most `max` bytes of it cut between characters, escaped for HTML
 * (<pre> in a comment: line breaks kept) or, with `markdown`, for a line
 * of markdown (a table cell too: no line breaks, no markup), then "…"
 * when cut.
 */
void pg_report_escaped(pg_str *out, const char *s, size_t max, int markdown)
{
    size_t n, limit = s ? pg_utf8_cut(s, max) : 0;

    if (!markdown)
        pg_escape_html(out, s ? s : "", limit, 0);
    for (n = 0; markdown && n < limit; n++) {
        char ch = s[n];
        if (strchr("<>&", ch))
            pg_escape_html(out, &ch, 1, 0);
        else if (ch == '|')
            pg_str_puts(out, "\\|");
        else if (ch == '`')
            pg_str_puts(out, "&#96;");
        else if (strchr("*_[]\\#~!", ch)) {
            pg_str_putc(out, '\\');
            pg_str_putc(out, ch);
        } else if (ch == '\n' || ch == '\r' || ch == '\t')
            pg_str_putc(out, ' ');
        else
            pg_str_putc(out, ch);
    }
    if (s && s[limit])
        pg_str_puts(out, markdown ? "…" : "\n…");
}

/* Text safe inside a table cell: no markup, no line breaks, no pipes. */
void pg_report_md_text(pg_str *out, const char *s, size_t max)
{
    pg_report_escaped(out, s, max, 1);
}

int pg_report_memory_text(pg_str *out, const pg_bench_result *b)
{
    const pg_memory *m = &b->memory;
    const pg_result_case *c;

    if (m->skipped) {
        pg_str_printf(out, "not counted: %s", m->skipped);
        return 1;
    }
    if (m->worst_case < 0 || (size_t)m->worst_case >= b->ncases ||
        !pg_memory_counted(b))
        return 0;
    c = &b->cases[m->worst_case];
    pg_memory_describe_change(out, &c->mem[0], &c->mem[1]);
    if (b->ncases > 1)
        pg_str_printf(out, ", in case %s", c->name);
    if (m->status == PG_STATUS_UNCHANGED)
        pg_str_printf(out,
                      ": within the floor (no allocation more, a peak at most "
                      "%.3g%% higher)",
                      m->floor * 100);
    else if (m->status == PG_STATUS_IMPROVEMENT)
        pg_str_puts(out, ": less than the base");
    else if (m->gate)
        pg_str_puts(out, ": fails the gate (memory: gate)");
    else
        pg_str_puts(out, ": said, not gating (memory: gate would fail it)");
    return 1;
}

size_t pg_report_memory_same(pg_str *out, const pg_result *r, int md)
{
    size_t i, c, n = 0;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        pg_memory_use most;
        if (b->memory.worst_case >= 0 || b->memory.skipped ||
            !pg_memory_counted(b) || b->status == PG_STATUS_NEW)
            continue;
        memset(&most, 0, sizeof(most));
        for (c = 0; c < b->ncases; c++) {
            const pg_memory_use *u = &b->cases[c].mem[1];
            most.allocs = fmax(most.allocs, u->allocs);
            most.bytes = fmax(most.bytes, u->bytes);
            most.peak = fmax(most.peak, u->peak);
            most.leaked = fmax(most.leaked, u->leaked);
            most.mapped = fmax(most.mapped, u->mapped);
        }
        if (n++)
            pg_str_puts(out, ", ");
        if (md)
            pg_report_md_text(out, b->name, MD_NAME_MAX);
        else
            pg_str_puts(out, b->name);
        pg_str_puts(out, " (");
        pg_memory_describe(out, &most);
        pg_str_putc(out, ')');
    }
    return n;
}

void pg_report_alloc_site(pg_str *out, const pg_profile_row *r)
{
    double base = isnan(r->cost[0]) ? 0 : r->cost[0];
    double head = isnan(r->cost[1]) ? 0 : r->cost[1];

    if (r->file && *r->file)
        pg_str_printf(out, "%s:%d ", r->file, r->line);
    pg_str_printf(out, "in %s: %s, %.0f → %.0f call%s",
                  r->function ? r->function : "?", r->object ? r->object : "?",
                  base, head, head == 1 ? "" : "s");
    if (r->text)
        pg_str_printf(out, " (%s)", r->text);
}
