/*
 * cmd_compare.c - `perfgate compare [options] [BASE [HEAD]]`.
 */
#define _GNU_SOURCE
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

static const char usage_text[] =
    "usage: perfgate compare [options] [BASE [HEAD]]\n"
    "   or: perfgate compare --aa [options] [REV]\n"
    "\n"
    "Builds every benchmark in perfgate.yml at BASE and at HEAD, checks both\n"
    "against the problem's reference, times them interleaved (the sum of\n"
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
    "options:\n"
    "  -c, --config FILE        the config (default: perfgate.yml at the\n"
    "                           repository root, from the working tree)\n"
    "  -b, --bench NAME         run only this benchmark (repeatable)\n"
    "      --aa                 self-check: REV against itself (see above)\n"
    "      --no-ci              ignore the CI system's revisions\n"
    "      --json FILE          write the full result as JSON\n"
    "      --markdown FILE      write the pull-request comment\n"
    "      --noise-floor PCT    changes within it are noise (5%, 0.05);\n"
    "                           default 5%, 10% when GITHUB_ACTIONS=true\n"
    "      --max-time DURATION  measuring budget per benchmark (10s)\n"
    "      --min-rounds N       rounds at least (5)\n"
    "      --timeout DURATION   per benchmark and side (60s)\n"
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
    OPT_FLOOR,
    OPT_MAX_TIME,
    OPT_MIN_ROUNDS,
    OPT_TIMEOUT,
    OPT_COLOR,
    OPT_AA,
    OPT_NO_CI,
    OPT_WARNING_EXIT
};

