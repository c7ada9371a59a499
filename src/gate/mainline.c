/*
 * mainline.c - records along main's first-parent line, as series.
 */
#define _GNU_SOURCE
#include "mainline.h"
#include "error.h"
#include "record.h"
#include "store.h"
#include "str.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* A 95% interval's half-width in standard deviations. */
#define Z95 1.959964

/* A commit of the line, findable by its id. */
typedef struct line_commit {
    const char *id;
    size_t pos;
} line_commit;

typedef struct line_index {
    line_commit *by_id;
    size_t n;
} line_index;

static int by_id(const void *a, const void *b)
{
    return strcmp(((const line_commit *)a)->id, ((const line_commit *)b)->id);
}

/* The position of `commit` on the line, or -1. */
static long find(const line_index *ix, const char *commit)
{
    line_commit key = {commit, 0};
    const line_commit *hit =
        bsearch(&key, ix->by_id, ix->n, sizeof(key), by_id);

    return hit ? (long)hit->pos : -1;
}

static int want(void *payload, const char *commit)
{
    return find(payload, commit) >= 0;
}

/* A record, read, and where it stands on the line. */
typedef struct placed {
    pg_record rec;
    size_t pos;
} placed;

/* A check record's benchmarks, as checks of the history. */
static void add_checks(pg_history *h, const pg_record *rec)
{
    size_t i;

    h->checks = pg_realloc(h->checks, (h->nchecks + rec->nbenchmarks + 1) *
                                          sizeof(*h->checks));
    for (i = 0; i < rec->nbenchmarks; i++) {
        const pg_record_bench *b = &rec->benchmarks[i];
        pg_recheck *c = &h->checks[h->nchecks++];
        memset(c, 0, sizeof(*c));
        c->commit = pg_strdup(rec->commit);
        c->parent = pg_strdup(rec->parent);
        c->machine = pg_strdup(rec->machine.name);
        c->bench = pg_strdup(b->name);
        c->status = (int)b->status;
        c->change = b->change;
        c->when = rec->when;
        if (b->culprit[0]) {
            c->culprit = pg_strdup(b->culprit);
            c->culprit_subject =
                pg_strdup(b->culprit_subject ? b->culprit_subject : "");
        }
    }
}

static int by_when(const void *a, const void *b)
{
    long long x = ((const pg_recheck *)a)->when,
              y = ((const pg_recheck *)b)->when;

    return x < y ? -1 : x > y;
}

/* The records of the line's commits from the ref; notes for the rest. */
static int read_records(placed **out, size_t *n, pg_history *h, pg_repo *repo,
                        const char *ref, const line_index *ix,
                        const char *machine)
{
    pg_stored *files = NULL;
    size_t nfiles = 0, i;
    int err =
        pg_store_read(&files, &nfiles, repo, ref, want, (void *)ix, &h->notes);

    *out = pg_calloc(nfiles + 1, sizeof(**out));
    *n = 0;
    for (i = 0; !err && i < nfiles; i++) {
        placed *p = &(*out)[*n];
        char *display = pg_strdupf("%s:%s", ref, files[i].path);
        if (pg_record_from_json(&p->rec, files[i].data, files[i].len, display) <
            0) {
            pg_strvec_pushf(&h->notes, "left out %s", pg_error_last());
        } else if (strcmp(p->rec.commit, files[i].commit)) {
            pg_strvec_pushf(&h->notes,
                            "left out %s: it records %.12s, filed under "
                            "%.12s",
                            display, p->rec.commit, files[i].commit);
            pg_record_clear(&p->rec);
        } else if (machine && strcmp(p->rec.machine.name, machine)) {
            pg_record_clear(&p->rec);
        } else if (p->rec.check) {
            add_checks(h, &p->rec);
            pg_record_clear(&p->rec);
        } else {
            p->pos = (size_t)find(ix, files[i].commit);
            (*n)++;
        }
        free(display);
    }
    pg_error_clear();
    pg_stored_free(files, nfiles);
    if (h->nchecks > 1)
        qsort(h->checks, h->nchecks, sizeof(*h->checks), by_when);
    return err;
}

/* The distinct machines of the records, in the order first seen. */
static void machines_of(pg_strvec *out, const placed *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!pg_strvec_has(out, p[i].rec.machine.name))
            pg_strvec_push(out, p[i].rec.machine.name);
}

/* The distinct benchmarks, the newest push's first. */
static void benchmarks_of(pg_strvec *out, const placed *p, size_t n,
                          const char *const *only)
{
    size_t i, j, k;

    for (k = n; k > 0; k--) {
        const pg_record *r = &p[k - 1].rec;
        for (j = 0; j < r->nbenchmarks; j++) {
            const char *name = r->benchmarks[j].name;
            int wanted = !only;
            for (i = 0; only && only[i] && !wanted; i++)
                wanted = !strcmp(only[i], name);
            if (wanted && !pg_strvec_has(out, name))
                pg_strvec_push(out, name);
        }
    }
}

