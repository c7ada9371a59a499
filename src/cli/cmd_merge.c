/*
 * cmd_merge.c - `perfgate merge RESULT.json...`: the shards of a run, one
 * result.
 */
#define _GNU_SOURCE
#include "cmd.h"
#include "config.h"
#include "error.h"
#include "fs.h"
#include "merge.h"
#include "problems.h"
#include "strvec.h"
#include "str.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static const char usage_text[] =
    "usage: perfgate merge [options] RESULT.json...\n"
    "\n"
    "Combines the results of 'perfgate compare --shard K/N --json FILE',\n"
    "one from each of N machines, into one result: every benchmark once,\n"
    "one verdict, one comment.  The shards must be of one run (the same\n"
    "base and head, config and floor) and all there.  The exit status is\n"
    "compare's: 0 pass, 1 fail, 2 for results that do not fit together.\n"
    "\n"
    "options:\n"
    "      --config FILE     the config the shards ran (default:\n"
    "                        perfgate.yml here, when the shards ran it):\n"
    "                        each of its benchmarks must be in one shard\n"
    "      --json FILE       write the merged result as JSON\n"
    "      --markdown FILE   write the pull-request comment\n"
    "      --html FILE       write the report as one page with charts\n"
    "      --color WHEN      auto, always or never\n"
    "      --warning-exit-code N\n"
    "                        exit N (4-125) when the gate passes but a case\n"
    "                        got slower under a total that hides it\n"
    "  -h, --help            show this help\n";

static const struct option long_opts[] = {
    {"config", required_argument, NULL, 'c'},
    {"json", required_argument, NULL, 'j'},
    {"markdown", required_argument, NULL, 'm'},
    {"html", required_argument, NULL, 'H'},
    {"color", required_argument, NULL, 'C'},
    {"warning-exit-code", required_argument, NULL, 'w'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/*
 * The merged shards against their config: `path` when given (it must be
 * the config they ran), else perfgate.yml here when it is theirs.
 */
static int against_config(const pg_result *merged, const char *path)
{
    pg_config cfg;
    pg_strvec names = PG_STRVEC_INIT;
    size_t i;
    int err;

    if (!path && !pg_path_is_file("perfgate.yml"))
        return 0;
    err = pg_config_load(&cfg, path ? path : "perfgate.yml",
                         path ? path : "perfgate.yml", pg_problems_builtin());
    if (err == 0 && merged->config_digest &&
        strcmp(cfg.digest, merged->config_digest)) {
        if (path)
            err = pg_error_set(PG_ERR_USAGE,
                               "%s is not the config the shards ran (its "
                               "digest is %s, theirs %s)",
                               path, cfg.digest, merged->config_digest);
        pg_config_clear(&cfg);
        return err;
    }
    for (i = 0; err == 0 && i < cfg.nbenchmarks; i++)
        pg_strvec_push(&names, cfg.benchmarks[i].name);
    if (err == 0)
        err = pg_merge_check_names(merged, pg_strvec_list(&names), names.n);
    /* A config that does not load here says nothing of the shards. */
    else if (!path)
        err = 0;
    pg_strvec_clear(&names);
    pg_config_clear(&cfg);
    return err;
}

int pg_cmd_merge(int argc, char **argv)
{
    pg_cmd_outputs outputs = {NULL, NULL, NULL, NULL};
    pg_result merged, *parts;
    size_t n, i;
    int c, err = 0, code, warning_exit = PG_EXIT_PASS;
    const char *config = NULL;
    long long w;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
        int taken = c == '?' || c == ':'
                        ? 0
                        : pg_cmd_output_option(&outputs, c, optarg, "merge");
        if (taken < 0)
            return PG_EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case 'w':
            if (pg_parse_ll(&w, optarg) < 0 || w < 4 || w > 125) {
                fprintf(stderr,
                        "perfgate merge: --warning-exit-code '%s': "
                        "want a number from 4 to 125\n",
                        optarg);
                return PG_EXIT_USAGE;
            }
            warning_exit = (int)w;
            break;
        case 'c':
            config = optarg;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return PG_EXIT_PASS;
        default:
            return pg_cmd_bad_option("merge", c, argv, long_opts);
        }
    }
    if (optind >= argc) {
        fputs(usage_text, stderr);
        return PG_EXIT_USAGE;
    }
    if ((code = pg_cmd_check_show("merge", &outputs)) >= 0)
        return code;
    n = (size_t)(argc - optind);
    parts = pg_calloc(n, sizeof(*parts));
    for (i = 0; i < n && err >= 0; i++)
        err = pg_cmd_read_result(&parts[i], argv[optind + (int)i]);
    if (err >= 0)
        err = pg_merge(&merged, parts, n, (const char *const *)(argv + optind));
    if (err >= 0 && (err = against_config(&merged, config)) < 0)
        pg_result_clear(&merged);
    for (i = 0; i < n; i++)
        pg_result_clear(&parts[i]);
    free(parts);
    if (err < 0)
        return pg_cmd_fail(err);
    err = pg_cmd_show(&merged, &outputs);
    code = err < 0                  ? pg_cmd_fail(err)
           : !merged.verdict.passed ? PG_EXIT_FAIL
           : merged.verdict.warned  ? warning_exit
                                    : PG_EXIT_PASS;
    pg_result_clear(&merged);
    return code;
}
