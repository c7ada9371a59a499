/*
 * mainline.c - records along main's first-parent line, as series.
 */
#include "mainline.h"
#include "counter.h"
#include "error.h"
#include "record.h"
#include "revision.h"
#include "store.h"
#include "str.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "banned.h"

/* A 95% interval's half-width in standard deviations. */
#define Z95 1.959964

/* How many pushes drawn from another commit's record are named. */
#define MAX_REUSE_NOTES 5
/* How far in the future a record may be dated: clocks that disagree. */
#define FUTURE_SLACK (24 * 3600LL)

/* A commit of the line, findable by its id, and by its code: its tree
 * and its first parent's. */
typedef struct line_commit {
    const char *id;
    const char *tree, *parent_tree; /* parent_tree: "" when unknown */
    size_t pos;
    const char *parent; /* its first parent, "" when unknown */
} line_commit;

typedef struct line_index {
    line_commit *by_id, *by_code;
    size_t n;
} line_index;

static int by_id(const void *a, const void *b)
{
    return strcmp(((const line_commit *)a)->id, ((const line_commit *)b)->id);
}

static int by_code(const void *a, const void *b)
{
    const line_commit *x = a, *y = b;
    int c = strcmp(x->tree, y->tree);

    return c ? c : strcmp(x->parent_tree, y->parent_tree);
}

/* `commit` on the line, or NULL. */
static const line_commit *find_commit(const line_index *ix, const char *commit)
{
    line_commit key = {commit, NULL, NULL, 0, NULL};

    return bsearch(&key, ix->by_id, ix->n, sizeof(key), by_id);
}

/* The position of `commit` on the line, or -1. */
static long find(const line_index *ix, const char *commit)
{
    const line_commit *hit = find_commit(ix, commit);

    return hit ? (long)hit->pos : -1;
}

static int want(void *payload, const char *commit)
{
    return find(payload, commit) >= 0;
}

static int want_others(void *payload, const char *commit)
{
    return find(payload, commit) < 0;
}

/*
 * The line's `n` commits (oldest first), indexed; the commit before the
 * first, when `before` is not NULL, gives the first its parent's tree.
 */
static void index_line(line_index *ix, const pg_commit_info *line, size_t n,
                       const pg_commit_info *before)
{
    size_t i;

    ix->n = n;
    ix->by_id = pg_calloc(n + 1, sizeof(*ix->by_id));
    for (i = 0; i < n; i++) {
        ix->by_id[i].id = line[i].commit;
        ix->by_id[i].tree = line[i].tree;
        ix->by_id[i].parent_tree = i        ? line[i - 1].tree
                                   : before ? before->tree
                                            : "";
        ix->by_id[i].parent = i        ? line[i - 1].commit
                              : before ? before->commit
                                       : "";
        ix->by_id[i].pos = i;
    }
    ix->by_code = pg_calloc(n + 1, sizeof(*ix->by_code));
    memcpy(ix->by_code, ix->by_id, n * sizeof(*ix->by_id));
    qsort(ix->by_id, n, sizeof(*ix->by_id), by_id);
    qsort(ix->by_code, n, sizeof(*ix->by_code), by_code);
}

/*
 * A record where it stands on the line: at its own commit, or, reused,
 * at a commit whose code is the record's (the same tree on the same
 * parent's tree: a commit rebased, or landed again, without a change).
 */
