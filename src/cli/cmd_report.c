/*
 * cmd_report.c - `perfgate report FILE.json`: render a saved result again.
 */
#define _GNU_SOURCE
#include "cmd.h"
#include "error.h"
#include "fs.h"
#include "report.h"
#include "stats.h"
#include "str.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static const char usage_text[] =
    "usage: perfgate report [options] RESULT.json\n"
    "\n"
    "Renders a result saved with 'perfgate compare --json' again: the table\n"
    "on stdout, and the pull-request comment with --markdown.  The exit\n"
    "status is the saved verdict's: 0 pass, 1 fail (2 for a bad file).\n"
    "\n"
    "options:\n"
    "      --markdown FILE   write the pull-request comment\n"
    "      --html FILE       write the report as one page with charts\n"
    "      --color WHEN      auto, always or never\n"
    "  -h, --help            show this help\n";

static const struct option long_opts[] = {
    {"markdown", required_argument, NULL, 'm'},
    {"html", required_argument, NULL, 'H'},
    {"color", required_argument, NULL, 'C'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

int pg_cmd_report(int argc, char **argv)
{
    pg_cmd_outputs outputs = {NULL, NULL, NULL, NULL};
    pg_result result;
    int c, err, code;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
        int taken = c == '?' || c == ':'
                        ? 0
                        : pg_cmd_output_option(&outputs, c, optarg, "report");
        if (taken < 0)
            return PG_EXIT_USAGE;
        if (taken)
            continue;
        switch (c) {
        case 'h':
            fputs(usage_text, stdout);
            return PG_EXIT_PASS;
        default:
            return pg_cmd_bad_option("report", c, argv, long_opts);
        }
    }
    if (argc - optind != 1) {
        fputs(usage_text, stderr);
        return PG_EXIT_USAGE;
    }
    if ((code = pg_cmd_check_show("report", &outputs)) >= 0)
        return code;
    if ((err = pg_cmd_read_result(&result, argv[optind])) < 0)
        return pg_cmd_fail(err);
    err = pg_cmd_show(&result, &outputs);
    code = err < 0                 ? pg_cmd_fail(err)
           : result.verdict.passed ? PG_EXIT_PASS
                                   : PG_EXIT_FAIL;
    pg_result_clear(&result);
    return code;
}
