/*
 * cmd.h - the subcommands, dispatched from main.c's table.  Each returns
 * the process exit code (error.h).
 */
#ifndef PG_CMD_H
#define PG_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "compare.h"
#include "result.h"
#include "strvec.h"

struct option;

int pg_cmd_compare(int argc, char **argv);
int pg_cmd_init(int argc, char **argv);
int pg_cmd_report(int argc, char **argv);
int pg_cmd_problems(int argc, char **argv);
int pg_cmd_merge(int argc, char **argv);
int pg_cmd_bisect(int argc, char **argv);

/* Prints "perfgate: MESSAGE" for the last error; returns its exit code. */
int pg_cmd_fail(int err);

/* 1 when color should be used on `fd` (a terminal, NO_COLOR unset). */
int pg_cmd_use_color(int fd, const char *when);

/*
 * Says in one line what getopt_long() just refused (`c`, '?' or ':', with
 * its optstring starting with ':'): an option unknown to `command`, with
 * the nearest of `opts` when one is close, or one that lacks its value;
 * and where the help is.  Returns the usage exit code.
 */
int pg_cmd_bad_option(const char *command, int c, char *const *argv,
                      const struct option *opts);

/* Prints a report on `f` (stdout, or stderr when stdout carries a file
 * asked for with "-"); on GitHub's runners, with workflow commands stopped
 * around it (the report quotes user code). */
void pg_cmd_print_report(FILE *f, const char *text);

/* Writes `data` to `path`, or to standard output when `path` is "-"; 0,
 * or a set error. */
int pg_cmd_write(const char *path, const char *data, size_t len);

/*
 * Checks, before any work, that each of `paths` (n of them, NULL ones
 * skipped; `names` the options that gave them) can be written: at most one
 * is "-", and every other names a file that can be made or replaced.
 * -1 when all can, else says why for `command` and returns the usage exit
 * code.
 */
int pg_cmd_check_outputs(const char *command, const char *const *names,
                         const char *const *paths, size_t n);

/* The terminal's width in columns, for one-line progress (80 when it
 * cannot say). */
int pg_cmd_columns(void);

/* For a non-terminal: one line on stderr as each benchmark finishes. */
void pg_cmd_bench_done(void *payload, const pg_bench_result *b, size_t index,
                       size_t count);

/*
 * Reads the result saved at `path` (a file a user names: it may hold
 * anything).  0, or PG_ERR_USAGE saying why, and `out` then empty.
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
 * Takes the option `c` (getopt's: 'j' --json, 'm' --markdown, 'C' --color,
 * 'H' --html)
 * with `arg` into `o`: 1 when taken, 0 when it is not one of these, -1
 * when its value is wrong (said on stderr for `command`).
 */
int pg_cmd_output_option(pg_cmd_outputs *o, int c, const char *arg,
                         const char *command);

/*
 * Shows `r`: its text made safe and judged (pg_stats_judge), the report
 * on stdout, then the JSON and markdown files asked for.  0, or a set
 * error when a file cannot be written.
 */
int pg_cmd_show(pg_result *r, const pg_cmd_outputs *outputs);

/* pg_cmd_check_outputs() for the files of `o`. */
int pg_cmd_check_show(const char *command, const pg_cmd_outputs *o);

/* The options of commands that measure (compare, bisect): which config
 * and benchmarks, the floor, the budgets, the builds. */
enum {
    PG_OPT_FLOOR = 400,
    PG_OPT_MAX_TIME,
    PG_OPT_MIN_ROUNDS,
    PG_OPT_TIMEOUT,
    PG_OPT_CACHE_DIR,
    PG_OPT_NO_CACHE,
    PG_OPT_SANDBOX
};

#define PG_MEASURE_LONG_OPTS                                                   \
    {"config", required_argument, NULL, 'c'},                                  \
        {"bench", required_argument, NULL, 'b'},                               \
        {"noise-floor", required_argument, NULL, PG_OPT_FLOOR},                \
        {"max-time", required_argument, NULL, PG_OPT_MAX_TIME},                \
        {"min-rounds", required_argument, NULL, PG_OPT_MIN_ROUNDS},            \
        {"timeout", required_argument, NULL, PG_OPT_TIMEOUT},                  \
        {"jobs", required_argument, NULL, 'j'},                                \
        {"cache-dir", required_argument, NULL, PG_OPT_CACHE_DIR},              \
        {"no-cache", no_argument, NULL, PG_OPT_NO_CACHE},                      \
        {"sandbox", required_argument, NULL, PG_OPT_SANDBOX},                  \
    {                                                                          \
        "verbose", no_argument, NULL, 'v'                                      \
    }

/* Their help, for the usage texts. */
#define PG_MEASURE_HELP                                                        \
    "  -c, --config FILE        the config (default: perfgate.yml at the\n"    \
    "                           repository root, from the working tree)\n"     \
    "  -b, --bench NAME         run only this benchmark (repeatable)\n"        \
    "      --noise-floor PCT    changes within it are noise (5%, 0.05);\n"     \
    "                           default 5%, 10% when GITHUB_ACTIONS=true\n"    \
    "      --max-time DURATION  measuring budget per benchmark (10s)\n"        \
    "      --min-rounds N       rounds at least (5)\n"                         \
    "      --timeout DURATION   per benchmark and side (60s)\n"                \
    "  -j, --jobs N             builds at once (default: one per CPU);\n"      \
    "                           measuring waits for them, one benchmark\n"     \
    "                           at a time\n"                                   \
    "      --cache-dir DIR      keep builds in DIR (default:\n"                \
    "                           $XDG_CACHE_HOME/perfgate, else\n"              \
    "                           ~/.cache/perfgate; bounded by\n"               \
    "                           PERFGATE_CACHE_SIZE, 1G)\n"                    \
    "      --no-cache           neither use nor keep builds\n"                 \
    "      --sandbox WHEN       run the revisions' code in a box\n"            \
    "                           (bubblewrap: read-only files, no network,\n"   \
    "                           its processes ended with it): auto (where\n"   \
    "                           the machine allows), require, off; default\n"  \
    "                           PERFGATE_SANDBOX, else auto\n"                 \
    "  -v, --verbose            say what perfgate runs: each command, and\n"   \
    "                           each call the measuring process makes into\n"  \
    "                           the problem (set-ups, checks, the calls per\n" \
    "                           sample, teardowns), on stderr\n"

/*
 * Takes one of those options (getopt's `c`, with `arg`) into `o` and
 * `only` (-b).  0 when `c` is not one of them; -1 when taken; else the
 * exit code for a bad value (said on stderr).
 */
int pg_cmd_measure_option(pg_compare_opts *o, pg_strvec *only, int c,
                          const char *arg);

/*
 * Parses the options of a command that measures (short options -c -b -j
 * -q -h -v): --help prints `usage`; an unknown option is said in one line
 * (pg_cmd_bad_option); each
 * other option goes to take(payload, c, optarg), which returns -1 when it
 * took it, else an exit code.  -1 when all were taken (optind at the first
 * operand), else the exit code.
 */
int pg_cmd_getopt(int argc, char **argv, const char *command, const char *usage,
                  const struct option *opts,
                  int (*take)(void *payload, int c, const char *arg),
                  void *payload);

/* The progress line on a terminal (stderr), rewritten in place; and the
 * end of it. */
void pg_cmd_progress(void *payload, const char *line);

#endif