typedef struct placed {
    size_t rec; /* into the records read */
    size_t pos;
    int reused;
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

/* Why push record `rec` cannot be drawn (a new string), or NULL: its
 * commit must be in the repository with the parent and trees it claims
 * (else a record filed under a commit of its own making could claim a real
 * commit's code, and be drawn there), and its time not in the future
 * (else it would outrank every record of its code: preferred()). */
static char *untrue(const pg_record *rec, pg_repo *repo, const line_index *ix,
                    long long now)
{
    char tree[PG_OID_HEX], parent[PG_OID_HEX], parent_tree[PG_OID_HEX];
    const line_commit *on = find_commit(ix, rec->commit);

    /* A commit of the line: what the walk found (most records). */
    if (on) {
        snprintf(tree, sizeof(tree), "%s", on->tree);
        snprintf(parent, sizeof(parent), "%s", on->parent);
        snprintf(parent_tree, sizeof(parent_tree), "%s", on->parent_tree);
    }
    if (!on &&
        pg_repo_commit_trees(tree, parent, parent_tree, repo, rec->commit))
        return pg_strdupf("its commit %.12s is not in this repository",
                          rec->commit);
    if (strcmp(tree, rec->tree) || (parent[0] && strcmp(parent, rec->parent)) ||
        (parent_tree[0] && strcmp(parent_tree, rec->parent_tree)))
        return pg_strdupf("its commit %.12s has another tree or parent than "
                          "it claims",
                          rec->commit);
    if (rec->when > now + FUTURE_SLACK)
        return pg_strdup("it is dated in the future");
    return NULL;
}

/* The push records of the commits `which` takes (of `machine`, when it
 * is not NULL) from the ref, added to *recs; the check records into h;
 * notes for those left out. */
static int read_records(pg_record **recs, size_t *nrec, pg_history *h,
                        pg_repo *repo, const char *ref,
                        int (*which)(void *, const char *),
                        const line_index *ix, const char *machine)
{
    pg_stored *files = NULL;
    size_t nfiles = 0, i;
    long long now = (long long)time(NULL);
    char *why;
    int err =
        pg_store_read(&files, &nfiles, repo, ref, which, (void *)ix, &h->notes);

    *recs = pg_realloc(*recs, (*nrec + nfiles + 1) * sizeof(**recs));
    for (i = 0; !err && i < nfiles; i++) {
        pg_record *rec = &(*recs)[*nrec];
        char *display = pg_strdupf("%s:%s", ref, files[i].path);
        if (pg_record_from_json(rec, files[i].data, files[i].len, display) <
            0) {
            pg_strvec_pushf(&h->notes, "left out %s", pg_error_last());
        } else if (strcmp(rec->commit, files[i].commit)) {
            pg_strvec_pushf(&h->notes,
                            "left out %s: it records %.12s, filed under "
                            "%.12s",
                            display, rec->commit, files[i].commit);
            pg_record_clear(rec);
        } else if (machine && strcmp(rec->machine.name, machine)) {
            pg_record_clear(rec);
        } else if (rec->check) {
            add_checks(h, rec);
            pg_record_clear(rec);
        } else if ((why = untrue(rec, repo, ix, now)) != NULL) {
            pg_strvec_pushf(&h->notes, "left out %s: %s", display, why);
            free(why);
            pg_record_clear(rec);
        } else {
            (*nrec)++;
        }
        free(display);
    }
    pg_error_clear();
    pg_stored_free(files, nfiles);
    return err;
}

/* Placements along the line, oldest first (then as read). */
static int along_line(const void *a, const void *b)
{
    const placed *x = a, *y = b;

    if (x->pos != y->pos)
        return x->pos < y->pos ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/*
 * Where the records stand on the line, oldest first: each at its own
 * commit, and, for
 * the code's sake, at every other commit of the line with its tree on its
 * parent's tree (reused).  Returns how many; *out to be free()d.
 */
static size_t place(placed **out, const pg_record *recs, size_t nrec,
                    const line_index *ix)
{
    size_t n = 0, cap = nrec + 1, i;

    *out = pg_malloc(cap * sizeof(**out));
    for (i = 0; i < nrec; i++) {
        long pos = find(ix, recs[i].commit);
        line_commit key = {NULL, recs[i].tree, recs[i].parent_tree, 0, NULL};
        const line_commit *hit, *end = ix->by_code + ix->n;
        if (n + 1 >= cap)
            *out = pg_realloc(*out, (cap *= 2) * sizeof(**out));
        if (pos >= 0)
            (*out)[n++] = (placed){i, (size_t)pos, 0};
        if (!*key.tree || !*key.parent_tree ||
            !(hit = bsearch(&key, ix->by_code, ix->n, sizeof(key), by_code)))
            continue;
        while (hit > ix->by_code && !by_code(hit - 1, &key))
            hit--;
        for (; hit < end && !by_code(hit, &key); hit++) {
            if ((long)hit->pos == pos)
                continue;
            if (n + 1 >= cap)
                *out = pg_realloc(*out, (cap *= 2) * sizeof(**out));
            (*out)[n++] = (placed){i, hit->pos, 1};
        }
    }
    qsort(*out, n, sizeof(**out), along_line);
    return n;
}

/* Whether some commit of the line has no record where it stands. */
static int line_has_gaps(const placed *p, size_t n, size_t nline)
{
    char *seen = pg_calloc(nline + 1, 1);
    size_t i, gaps = nline;

    for (i = 0; i < n; i++)
        if (!seen[p[i].pos]) {
            seen[p[i].pos] = 1;
            gaps--;
        }
    free(seen);
    return gaps > 0;
}

/* The distinct machines of the records, in the order first seen. */
static void machines_of(pg_strvec *out, const pg_record *recs, const placed *p,
                        size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!pg_strvec_has(out, recs[p[i].rec].machine.name))
            pg_strvec_push(out, recs[p[i].rec].machine.name);
}

/* Whether two records list the same benchmarks, in the same order. */
static int same_benchmarks(const pg_record *a, const pg_record *b)
{
    size_t i;

    if (a->nbenchmarks != b->nbenchmarks)
        return 0;
    for (i = 0; i < a->nbenchmarks; i++)
        if (strcmp(a->benchmarks[i].name, b->benchmarks[i].name))
            return 0;
    return 1;
}

/* The distinct benchmarks, the newest push's first. */
static void benchmarks_of(pg_strvec *out, const pg_record *recs,
                          const placed *p, size_t n, const char *const *only)
{
    const pg_record *last = NULL;
    size_t i, j, k;

    for (k = n; k > 0; k--) {
        const pg_record *r = &recs[p[k - 1].rec];
        if (last && same_benchmarks(r, last))
            continue;
        last = r;
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

/* Whether q stands before `than` at a place: its own record before a
 * reused one, then the newer. */
static int preferred(const pg_record *recs, const placed *q, const placed *than)
{
    if (!than || q->reused != than->reused)
        return !than || !q->reused;
    return recs[q->rec].when >= recs[than->rec].when;
}

/* The record of `machine` drawn at each position into by_pos (its own, the
 * newest; else one of the same code); notes for duplicates and reuse. */
static void newest_at(const placed **by_pos, pg_history *h,
                      const pg_record *recs, const placed *p, size_t n,
                      const char *machine, size_t first)
{
    size_t i, reused = 0;
    size_t *count = pg_calloc(h->npoints + 1, sizeof(*count));

    for (i = 0; i < n; i++) {
        const placed *q = &p[i];
        size_t at = q->pos - first;
        if (q->pos < first || strcmp(recs[q->rec].machine.name, machine))
            continue;
        count[at] += !q->reused;
        if (preferred(recs, q, by_pos[at]))
            by_pos[at] = q;
    }
    for (i = 0; i < h->npoints; i++) {
        if (count[i] > 1)
            pg_strvec_pushf(&h->notes,
                            "%.12s has %zu records from %s; the newest is "
                            "drawn",
                            h->labels[i], count[i], machine);
        if (by_pos[i] && by_pos[i]->reused && reused++ < MAX_REUSE_NOTES)
            pg_strvec_pushf(&h->notes,
                            "%.12s is drawn from the record of %.12s (%s): "
                            "the same code, its tree on its parent's tree",
                            h->labels[i], recs[by_pos[i]->rec].commit, machine);
    }
    if (reused > MAX_REUSE_NOTES)
        pg_strvec_pushf(&h->notes,
                        "%zu more pushes are drawn from records of the same "
                        "code under other commits (%s)",
                        reused - MAX_REUSE_NOTES, machine);
    free(count);
}

/* Benchmark `name` of `rec`: where it stood in the last record looked at
 * (*hint, as records of one config list them alike), else found. */
static const pg_record_bench *find_bench(const pg_record *rec, const char *name,
                                         size_t *hint)
{
    const pg_record_bench *b;

    if (*hint < rec->nbenchmarks && rec->benchmarks[*hint].name &&
        !strcmp(rec->benchmarks[*hint].name, name))
        return &rec->benchmarks[*hint];
    if ((b = pg_record_find(rec, name)) != NULL)
        *hint = (size_t)(b - rec->benchmarks);
    return b;
}

/* What a record says of a point of the series of `metric`: the time, or
 * the count of that metric. */
typedef struct figure {
    pg_status status;
    double base, head, change, lo, hi;
} figure;

/* Benchmark `b`'s heap per call (PG_SERIES_ALLOCS or _PEAK), exact: any
 * difference between the sides is the push's, and its status says so.
 * 0 when the record has none (a push the change could not reach: 1, to be
 * carried). */
static int heap_figure(figure *f, const pg_record_bench *b, int metric)
{
    const pg_memory_use *m = b->memory;
    double base, head, change;

    if (b->untouched)
        return 1;
    if (!m[0].counted || !m[1].counted)
        return 0;
    base = metric == PG_SERIES_ALLOCS ? m[0].allocs : m[0].peak;
    head = metric == PG_SERIES_ALLOCS ? m[1].allocs : m[1].peak;
    change = head == base ? 0 : base > 0 ? head / base - 1 : NAN;
    *f = (figure){head > base   ? PG_STATUS_REGRESSION
                  : head < base ? PG_STATUS_IMPROVEMENT
                                : PG_STATUS_UNCHANGED,
                  base,
                  head,
                  change,
                  change,
                  change};
    return 1;
}

/* Benchmark `b`'s figure for `metric`; 0 when it has none. */
static int figure_of(figure *f, const pg_record_bench *b, int metric)
{
    if (PG_SERIES_HEAP(metric))
        return heap_figure(f, b, metric);
    if (!metric) {
        *f = (figure){b->status, b->base_ns,   b->head_ns,
                      b->change, b->change_lo, b->change_hi};
        return b->timed;
    }
    *f = (figure){b->count.status, b->count.base,      b->count.head,
                  b->count.change, b->count.change_lo, b->count.change_hi};
    return b->count.metric == metric;
}

/* The series of benchmark `name` on `machine`, of its times or its
 * counts of `metric`; 0 when it has no point. */
static int fill_series(pg_series *s, const pg_history *h, const pg_record *recs,
                       const placed *const *by_pos, const char *name,
                       int metric)
{
    size_t i, points = 0, hint = 0;

    s->values = pg_malloc(h->npoints * sizeof(double));
    s->change = pg_malloc(h->npoints * sizeof(double));
    s->change_sd = pg_malloc(h->npoints * sizeof(double));
    s->sure = pg_calloc(h->npoints, 1);
    s->carried = pg_calloc(h->npoints, 1);
    s->accepted = pg_calloc(h->npoints, sizeof(*s->accepted));
    for (i = 0; i < h->npoints; i++) {
        const pg_record_bench *b =
            by_pos[i] ? find_bench(&recs[by_pos[i]->rec], name, &hint) : NULL;
        figure f;
        s->values[i] = s->change[i] = s->change_sd[i] = NAN;
        if (!b || !figure_of(&f, b, metric))
            continue;
        points++;
        if (b->untouched) { /* the change could not reach it */
            s->change[i] = s->change_sd[i] = 0;
            s->carried[i] = 1;
            continue;
        }
        if (metric && b->count.counter && *b->count.counter) {
            free(s->counter); /* the newest's */
            s->counter = pg_strdup(b->count.counter);
        }
        s->values[i] = f.head;
        /* The parent's figure, from the same run, where it has none of
         * its own (a push the change could not reach, or not recorded). */
        if (i > 0 && isnan(s->values[i - 1])) {
            s->values[i - 1] = f.base;
            s->carried[i - 1] = 0; /* measured, after all */
        }
        s->change[i] = f.change;
        s->sure[i] = f.status == PG_STATUS_REGRESSION ||
                     f.status == PG_STATUS_IMPROVEMENT;
        if (b->accepted)
            s->accepted[i] = pg_strdup(b->accepted);
        if (isfinite(f.lo) && isfinite(f.hi))
            s->change_sd[i] = (f.hi - f.lo) / (2 * Z95);
    }
    return points > 0;
}

/* The points' labels and subjects: the `n` commits of `line`. */
static void label_points(pg_history *h, const pg_commit_info *line, size_t n)
{
    size_t i;

    h->npoints = n;
    h->ns = 1;
    h->labels = pg_calloc(n, sizeof(*h->labels));
    h->subjects = pg_calloc(n, sizeof(*h->subjects));
    for (i = 0; i < n; i++) {
        h->labels[i] = pg_strdup(line[i].commit);
        h->subjects[i] = pg_text_clean(line[i].subject);
    }
}

/* What each series may be of: times, then each count, then the heap. */
static const int series_metrics[] = {PG_METRIC_TIME, PG_METRIC_INSTRUCTIONS,
                                     PG_METRIC_CYCLES, PG_SERIES_ALLOCS,
                                     PG_SERIES_PEAK};
#define NMETRICS (sizeof(series_metrics) / sizeof(series_metrics[0]))

/* Whether the measured values of `s` are not all the same: 1, 0, or -1
 * when it has none (a heap never counted, its pushes all carried). */
static int moved(const pg_series *s, size_t n)
{
    double first = NAN;
    size_t i;

    for (i = 0; i < n; i++)
        if (isfinite(s->values[i])) {
            if (isfinite(first) && s->values[i] != first)
                return 1;
            first = s->values[i];
        }
    return isfinite(first) ? 0 : -1;
}

/* The series of bench `bench` on `machine` of `metric` into the next slot
 * of h->series, when it has a point (a heap's series, when it moved): 1
 * when it was added, 0 when it has no point, -1 for a heap that did not
 * move. */
static int add_series(pg_history *h, const pg_record *recs,
                      const placed *const *by_pos, const char *bench,
                      const char *machine, int machines, int metric,
                      double count_floor)
{
    pg_series *s = &h->series[h->nseries];
    pg_str name = PG_STR_INIT;
    int points = fill_series(s, h, recs, by_pos, bench, metric);
    int flat = points && PG_SERIES_HEAP(metric) ? moved(s, h->npoints) : 1;

    if (!points || flat <= 0) {
        free(s->values);
        free(s->change);
        free(s->change_sd);
        free(s->sure);
        free(s->carried);
        free(s->counter);
        free(s->accepted); /* no point, or a heap that never moved */
        memset(s, 0, sizeof(*s));
        return flat == 0 ? -1 : 0;
    }
    pg_str_puts(&name, bench);
    if (metric)
        pg_str_printf(&name, " (%s)", pg_series_metric_name(metric));
    if (machines > 1)
        pg_str_printf(&name, " @ %s", machine);
    s->name = pg_str_detach(&name);
    s->bench = pg_strdup(bench);
    s->machine = pg_strdup(machine);
    s->metric = metric;
    s->floor =
        metric && !PG_SERIES_HEAP(metric) && count_floor > 0 && count_floor < 1
            ? count_floor
            : 0;
    h->nseries++;
    return 1;
}

/* The count floor the newest record of `machine` that keeps one was made
 * with; NAN when none does. */
static double count_floor_of(const pg_history *h, const pg_record *recs,
                             const placed *const *by_pos)
{
    size_t i;

    for (i = h->npoints; i > 0; i--)
        if (by_pos[i - 1] && isfinite(recs[by_pos[i - 1]->rec].count_floor))
            return recs[by_pos[i - 1]->rec].count_floor;
    return NAN;
}

/* A note naming the benchmarks whose heap was kept but never moved
 * (`quiet`: a flag per benchmark), which have no series of it. */
static void note_quiet_heaps(pg_history *h, const pg_strvec *benches,
                             const unsigned char *quiet)
{
    pg_str note = PG_STR_INIT;
    size_t i, n = 0;

    for (i = 0; i < benches->n; i++)
        if (quiet[i] && n++ < 5)
            pg_str_printf(&note, "%s%s", n > 1 ? ", " : "", benches->v[i]);
    if (n > 5)
        pg_str_printf(&note, " and %zu more", n - 5);
    if (n)
        pg_strvec_pushf(&h->notes,
                        "the heap per call did not move over these pushes "
                        "(not drawn): %s",
                        pg_str_cstr(&note));
    pg_str_clear(&note);
}

/* A series per benchmark, machine and metric that has a point, from the
 * `n` records placed at `at` (positions from `first`). */
static void make_series(pg_history *h, const pg_record *recs, const placed *at,
                        size_t n, const pg_strvec *machines,
                        const pg_strvec *benches, size_t first)
{
    const placed **by_pos = pg_calloc(h->npoints, sizeof(*by_pos));
    /* Per benchmark: 1, a heap kept that did not move; 2, one that did. */
    unsigned char *heap = pg_calloc(benches->n + 1, 1);
    size_t i, j, m;

    h->series =
        pg_calloc(benches->n * machines->n * NMETRICS + 1, sizeof(*h->series));
    for (j = 0; j < machines->n; j++) {
        double count_floor;
        memset(by_pos, 0, h->npoints * sizeof(*by_pos));
        newest_at(by_pos, h, recs, at, n, machines->v[j], first);
        count_floor = count_floor_of(h, recs, by_pos);
        for (i = 0; i < benches->n; i++)
            for (m = 0; m < NMETRICS; m++) {
                int added = add_series(h, recs, by_pos, benches->v[i],
                                       machines->v[j], (int)machines->n,
                                       series_metrics[m], count_floor);
                if (PG_SERIES_HEAP(series_metrics[m]) && added)
                    heap[i] |= added > 0 ? 2 : 1;
            }
    }
    for (i = 0; i < benches->n; i++)
        heap[i] = heap[i] == 1;
    note_quiet_heaps(h, benches, heap);
    free(heap);
    free(by_pos);
}

/* The floor the newest of the `n` records placed at `at` was judged by
 * (5% when it says none). */
static double newest_floor(const pg_record *recs, const placed *at, size_t n)
{
    size_t i, j;
    double floor;

    for (j = 0, i = 1; i < n; i++)
        if (at[i].pos > at[j].pos ||
            (at[i].pos == at[j].pos && preferred(recs, &at[i], &at[j])))
            j = i;
    floor = recs[at[j].rec].noise_floor;
    return floor > 0 && floor < 1 ? floor : 0.05;
}

int pg_mainline_load(pg_history *h, pg_repo *repo, const pg_mainline_opts *opts)
{
    const char *ref = opts->ref ? opts->ref : PG_STORE_REF;
    const char *rev = opts->rev ? opts->rev : "HEAD";
    size_t last = opts->last ? opts->last : PG_MAINLINE_LAST;
    pg_commit_info *all = NULL, *line;
    size_t nall = 0, nline, nrec = 0, nplaced = 0, i, first;
    line_index ix = {NULL, NULL, 0};
    pg_strvec machines = PG_STRVEC_INIT, benches = PG_STRVEC_INIT;
    pg_record *recs = NULL;
    placed *at = NULL;
    int err;

    memset(h, 0, sizeof(*h));
    h->source = pg_strdupf("%s along %s", ref, rev);
    /* One commit more than the line: its tree is the first's parent's. */
    if ((err = pg_repo_first_parents(&all, &nall, repo, rev, last + 1)) < 0)
        goto done;
    line = nall > last ? all + 1 : all;
    nline = nall > last ? last : nall;
    index_line(&ix, line, nline, line > all ? all : NULL);
    err = read_records(&recs, &nrec, h, repo, ref, want, &ix, opts->machine);
    if (err < 0)
        goto done;
    nplaced = place(&at, recs, nrec, &ix);
    /* Commits without a record of their own may have one of their code,
     * filed under a commit rebased away: read the others then. */
    if (line_has_gaps(at, nplaced, nline)) {
        err = read_records(&recs, &nrec, h, repo, ref, want_others, &ix,
                           opts->machine);
        if (err < 0)
            goto done;
        free(at);
        nplaced = place(&at, recs, nrec, &ix);
    }
    if (h->nchecks > 1)
        qsort(h->checks, h->nchecks, sizeof(*h->checks), by_when);
    if (!nplaced) {
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
    for (first = nline, i = 0; i < nplaced; i++)
        first = at[i].pos < first ? at[i].pos : first;
    label_points(h, line + first, nline - first);
    machines_of(&machines, recs, at, nplaced);
    benchmarks_of(&benches, recs, at, nplaced, opts->only);
    for (i = 0; opts->only && opts->only[i]; i++)
        if (!pg_strvec_has(&benches, opts->only[i])) {
            err = pg_error_set(PG_ERR_USAGE,
                               "no benchmark '%s' in the records of %s",
                               opts->only[i], ref);
            goto done;
        }
    make_series(h, recs, at, nplaced, &machines, &benches, first);
    h->floor = newest_floor(recs, at, nplaced);
done:
    free(at);
    for (i = 0; i < nrec; i++)
        pg_record_clear(&recs[i]);
    free(recs);
    free(ix.by_id);
    free(ix.by_code);
    pg_commit_infos_free(all, nall);
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
 * NULL: its count where the records keep one (a count does not move with
 * the machine's noise), else its times; never its heap's. */
static const pg_series *series_of(const pg_history *h, const char *name,
                                  const char *machine)
{
    const pg_series *found = NULL;
    size_t i;

    for (i = 0; i < h->nseries; i++)
        if (!strcmp(h->series[i].bench, name) &&
            (!machine || !strcmp(h->series[i].machine, machine)) &&
            !PG_SERIES_HEAP(h->series[i].metric) &&
            (!found || (!found->metric && h->series[i].metric)))
            found = &h->series[i];
    return found;
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
        b->main_metric = s->metric;
    }
    if (machine) {
        free(r->main_machine);
        r->main_machine = pg_strdup(machine);
    }
    pg_history_clear(&h);
    pg_record_machine_clear(&here);
}