static const struct option long_opts[] = {
    {"config", required_argument, NULL, 'c'},
    {"bench", required_argument, NULL, 'b'},
    {"json", required_argument, NULL, OPT_JSON},
    {"markdown", required_argument, NULL, OPT_MARKDOWN},
    {"noise-floor", required_argument, NULL, OPT_FLOOR},
    {"max-time", required_argument, NULL, OPT_MAX_TIME},
    {"min-rounds", required_argument, NULL, OPT_MIN_ROUNDS},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"quiet", no_argument, NULL, 'q'},
    {"aa", no_argument, NULL, OPT_AA},
    {"no-ci", no_argument, NULL, OPT_NO_CI},
    {"color", required_argument, NULL, OPT_COLOR},
    {"warning-exit-code", required_argument, NULL, OPT_WARNING_EXIT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* The progress line on a terminal, rewritten in place. */
static void show_progress(void *payload, const char *line)
{
    (void)payload;
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
}

static const char *env(const char *name)
{
    return getenv(name);
}

static int bad_value(const char *opt, const char *value, const char *want)
{
    fprintf(stderr, "perfgate: %s '%s': %s\n", opt, value, want);
    return PG_EXIT_USAGE;
}

int pg_cmd_compare(int argc, char **argv)
{
    pg_compare_opts opts;
    pg_result result;
    const char *json_path = NULL, *md_path = NULL, *color_when = NULL;
    pg_strvec only = PG_STRVEC_INIT;
    int quiet = 0, no_ci = 0, warning_exit = PG_EXIT_PASS, c, err, code;
    pg_ci ci;
    long long n;
    pg_str out = PG_STR_INIT;

    pg_compare_opts_init(&opts);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "c:b:qh", long_opts, NULL)) != -1) {
        switch (c) {
        case 'c':
            opts.config_path = optarg;
            break;
        case 'b':
            pg_strvec_push(&only, optarg);
            break;
        case OPT_JSON:
            json_path = optarg;
            break;
        case OPT_MARKDOWN:
            md_path = optarg;
            break;
        case OPT_FLOOR:
            if (pg_parse_fraction(&opts.noise_floor, optarg) < 0 ||
                opts.noise_floor >= 1 || opts.noise_floor <= 0)
                return bad_value("--noise-floor", optarg,
                                 "want a percentage above 0% and below 100%, "
                                 "such as 5%, or a fraction such as 0.05");
            break;
        case OPT_MAX_TIME:
            if (pg_parse_duration(&opts.max_time, optarg) < 0 ||
                opts.max_time <= 0)
                return bad_value("--max-time", optarg,
                                 "want a duration such as 10s or 500ms");
            break;
        case OPT_TIMEOUT:
            if (pg_parse_duration(&opts.timeout, optarg) < 0 ||
                opts.timeout <= 0)
                return bad_value("--timeout", optarg,
                                 "want a duration such as 60s or 2m");
            break;
        case OPT_MIN_ROUNDS:
            if (pg_parse_ll(&n, optarg) < 0 || n < 1 || n > 1000000000)
                return bad_value("--min-rounds", optarg,
                                 "want a whole number of at least 1");
            opts.min_rounds = (int)n;
            break;
        case OPT_COLOR:
            if (strcmp(optarg, "auto") && strcmp(optarg, "always") &&
                strcmp(optarg, "never"))
                return bad_value("--color", optarg,
                                 "want auto, always or never");
            color_when = optarg;
            break;
        case OPT_WARNING_EXIT:
            /* Not one that already means something, nor a signal's. */
            if (pg_parse_ll(&n, optarg) < 0 || n < 4 || n > 125)
                return bad_value("--warning-exit-code", optarg,
                                 "want a number from 4 to 125 (0 to 3 are "
                                 "perfgate's own); 78 is a common choice");
            warning_exit = (int)n;
            break;
        case 'q':
            quiet = 1;
            break;
        case OPT_AA:
            opts.aa = 1;
            break;
        case OPT_NO_CI:
            no_ci = 1;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return PG_EXIT_PASS;
        default:
            return pg_cmd_bad_option("compare", argv[optind - 1], usage_text);
        }
    }
    if (opts.aa && argc - optind > 1) {
        fprintf(stderr, "perfgate compare: --aa takes one revision, measured "
                        "against itself\n\n%s",
                usage_text);
        return PG_EXIT_USAGE;
    }
    if (argc - optind > 2) {
        fprintf(stderr, "perfgate compare: at most two revisions, BASE and "
                        "HEAD\n\n%s",
                usage_text);
        return PG_EXIT_USAGE;
    }
    if (optind < argc)
        opts.base = argv[optind];
    if (optind + 1 < argc)
        opts.head = argv[optind + 1];
    opts.only = only.n ? pg_strvec_list(&only) : NULL;
    if (!quiet && isatty(2))
        opts.on_progress = show_progress;
    memset(&ci, 0, sizeof(ci));
    if (!opts.aa && !opts.base && !no_ci) {
        if ((err = pg_ci_detect(&ci, env)) < 0) {
            pg_strvec_clear(&only);
            return pg_cmd_fail(err);
        }
        opts.ci = &ci;
    }

    err = pg_compare(&result, &opts);
    pg_ci_clear(&ci);
    if (opts.on_progress)
        fputs("\r\033[K", stderr);
    pg_strvec_clear(&only);
    if (err < 0) {
        pg_result_clear(&result);
        code = pg_cmd_fail(err);
        return code;
    }

    /* Compiler output, user code's messages and commit subjects may hold
     * any bytes: the terminal, the JSON and the comment get valid UTF-8
     * without control characters. */
    pg_result_clean_text(&result);
    pg_report_terminal(&out, &result, pg_cmd_use_color(1, color_when));
    pg_cmd_print_report(pg_str_cstr(&out));
    err = 0;
    if (json_path) {
        char *json = pg_result_to_json(&result);
        err = json ? pg_cmd_write(json_path, json, strlen(json))
                   : pg_error_set(PG_ERR_GENERIC, "out of memory writing %s",
                                  json_path);
        free(json);
    }
    if (!err && md_path) {
        pg_str_reset(&out);
        pg_report_markdown(&out, &result);
        err = pg_cmd_write(md_path, out.ptr, out.size);
    }
    code = err < 0                       ? pg_cmd_fail(err)
           : !result.verdict.passed ? PG_EXIT_FAIL
           : result.verdict.warned ? warning_exit
                                        : PG_EXIT_PASS;
    pg_str_clear(&out);
    pg_result_clear(&result);
    return code;
}
