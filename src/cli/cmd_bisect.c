/*
 * cmd_bisect.c - `perfgate bisect GOOD [BAD]`: the commit that made a
 * benchmark slower.
 */
#include "bisect.h"
#include "cmd.h"
#include "error.h"
#include "str.h"
#include "strvec.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

static const char usage_text[] =
    "usage: perfgate bisect [options] GOOD [BAD]\n"
    "   or: perfgate bisect [options] GOOD..BAD\n"
    "\n"
    "Finds the first commit after GOOD, up to BAD (default: HEAD), at which\n"
    "a benchmark is slower than at GOOD by more than the noise floor.  BAD\n"
    "is measured first, against GOOD: the benchmarks slower there are the\n"
    "ones followed.  Then the commits between are probed by halves, each\n"
    "compared with GOOD itself (as 'perfgate compare GOOD COMMIT' does), so\n"
    "that small steps cannot hide a slowdown.  A probe whose interval\n"
    "straddles the floor is unclear and measured again (--attempts); one\n"
    "that does not build, is wrong or stays unclear is skipped, as 'git\n"
    "bisect skip' does, and the answer may then be a few commits.  With the\n"
    "build cache, GOOD is built once.\n"
    "\n"
    "Only first parents are followed (a merge is one commit, as 'git log\n"
    "--first-parent' shows it) unless --all-parents.  Your repository is\n"
    "never modified.\n";

static const char epilogue[] =
    "exit status: 0 the first slower commit was found (or the few it is\n"
    "among); 1 nothing is slower at BAD than at GOOD; 2 usage, config or\n"
    "revision error, or GOOD or BAD cannot be measured; 3 internal error;\n"
    "130 interrupted.\n"
    "\n"
    "examples:\n"
    "  perfgate bisect v1.2 HEAD            since the release\n"
    "  perfgate bisect v1.2..v1.3           between two releases\n"
    "  perfgate bisect main -b crc32        this branch, one benchmark\n";

static const pg_opt_usage usage = {"bisect", usage_text, epilogue};

/* After each probe, its line (the progress line is rewritten below it). */
static void on_probe(void *payload, const pg_bisect_result *r,
                     const pg_probe *p)
{
    const pg_commit_info *c = &r->commits[p->index];
    size_t i;

    (void)payload;
    fprintf(stderr, "\r\033[Kprobe %zu: %.10s %s", r->nprobes, c->commit,
            pg_probe_outcome_name(p->outcome));
    if (p->why)
        fprintf(stderr, " (%s)", p->why);
    for (i = 0; i < p->nbenchmarks; i++) {
        pg_str line = PG_STR_INIT;
        if (p->benchmarks[i].change == p->benchmarks[i].change)
            pg_format_change(&line, p->benchmarks[i].change);
        else
            pg_str_puts(&line, pg_status_name(p->benchmarks[i].status));
        fprintf(stderr, "%s %s %s", i ? "," : ":", p->benchmarks[i].name,
                pg_str_cstr(&line));
        pg_str_clear(&line);
    }
    fputc('\n', stderr);
}

typedef struct bisect_args {
    pg_bisect_opts opts;
    pg_strvec only;
    const char *json_path;
    int quiet;
    char *range_good; /* GOOD of a GOOD..BAD operand */
} bisect_args;

static void args_clear(bisect_args *a)
{
    pg_strvec_clear(&a->only);
    free(a->range_good);
}

/* One operand GOOD..BAD, as git writes a range: good GOOD, bad BAD (HEAD
 * when empty).  -1 to go on, else the exit code. */
static int split_range(bisect_args *a, const char *arg, int operands)
{
    const char *dots = strstr(arg, "..");

    if (!dots)
        return -1;
    if (!strncmp(dots, "...", 3) || operands > 1 || dots == arg ||
        strstr(dots + 2, "..")) {
        fprintf(stderr,
                "perfgate bisect: '%s': give GOOD..BAD, or GOOD [BAD]%s\n", arg,
                !strncmp(dots, "...", 3)
                    ? " (for a branch: perfgate bisect $(git merge-base "
                      "main HEAD))"
                    : "");
        return PG_EXIT_USAGE;
    }
    a->range_good = pg_strdupf("%.*s", (int)(dots - arg), arg);
    a->opts.good = a->range_good;
    a->opts.bad = dots[2] ? dots + 2 : "HEAD";
    return -1;
}

static int parse_args(bisect_args *a, int argc, char **argv)
{
    const pg_opt opts[] = {
        PG_MEASURE_OPTS(&a->opts.compare, &a->only),
        PG_OPT_SET("all-parents", 0, &a->opts.all_parents,
                   "probe every commit of GOOD..BAD, not only\n"
                   "first parents"),
        PG_OPT_INT("attempts", 0, &a->opts.attempts, "N", 1, 20, NULL,
                   "measure an unclear probe up to N times (3)"),
        PG_OPT_TIME("budget", &a->opts.budget, "DURATION", 0,
                    "want a duration such as 30m or 2h, or 0 for none",
                    "start no probe after this long (1h); the\n"
                    "answer is then the commits not yet told\n"
                    "apart (0: no budget)"),
        PG_OPT_OUT("json", 0, &a->json_path, "FILE",
                   "write every probe and the answer as JSON"),
        PG_OPT_SET("quiet", 'q', &a->quiet, "no progress on stderr"),
        PG_OPT_END};
    int code = pg_opt_parse(opts, argc, argv, &usage);

    if (code >= 0)
        return code;
    if (argc - optind < 1 || argc - optind > 2) {
        fprintf(stderr, "perfgate bisect: %s\n\n",
                argc - optind < 1 ? "give the good revision"
                                  : "at most two revisions, GOOD and BAD");
        pg_opt_print_usage(stderr, opts, &usage);
        return PG_EXIT_USAGE;
    }
    a->opts.good = argv[optind];
    a->opts.bad = argc - optind > 1 ? argv[optind + 1] : "HEAD";
    return split_range(a, argv[optind], argc - optind);
}

int pg_cmd_bisect(int argc, char **argv)
{
    bisect_args a;
    pg_bisect_result r;
    pg_str text = PG_STR_INIT;
    int err, code;

    memset(&a, 0, sizeof(a));
    pg_bisect_opts_init(&a.opts);
    if ((code = parse_args(&a, argc, argv)) >= 0) {
        args_clear(&a);
        return code;
    }
    a.opts.compare.only = a.only.n ? pg_strvec_list(&a.only) : NULL;
    if (!a.quiet && isatty(STDERR_FILENO)) {
        a.opts.compare.on_progress = pg_cmd_progress;
        a.opts.on_probe = on_probe;
    }
    err = pg_bisect(&r, &a.opts);
    if (a.opts.compare.on_progress)
        fputs("\r\033[K", stderr);
    if (err >= 0) {
        pg_bisect_render_text(&text, &r);
        /* --json -: the JSON alone on stdout, the text on stderr. */
        pg_cmd_print_report(a.json_path && !strcmp(a.json_path, "-") ? stderr
                                                                     : stdout,
                            pg_str_cstr(&text));
        if (a.json_path) {
            char *json = pg_bisect_to_json(&r);
            err = pg_cmd_write(a.json_path, json, strlen(json));
            free(json);
        }
    }
    code = err < 0           ? pg_cmd_fail(err)
           : r.no_regression ? PG_EXIT_FAIL
                             : PG_EXIT_PASS;
    pg_bisect_result_clear(&r);
    pg_str_clear(&text);
    args_clear(&a);
    return code;
}
