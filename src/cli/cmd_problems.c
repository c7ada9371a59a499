/*
 * cmd_problems.c - `perfgate problems`: the built-in problems.
 */
#include "build.h"
#include "cleanup.h"
#include "cmd.h"
#include "config.h"
#include "error.h"
#include "catalog.h"
#include "plugin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

static const char usage_text[] =
    "usage: perfgate problems\n"
    "\n"
    "Lists the built-in problems: the solution signature each expects, the\n"
    "work one call does (the FLOPs and bytes behind GFLOPS and GB/s), and\n"
    "its default cases: for a C solution, and for a CUDA one (sized for a\n"
    "GPU).  Use one in perfgate.yml as 'problem: NAME'.\n";

static const pg_opt_usage usage = {"problems", usage_text, NULL};

int pg_cmd_problems(int argc, char **argv)
{
    const char *const *names = pg_catalog_builtin();
    char *tmp = NULL;
    int err = 0;

    const pg_opt opts[] = {PG_OPT_END};
    int code = pg_opt_parse(opts, argc, argv, &usage);

    if (code >= 0)
        return code;
    if (optind < argc) {
        fprintf(stderr, "perfgate problems: '%s': it takes no operands\n\n",
                argv[optind]);
        pg_opt_print_usage(stderr, opts, &usage);
        return PG_EXIT_USAGE;
    }
    if (!*names)
        return pg_cmd_fail(
            pg_error_set(PG_ERR_GENERIC,
                         "no built-in problems in %s/problems; set "
                         "PERFGATE_DATA_DIR to perfgate's data directory",
                         pg_catalog_data_dir()));
    if ((err = pg_tempdir_create(&tmp)) < 0)
        return pg_cmd_fail(err);
    for (; *names && !err; names++) {
        pg_bench_config b;
        pg_plugin plugin;
        char *lib = NULL;

        /* Built-in problems are perfgate's own code: loaded in-process. */
        memset(&b, 0, sizeof(b));
        b.name = (char *)*names;
        b.problem = (char *)*names;
        if ((err = pg_build_problem(&lib, &b, tmp, NULL)) < 0 ||
            (err = pg_plugin_load(&plugin, lib, *names)) < 0) {
            free(lib);
            break;
        }
        printf("%s\n    %s\n", plugin.problem->name,
               plugin.problem->signature ? plugin.problem->signature : "");
        if (plugin.problem->work)
            printf("    work per call: %s\n", plugin.problem->work);
        printf("    cases: %s\n", plugin.problem->default_cases);
        if (plugin.problem->device_cases)
            printf("    CUDA cases: %s\n", plugin.problem->device_cases);
        putchar('\n');
        pg_plugin_close(&plugin);
        free(lib);
    }
    pg_tempdir_remove_all();
    free(tmp);
    return err < 0 ? pg_cmd_fail(err) : PG_EXIT_PASS;
}
