/*
 * cmd_compare.c - `perfgate compare [options] [BASE [HEAD]]`.
 */
#define _GNU_SOURCE
#include "bisect.h"
#include "cmd.h"
#include "compare.h"
#include "error.h"
#include "report.h"
#include "str.h"
#include "strvec.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

static const char usage_text[] =
    "usage: perfgate compare [options] [BASE [HEAD]]\n"
    "   or: perfgate compare --aa [options] [REV]\n"
    "\n"
    "Builds every benchmark in perfgate.yml at BASE and at HEAD, checks both\n"
    "against the problem's reference (a benchmark declared by its\n"
    "function: HEAD against BASE), times them interleaved (the sum of\n"
    "each case's minimum time) and fails when HEAD is slower than BASE by\n"
    "more than the noise floor, or when HEAD is wrong, crashes, hangs or\n"
    "does not build.\n"
    "\n"
    "  BASE   a revision as git understands it: HEAD~1, main, origin/main,\n"
    "         a tag, a SHA.  Default: HEAD.\n"
    "  HEAD   another revision.  Default: the working tree, uncommitted\n"
    "         changes included (as 'git diff BASE').\n"
    "\n"
    "In CI (GitHub Actions, GitLab CI, Buildkite, Azure Pipelines, Jenkins)\n"
    "with no revisions given, perfgate compares what the CI system says\n"
    "changed: a pull request's head against its merge base with the base\n"
    "branch, or a push against the commit before it.  --no-ci turns that\n"
    "off.\n"
    "\n"
    "--aa is the self-check: REV (default: the working tree) is built twice\n"
    "and measured against itself, so any change it shows is this machine's\n"
    "noise.  It fails when that noise exceeds half the noise floor, because\n"
    "then the floor cannot be trusted here.\n"
    "\n"
    "Your repository is never modified: each revision is written to a\n"
    "private temporary directory, removed on exit and on Ctrl-C.\n"
    "\n"
    "options:\n" PG_MEASURE_HELP
    "      --aa                 self-check: REV against itself (see above)\n"
    "      --no-ci              ignore the CI system's revisions\n"
    "      --shard K/N          run the K-th of N shares of the benchmarks\n"
    "                           (balanced by their cases; the same on\n"
    "                           every machine), for 'perfgate merge'\n"
    "      --timings FILE       with --shard: balance the shares by the\n"
    "                           measuring times in FILE, an earlier\n"
    "                           result (--json); the same FILE on every\n"
    "                           machine\n"
    "      --bisect             for each regression, find the commit after\n"
    "                           BASE that made it slower (perfgate bisect)\n"
    "                           and name it in the reports\n"
    "      --profile            for each C regression, profile its worst\n"
    "                           case on both sides (valgrind's callgrind:\n"
    "                           instructions per function and line)\n"
    "      --json FILE          write the full result as JSON\n"
    "      --markdown FILE      write the pull-request comment\n"
    "      --html FILE          write the report as one page with charts\n"
    "                           (samples, rounds, the change against the\n"
    "                           floor; self-contained)\n"
    "  -q, --quiet              no progress on stderr\n"
    "      --color WHEN         auto, always or never\n"
    "  -h, --help               show this help\n"
    "\n"
    "exit status: 0 pass; 1 the gate failed (a regression, or HEAD is\n"
    "incorrect, crashed, timed out or failed to build; with --aa, noise\n"
    "above half the floor); 2 usage, config or\n"
    "revision error; 3 internal error; 130 interrupted.\n"
    "\n"
    "examples:\n"
    "  perfgate compare                  the working tree against HEAD\n"
    "  perfgate compare HEAD~1           ... against the previous commit\n"
    "  perfgate compare main HEAD --json result.json --markdown comment.md\n"
    "  perfgate compare --aa             how noisy is this machine?\n";

enum {
    OPT_JSON = 256,
    OPT_MARKDOWN,
    OPT_COLOR,
    OPT_AA,
    OPT_NO_CI,
    OPT_SHARD,
    OPT_WARNING_EXIT,
    OPT_TIMINGS,
    OPT_BISECT,
    OPT_PROFILE,
    OPT_HTML
};

