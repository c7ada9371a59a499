/*
 * cmd_merge.c - `perfgate merge RESULT.json...`: the shards of a run, one
 * result.
 */
#include "cmd.h"
#include "config.h"
#include "error.h"
#include "fs.h"
#include "merge.h"
#include "catalog.h"
#include "strvec.h"
#include "str.h"

#include <unistd.h>
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
    "compare's: 0 pass, 1 fail, 2 for results that do not fit together.\n";

static const pg_opt_usage usage = {"merge", usage_text, NULL};

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
                         path ? path : "perfgate.yml", pg_catalog_builtin());
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
    int err = 0, code, warning_exit = PG_EXIT_PASS;
    const char *config = NULL;
    const pg_opt opts[] = {
        PG_OPT_STR("config", 0, &config, "FILE",
                   "the config the shards ran (default:\n"
                   "perfgate.yml here, when the shards ran it):\n"
                   "each of its benchmarks must be in one shard"),
        PG_OPT_OUT("json", 0, &outputs.json_path, "FILE",
                   "write the merged result as JSON"),
        PG_OPT_OUT("markdown", 0, &outputs.md_path, "FILE",
                   "write the pull-request comment"),
        PG_OPT_OUT("html", 0, &outputs.html_path, "FILE",
                   "write the report as one page with charts"),
        PG_OPT_COLOR(&outputs.color_when),
        PG_OPT_WARNING_EXIT(&warning_exit),
        PG_OPT_END};

    if ((code = pg_opt_parse(opts, argc, argv, &usage)) >= 0)
        return code;
    if (optind >= argc) {
        fputs("perfgate merge: give the shards' results (RESULT.json...)\n\n",
              stderr);
        pg_opt_print_usage(stderr, opts, &usage);
        return PG_EXIT_USAGE;
    }
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
