/*
 * cmd_history.c - `perfgate history`: series along main and where they
 * change level.
 */
#define _GNU_SOURCE
#include "cmd.h"
#include "csv.h"
#include "error.h"
#include "fs.h"
#include "history.h"
#include "str.h"
#include "strvec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

/* The largest CSV file read. */
#define SERIES_FILE_MAX (256u * 1024 * 1024)

static const char usage_text[] =
    "usage: perfgate history --series FILE.csv [options]\n"
    "\n"
    "Finds where series of measurements change level: the change points,\n"
    "each the first commit at a new level, with the level before and after\n"
    "and how many times its uncertainty the step is.  A single spike is\n"
    "not a step; a step needs two points at the new level to be seen.\n"
    "\n"
    "FILE.csv has a header and a row per commit, oldest first: a column of\n"
    "numbers is a series (an empty cell: no point there), a column named\n"
    "commit (or sha, hash, revision) names the rows, a column NAME:sd gives\n"
    "the standard deviation of each of NAME's points (without one, the\n"
    "noise is estimated from the series itself), other columns are\n"
    "ignored.  '-' reads standard input.\n";

static const char epilogue[] =
    "exit status: 0 read and searched (change points or none); 2 usage or\n"
    "a file that is not such a table.\n"
    "\n"
    "examples:\n"
    "  perfgate history --series bench.csv\n"
    "  perfgate history --series bench.csv -b crc32 --json cps.json\n"
    "\n"
    "docs/history.md says how the change points are found and how well.\n";

static const pg_opt_usage usage = {"history", usage_text, epilogue};

typedef struct history_args {
    const char *series_path;
    const char *json_path;
    pg_strvec only;
    double min_change;
} history_args;

static int read_series(pg_history *h, const history_args *a)
{
    const char *name = strcmp(a->series_path, "-") ? a->series_path : "stdin";
    char *text = NULL;
    size_t len = 0;
    pg_csv t;
    int err;

    if (pg_read_file(&text, &len,
                     strcmp(a->series_path, "-") ? a->series_path
                                                 : "/dev/stdin",
                     SERIES_FILE_MAX))
        return pg_error_set(PG_ERR_USAGE, "cannot read %s: %s", name,
                            errno == EFBIG ? "larger than 256 MiB"
                                           : strerror(errno));
    err = pg_csv_parse(&t, text, len, name);
    free(text);
    if (err)
        return err;
    err = pg_history_from_csv(h, &t, name,
                              a->only.n ? pg_strvec_list(&a->only) : NULL);
    pg_csv_clear(&t);
    return err;
}

int pg_cmd_history(int argc, char **argv)
{
    history_args a = {NULL, NULL, PG_STRVEC_INIT, 0};
    const pg_opt opts[] = {PG_OPT_STR("series", 0, &a.series_path, "FILE",
                                      "the series: a CSV file, '-' for stdin"),
                           PG_OPT_EACH("bench", 'b', &a.only, "NAME",
                                       "only this series (repeatable)"),
                           PG_OPT_PCT("min-change", &a.min_change, "PCT",
                                      "report no step smaller than PCT of the\n"
                                      "level before (default: every step the\n"
                                      "noise allows)"),
                           PG_OPT_OUT("json", 0, &a.json_path, "FILE",
                                      "write the change points as JSON"),
                           PG_OPT_END};
    pg_cp_opts cp = {0};
    pg_history h;
    pg_str text = PG_STR_INIT;
    int code = pg_opt_parse(opts, argc, argv, &usage), err;

    if (code >= 0) {
        pg_strvec_clear(&a.only);
        return code;
    }
    if (argc > optind || !a.series_path) {
        fprintf(stderr, "perfgate history: %s\n\n",
                argc > optind ? "no operands: give the file with --series"
                              : "give the series: --series FILE.csv (the "
                                "history of main itself is to come)");
        pg_opt_print_usage(stderr, opts, &usage);
        pg_strvec_clear(&a.only);
        return PG_EXIT_USAGE;
    }
    err = read_series(&h, &a);
    if (err == 0) {
        cp.min_change = a.min_change;
        pg_history_detect(&h, &cp);
        pg_history_render_text(&text, &h);
        pg_cmd_print_report(a.json_path && !strcmp(a.json_path, "-") ? stderr
                                                                     : stdout,
                            pg_str_cstr(&text));
        if (a.json_path) {
            char *json = pg_history_to_json(&h);
            err = json ? pg_cmd_write(a.json_path, json, strlen(json))
                       : pg_error_set(PG_ERR_GENERIC, "out of memory");
            free(json);
        }
        pg_history_clear(&h);
    }
    pg_str_clear(&text);
    pg_strvec_clear(&a.only);
    return err ? pg_cmd_fail(err) : PG_EXIT_PASS;
}