static const struct option long_opts[] = {
    PG_MEASURE_LONG_OPTS,
    {"json", required_argument, NULL, OPT_JSON},
    {"markdown", required_argument, NULL, OPT_MARKDOWN},
    {"quiet", no_argument, NULL, 'q'},
    {"aa", no_argument, NULL, OPT_AA},
    {"no-ci", no_argument, NULL, OPT_NO_CI},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"color", required_argument, NULL, OPT_COLOR},
    {"warning-exit-code", required_argument, NULL, OPT_WARNING_EXIT},
    {"timings", required_argument, NULL, OPT_TIMINGS},
    {"bisect", no_argument, NULL, OPT_BISECT},
    {"profile", no_argument, NULL, OPT_PROFILE},
    {"html", required_argument, NULL, OPT_HTML},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

static const char *env(const char *name)
{
    return getenv(name);
}

static int bad_value(const char *opt, const char *value, const char *want)
{
    fprintf(stderr, "perfgate: %s '%s': %s\n", opt, value, want);
    return PG_EXIT_USAGE;
}

/* What the command line asked for. */
typedef struct compare_args {
    pg_compare_opts opts;
    pg_cmd_outputs outputs;
    pg_strvec only;
    char *range_base; /* the BASE of a BASE..HEAD operand */
    int quiet, no_ci, warning_exit, bisect;
} compare_args;

/* One option's value into `a`: -1 when taken, else the exit code. */
static int take_option(void *payload, int c, const char *arg)
{
    compare_args *a = payload;
    long long n;
    int code = pg_cmd_measure_option(&a->opts, &a->only, c, arg);

    if (code != 0)
        return code;
    switch (c) {
    case OPT_JSON:
        a->outputs.json_path = arg;
        break;
    case OPT_MARKDOWN:
        a->outputs.md_path = arg;
        break;
    case OPT_COLOR:
        if (strcmp(arg, "auto") && strcmp(arg, "always") &&
            strcmp(arg, "never"))
            return bad_value("--color", arg, "want auto, always or never");
        a->outputs.color_when = arg;
        break;
    case OPT_WARNING_EXIT:
        /* Not one that already means something, nor a signal's. */
        if (pg_parse_ll(&n, arg) < 0 || n < 4 || n > 125)
            return bad_value("--warning-exit-code", arg,
                             "want a number from 4 to 125 (0 to 3 are "
                             "perfgate's own); 78 is a common choice");
        a->warning_exit = (int)n;
        break;
    case 'q':
        a->quiet = 1;
        break;
    case OPT_TIMINGS:
        a->opts.timings_path = arg;
        break;
    case OPT_BISECT:
        a->bisect = 1;
        break;
    case OPT_PROFILE:
        a->opts.profile = 1;
        break;
    case OPT_HTML:
        a->outputs.html_path = arg;
        break;
    case OPT_AA:
        a->opts.aa = 1;
        break;
    case OPT_NO_CI:
        a->no_ci = 1;
        break;
    case OPT_SHARD: {
        int k = 0, of = 0, len = 0;
        if (sscanf(arg, "%d/%d%n", &k, &of, &len) != 2 || arg[len] || of < 1 ||
            of > 4096 || k < 1 || k > of)
            return bad_value("--shard", arg,
                             "want K/N with 1 <= K <= N, such as 2/4");
        a->opts.shard = k;
        a->opts.shards = of;
        break;
    }
    default:
        return PG_EXIT_USAGE;
    }
    return -1;
}

/*
 * git's ranges: A..B is base A and head B; A...B is base the merge base of
 * A and B, and head B.  An empty side is HEAD on the left, and on the right
 * the working tree (perfgate's head when none is named).  -1 to go on,
 * else the exit code.
 */
