/*
 * cmd_report.c - `perfgate report FILE.json`: render a saved result again.
 */
#include "cmd.h"
#include "error.h"
#include "fs.h"
#include "report.h"
#include "stats.h"
#include "str.h"

#include <errno.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static const char usage_text[] =
    "usage: perfgate report [options] RESULT.json\n"
    "\n"
    "Renders a result saved with 'perfgate compare --json' again: the table\n"
    "on stdout, and the pull-request comment with --markdown.  The exit\n"
    "status is the saved verdict's: 0 pass, 1 fail (2 for a bad file).\n";

static const pg_opt_usage usage = {"report", usage_text, NULL};

int pg_cmd_report(int argc, char **argv)
{
    pg_cmd_outputs outputs = {NULL, NULL, NULL, NULL};
    pg_result result;
    int err, code;
    const pg_opt opts[] = {
        PG_OPT_OUT("markdown", 0, &outputs.md_path, "FILE",
                   "write the pull-request comment"),
        PG_OPT_OUT("html", 0, &outputs.html_path, "FILE",
                   "write the report as one page with charts"),
        PG_OPT_COLOR(&outputs.color_when), PG_OPT_END};

    if ((code = pg_opt_parse(opts, argc, argv, &usage)) >= 0)
        return code;
    if (argc - optind != 1) {
        fprintf(stderr, "perfgate report: %s\n\n",
                argc - optind < 1 ? "give the saved result (RESULT.json)"
                                  : "one result at a time");
        pg_opt_print_usage(stderr, opts, &usage);
        return PG_EXIT_USAGE;
    }
    if ((err = pg_cmd_read_result(&result, argv[optind])) < 0)
        return pg_cmd_fail(err);
    err = pg_cmd_show(&result, &outputs);
    code = err < 0                 ? pg_cmd_fail(err)
           : result.verdict.passed ? PG_EXIT_PASS
                                   : PG_EXIT_FAIL;
    pg_result_clear(&result);
    return code;
}
