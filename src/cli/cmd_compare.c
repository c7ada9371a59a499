/*
 * cmd_compare.c - `perfgate compare [options] [BASE [HEAD]]`.
 */
#include "bisect.h"
#include "mainline.h"
#include "cmd.h"
#include "compare.h"
#include "error.h"
#include "report.h"
#include "str.h"
#include "strvec.h"

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
    "private temporary directory, removed on exit and on Ctrl-C.\n";

static const char epilogue[] =
    "exit status: 0 pass (an inconclusive benchmark too, unless\n"
    "--inconclusive fail); 1 the gate failed (a regression, or HEAD is\n"
    "incorrect, crashed, timed out or failed to build; with --aa, noise\n"
    "above half the floor); 2 usage, config or\n"
    "revision error; 3 internal error; 130 interrupted.\n"
    "\n"
    "examples:\n"
    "  perfgate compare                  the working tree against HEAD\n"
    "  perfgate compare HEAD~1           ... against the previous commit\n"
    "  perfgate compare main HEAD --json result.json --markdown comment.md\n"
    "  perfgate compare --aa             how noisy is this machine?\n";

static const pg_opt_usage usage = {"compare", usage_text, epilogue};

/* What the command line asked for. */
typedef struct compare_args {
    pg_compare_opts opts;
    pg_cmd_outputs outputs;
    pg_strvec only;
    pg_strvec pass_env;
    char *range_base; /* the BASE of a BASE..HEAD operand */
    int quiet, no_ci, warning_exit, bisect;
} compare_args;

/* --shard K/N into the pg_compare_opts `value`. */
static int take_shard(void *value, const char *arg)
{
    pg_compare_opts *o = value;
    int k = 0, of = 0, len = 0;

    if (sscanf(arg, "%d/%d%n", &k, &of, &len) != 2 || arg[len] || of < 1 ||
        of > 4096 || k < 1 || k > of)
        return -1;
    o->shard = k;
    o->shards = of;
    return 0;
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
    const pg_opt opts[] = {
        PG_MEASURE_OPTS(&a->opts, &a->only),
        PG_OPT_SET("aa", 0, &a->opts.aa,
                   "self-check: REV against itself (see above)"),
        PG_OPT_SET("no-ci", 0, &a->no_ci, "ignore the CI system's revisions"),
        PG_OPT_FN("shard", 0, &a->opts, "K/N", take_shard,
                  "want K/N with 1 <= K <= N, such as 2/4",
                  "run the K-th of N shares of the benchmarks\n"
                  "(balanced by their cases; the same on\n"
                  "every machine), for 'perfgate merge'"),
        PG_OPT_STR("timings", 0, &a->opts.timings_path, "FILE",
                   "with --shard: balance the shares by the\n"
                   "measuring times in FILE, an earlier\n"
                   "result (--json); the same FILE on every\n"
                   "machine"),
        PG_OPT_SET("bisect", 0, &a->bisect,
                   "for each regression, find the commit after\n"
                   "BASE that made it slower (perfgate bisect)\n"
                   "and name it in the reports"),
        PG_OPT_EACH("pass-env", 0, &a->pass_env, "NAME",
                    "let this environment variable into the\n"
                    "box (repeatable), beside the names the\n"
                    "config's pass_env: lets through"),
        PG_OPT_SET("profile", 0, &a->opts.profile,
                   "for each regression, profile its worst\n"
                   "case on both sides: C under valgrind's\n"
                   "callgrind (instructions per function and\n"
                   "line), a CUDA kernel under Nsight Compute\n"
                   "(its GPU time, throughput, occupancy,\n"
                   "L2 hit rate and warp stalls)"),
        PG_OPT_OUT("json", 0, &a->outputs.json_path, "FILE",
                   "write the full result as JSON"),
        PG_OPT_OUT("markdown", 0, &a->outputs.md_path, "FILE",
                   "write the pull-request comment"),
        PG_OPT_OUT("html", 0, &a->outputs.html_path, "FILE",
                   "write the report as one page with charts\n"
                   "(samples, rounds, the change against the\n"
                   "floor; self-contained)"),
        PG_OPT_SET("quiet", 'q', &a->quiet, "no progress on stderr"),
        PG_OPT_COLOR(&a->outputs.color_when),
        PG_OPT_WARNING_EXIT(&a->warning_exit),
        PG_OPT_END};
    int code = pg_opt_parse(opts, argc, argv, &usage);

    if (code >= 0)
        return code;
    if (a->opts.timings_path && !a->opts.shards) {
        fprintf(stderr, "perfgate compare: --timings balances shards: use it "
                        "with --shard K/N\n");
        return PG_EXIT_USAGE;
    }
    if (a->opts.aa && argc - optind > 1) {
        fputs("perfgate compare: --aa takes one revision, measured against "
              "itself\n\n",
              stderr);
        pg_opt_print_usage(stderr, opts, &usage);
        return PG_EXIT_USAGE;
    }
    if (argc - optind > 2) {
        fputs("perfgate compare: at most two revisions, BASE and HEAD\n\n",
              stderr);
        pg_opt_print_usage(stderr, opts, &usage);
        return PG_EXIT_USAGE;
    }
    if (optind < argc)
        a->opts.base = argv[optind];
    if (optind + 1 < argc)
        a->opts.head = argv[optind + 1];
    if ((code = split_range(a, argc - optind)) >= 0)
        return code;
    a->opts.only = a->only.n ? pg_strvec_list(&a->only) : NULL;
    a->opts.pass_env = a->pass_env.n ? pg_strvec_list(&a->pass_env) : NULL;
    pg_cmd_show_progress(&a->opts, a->quiet);
    return -1;
}

/* What --bisect could not do, said on the progress line's terminal. */
static void say_not_bisected(void *payload, const char *what)
{
    (void)payload;
    fprintf(stderr, "\r\033[Kperfgate: %s\n", what);
}

/* Runs the comparison and shows it; the exit code. */
/* How main moved before the base, where the repository keeps a history
 * (fetched read-only in a pull request's job): for the comment. */
static void main_moves(pg_result *r, const char *path)
{
    pg_repo *repo = NULL;

    if (pg_repo_open(&repo, path ? path : ".") == 0)
        pg_mainline_moves(r, repo, NULL, PG_MAINLINE_MOVES_LAST);
    pg_repo_free(repo);
    pg_error_clear();
}

static int compare(compare_args *a)
{
    pg_result result;
    pg_ci ci;
    int err, code;

    memset(&ci, 0, sizeof(ci));
    if (!a->opts.aa && !a->opts.base && !a->no_ci) {
        if ((err = pg_ci_detect(&ci)) < 0) {
            pg_ci_clear(&ci);
            return pg_cmd_fail(err);
        }
        a->opts.ci = &ci;
    }
    err = pg_compare(&result, &a->opts);
    pg_ci_clear(&ci);
    if (err >= 0 && a->bisect)
        err = pg_bisect_regressions(&result, &a->opts, say_not_bisected, NULL);
    if (err >= 0)
        main_moves(&result, a->opts.repo_path);
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
    pg_strvec_clear(&a.pass_env);
    free(a.range_base);
    return code;
}