static int split_range(compare_args *a, int operands)
{
    const char *arg = a->opts.base, *dots;
    size_t n;

    if (!arg || !(dots = strstr(arg, "..")))
        return -1;
    n = strncmp(dots, "...", 3) ? 2 : 3;
    if (operands > 1 || a->opts.aa || strstr(dots + n, "..")) {
        fprintf(stderr,
                "perfgate compare: '%s': a range is the only revision "
                "(BASE..HEAD or BASE...HEAD)\n",
                arg);
        return PG_EXIT_USAGE;
    }
    a->range_base = dots == arg ? pg_strdup("HEAD")
                                : pg_strdupf("%.*s", (int)(dots - arg), arg);
    a->opts.base = a->range_base;
    a->opts.head = dots[n] ? dots + n : NULL;
    a->opts.merge_base = n == 3;
    return -1;
}

/* The command line into `a`: -1 to go on, else the exit code. */
static int parse_args(compare_args *a, int argc, char **argv)
{
    int code = pg_cmd_getopt(argc, argv, "compare", usage_text, long_opts,
                             take_option, a);

    if (code >= 0)
        return code;
    if (a->opts.timings_path && !a->opts.shards) {
        fprintf(stderr, "perfgate compare: --timings balances shards: use it "
                        "with --shard K/N\n");
        return PG_EXIT_USAGE;
    }
    if (a->opts.aa && argc - optind > 1) {
        fprintf(stderr,
                "perfgate compare: --aa takes one revision, measured "
                "against itself\n\n%s",
                usage_text);
        return PG_EXIT_USAGE;
    }
    if (argc - optind > 2) {
        fprintf(stderr,
                "perfgate compare: at most two revisions, BASE and "
                "HEAD\n\n%s",
                usage_text);
        return PG_EXIT_USAGE;
    }
    if (optind < argc)
        a->opts.base = argv[optind];
    if (optind + 1 < argc)
        a->opts.head = argv[optind + 1];
    if ((code = split_range(a, argc - optind)) >= 0)
        return code;
    if ((code = pg_cmd_check_show("compare", &a->outputs)) >= 0)
        return code;
    a->opts.only = a->only.n ? pg_strvec_list(&a->only) : NULL;
    /* A terminal gets one line rewritten in place; a CI log, a line per
     * benchmark as it finishes. */
    if (!a->quiet && isatty(2))
        a->opts.on_progress = pg_cmd_progress;
    else if (!a->quiet)
        a->opts.on_bench_done = pg_cmd_bench_done;
    return -1;
}

/* What --bisect could not do, said on the progress line's terminal. */
static void say_not_bisected(void *payload, const char *what)
{
    (void)payload;
    fprintf(stderr, "\r\033[Kperfgate: %s\n", what);
}

/* Runs the comparison and shows it; the exit code. */
static int compare(compare_args *a)
{
    pg_result result;
    pg_ci ci;
    int err, code;

    memset(&ci, 0, sizeof(ci));
    if (!a->opts.aa && !a->opts.base && !a->no_ci) {
        if ((err = pg_ci_detect(&ci, env)) < 0) {
            pg_ci_clear(&ci);
            return pg_cmd_fail(err);
        }
        a->opts.ci = &ci;
    }
    err = pg_compare(&result, &a->opts);
    pg_ci_clear(&ci);
    if (err >= 0 && a->bisect)
        err = pg_bisect_regressions(&result, &a->opts, say_not_bisected, NULL);
    if (a->opts.on_progress)
        fputs("\r\033[K", stderr);
    if (err >= 0)
        err = pg_cmd_show(&result, &a->outputs);
    code = err < 0                  ? pg_cmd_fail(err)
           : !result.verdict.passed ? PG_EXIT_FAIL
           : result.verdict.warned  ? a->warning_exit
                                    : PG_EXIT_PASS;
    pg_result_clear(&result);
    return code;
}

int pg_cmd_compare(int argc, char **argv)
{
    compare_args a;
    int code;

    memset(&a, 0, sizeof(a));
    pg_compare_opts_init(&a.opts);
    a.warning_exit = PG_EXIT_PASS;
    if ((code = parse_args(&a, argc, argv)) < 0)
        code = compare(&a);
    pg_strvec_clear(&a.only);
    free(a.range_base);
    return code;
}
