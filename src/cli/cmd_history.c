/*
 * cmd_history.c - `perfgate history`: series along main and where they
 * change level.
 */
#include "cmd.h"
#include "confirm.h"
#include "csv.h"
#include "error.h"
#include "fs.h"
#include "history.h"
#include "mainline.h"
#include "revision.h"
#include "store.h"
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
    "usage: perfgate history [options]\n"
    "   or: perfgate history --series FILE.csv [options]\n"
    "\n"
    "Shows how main has moved: per benchmark (and machine), the series of\n"
    "pushes that 'perfgate record' kept on refs/perfgate/history, along\n"
    "main's first-parent line, with a small chart; the change points, each\n"
    "the first commit at a new level, with its subject, the level before\n"
    "and after and how many times its uncertainty the step is; and the\n"
    "creeps, runs of pushes each within the noise floor whose changes add\n"
    "up beyond it.  A single spike is not a step.  Where the records kept\n"
    "a count ('perfgate record --measure all'), it is a series of its own\n"
    "beside the time's, 'NAME (instructions)', judged at the count floor.\n"
    "\n"
    "Each step in time is suspected until --confirm measures it again: its\n"
    "two sides, interleaved, as 'perfgate compare' does; a slowdown that\n"
    "spans more than one commit is then bisected.  The answers are kept on\n"
    "the ref.\n"
    "\n"
    "With --series, the same search on a CSV file of any tool's numbers:\n"
    "a header and a row per commit, oldest first; a column of numbers is a\n"
    "series (an empty cell: no point there), a column named commit (or\n"
    "sha, hash, revision, index, time, date, timestamp; or\n"
    "--label-column) names the rows, NAME:sd gives the standard\n"
    "deviation of each of NAME's points, NAME:change and NAME:change_sd\n"
    "each point's paired change against the row before; other columns are\n"
    "ignored.  '-' reads standard input.\n";

static const char epilogue[] =
    "exit status: 0 read and searched (change points or none); 2 usage, no\n"
    "records, or a file that is not such a table; 3 internal error, or the\n"
    "push failed; 130 interrupted.\n"
    "\n"
    "examples:\n"
    "  perfgate history                     main's last 200 pushes, here\n"
    "  git fetch origin refs/perfgate/history:refs/perfgate/history\n"
    "  perfgate history --rev origin/main -b crc32 --json history.json\n"
    "  perfgate history --html history.html   a chart per benchmark\n"
    "  perfgate history --confirm --push origin  measure the suspects again\n"
    "  perfgate history --series bench.csv\n"
    "\n"
    "docs/history.md says how the change points are found and how well.\n";

static const pg_opt_usage usage = {"history", usage_text, epilogue};

typedef struct history_args {
    const char *series_path;
    const char *label_column;
    const char *json_path, *html_path, *commit_url;
    pg_strvec only;
    double min_change, floor;
    const char *rev, *ref, *machine, *push;
    int last, confirm, quiet;
    pg_compare_opts measure; /* --confirm's */
} history_args;

/* The records along main, from the repository's history ref. */
static int read_ref(pg_history *h, const history_args *a)
{
    pg_mainline_opts mo;
    pg_repo *repo = NULL;
    int err;

    memset(&mo, 0, sizeof(mo));
    mo.ref = a->ref;
    mo.rev = a->rev;
    mo.last = (size_t)a->last;
    mo.machine = a->machine;
    mo.only = a->only.n ? pg_strvec_list(&a->only) : NULL;
    if (a->ref && !pg_store_ref_ok(a->ref))
        return pg_error_set(PG_ERR_USAGE,
                            "'%s': the history's ref is under refs/perfgate/",
                            a->ref);
    if ((err = pg_repo_open(&repo, ".")) < 0)
        return err;
    err = pg_mainline_load(h, repo, &mo);
    pg_repo_free(repo);
    return err;
}

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
                              a->only.n ? pg_strvec_list(&a->only) : NULL,
                              a->label_column);
    pg_csv_clear(&t);
    return err;
}

/* The page, its commits linked to --commit-url, or to where the CI or
 * origin shows them. */
