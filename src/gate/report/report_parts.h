/*
 * report_parts.h - what the terminal's report (report_text.c) and the
 * comment (report_md.c) say alike, written once in report.c: the lines
 * about a run both show, a change as people read it, a status cell, text
 * made safe for a comment.  Private to gate/report.
 */
#ifndef PG_REPORT_PARTS_H
#define PG_REPORT_PARTS_H

#include <stddef.h>

#include "result.h"
#include "str.h"

#define SHORT_SHA 10
#define DETAIL_LOG_MAX 3000
/* The most of a name (a benchmark's, a case's, a revision's) that a
 * comment shows: a pull request chooses them, and the comment is small. */
#define MD_NAME_MAX 200
#define PROFILE_SHOWN 8 /* rows of each table in the reports */
#define OUTSIDE_SHOWN 4 /* functions outside, in the terminal */

/* "NVIDIA H200 (sm_90, 132 SMs at 1980 MHz, 4.92 TB/s), driver 13.0,
 * runtime 13.0" */
void pg_report_gpu_line(pg_str *out, const pg_result *r);

/*
 * Everything a reader should be warned of, a line each, into `out` (a
 * zeroed pg_system; free it with pg_system_clear): the machine's warnings
 * (with `machine`), the box, then what the GPU did.
 */
void pg_report_warnings(pg_system *out, const pg_result *r, int machine);

/* Not built or measured: said in one line under the table, not a row of
 * figures nobody measured. */
int pg_report_collapsed(const pg_bench_result *b);

/* "15 not affected (neither built nor measured): a, b, c and 12 more";
 * nothing when none. */
void pg_report_collapsed_line(pg_str *out, const pg_result *r, size_t shown,
                              int identical, int markdown);

/* How much slower: "2.9x slower" from 2x on, else "7.7% slower". */
void pg_report_slower_text(pg_str *out, double change);

/* A change as people read it: "+4.2%", "7.9x slower" from 2x on, "2.5x
 * faster"; "–" when nothing was measured. */
void pg_report_change_text(pg_str *out, double change, int measured);

/* "1a2b3c4d5e (HEAD~1)", "working tree (uncommitted changes)"; `md`
 * escapes what came from outside for markdown. */
void pg_report_describe_side(pg_str *out, const pg_side_info *s, int md);

void pg_report_floor_line(pg_str *out, const pg_result *r);

/* A compare whose own noise is more than half its floor
 * (pg_stats_noisy_run()), in one sentence. */
void pg_report_noise_line(pg_str *out, const pg_result *r);

/* The verdict of a self-check (A/A), in words. */
void pg_report_aa_line(pg_str *out, const pg_result *r);

void pg_report_cell_status(pg_str *out, const pg_bench_result *b);

/* "the total is unchanged, but case n=64 is 2.9x slower (+190.0 … +196.2%);
 * 'gate: cases' fails the gate on any case" */
void pg_report_hidden_line(pg_str *out, const pg_bench_result *b,
                           const pg_result_case *c);

/* "first slower at abc1234567 (subject, author)", or "at one of 2 commits
 * up to abc1234567 ...": what perfgate bisect found. */
void pg_report_culprit_line(pg_str *out, const pg_bench_result *b);

int pg_report_some(double v);

/* Whether a function's own cost tells more than its inclusive one: it
 * called something that cost. */
int pg_report_calls_cost(const pg_profile_row *row);

/* Which machine measured what: "1/2 on ci-a (3 benchmarks, 12.5 s), ...". */
void pg_report_shards_line(pg_str *out, const pg_result *r, int markdown);

/*
 * One line per case too small to resolve: what a call takes against the
 * harness's own cost, and what to do.  Also in the comment.
 */
void pg_report_unresolved_lines(pg_str *out, const pg_result *r);

/*
 * The counted benchmarks, when there are any: " Counted, with a floor of
 * 1%: spin (instructions per call, by callgrind, ...)." (`md`: a sentence
 * of the comment's footer, the names as Markdown text; else a line of its
 * own).
 */
void pg_report_counted_line(pg_str *out, const pg_result *r, int md);

/* An allocation site of a profile: "allocs.c:60 in checksum: malloc,
 * 0 → 1 call (kept = malloc(EXTRA);)". */
void pg_report_alloc_site(pg_str *out, const pg_profile_row *r);

/*
 * b's heap in a sentence, without its name: "+2 allocations, +29 B per
 * call; peak 0 B → 29 B; leaks 16 B per call more, in case n=4096: said,
 * not gating (memory: report)"; "not counted: ..."; 0 and nothing when
 * there is nothing to say (unchanged, or not counted at all).
 */
int pg_report_memory_text(pg_str *out, const pg_bench_result *b);

/* The benchmarks whose heap is the same on both sides, with the most any
 * case asks per call: "sum (0 allocs), crc (1 alloc, 64 B, peak 64 B)";
 * 0 when none.  `md`: names as Markdown text. */
size_t pg_report_memory_same(pg_str *out, const pg_result *r, int md);

/*
 * `s`, at most `max` bytes of it cut between characters, escaped for HTML
 * (<pre> in a comment: line breaks kept) or, with `markdown`, for a line
 * of markdown (a table cell too: no line breaks, no markup), then "…"
 * when cut.
 */
void pg_report_escaped(pg_str *out, const char *s, size_t max, int markdown);

/* Text safe inside a table cell: no markup, no line breaks, no pipes. */
void pg_report_md_text(pg_str *out, const char *s, size_t max);

#endif
