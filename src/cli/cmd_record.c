/*
 * cmd_record.c - `perfgate record [REV]`: a push to main measured against
 * its first parent, kept in the repository's history ref.
 */
#include "cmd.h"
#include "compare.h"
#include "counter.h"
#include "error.h"
#include "record.h"
#include "revision.h"
#include "store.h"
#include "str.h"
#include "strvec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "banned.h"

static const char usage_text[] =
    "usage: perfgate record [options] [REV]\n"
    "\n"
    "Measures REV (default: HEAD) against its first parent as 'perfgate\n"
    "compare REV^ REV' does, but on until each interval lies within a\n"
    "tenth of the floor either side of its change (or the budget ends),\n"
    "and keeps the result in this repository on the ref\n"
    "refs/perfgate/history: the paired change of each benchmark, its\n"
    "absolute times, the machine it ran on and the config's digest.  With\n"
    "--measure all (or instructions, cycles) it keeps each benchmark's\n"
    "count too (or instead), and 'history' shows that series beside.  A\n"
    "benchmark the commit cannot reach is recorded as unchanged without\n"
    "being built.  'perfgate history' reads the records back along main.\n"
    "\n"
    "Run it on pushes to the default branch, from a trusted job: with\n"
    "--push REMOTE the ref is pushed (never forced); when another job\n"
    "pushed first, its records are fetched and united with these, and the\n"
    "push tried again.  Nothing else in the repository is written: not\n"
    "HEAD, the index, the working tree or any other ref.\n";

static const char epilogue[] =
    "exit status: 0 recorded (whatever the change was); 2 usage, config or\n"
    "revision error; 3 internal error, or the push failed (the record is\n"
    "kept on the local ref); 130 interrupted.\n"
    "\n"
    "examples:\n"
    "  perfgate record                       HEAD against HEAD^, kept here\n"
    "  perfgate record --push origin         ... and pushed\n"
    "  perfgate record --machine gha-x64 HEAD~3\n"
    "  perfgate record --push origin --push-only   push what is recorded\n"
    "  git push origin refs/perfgate/history  a push that failed, by hand\n"
    "\n"
    "docs/history.md shows the workflow.\n";

static const pg_opt_usage usage = {"record", usage_text, epilogue};

typedef struct record_args {
    pg_compare_opts opts;
    pg_cmd_outputs outputs;
    pg_strvec only;
    const char *rev, *push, *machine, *ref;
    int tries, quiet, push_only;
} record_args;

static int parse_args(record_args *a, int argc, char **argv)
{
    const pg_opt opts[] = {
        PG_MEASURE_OPTS(&a->opts, &a->only),
        PG_OPT_STR("push", 0, &a->push, "REMOTE",
                   "push the history's ref to REMOTE (a\n"
                   "remote's name or URL) after recording"),
        PG_OPT_SET("push-only", 0, &a->push_only,
                   "with --push: measure nothing, only push\n"
                   "what is recorded (a later step, with the\n"
                   "token the measuring step did not have)"),
        PG_OPT_INT("tries", 0, &a->tries, "N", 1, 100, "want 1 to 100",
                   "with --push: how many times to fetch,\n"
                   "unite and push again (default 5)"),
        PG_OPT_STR("machine", 0, &a->machine, "NAME",
                   "the machine's name in the history (default:\n"
                   "$PERFGATE_MACHINE, else its CPU and cores):\n"
                   "times are compared on one machine only"),
        PG_OPT_STR("ref", 0, &a->ref, "REF",
                   "the history's ref (default\n"
                   "refs/perfgate/history)"),
        PG_OPT_OUT("json", 0, &a->outputs.json_path, "FILE",
                   "write the comparison as JSON too"),
        PG_OPT_SET("quiet", 'q', &a->quiet, "no progress on stderr"),
        PG_OPT_COLOR(&a->outputs.color_when),
        PG_OPT_END};
    int code = pg_opt_parse(opts, argc, argv, &usage);

    if (code >= 0)
        return code;
    if (argc - optind > 1) {
        fputs("perfgate record: one revision at most\n\n", stderr);
        pg_opt_print_usage(stderr, opts, &usage);
        return PG_EXIT_USAGE;
    }
    a->rev = optind < argc ? argv[optind] : "HEAD";
    if (a->push_only && (!a->push || optind < argc)) {
        fputs("perfgate record: --push-only pushes: give --push REMOTE, and "
              "no revision\n",
              stderr);
        return PG_EXIT_USAGE;
    }
    /* Times unless --measure says otherwise, whatever the config's
     * measure: says: one push's record is chained with the others' along
     * main, so what it keeps is chosen where the job is, not by the
     * commit. */
    if (!a->opts.measure)
        a->opts.measure = "time";
    if (!a->ref)
        a->ref = PG_STORE_REF;
    if (!pg_store_ref_ok(a->ref)) {
        fprintf(stderr,
                "perfgate record: '%s': the history's ref must be under "
                "refs/perfgate/\n",
                a->ref);
        return PG_EXIT_USAGE;
    }
    a->opts.only = a->only.n ? pg_strvec_list(&a->only) : NULL;
    a->opts.precision = PG_RECORD_PRECISION;
    pg_cmd_show_progress(&a->opts, a->quiet);
    return -1;
}