static int write_page(const pg_history *h, const history_args *a)
{
    pg_str page = PG_STR_INIT;
    char *url = NULL;
    int err;

    if (a->commit_url)
        url = pg_strdup(a->commit_url);
    else if (!a->series_path) {
        pg_repo *repo = NULL;
        if (pg_repo_open(&repo, ".") == 0)
            url = pg_store_commit_url(repo);
        pg_repo_free(repo);
        pg_error_clear();
    }
    pg_history_html(&page, h, url);
    err = pg_cmd_write(a->html_path, pg_str_cstr(&page), page.size);
    pg_str_clear(&page);
    free(url);
    return err;
}

/* Reads the history and finds its change points and creeps. */
static int load(pg_history *h, const history_args *a)
{
    pg_cp_opts cp = {0};
    int err = a->series_path ? read_series(h, a) : read_ref(h, a);

    if (err == 0) {
        if (a->floor > 0)
            h->floor = a->floor;
        /* A step under the floor is what a creep is made of. */
        cp.min_change = a->min_change > 0 ? a->min_change : h->floor;
        pg_history_detect(h, &cp);
    }
    return err;
}

static void say(void *payload, const char *line)
{
    (void)payload;
    fprintf(stderr, "perfgate: %s\n", line);
}

/* --confirm: the suspected measured again and kept, the ref pushed with
 * --push; the history read again to show what they became. */
static int confirm(pg_history *h, history_args *a)
{
    pg_confirm_opts o;
    pg_repo *repo = NULL;
    size_t checked = 0;
    int err;

    memset(&o, 0, sizeof(o));
    o.compare = a->measure;
    o.ref = a->ref ? a->ref : PG_STORE_REF;
    o.machine = a->machine;
    o.say = a->quiet ? NULL : say;
    if ((err = pg_repo_open(&repo, ".")) < 0)
        return err;
    err = pg_history_confirm(&checked, h, repo, &o);
    if (o.compare.on_progress)
        fputs("\r\033[K", stderr);
    if (err == 0 && checked) {
        fprintf(stderr, "perfgate: %zu measured again, kept on %s\n", checked,
                o.ref);
        pg_history_clear(h);
        err = load(h, a);
    }
    if (err == 0 && a->push)
        err = pg_store_push(repo, o.ref, a->push, 5, o.say, NULL);
    pg_repo_free(repo);
    return err;
}

/* 1, having said so, when the options do not go together. */
static int misused(const history_args *a, int argc, const pg_opt *opts)
{
    if (argc > optind) {
        fprintf(stderr, "perfgate history: no operands: name main's tip "
                        "with --rev, a file with --series\n\n");
        pg_opt_print_usage(stderr, opts, &usage);
        return 1;
    }
    if (a->commit_url && strncmp(a->commit_url, "https://", 8) &&
        strncmp(a->commit_url, "http://", 7)) {
        fputs("perfgate history: --commit-url wants an http(s) address, "
              "such as https://github.com/OWNER/REPO/commit/\n",
              stderr);
        return 1;
    }
    if (a->series_path &&
        (a->rev || a->ref || a->machine || a->last || a->confirm || a->push)) {
        fputs("perfgate history: --series reads a file; --rev, --last, "
              "--machine, --ref, --confirm and --push read the "
              "repository's records\n",
              stderr);
        return 1;
    }
    if (a->label_column && !a->series_path) {
        fputs("perfgate history: --label-column names a column of the file "
              "--series reads\n",
              stderr);
        return 1;
    }
    if (a->push && !a->confirm) {
        fputs("perfgate history: --push pushes what --confirm measured; "
              "'perfgate record --push-only --push REMOTE' pushes the "
              "ref alone\n",
              stderr);
        return 1;
    }
    return 0;
}

/* The history on the terminal, and as JSON and a page where asked. */
static int report(const pg_history *h, const history_args *a)
{
    pg_str text = PG_STR_INIT;
    int err = 0;

    pg_history_render_text(&text, h);
    pg_cmd_print_report(a->json_path && !strcmp(a->json_path, "-") ? stderr
                                                                   : stdout,
                        pg_str_cstr(&text));
    pg_str_clear(&text);
    if (a->json_path) {
        char *json = pg_history_to_json(h);
        err = pg_cmd_write(a->json_path, json, strlen(json));
        free(json);
    }
    if (!err && a->html_path)
        err = write_page(h, a);
    return err;
}

