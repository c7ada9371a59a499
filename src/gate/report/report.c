/*
 * report.c - the terminal table and the markdown comment.
 */
#include "report.h"
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

#define SHORT_SHA 10
#define DETAIL_LOG_MAX 3000

/* "NVIDIA H200 (sm_90, 132 SMs at 1980 MHz, 4.92 TB/s), driver 13.0,
 * runtime 13.0" */
static void gpu_line(pg_str *out, const pg_result *r)
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
static void warnings(pg_system *out, const pg_result *r, int machine)
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
    if (!parts)
        pg_str_puts(out, "no benchmarks");
}

static void md_text(pg_str *out, const char *s, size_t max);

/* The most of a name (a benchmark's, a case's, a revision's) that a
 * comment shows: a pull request chooses them, and the comment is small. */
#define MD_NAME_MAX 200

/* Not built or measured: said in one line under the table, not a row of
 * figures nobody measured. */
static int collapsed(const pg_bench_result *b)
{
    return b->status == PG_STATUS_UNCHANGED &&
           (b->not_affected || b->identical);
}

/* "15 not affected (neither built nor measured): a, b, c and 12 more";
 * nothing when none. */
static void collapsed_line(pg_str *out, const pg_result *r, size_t shown,
                           int identical, int markdown)
{
    size_t i, n = 0, listed = 0;

    for (i = 0; i < shown; i++)
        n += collapsed(&r->benchmarks[i]) &&
             !!r->benchmarks[i].not_affected != identical;
    if (!n)
        return;
    pg_str_printf(out, "%s%zu %s: ", markdown ? "✅ " : "", n,
                  identical ? "with identical code (not measured)"
                            : "not affected (neither built nor measured)");
    for (i = 0; i < shown; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        if (!collapsed(b) || !!b->not_affected == identical)
            continue;
        if (listed == 8) {
            pg_str_printf(out, " and %zu more", n - listed);
            break;
        }
        pg_str_puts(out, listed++ ? ", " : "");
        if (markdown) {
            pg_str_putc(out, '`');
            md_text(out, b->name, MD_NAME_MAX);
            pg_str_putc(out, '`');
        } else {
            pg_str_puts(out, b->name);
        }
    }
    pg_str_putc(out, '\n');
}

/* How much slower: "2.9x slower" from 2x on, else "7.7% slower". */
static void slower_text(pg_str *out, double change)
{
    if (change >= 1)
        pg_str_printf(out, "%.1fx slower", change + 1);
    else
        pg_str_printf(out, "%.1f%% slower", change * 100);
}

static void cell_status(pg_str *out, const pg_bench_result *b);

/* A change as people read it: "+4.2%", "7.9x slower" from 2x on, "2.5x
 * faster"; "–" when nothing was measured. */
static void change_text(pg_str *out, double change, int measured)
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
    cell_status(out, b);
    if (b->rounds > 0 && isfinite(b->change)) {
        pg_str_puts(out, ", ");
        change_text(out, b->change, 1);
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
static void describe_side(pg_str *out, const pg_side_info *s, int md)
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
            md_text(out, s->rev, MD_NAME_MAX);
        else
            pg_str_puts(out, s->rev);
        pg_str_putc(out, ')');
    }
}

static void floor_line(pg_str *out, const pg_result *r)
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
static void noise_line(pg_str *out, const pg_result *r)
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
static void aa_line(pg_str *out, const pg_result *r)
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

/* ---- terminal ---- */

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define DIM "\033[2m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

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

static void cell_status(pg_str *out, const pg_bench_result *b)
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
        slower_text(out, hidden->change);
    }
}

/* "the total is unchanged, but case n=64 is 2.9x slower (+190.0 … +196.2%);
 * 'gate: cases' fails the gate on any case" */
static void hidden_line(pg_str *out, const pg_bench_result *b,
                        const pg_result_case *c)
{
    pg_str_printf(out, "the total is %s, but case %s is ",
                  b->status == PG_STATUS_IMPROVEMENT
                      ? "an improvement"
                      : pg_status_name(b->status),
                  c->name);
    slower_text(out, c->change);
    pg_str_puts(out, " (");
    pg_format_interval(out, c->change_lo, c->change_hi);
    pg_str_puts(out, "); 'gate: cases' in perfgate.yml fails the gate on "
                     "any case");
}

