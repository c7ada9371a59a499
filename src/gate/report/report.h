/*
 * report.h - rendering a result for people: the terminal table and the
 * markdown PR comment.  (The JSON report is the result's own form, see
 * result.h.)  Renderers take a finished pg_result and append to a buffer;
 * they decide nothing.
 */
#ifndef PG_REPORT_H
#define PG_REPORT_H

#include "result.h"
#include "str.h"

/* The marker that lets a later run find and update the same PR comment. */
#define PG_COMMENT_MARKER "<!-- perfgate -->"

/* GitHub refuses comments of 65,536 characters or more. */
#define PG_COMMENT_MAX 65536

/* One benchmark in one line, as it finishes: "sum: regression, 8.0x
 * slower (+697.0 … +698.7%), 1.1 s". */
void pg_report_bench_line(pg_str *out, const pg_bench_result *b);

/* The terminal table, with ANSI colors when `color` is set. */
void pg_report_terminal(pg_str *out, const pg_result *r, int color);

/*
 * The PR comment: the marker, a one-line verdict, a table of benchmarks, the
 * per-case figures in a collapsed <details>, failures' messages, the
 * commits and the noise floor.  Always under PG_COMMENT_MAX characters:
 * what does not fit is summarized, with a pointer to the JSON report.
 */
void pg_report_markdown(pg_str *out, const pg_result *r);

/*
 * A profile row's name for people: "solution", "malloc (libc.so.6)", or
 * "src/sum.c:8" with " (was 6)" when the base had that code on another
 * line.
 */
void pg_report_profile_label(pg_str *out, const pg_profile_row *row);

/* What the user's code spent outside itself, as one row ("outside your
 * code", both sides' totals; no own cost); its strings are static. */
pg_profile_row pg_report_outside_row(const pg_profile *p);

/* How a cost changed, base to head: "+18.2%", "7.8x", "new" (none on
 * the base), "gone" (none on the head); nothing when neither side has
 * any. */
void pg_report_cost_change(pg_str *out, double base, double head);

/* A kernel's metric for people (ncu.h): "97.9%", "12.0 MB", "3.21"
 * (warps), "–" when the side has none. */
void pg_report_metric_value(pg_str *out, double v, const char *unit);

/* How a kernel's metric changed: a share by its points ("-12.3 pts"), a
 * stall by its warps ("+1.52"), anything else as a cost changes. */
void pg_report_metric_change(pg_str *out, const pg_profile_metric *m);

/* "1 regression, 2 unchanged" etc.; the one-line verdict's detail. */
void pg_report_summary(pg_str *out, const pg_result *r);

/*
 * Why `b` got no label and what to do, for an inconclusive or unresolved
 * benchmark ("inconclusive: its interval (...) still holds both sides of
 * the 5% floor ..."); nothing for any other.
 */
void pg_report_no_label(pg_str *out, const pg_result *r,
                        const pg_bench_result *b);

#endif