/* The commit REV names and its first parent, with their trees. */
typedef struct sides {
    char commit[PG_OID_HEX], parent[PG_OID_HEX];
    char tree[PG_OID_HEX], parent_tree[PG_OID_HEX];
} sides;

static int resolve(sides *s, pg_repo *repo, const char *rev)
{
    pg_rev r, p;
    char *spec;
    int err;

    memset(&r, 0, sizeof(r));
    memset(&p, 0, sizeof(p));
    if ((err = pg_repo_resolve(&r, repo, rev)) < 0)
        goto done;
    memcpy(s->commit, r.commit, PG_OID_HEX);
    spec = pg_strdupf("%s^1", r.commit);
    err = pg_repo_resolve(&p, repo, spec);
    free(spec);
    if (err < 0) {
        err = pg_error_set(PG_ERR_USAGE,
                           "%s (%.10s) has no parent here: a root commit has "
                           "nothing to be measured against (in a shallow "
                           "clone, fetch one more commit: fetch-depth: 2)",
                           rev, r.commit);
        goto done;
    }
    memcpy(s->parent, p.commit, PG_OID_HEX);
    if ((err = pg_repo_tree_of(s->tree, repo, s->commit)) == 0)
        err = pg_repo_tree_of(s->parent_tree, repo, s->parent);
done:
    pg_rev_clear(&r);
    pg_rev_clear(&p);
    return err;
}

static void say(void *payload, const char *line)
{
    (void)payload;
    fprintf(stderr, "perfgate: %s\n", line);
}

/* Measures, records and pushes; the exit code. */
static int record(record_args *a)
{
    pg_repo *repo = NULL;
    pg_result result;
    pg_record rec;
    pg_record_machine machine;
    sides s;
    char *json = NULL, *path = NULL;
    int err;

    memset(&result, 0, sizeof(result));
    memset(&rec, 0, sizeof(rec));
    if ((err = pg_repo_open(&repo, ".")) < 0)
        goto done;
    if (a->push_only)
        goto push;
    if ((err = resolve(&s, repo, a->rev)) < 0)
        goto done;
    a->opts.base = s.parent;
    a->opts.head = s.commit;
    if ((err = pg_compare(&result, &a->opts)) < 0)
        goto done;
    if (a->opts.on_progress)
        fputs("\r\033[K", stderr);
    if ((err = pg_cmd_show(&result, &a->outputs)) < 0)
        goto done;
    pg_record_machine_probe(&machine, a->machine);
    pg_record_from_result(
        &rec, &result, s.tree, s.parent_tree, &machine, (long long)time(NULL),
        !strcmp(a->opts.measure, "time") || !strcmp(a->opts.measure, "all"),
        !strcmp(a->opts.measure, "all") ? PG_METRIC_INSTRUCTIONS
                                        : pg_metric_parse(a->opts.measure));
    json = pg_record_to_json(&rec);
    if ((err = pg_store_add(repo, a->ref, s.commit, rec.machine.name, rec.when,
                            json, strlen(json), &path)) < 0)
        goto done;
    fprintf(stderr, "perfgate: recorded %.10s on %s as %s:%s\n", s.commit,
            rec.machine.name, a->ref, path);
push:
    if (a->push) {
        err = pg_store_push(repo, a->ref, a->push, a->tries ? a->tries : 5,
                            a->quiet ? NULL : say, NULL);
        if (!err)
            fprintf(stderr, "perfgate: pushed %s to %s\n", a->ref, a->push);
    }
done:
    free(path);
    free(json);
    pg_record_clear(&rec);
    pg_result_clear(&result);
    pg_repo_free(repo);
    return err < 0 ? pg_cmd_fail(err) : PG_EXIT_PASS;
}

int pg_cmd_record(int argc, char **argv)
{
    record_args a;
    int code;

    memset(&a, 0, sizeof(a));
    pg_compare_opts_init(&a.opts);
    if ((code = parse_args(&a, argc, argv)) < 0)
        code = record(&a);
    pg_strvec_clear(&a.only);
    return code;
}