/* "first slower at abc1234567 (subject, author)", or "at one of 2 commits
 * up to abc1234567 ...": what perfgate bisect found. */
static void culprit_line(pg_str *out, const pg_bench_result *b)
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

static int some(double v)
{
    return isfinite(v) && v > 0;
}

void pg_report_cost_change(pg_str *out, double base, double head)
{
    if (!some(base) && !some(head))
        return;
    if (!some(base))
        pg_str_puts(out, "new");
    else if (!some(head))
        pg_str_puts(out, "gone");
    else if (head >= 2 * base)
        pg_str_printf(out, "%.1fx", head / base);
    else
        pg_format_change(out, head / base - 1);
}

/* Whether a function's own cost tells more than its inclusive one: it
 * called something that cost. */
static int calls_cost(const pg_profile_row *row)
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

#define PROFILE_SHOWN 8 /* rows of each table in the reports */
#define OUTSIDE_SHOWN 4 /* functions outside, in the terminal */
#define PCOL 5          /* label, base, head, change, what else */
#define PROWS (2 * PROFILE_SHOWN + OUTSIDE_SHOWN + 1)

/* The terminal's profile rows, each a row of PCOL cells. */
typedef struct prows {
    pg_str cells[PROWS][PCOL];
    size_t n;
} prows;

