/*
 * cmd.h - the subcommands, dispatched from main.c's table.  Each returns
 * the process exit code (error.h).
 */
#ifndef PG_CMD_H
#define PG_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "compare.h"
#include "opt.h"
#include "result.h"
#include "strvec.h"

int pg_cmd_compare(int argc, char **argv);
int pg_cmd_init(int argc, char **argv);
int pg_cmd_report(int argc, char **argv);
int pg_cmd_problems(int argc, char **argv);
int pg_cmd_merge(int argc, char **argv);
int pg_cmd_bisect(int argc, char **argv);
int pg_cmd_history(int argc, char **argv);
int pg_cmd_record(int argc, char **argv);

/* Prints "perfgate: MESSAGE" for the last error; returns its exit code. */
int pg_cmd_fail(int err);

/* Prints a report on `f` (stdout, or stderr when stdout carries a file
 * asked for with "-"); on GitHub's runners, with workflow commands stopped
 * around it (the report quotes user code). */
void pg_cmd_print_report(FILE *f, const char *text);

/* Writes `data` to `path`, or to standard output when `path` is "-"; 0,
 * or a set error. */
int pg_cmd_write(const char *path, const char *data, size_t len);

/* For a non-terminal: one line on stderr as each benchmark finishes. */
void pg_cmd_bench_done(void *payload, const pg_bench_result *b, size_t index,
                       size_t count);

/*
 * Reads the result saved at `path` (a file a user names: it may hold
 * anything) and judges it (pg_stats_judge: its own verdict is not
 * trusted).  0, or PG_ERR_USAGE saying why, and `out` then empty.
 */
int pg_cmd_read_result(pg_result *out, const char *path);

/* Where a command shows a result. */
typedef struct pg_cmd_outputs {
    const char *color_when; /* --color: "auto", "always", "never"; NULL */
    const char *json_path;  /* --json FILE, or NULL */
    const char *md_path;    /* --markdown FILE, or NULL */
    const char *html_path;  /* --html FILE, or NULL */
} pg_cmd_outputs;

/*
 * Shows `r`, judged where it was made or read (pg_stats_judge): its text
 * made safe, the report on stdout, then the JSON and markdown files asked
 * for.  0, or a set error when a file cannot be written.
 */
int pg_cmd_show(pg_result *r, const pg_cmd_outputs *outputs);

/* PG_OPT_CALL's for -v (each command and call said, on stderr) and
 * --sandbox WHEN (box.h). */
int pg_cmd_opt_verbose(void *unused, const char *arg);
int pg_cmd_opt_sandbox(void *unused, const char *arg);

/* The options of commands that measure (compare, bisect), into the
 * pg_compare_opts `o` and the benchmark names `only` (opt.h). */