/* The newest record of `machine` at each position into by_pos (the
 * records sorted by position, then time); notes for duplicates. */
static void newest_at(const placed **by_pos, pg_history *h, const placed *p,
                      size_t n, const char *machine, size_t first)
{
    size_t i;
    size_t *count = pg_calloc(h->npoints + 1, sizeof(*count));

    for (i = 0; i < n; i++) {
        const placed *q = &p[i];
        size_t at = q->pos - first;
        if (strcmp(q->rec.machine.name, machine))
            continue;
        count[at]++;
        if (!by_pos[at] || q->rec.when >= by_pos[at]->rec.when)
            by_pos[at] = q;
    }
    for (i = 0; i < h->npoints; i++)
        if (count[i] > 1)
            pg_strvec_pushf(&h->notes,
                            "%.12s has %zu records from %s; the newest is "
                            "drawn",
                            h->labels[i], count[i], machine);
    free(count);
}

/* The series of benchmark `name` on `machine`; 0 when it has no point. */
static int fill_series(pg_series *s, const pg_history *h,
                       const placed *const *by_pos, const char *name)
{
    size_t i, points = 0;

    s->values = pg_malloc(h->npoints * sizeof(double));
    s->change = pg_malloc(h->npoints * sizeof(double));
    s->change_sd = pg_malloc(h->npoints * sizeof(double));
    s->sure = pg_calloc(h->npoints, 1);
    for (i = 0; i < h->npoints; i++) {
        const pg_record_bench *b =
            by_pos[i] ? pg_record_find(&by_pos[i]->rec, name) : NULL;
        s->values[i] = s->change[i] = s->change_sd[i] = NAN;
        if (!b)
            continue;
        points++;
        if (b->untouched) { /* the change could not reach it */
            s->change[i] = s->change_sd[i] = 0;
            continue;
        }
        s->values[i] = b->head_ns;
        /* The parent's time, from the same run, where it has none of its
         * own (a push the change could not reach, or not recorded). */
        if (i > 0 && isnan(s->values[i - 1]))
            s->values[i - 1] = b->base_ns;
        s->change[i] = b->change;
        s->sure[i] = b->status == PG_STATUS_REGRESSION ||
                     b->status == PG_STATUS_IMPROVEMENT;
        if (isfinite(b->change_lo) && isfinite(b->change_hi))
            s->change_sd[i] = (b->change_hi - b->change_lo) / (2 * Z95);
    }
    return points > 0;
}