/* "solution  35,024 → 2,780,021  79.4x  (own 35,024 → 260,021)" */
static void prow_add(prows *t, const pg_profile_row *row, int indent)
{
    pg_str *c = t->cells[t->n++];

    pg_str_printf(&c[0], "%*s", indent, "");
    pg_report_profile_label(&c[0], row);
    pg_format_count(&c[1], row->cost[0]);
    pg_format_count(&c[2], row->cost[1]);
    pg_report_cost_change(&c[3], row->cost[0], row->cost[1]);
    if (!row->file && !row->object && calls_cost(row)) {
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
    if (some(outside.cost[0]) || some(outside.cost[1])) {
        prow_add(t, &outside, 0);
        for (i = 0; i < p->noutside && i < OUTSIDE_SHOWN; i++)
            prow_add(t, &p->outside[i], 2);
    }
    prows_put(out, t);
    for (i = 0; i < p->nlines && i < PROFILE_SHOWN; i++)
        prow_add(t, &p->lines[i], 0);
    prows_put(out, t);
    free(t);
}

/* Cases get rows of their own when there are several and they were
 * measured. */
static int shows_cases(const pg_bench_result *b)
{
    return b->ncases > 1 && b->rounds > 0 && !pg_status_failed(b->status);
}

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

/* A benchmark's figures and status, in the cells after its name. */
static void bench_cells(pg_str *row, const pg_bench_result *b)
{
    pg_result_format_figure(&row[1], b, b->base_ns);
    pg_result_format_figure(&row[2], b, b->head_ns);
    change_text(&row[3], b->change, b->rounds > 0);
    pg_format_interval(&row[4], b->change_lo, b->change_hi);
    if (b->rounds > 0 && b->processes > 1)
        pg_str_printf(&row[5], "%d in %d", b->rounds, b->processes);
    else if (b->rounds > 0)
        pg_str_printf(&row[5], "%d", b->rounds);
    else
        pg_str_puts(&row[5], "–");
    cell_status(&row[6], b);
}

static void table_fill(table *t, const pg_result *r)
{
    size_t i, j, k;

    t->nrows = 0;
    for (i = 0; i < r->nbenchmarks; i++)
        if (!collapsed(&r->benchmarks[i]))
            t->nrows +=
                1 + (r->benchmarks[i].counted != NULL) +
                (shows_cases(&r->benchmarks[i]) ? r->benchmarks[i].ncases : 0);
    t->cells = pg_calloc(t->nrows ? t->nrows : 1, sizeof(*t->cells));
    t->bench = pg_calloc(t->nrows ? t->nrows : 1, sizeof(*t->bench));
    for (i = 0, j = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        pg_str *row = t->cells[j];
        size_t c;
        if (collapsed(b))
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
            change_text(&row[3], cr->change, 1);
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
            hidden_line(out, b, hidden);
            pg_str_putc(out, '\n');
        }
        if (b->culprit) {
            pg_str_printf(out, "\n%s%s%s: ", color ? BOLD : "", b->name,
                          color ? RESET : "");
            culprit_line(out, b);
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

/* Which machine measured what: "1/2 on ci-a (3 benchmarks, 12.5 s), ...". */
static void shards_line(pg_str *out, const pg_result *r, int markdown)
{
    size_t i;

    for (i = 0; i < r->nshards; i++) {
        const pg_shard_info *s = &r->shards[i];
        pg_str_printf(out, "%s%d/%d on ", i ? ", " : "", s->index, s->count);
        if (markdown)
            md_text(out, s->host ? s->host : "?", 100);
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
static void unresolved_lines(pg_str *out, const pg_result *r)
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

/*
 * The counted benchmarks, when there are any: " Counted, with a floor of
 * 1%: spin (instructions per call, by callgrind, ...)." (`md`: a sentence
 * of the comment's footer, the names as Markdown text; else a line of its
 * own).
 */
static void counted_line(pg_str *out, const pg_result *r, int md)
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
            md_text(out, b->name, MD_NAME_MAX);
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

/* The floor, the GPU, the machine's warnings. */
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

static void terminal_notes(pg_str *out, const pg_result *r, int color)
{
    pg_system notes;
    size_t i;

    pg_str_puts(out, "\nnoise floor ");
    floor_line(out, r);
    pg_str_puts(out, "; a label needs its whole interval on one side of "
                     "it; runs: rounds, in that many processes");
    counted_line(out, r, 0);
    pg_str_putc(out, '\n');
    no_label_lines(out, r, color);
    accept_lines(out, r);
    own_floor_lines(out, r);
    batch_lines(out, r);
    unresolved_lines(out, r);
    disagreement_lines(out, r);
    if (r->gpu.present) {
        pg_str_printf(out, "gpu %s", r->gpu.name);
        gpu_line(out, r);
        pg_str_putc(out, '\n');
    }
    if (r->nshards) {
        pg_str_puts(out, "shards ");
        shards_line(out, r, 0);
        pg_str_putc(out, '\n');
    }
    memset(&notes, 0, sizeof(notes));
    warnings(&notes, r, 1);
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
    describe_side(out, &r->base, 0);
    pg_str_puts(out, "\nhead  ");
    describe_side(out, &r->head, 0);
    pg_str_puts(out, "\n\n");
    table_put(out, &t, color);
    for (i = 0; t.nrows && i < r->nbenchmarks; i++)
        if (collapsed(&r->benchmarks[i])) {
            pg_str_putc(out, '\n');
            break;
        }
    collapsed_line(out, r, r->nbenchmarks, 0, 0);
    collapsed_line(out, r, r->nbenchmarks, 1, 0);
    terminal_details(out, r, color);
    terminal_notes(out, r, color);
    pg_str_printf(out, "\n%s%s%s: %s", color ? (passed ? GREEN : RED) : "",
                  passed ? "PASS" : "FAIL", color ? RESET : "",
                  r->aa ? "self-check: " : "");
    if (r->aa)
        aa_line(out, r);
    else
        pg_report_summary(out, r);
    pg_str_putc(out, '\n');
    if (pg_stats_noisy_run(r)) {
        noise_line(out, r);
        pg_str_putc(out, '\n');
    }
}

/* ---- markdown ---- */

/*
 * `s`, at most `max` bytes of it cut between characters, escaped for HTML
 * (<pre> in a comment: line breaks kept) or, with `markdown`, for a line
 * of markdown (a table cell too: no line breaks, no markup), then "…"
 * when cut.
 */
static void escaped(pg_str *out, const char *s, size_t max, int markdown)
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
static void md_text(pg_str *out, const char *s, size_t max)
{
    escaped(out, s, max, 1);
}

/* Text inside <pre>: HTML-escaped, line breaks kept. */
static void html_text(pg_str *out, const char *s, size_t max)
{
    escaped(out, s, max, 0);
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
    md_text(out, b->name, MD_NAME_MAX);
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
    change_text(out, b->change, b->rounds > 0);
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
        change_text(out, b->counted->change, 1);
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
        md_text(out, hidden->name, MD_NAME_MAX);
        pg_str_puts(out, " is ");
        slower_text(out, hidden->change);
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

static void md_case_rows(pg_str *out, const pg_result *r,
                         const pg_bench_result *b)
{
    size_t i;

    for (i = 0; i < b->ncases; i++) {
        const pg_result_case *c = &b->cases[i];
        pg_str_puts(out, "| ");
        md_text(out, b->name, MD_NAME_MAX);
        pg_str_puts(out, " | ");
        md_text(out, c->name, MD_NAME_MAX);
        pg_str_puts(out, " | ");
        pg_result_format_figure(out, b, c->base_ns);
        pg_str_puts(out, " | ");
        pg_result_format_figure(out, b, c->head_ns);
        pg_str_puts(out, " | ");
        change_text(out, c->change, 1);
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

/* The most the footer's list of shards, and then its warnings, take of a
 * comment. */
#define FOOTER_PART_MAX 4096

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
        md_text(footer, r->system.warnings[i], 400);
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
    md_text(out, r->main_machine, MD_NAME_MAX);
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
        md_text(out, b->name, MD_NAME_MAX);
        pg_str_putc(out, ' ');
        pg_format_change(out, b->main_change);
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
static void md_footer(pg_str *footer, const pg_result *r)
{
    pg_system notes;
    size_t i;

    pg_str_puts(footer, "Base ");
    describe_side(footer, &r->base, 1);
    pg_str_puts(footer, " → head ");
    describe_side(footer, &r->head, 1);
    pg_str_puts(footer, ". Noise floor ");
    floor_line(footer, r);
    pg_str_puts(footer, ": a change within it counts as unchanged. "
                        "Times are the sum over the cases of each case's "
                        "minimum time per call; under each change, its 95% "
                        "interval from the paired rounds.");
    counted_line(footer, r, 1);
    pg_str_putc(footer, '\n');
    md_main_moves(footer, r);
    if (r->gpu.present) {
        pg_str_puts(footer, "\nGPU: ");
        md_text(footer, r->gpu.name, MD_NAME_MAX);
        gpu_line(footer, r);
        pg_str_puts(footer, ". Kernels are timed with CUDA events, "
                            "launches queued back to back; cold benchmarks "
                            "flush the L2 before each sample.\n");
    }
    if (r->nshards) {
        pg_str line = PG_STR_INIT;
        shards_line(&line, r, 1);
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
    warnings(&notes, r, 0);
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
        md_text(footer, notes.warnings[i], 400);
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
        md_text(out, b->name, MD_NAME_MAX);
        pg_str_puts(out, "**: ");
        md_text(out, pg_str_cstr(&tmp), 800);
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
        aa_line(out, r);
    } else {
        pg_str_printf(out, "### %s perfgate: %s — ", passed ? "✅" : "❌",
                      passed ? "no regression" : "this change fails the gate");
        pg_report_summary(out, r);
    }
    pg_str_puts(out, "\n\n");
    if (pg_stats_noisy_run(r)) {
        pg_str_puts(out, "> ");
        noise_line(out, r);
        pg_str_puts(out, "\n\n");
    }
    md_no_label(out, r, room / 4);
    for (shown = 0; shown < r->nbenchmarks; shown++) {
        if (collapsed(&r->benchmarks[shown]))
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
    collapsed_line(out, r, shown, 0, 1);
    collapsed_line(out, r, shown, 1, 1);
    if (shown < r->nbenchmarks)
        pg_str_printf(out, "\n…and %zu more benchmarks: see the JSON report.\n",
                      r->nbenchmarks - shown);
    pg_str_putc(out, '\n');
    return shown;
}

/* The most benchmarks the comment's chart shows. */
#define CHART_MAX 20

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

/* other_path_line()'s notes, for the comment. */
static void md_other_path(pg_str *out, const pg_bench_result *b)
{
    if (b->uncounted) {
        pg_str_puts(out, "> 🕳️ **");
        md_text(out, b->name, MD_NAME_MAX);
        pg_str_puts(out, "**: ");
        md_text(out, b->uncounted, 600);
        pg_str_puts(out, "\n\n");
    }
    if (!b->other_path)
        return;
    pg_str_puts(out, "> 🔀 **");
    md_text(out, b->name, MD_NAME_MAX);
    pg_str_printf(out,
                  "**: counted on another code path than the machine runs "
                  "(%s): ",
                  b->other_path_gates ? "gating anyway" : "not gating");
    md_text(out, b->other_path, 600);
    pg_str_puts(out, "\n\n");
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
            culprit_line(&tmp, b);
            pg_str_puts(out, "> 🔎 **");
            md_text(out, b->name, MD_NAME_MAX);
            pg_str_puts(out, "**: ");
            md_text(out, pg_str_cstr(&tmp), 600);
            pg_str_puts(out, "\n\n");
            pg_str_reset(&tmp);
        }
        if (b->disagreement) {
            pg_str_puts(out, "> ⚖️ **");
            md_text(out, b->name, MD_NAME_MAX);
            pg_str_puts(out, "**: time and count disagree: ");
            md_text(out, b->disagreement, 600);
            pg_str_puts(out, "\n\n");
        }
        md_other_path(out, b);
        if (b->counted)
            md_other_path(out, b->counted);
        if (!hidden) {
            pg_str_clear(&tmp);
            continue;
        }
        hidden_line(&tmp, b, hidden);
        pg_str_puts(out, "> ⚠️ **");
        md_text(out, b->name, MD_NAME_MAX);
        pg_str_puts(out, "**: ");
        md_text(out, pg_str_cstr(&tmp), 600);
        pg_str_puts(out, "\n\n");
        pg_str_clear(&tmp);
    }
}

/* The per-case figures, collapsed, into `section`. */
static void md_cases(pg_str *section, const pg_result *r, size_t shown)
{
    size_t i;

    pg_str_puts(section, "<details><summary>Per-case results</summary>\n\n"
                         "| Benchmark | Case | Base | Head | Change | Status | "
                         "GFLOPS (head) | GB/s (head) |");
    pg_str_puts(section, r->gpu.present
                             ? " Of the GPU's peak (head) |\n"
                               "|---|---|---|---|---|---|---|---|---|\n"
                             : "\n|---|---|---|---|---|---|---|---|\n");
    for (i = 0; i < shown; i++)
        if (r->benchmarks[i].rounds > 0)
            md_case_rows(section, r, &r->benchmarks[i]);
    pg_str_puts(section, "\n");
    {
        pg_str notes = PG_STR_INIT;
        unresolved_lines(&notes, r);
        if (notes.size) {
            const char *line = pg_str_cstr(&notes), *nl;
            for (; (nl = strchr(line, '\n')); line = nl + 1) {
                char *one = pg_strdupf("%.*s", (int)(nl - line), line);
                pg_str_puts(section, "- ");
                md_text(section, one, 1000);
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
    md_text(out, pg_str_cstr(&cell), MD_NAME_MAX);
    pg_str_puts(out, " | ");
    if (row->file) {
        if (row->text) {
            pg_str_puts(out, "<code>");
            md_text(out, row->text, MD_NAME_MAX);
            pg_str_puts(out, "</code>");
        }
        pg_str_puts(out, " | ");
    }
    md_costs(out, row->cost);
    if (!row->file) {
        pg_str_puts(out, " ");
        if (!row->object && calls_cost(row))
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
        md_text(out, r->function, MD_NAME_MAX);
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
            md_text(out, kernel, MD_NAME_MAX);
            pg_str_puts(out,
                        "** | Base | Head | Change |\n|---|---|---|---|\n");
        }
        pg_str_puts(out, "| ");
        md_text(out, m->name, MD_NAME_MAX);
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
        md_text(out, b->name, MD_NAME_MAX);
        pg_str_puts(out, "**: no profile: ");
        md_text(out, p->skipped ? p->skipped : "nothing was recorded", 300);
        pg_str_puts(out, "\n\n");
        return;
    }
    pg_str_puts(out, "<details><summary>🔍 Where the time went: ");
    md_text(out, b->name, MD_NAME_MAX);
    pg_str_puts(out, ", case ");
    md_text(out, p->case_name ? p->case_name : "?", MD_NAME_MAX);
    pg_str_puts(out, " (");
    md_text(out, p->tool ? p->tool : "?", 40);
    pg_str_puts(out, ", ");
    md_text(out, p->unit ? p->unit : "?", 40);
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
    if (some(outside.cost[0]) || some(outside.cost[1])) {
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
