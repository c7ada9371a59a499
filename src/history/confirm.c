/*
 * confirm.c - a history's change points and creeps measured again, and
 * the slowdowns among them bisected (confirm.h).
 */
#include "confirm.h"
#include "bisect.h"
#include "counter.h"
#include "error.h"
#include "record.h"
#include "store.h"
#include "str.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "banned.h"

static void tell(const pg_confirm_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void tell(const pg_confirm_opts *o, const char *fmt, ...)
{
    pg_str line = PG_STR_INIT;
    va_list ap;

    if (!o->say)
        return;
    va_start(ap, fmt);
    pg_str_vprintf(&line, fmt, ap);
    va_end(ap);
    o->say(o->payload, pg_str_cstr(&line));
    pg_str_clear(&line);
}

/* The bisect's voice: what could not be bisected. */
static void bisect_said(void *payload, const char *what)
{
    tell(payload, "%s", what);
}

/*
 * Measures `after` against `before` for benchmark `bench` of series `s`,
 * bisects a slowdown more than one commit wide, and stores the check.
 */
static int check_one(const pg_history *h, const pg_series *s, size_t before,
                     size_t after, pg_repo *repo, const pg_confirm_opts *o)
{
    const char *only[2] = {s->bench, NULL};
    pg_compare_opts co = o->compare;
    pg_result r;
    pg_record rec;
    pg_record_machine machine;
    char tree[PG_OID_HEX], parent_tree[PG_OID_HEX], *json = NULL;
    int err;

    memset(&r, 0, sizeof(r));
    memset(&rec, 0, sizeof(rec));
    co.base = h->labels[before];
    co.head = h->labels[after];
    co.only = only;
    co.aa = 0;
    co.ci = NULL;
    co.merge_base = 0;
    if (co.noise_floor < 0 && h->floor > 0)
        co.noise_floor = h->floor; /* what the records were judged by */
    tell(o, "measuring %s again: %.10s..%.10s", s->bench, co.base, co.head);
    if ((err = pg_compare(&r, &co)) < 0)
        goto done;
    if (after - before > 1 &&
        (err = pg_bisect_regressions(&r, &co, bisect_said, (void *)o)) < 0)
        goto done;
    if ((err = pg_repo_tree_of(tree, repo, co.head)) < 0 ||
        (err = pg_repo_tree_of(parent_tree, repo, co.base)) < 0)
        goto done;
    pg_record_machine_probe(&machine, o->machine);
    pg_record_from_result(&rec, &r, tree, parent_tree, &machine,
                          (long long)time(NULL), 1, PG_METRIC_TIME);
    rec.check = 1;
    json = pg_record_to_json(&rec);
    err = pg_store_add(repo, o->ref, rec.commit, rec.machine.name, rec.when,
                       json, strlen(json), NULL);
done:
    free(json);
    pg_record_clear(&rec);
    pg_result_clear(&r);
    return err;
}

/* Checks the span of a change point or creep from `from` to `to`, when it
 * has none yet; counts it. */
static int check_span(const pg_history *h, const pg_series *s,
                      const pg_recheck *done, size_t from, size_t to,
                      pg_repo *repo, const pg_confirm_opts *o, size_t *n)
{
    size_t before, after;
    int err;

    if (done || pg_history_span(h, s, from, to, &before, &after) < 0)
        return 0;
    err = check_one(h, s, before, after, repo, o);
    if (err == PG_ERR_INTERRUPTED)
        return err;
    if (err < 0) {
        tell(o, "%s %s: not measured again: %s", s->bench, h->labels[after],
             pg_error_last());
        pg_error_clear();
        return 0;
    }
    (*n)++;
    return 0;
}

int pg_history_confirm(size_t *checked, const pg_history *h, pg_repo *repo,
                       const pg_confirm_opts *o)
{
    pg_record_machine here;
    size_t i, k;
    int err = 0;

    *checked = 0;
    pg_record_machine_probe(&here, o->machine);
    for (i = 0; i < h->nseries && !err; i++) {
        const pg_series *s = &h->series[i];
        /* A count is what it is: only times are measured again. */
        if (!s->bench || !s->machine || !h->labels || s->metric)
            continue;
        if (strcmp(s->machine, here.name)) {
            if (s->ncps + s->ncreeps)
                tell(o,
                     "%s: measured on %s, not here (%s): confirm it on that "
                     "machine",
                     s->name, s->machine, here.name);
            continue;
        }
        for (k = 0; k < s->ncps && !err; k++)
            err = check_span(h, s, s->cp_check[k], s->cps[k].at, s->cps[k].at,
                             repo, o, checked);
        for (k = 0; k < s->ncreeps && !err; k++)
            err = check_span(h, s, s->creep_check[k], s->creeps[k].from,
                             s->creeps[k].to, repo, o, checked);
    }
    pg_record_machine_clear(&here);
    return err;
}