int pg_mainline_load(pg_history *h, pg_repo *repo, const pg_mainline_opts *opts)
{
    const char *ref = opts->ref ? opts->ref : PG_STORE_REF;
    const char *rev = opts->rev ? opts->rev : "HEAD";
    size_t last = opts->last ? opts->last : PG_MAINLINE_LAST;
    pg_commit_info *line = NULL;
    size_t nline = 0, nrec = 0, i, j, first;
    line_index ix = {NULL, 0};
    pg_strvec machines = PG_STRVEC_INIT, benches = PG_STRVEC_INIT;
    placed *recs = NULL;
    const placed **by_pos = NULL;
    int err;

    memset(h, 0, sizeof(*h));
    h->source = pg_strdupf("%s along %s", ref, rev);
    if ((err = pg_repo_first_parents(&line, &nline, repo, rev, last)) < 0)
        goto done;
    ix.by_id = pg_calloc(nline + 1, sizeof(*ix.by_id));
    for (i = 0; i < nline; i++) {
        ix.by_id[i].id = line[i].commit;
        ix.by_id[i].pos = i;
    }
    ix.n = nline;
    qsort(ix.by_id, ix.n, sizeof(*ix.by_id), by_id);
    if ((err = read_records(&recs, &nrec, h, repo, ref, &ix, opts->machine)) <
        0)
        goto done;
    if (!nrec) {
        err = pg_error_set(
            PG_ERR_USAGE,
            "no perfgate record of the last %zu commits of %s on %s%s%s: "
            "record pushes to main with 'perfgate record' (see "
            "docs/history.md), or fetch them with 'git fetch origin "
            "%s:%s'",
            nline, rev, ref, opts->machine ? " from " : "",
            opts->machine ? opts->machine : "", ref, ref);
        goto done;
    }
    for (first = nline, i = 0; i < nrec; i++)
        first = recs[i].pos < first ? recs[i].pos : first;
    h->npoints = nline - first;
    h->ns = 1;
    h->labels = pg_calloc(h->npoints, sizeof(*h->labels));
    h->subjects = pg_calloc(h->npoints, sizeof(*h->subjects));
    for (i = 0; i < h->npoints; i++) {
        h->labels[i] = pg_strdup(line[first + i].commit);
        h->subjects[i] = pg_text_clean(line[first + i].subject);
    }
    machines_of(&machines, recs, nrec);
    benchmarks_of(&benches, recs, nrec, opts->only);
    for (i = 0; opts->only && opts->only[i]; i++)
        if (!pg_strvec_has(&benches, opts->only[i])) {
            err = pg_error_set(PG_ERR_USAGE,
                               "no benchmark '%s' in the records of %s",
                               opts->only[i], ref);
            goto done;
        }
    h->series = pg_calloc(benches.n * machines.n + 1, sizeof(*h->series));
    by_pos = pg_calloc(h->npoints, sizeof(*by_pos));
    for (j = 0; j < machines.n; j++) {
        memset(by_pos, 0, h->npoints * sizeof(*by_pos));
        newest_at(by_pos, h, recs, nrec, machines.v[j], first);
        for (i = 0; i < benches.n; i++) {
            pg_series *s = &h->series[h->nseries];
            if (!fill_series(s, h, by_pos, benches.v[i])) {
                free(s->values);
                free(s->change);
                free(s->change_sd);
                free(s->sure);
                memset(s, 0, sizeof(*s));
                continue;
            }
            s->name = machines.n > 1
                          ? pg_strdupf("%s @ %s", benches.v[i], machines.v[j])
                          : pg_strdup(benches.v[i]);
            s->bench = pg_strdup(benches.v[i]);
            s->machine = pg_strdup(machines.v[j]);
            h->nseries++;
        }
    }
    /* The floor the newest record was judged by. */
    for (j = 0, i = 1; i < nrec; i++)
        if (recs[i].pos > recs[j].pos ||
            (recs[i].pos == recs[j].pos && recs[i].rec.when > recs[j].rec.when))
            j = i;
    h->floor = recs[j].rec.noise_floor;
    if (!(h->floor > 0 && h->floor < 1))
        h->floor = 0.05;
done:
    free(by_pos);
    for (i = 0; i < nrec; i++)
        pg_record_clear(&recs[i].rec);
    free(recs);
    free(ix.by_id);
    pg_commit_infos_free(line, nline);
    pg_strvec_clear(&machines);
    pg_strvec_clear(&benches);
    if (err < 0) {
        char *msg = pg_strdup(pg_error_last());
        pg_history_clear(h);
        pg_error_set(err, "%s", msg);
        free(msg);
    }
    return err;
}

/* The series of benchmark `name` in `h`, on `machine` when it is not
 * NULL. */
static const pg_series *series_of(const pg_history *h, const char *name,
                                  const char *machine)
{
    size_t i;

    for (i = 0; i < h->nseries; i++)
        if (!strcmp(h->series[i].bench, name) &&
            (!machine || !strcmp(h->series[i].machine, machine)))
            return &h->series[i];
    return NULL;
}

void pg_mainline_moves(pg_result *r, pg_repo *repo, const char *ref,
                       size_t last)
{
    pg_mainline_opts mo;
    pg_record_machine here;
    pg_cp_opts cp = {0};
    pg_history h;
    const char *machine = NULL;
    size_t i, k;

    if (r->aa || !r->base.commit || !*r->base.commit)
        return;
    memset(&mo, 0, sizeof(mo));
    mo.ref = ref;
    mo.rev = r->base.commit;
    mo.last = last;
    /* This machine's records where there are, else any machine's. */
    pg_record_machine_probe(&here, NULL);
    mo.machine = here.name;
    if (pg_mainline_load(&h, repo, &mo) < 0) {
        mo.machine = NULL;
        if (pg_mainline_load(&h, repo, &mo) < 0) {
            pg_error_clear();
            pg_record_machine_clear(&here);
            return;
        }
    }
    pg_error_clear();
    cp.min_change = h.floor;
    pg_history_detect(&h, &cp);
    for (i = 0; i < r->nbenchmarks; i++) {
        pg_bench_result *b = &r->benchmarks[i];
        const pg_series *s = series_of(&h, b->name, machine);
        double chained = 1;
        int pushes = 0;
        if (!s)
            continue;
        machine = s->machine; /* one machine for the whole comment */
        for (k = 0; k < h.npoints; k++)
            if (isfinite(s->change[k])) {
                chained *= 1 + s->change[k];
                pushes++;
            }
        if (!pushes)
            continue;
        b->main_pushes = pushes;
        b->main_change = chained - 1;
        b->main_steps = (int)s->ncps;
        b->main_creeps = (int)s->ncreeps;
    }
    if (machine) {
        free(r->main_machine);
        r->main_machine = pg_strdup(machine);
    }
    pg_history_clear(&h);
    pg_record_machine_clear(&here);
}