#define PG_MEASURE_OPTS(o, only)                                               \
    PG_OPT_STR("config", 'c', &(o)->config_path, "FILE",                       \
               "the config (default: perfgate.yml at the\n"                    \
               "repository root, from the working tree)"),                     \
        PG_OPT_EACH("bench", 'b', only, "NAME",                                \
                    "run only this benchmark (repeatable)"),                   \
        PG_OPT_PCT("noise-floor", &(o)->noise_floor, "PCT",                    \
                   "changes within it are noise (5%, 0.05);\n"                 \
                   "default 5%, 10% when GITHUB_ACTIONS=true"),                \
        PG_OPT_ONE_OF("measure", &(o)->measure, "WHAT",                        \
                      "time|instructions|cycles|all",                          \
                      "time (the default), or count what each\n"               \
                      "side executes: instructions, or cycles\n"               \
                      "(callgrind's cache model); all: time and\n"             \
                      "instructions side by side"),                            \
        PG_OPT_PCT("count-floor", &(o)->count_floor, "PCT",                    \
                   "the noise floor of counts (default 1%)"),                  \
        PG_OPT_ONE_OF("counter", &(o)->counter, "HOW",                         \
                      "auto|hardware|callgrind",                               \
                      "what counts: the CPU's counter, or\n"                   \
                      "valgrind's callgrind; auto (default):\n"                \
                      "the CPU's where it has one"),                           \
        PG_OPT_ONE_OF("path-check", &(o)->path_check, "MODE", "warn|gate|off", \
                      "a count that callgrind took on another\n"               \
                      "code path than the machine runs: warn\n"                \
                      "(default: said, not gating), gate, or\n"                \
                      "off (not checked)"),                                    \
        PG_OPT_ONE_OF("inconclusive", &(o)->inconclusive, "POLICY",            \
                      "pass|fail",                                             \
                      "a benchmark whose interval still\n"                     \
                      "straddles the floor when the budget\n"                  \
                      "runs out: pass (default, with a\n"                      \
                      "warning) or fail the gate"),                            \
        PG_OPT_ONE_OF("memory", &(o)->memory, "MODE", "report|gate|off",       \
                      "the heap per call (allocations, bytes,\n"               \
                      "peak, leaks), counted apart from the\n"                 \
                      "timing: report (default), gate (a change\n"             \
                      "beyond its floor fails), or off"),                      \
        PG_OPT_PCT("memory-floor", &(o)->memory_floor, "PCT",                  \
                   "the floor of the heap's peak per call\n"                   \
                   "(default 5%; one more allocation per\n"                    \
                   "call is always beyond it)"),                               \
        PG_OPT_TIME("max-time", &(o)->max_time, "DURATION", 1,                 \
                    "want a duration such as 10s or 500ms",                    \
                    "measuring budget per benchmark (10s)"),                   \
        PG_OPT_INT("min-rounds", 0, &(o)->min_rounds, "N", 1, 1000000000,      \
                   "want a whole number of at least 1",                        \
                   "rounds at least (5)"),                                     \
        PG_OPT_TIME("timeout", &(o)->timeout, "DURATION", 1,                   \
                    "want a duration such as 60s or 2m",                       \
                    "per benchmark and side (60s)"),                           \
        PG_OPT_INT("jobs", 'j', &(o)->jobs, "N", 1, 256, NULL,                 \
                   "builds at once (default: one per CPU);\n"                  \
                   "measuring waits for them, one benchmark\n"                 \
                   "at a time"),                                               \
        {PG_OPT_TEXT,                                                          \
         "cache-dir",                                                          \
         0,                                                                    \
         &(o)->cache_dir,                                                      \
         "DIR",                                                                \
         "keep builds in DIR (default:\n"                                      \
         "$XDG_CACHE_HOME/perfgate, else\n"                                    \
         "~/.cache/perfgate; bounded by\n"                                     \
         "PERFGATE_CACHE_SIZE, 1G)",                                           \
         NULL,                                                                 \
         0,                                                                    \
         0,                                                                    \
         "want a directory",                                                   \
         NULL},                                                                \
        PG_OPT_SET("no-cache", 0, &(o)->no_cache,                              \
                   "neither use nor keep builds"),                             \
        PG_OPT_FN("sandbox", 0, NULL, "WHEN", pg_cmd_opt_sandbox,              \
                  "want auto, require or off",                                 \
                  "run the revisions' code in a box\n"                         \
                  "(bubblewrap: read-only files, no network,\n"                \
                  "its processes ended with it): auto (where\n"                \
                  "the machine allows), require, off; default\n"               \
                  "PERFGATE_SANDBOX, else auto"),                              \
        PG_OPT_FN("verbose", 'v', NULL, NULL, pg_cmd_opt_verbose, NULL,        \
                  "say what perfgate runs: each command, and\n"                \
                  "each call the measuring process makes into\n"               \
                  "the problem (set-ups, checks, the calls per\n"              \
                  "sample, teardowns), on stderr")

/* The progress line on a terminal (stderr), rewritten in place; and the
 * end of it. */
void pg_cmd_progress(void *payload, const char *line);

/* Progress for a comparison, unless `quiet`: a terminal gets one line
 * rewritten in place; a CI log, a line per benchmark as it finishes. */
void pg_cmd_show_progress(pg_compare_opts *opts, int quiet);

#endif