/* The history read, confirmed when asked, and shown: the exit status. */
static int run(history_args *a)
{
    pg_history h;
    int err;

    memset(&h, 0, sizeof(h));
    pg_cmd_show_progress(&a->measure, a->quiet);
    err = load(&h, a);
    if (err == 0 && a->confirm)
        err = confirm(&h, a);
    if (err == 0)
        err = report(&h, a);
    pg_history_clear(&h);
    pg_strvec_clear(&a->only);
    return err ? pg_cmd_fail(err) : PG_EXIT_PASS;
}

int pg_cmd_history(int argc, char **argv)
{
    history_args a;
    const pg_opt opts[] = {
        PG_OPT_STR("rev", 0, &a.rev, "REV",
                   "main's tip (default HEAD): the history\n"
                   "follows its first parents"),
        PG_OPT_INT("last", 'n', &a.last, "N", 2, 100000, "want 2 to 100000",
                   "look at the last N pushes (default 200)"),
        PG_OPT_STR("machine", 0, &a.machine, "NAME",
                   "only this machine's records (and with\n"
                   "--confirm, this machine's name)"),
        PG_OPT_STR("ref", 0, &a.ref, "REF",
                   "the history's ref (default\n"
                   "refs/perfgate/history)"),
        PG_OPT_STR("series", 0, &a.series_path, "FILE",
                   "the series from a CSV file instead, '-'\n"
                   "for stdin"),
        PG_OPT_STR("label-column", 0, &a.label_column, "NAME",
                   "with --series: the column that names the\n"
                   "rows (default: commit, sha, hash,\n"
                   "revision, index, time, date or timestamp)"),
        PG_OPT_EACH("bench", 'b', &a.only, "NAME",
                    "only this benchmark or series (repeatable)"),
        PG_OPT_PCT("noise-floor", &a.floor, "PCT",
                   "the noise floor: a creep is a run of\n"
                   "pushes each within it whose changes add\n"
                   "up beyond it (default: the newest\n"
                   "record's; for --series none, and no\n"
                   "creeps)"),
        PG_OPT_PCT("min-change", &a.min_change, "PCT",
                   "report no step smaller than PCT of the\n"
                   "level before (default: the noise floor;\n"
                   "every step for --series without\n"
                   "--noise-floor)"),
        PG_OPT_SET("confirm", 0, &a.confirm,
                   "measure each change point and creep not\n"
                   "yet confirmed again (its two sides,\n"
                   "interleaved), bisect a slowdown that\n"
                   "spans several commits, keep the answers\n"
                   "on the ref"),
        PG_OPT_STR("push", 0, &a.push, "REMOTE",
                   "with --confirm: push the ref to REMOTE"),
        PG_OPT_TIME("max-time", &a.measure.max_time, "DURATION", 1,
                    "want a duration such as 10s or 500ms",
                    "with --confirm: measuring budget per\n"
                    "benchmark (10s)"),
        PG_OPT_INT("jobs", 'j', &a.measure.jobs, "N", 1, 256, NULL,
                   "with --confirm: builds at once"),
        PG_OPT_SET("quiet", 'q', &a.quiet, "no progress on stderr"),
        PG_OPT_OUT("json", 0, &a.json_path, "FILE",
                   "write the series' change points as JSON"),
        PG_OPT_OUT("html", 0, &a.html_path, "FILE",
                   "write a page with a chart per benchmark"),
        PG_OPT_STR("commit-url", 0, &a.commit_url, "URL",
                   "on the page, link each commit to URL\n"
                   "followed by its id (default: the CI's or\n"
                   "origin's on GitHub or GitLab)"),
        PG_OPT_END};
    int code;

    memset(&a, 0, sizeof(a));
    pg_compare_opts_init(&a.measure);
    code = pg_opt_parse(opts, argc, argv, &usage);
    if (code >= 0) {
        pg_strvec_clear(&a.only);
        return code;
    }
    if (misused(&a, argc, opts)) {
        pg_strvec_clear(&a.only);
        return PG_EXIT_USAGE;
    }
    return run(&a);
}
