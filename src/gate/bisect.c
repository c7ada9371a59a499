/*
 * bisect.c - which commit made a benchmark slower (bisect.h).
 */
#include "bisect.h"
#include "stats.h"
#include "json.h"
#include "str.h"
#include "cleanup.h"
#include "error.h"
#include "clock.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

const char *pg_probe_outcome_name(pg_probe_outcome o)
{
    switch (o) {
    case PG_PROBE_NOT_SLOWER:
        return "not slower";
    case PG_PROBE_SLOWER:
        return "slower";
    case PG_PROBE_UNCLEAR:
        return "unclear";
    case PG_PROBE_SKIPPED:
        return "skipped";
    }
    return "?";
}

void pg_bisect_opts_init(pg_bisect_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    pg_compare_opts_init(&opts->compare);
    opts->attempts = 3;
    opts->budget = PG_BISECT_BUDGET;
}

/* Whether the bisect's budget is spent (it is said in `out`). */
static int spent(pg_bisect_result *out, const pg_bisect_opts *opts,
                 int64_t start)
{
    if (opts->budget > 0 && (double)(pg_now_ns() - start) / 1e9 >= opts->budget)
        out->budget_spent = 1;
    return out->budget_spent;
}

/*
 * One benchmark's outcome against GOOD, as its status says (stats.h: a
 * label is earned by the whole interval, so a status is the interval's
 * side of the floor): inconclusive and unresolved cannot tell.
 */
static pg_probe_outcome bench_outcome(const pg_bench_result *b)
{
    switch (b->status) {
    case PG_STATUS_REGRESSION:
        return PG_PROBE_SLOWER;
    case PG_STATUS_UNCHANGED:
    case PG_STATUS_IMPROVEMENT:
        return PG_PROBE_NOT_SLOWER;
    case PG_STATUS_INCONCLUSIVE:
    case PG_STATUS_UNRESOLVED:
        return PG_PROBE_UNCLEAR;
    default:
        return PG_PROBE_SKIPPED;
    }
}

pg_probe_outcome pg_bisect_outcome(const pg_result *r)
{
    int seen[4] = {0, 0, 0, 0};
    size_t i;

    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        /* A count is judged by its own floor; measure: all's count
         * too, and either slower is slower, but for a count that cannot
         * fail the gate (stats.h: another code path, or a head the time
         * found faster). */
        if (!b->metric || b->gates)
            seen[bench_outcome(b)] = 1;
        if (b->count_gates && b->counted->rounds > 0)
            seen[bench_outcome(b->counted)] = 1;
    }
    return seen[PG_PROBE_SLOWER]    ? PG_PROBE_SLOWER
           : seen[PG_PROBE_SKIPPED] ? PG_PROBE_SKIPPED
           : seen[PG_PROBE_UNCLEAR] ? PG_PROBE_UNCLEAR
                                    : PG_PROBE_NOT_SLOWER;
}

static void probe_bench_clear(pg_probe_bench *b)
{
    free(b->name);
    free(b->message);
}

static void probe_clear(pg_probe *p)
{
    size_t i;

    for (i = 0; i < p->nbenchmarks; i++)
        probe_bench_clear(&p->benchmarks[i]);
    free(p->benchmarks);
    free(p->why);
    memset(p, 0, sizeof(*p));
}

/* What the probe keeps of a comparison. */
static void keep(pg_probe *p, const pg_result *r)
{
    size_t i;

    for (i = 0; i < p->nbenchmarks; i++)
        probe_bench_clear(&p->benchmarks[i]);
    free(p->benchmarks);
    p->nbenchmarks = r->nbenchmarks;
    p->benchmarks = pg_calloc(r->nbenchmarks + 1, sizeof(*p->benchmarks));
    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        pg_probe_bench *pb = &p->benchmarks[i];
        pb->name = pg_strdup(b->name);
        pb->status = b->status;
        pb->side = b->side;
        pb->outcome = bench_outcome(b);
        pb->same = b->identical || b->not_affected;
        pb->change = b->change;
        pb->change_lo = b->change_lo;
        pb->change_hi = b->change_hi;
        /* Messages quote compilers and user code: any bytes. */
        pb->message = b->message ? pg_text_clean(b->message) : NULL;
    }
}

typedef struct bisect_ctx {
    const pg_bisect_opts *opts;
    pg_bisect_result *out;
    int64_t start;
} bisect_ctx;

/*
 * Measures commits[index] against GOOD, again while unclear, up to the
 * attempts allowed; adds the probe to the result.  A comparison that fails
 * as a whole (a config that no longer loads) is an error.
 */
static int probe(bisect_ctx *ctx, size_t index, pg_probe_outcome *outcome)
{
    pg_bisect_result *out = ctx->out;
    pg_compare_opts o = ctx->opts->compare;
    const char **only = NULL;
    pg_probe p;
    int64_t start = pg_now_ns();
    int err = 0, attempt;
    size_t i;

    memset(&p, 0, sizeof(p));
    p.index = index;
    o.base = out->good.commit;
    o.head = out->commits[index].commit;
    o.aa = 0;
    o.ci = NULL;
    /* A probe asks whether it is slower: the heap is not its question. */
    o.memory = "off";
    if (out->followed.n) {
        only = pg_calloc(out->followed.n + 1, sizeof(*only));
        for (i = 0; i < out->followed.n; i++)
            only[i] = out->followed.v[i];
        o.only = only;
    }
    for (attempt = 1; attempt <= ctx->opts->attempts; attempt++) {
        pg_result r;
        err = pg_compare(&r, &o);
        if (err >= 0) {
            out->noise_floor = r.noise_floor;
            keep(&p, &r);
            p.outcome = pg_bisect_outcome(&r);
        }
        p.attempts = attempt;
        pg_result_clear(&r);
        if (err < 0 || p.outcome != PG_PROBE_UNCLEAR ||
            spent(out, ctx->opts, ctx->start))
            break;
    }
    free(only);
    p.seconds = (double)(pg_now_ns() - start) / 1e9;
    /* A commit between the ends that cannot be compared at all (its tree
     * refused, an object missing) is skipped and said, as git bisect
     * skips it; BAD, and an interruption, end the bisect. */
    if (err < 0 && err != PG_ERR_INTERRUPTED && index + 1 < out->ncommits) {
        p.why = pg_text_clean(pg_error_last());
        p.outcome = PG_PROBE_SKIPPED;
        pg_error_clear();
        err = 0;
    }
    if (err < 0) {
        probe_clear(&p);
        return err;
    }
    *outcome = p.outcome;
    out->probes = pg_realloc(out->probes, (out->nprobes + 1) * sizeof(p));
    out->probes[out->nprobes++] = p;
    if (ctx->opts->on_probe)
        ctx->opts->on_probe(ctx->opts->payload, out, &p);
    return 0;
}

/*
 * The benchmarks slower at BAD are the ones followed.  When none is, and
 * one could not be measured at all, the bisect cannot say anything: an
 * error naming the side that failed.
 */
static int follow(bisect_ctx *ctx, const pg_probe *bad)
{
    const pg_probe_bench *failed = NULL;
    size_t i;

    for (i = 0; i < bad->nbenchmarks; i++) {
        const pg_probe_bench *b = &bad->benchmarks[i];
        if (b->outcome == PG_PROBE_SLOWER)
            pg_strvec_push(&ctx->out->followed, b->name);
        else if (b->outcome == PG_PROBE_SKIPPED && !failed)
            failed = b;
    }
    if (ctx->out->followed.n || !failed)
        return 0;
    if (failed->status == PG_STATUS_NEW)
        return pg_error_set(PG_ERR_USAGE,
                            "%s is not in the good revision %.10s: nothing "
                            "to compare it with",
                            failed->name, ctx->out->good.commit);
    return pg_error_set(
        PG_ERR_USAGE, "%s cannot be measured at the %s revision %.10s: %s",
        failed->name, failed->side == PG_SIDE_BASE ? "good" : "bad",
        failed->side == PG_SIDE_BASE ? ctx->out->good.commit
                                     : ctx->out->bad.commit,
        failed->message ? failed->message : pg_status_name(failed->status));
}

long pg_bisect_next(const unsigned char *skipped, long lo, long hi)
{
    long mid = lo + (hi - lo) / 2, d;

    if (hi - lo < 2)
        return -1; /* nothing left between them */
    for (d = 0; mid - d > lo || mid + d < hi; d++) {
        if (mid - d > lo && !skipped[mid - d])
            return mid - d;
        if (d && mid + d < hi && !skipped[mid + d])
            return mid + d;
    }
    return -1;
}

/* Subjects and names in any encoding, made safe to print and write. */
static void clean_commits(pg_bisect_result *out)
{
    size_t i;

    pg_text_clean_in_place(&out->good.subject);
    pg_text_clean_in_place(&out->bad.subject);
    for (i = 0; i < out->ncommits; i++) {
        pg_text_clean_in_place(&out->commits[i].subject);
        pg_text_clean_in_place(&out->commits[i].author);
    }
}

int pg_bisect(pg_bisect_result *out, const pg_bisect_opts *opts)
{
    int64_t start = pg_now_ns();
    bisect_ctx ctx = {opts, out, start};
    pg_repo *repo = NULL;
    pg_probe_outcome o = PG_PROBE_NOT_SLOWER;
    unsigned char *skipped = NULL;
    long lo, hi, mid;
    int err;

    memset(out, 0, sizeof(*out));
    out->culprit = out->first = -1;
    out->all_parents = opts->all_parents;
    out->budget = opts->budget;
    if ((err = pg_repo_open(
             &repo, opts->compare.repo_path ? opts->compare.repo_path : ".")) <
            0 ||
        (err = pg_repo_resolve(&out->good, repo, opts->good)) < 0 ||
        (err = pg_repo_resolve(&out->bad, repo, opts->bad)) < 0 ||
        (err = pg_repo_range(&out->commits, &out->ncommits, repo,
                             out->good.commit, out->bad.commit,
                             !opts->all_parents)) < 0)
        goto done;
    clean_commits(out);

    /* BAD first: what is slower there is what is looked for. */
    hi = (long)out->ncommits - 1;
    if ((err = probe(&ctx, (size_t)hi, &o)) < 0 ||
        (err = follow(&ctx, &out->probes[0])) < 0)
        goto done;
    if (!out->followed.n) {
        out->no_regression = 1;
        goto done;
    }

    skipped = pg_calloc(out->ncommits + 1, 1);
    lo = -1; /* GOOD: not slower, by definition */
    while ((mid = pg_bisect_next(skipped, lo, hi)) >= 0) {
        if (pg_interrupted()) {
            err = pg_error_set(PG_ERR_INTERRUPTED, "interrupted");
            goto done;
        }
        if (spent(out, opts, start))
            break;
        if ((err = probe(&ctx, (size_t)mid, &o)) < 0)
            goto done;
        if (o == PG_PROBE_SLOWER)
            hi = mid;
        else if (o == PG_PROBE_NOT_SLOWER)
            lo = mid;
        else
            skipped[mid] = 1;
    }
    out->culprit = hi;
    /* Skipped commits just before it could be it as well; out of budget,
     * every commit not yet told apart. */
    for (out->first = hi;
         out->first - 1 > lo && (skipped[out->first - 1] || out->budget_spent);)
        out->first--;

done:
    out->seconds = (double)(pg_now_ns() - start) / 1e9;
    free(skipped);
    pg_repo_free(repo);
    return err;
}

const pg_probe *pg_bisect_probe_of(const pg_bisect_result *r, size_t index)
{
    size_t i;

    for (i = 0; i < r->nprobes; i++)
        if (r->probes[i].index == index)
            return &r->probes[i];
    return NULL;
}

/* "sum +102.1% (+99.0 … +105.2%)" for each benchmark of a probe. */
static void describe_benches(pg_str *out, const pg_probe *p)
{
    size_t i;

    for (i = 0; i < p->nbenchmarks; i++) {
        const pg_probe_bench *b = &p->benchmarks[i];
        pg_str_printf(out, "%s%s ", i ? ", " : "", b->name);
        if (b->same) {
            pg_str_puts(out, "same code");
            continue;
        }
        if (isnan(b->change)) {
            pg_str_puts(out, pg_status_name(b->status));
            continue;
        }
        pg_format_change(out, b->change);
        if (!isnan(b->change_lo)) {
            pg_str_puts(out, " (");
            pg_format_interval(out, b->change_lo, b->change_hi);
            pg_str_puts(out, ")");
        }
    }
}

static const char *label(const pg_bisect_result *r, size_t index)
{
    return index + 1 == r->ncommits ? "bad" : "";
}

void pg_bisect_render_text(pg_str *out, const pg_bisect_result *r)
{
    size_t i;

    pg_str_printf(out,
                  "%zu commit%s after %.10s (good) up to %.10s (bad), %s; "
                  "each measured against the good one\n\n",
                  r->ncommits, r->ncommits == 1 ? "" : "s", r->good.commit,
                  r->bad.commit,
                  r->all_parents ? "every parent" : "first parents");
    for (i = 0; i < r->ncommits; i++) {
        const pg_probe *p = pg_bisect_probe_of(r, i);
        if (!p)
            continue;
        pg_str_printf(out, "  %-3s %.10s  %-11s ", label(r, i),
                      r->commits[i].commit, pg_probe_outcome_name(p->outcome));
        describe_benches(out, p);
        if (p->why)
            pg_str_printf(out, "(%s)", p->why);
        pg_str_printf(out, "  %s\n", r->commits[i].subject);
    }
    pg_str_putc(out, '\n');
    if (r->no_regression) {
        pg_str_printf(out,
                      "No regression: nothing is slower at %.10s than at "
                      "%.10s beyond the %.0f%% floor (or not clearly so).\n",
                      r->bad.commit, r->good.commit, r->noise_floor * 100);
    } else if (r->culprit >= 0) {
        const pg_commit_info *c = &r->commits[r->culprit];
        const pg_probe *p = pg_bisect_probe_of(r, (size_t)r->culprit);
        if (r->first < r->culprit && r->budget_spent) {
            pg_str_printf(out,
                          "The first slower commit is one of %ld: the "
                          "budget of ",
                          r->culprit - r->first + 1);
            pg_format_seconds(out, r->budget);
            pg_str_printf(out,
                          " (--budget) was spent before the %ld before "
                          "%.10s were told apart.\n",
                          r->culprit - r->first, c->commit);
        } else if (r->first < r->culprit) {
            pg_str_printf(out,
                          "The first slower commit is one of %ld: the %ld "
                          "before %.10s could not be measured.\n",
                          r->culprit - r->first + 1, r->culprit - r->first,
                          c->commit);
        }
        pg_str_printf(out, "%s %s\n  %s\n  author: %s\n  ",
                      r->first < r->culprit ? "Slower by" : "First slower:",
                      c->commit, c->subject, c->author);
        if (p)
            describe_benches(out, p);
        pg_str_printf(out, ", against %.10s\n", r->good.commit);
    }
    pg_str_printf(out, "%zu probe%s, ", r->nprobes, r->nprobes == 1 ? "" : "s");
    pg_format_seconds(out, r->seconds);
    pg_str_putc(out, '\n');
}

static cJSON *commit_json(const pg_commit_info *c, size_t index)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "commit", c->commit);
    cJSON_AddStringToObject(o, "subject", c->subject);
    cJSON_AddStringToObject(o, "author", c->author);
    cJSON_AddNumberToObject(o, "index", (double)index);
    return o;
}

static cJSON *probe_json(const pg_bisect_result *r, const pg_probe *p)
{
    cJSON *o = commit_json(&r->commits[p->index], p->index), *arr;
    size_t i;

    cJSON_AddStringToObject(o, "outcome", pg_probe_outcome_name(p->outcome));
    if (p->why)
        cJSON_AddStringToObject(o, "why", p->why);
    cJSON_AddNumberToObject(o, "attempts", p->attempts);
    pg_json_add_number(o, "seconds", p->seconds);
    arr = cJSON_AddArrayToObject(o, "benchmarks");
    for (i = 0; i < p->nbenchmarks; i++) {
        const pg_probe_bench *b = &p->benchmarks[i];
        cJSON *bo = cJSON_CreateObject(), *iv;
        cJSON_AddStringToObject(bo, "name", b->name);
        cJSON_AddStringToObject(bo, "status", pg_status_name(b->status));
        pg_json_add_number(bo, "change", b->change);
        cJSON_AddBoolToObject(bo, "same_code", b->same);
        if (isfinite(b->change_lo) && isfinite(b->change_hi)) {
            iv = cJSON_AddArrayToObject(bo, "change_interval");
            cJSON_AddItemToArray(iv, cJSON_CreateNumber(b->change_lo));
            cJSON_AddItemToArray(iv, cJSON_CreateNumber(b->change_hi));
        } else {
            cJSON_AddNullToObject(bo, "change_interval");
        }
        if (b->message)
            cJSON_AddStringToObject(bo, "message", b->message);
        else
            cJSON_AddNullToObject(bo, "message");
        cJSON_AddItemToArray(arr, bo);
    }
    return o;
}

static cJSON *side_json(const pg_rev *rev)
{
    cJSON *o = cJSON_CreateObject();

    cJSON_AddStringToObject(o, "rev", rev->spec ? rev->spec : "");
    cJSON_AddStringToObject(o, "commit", rev->commit);
    cJSON_AddStringToObject(o, "subject", rev->subject ? rev->subject : "");
    return o;
}

char *pg_bisect_to_json(const pg_bisect_result *r)
{
    cJSON *root = cJSON_CreateObject(), *arr;
    size_t i;

    cJSON_AddStringToObject(root, "result",
                            r->no_regression        ? "no_regression"
                            : r->first < r->culprit ? "range"
                            : r->culprit >= 0       ? "found"
                                                    : "none");
    cJSON_AddItemToObject(root, "good", side_json(&r->good));
    cJSON_AddItemToObject(root, "bad", side_json(&r->bad));
    cJSON_AddBoolToObject(root, "first_parent", !r->all_parents);
    cJSON_AddBoolToObject(root, "budget_spent", r->budget_spent);
    pg_json_add_number(root, "noise_floor", r->noise_floor);
    cJSON_AddNumberToObject(root, "commits", (double)r->ncommits);
    arr = cJSON_AddArrayToObject(root, "benchmarks");
    for (i = 0; i < r->followed.n; i++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(r->followed.v[i]));
    if (r->culprit >= 0 && !r->no_regression) {
        const pg_probe *p = pg_bisect_probe_of(r, (size_t)r->culprit);
        cJSON_AddItemToObject(
            root, "culprit",
            p ? probe_json(r, p)
              : commit_json(&r->commits[r->culprit], (size_t)r->culprit));
    } else {
        cJSON_AddNullToObject(root, "culprit");
    }
    arr = cJSON_AddArrayToObject(root, "candidates");
    for (i = 0; r->culprit >= 0 && (long)i <= r->culprit - r->first; i++)
        cJSON_AddItemToArray(arr, commit_json(&r->commits[r->first + (long)i],
                                              (size_t)(r->first + (long)i)));
    arr = cJSON_AddArrayToObject(root, "probes");
    for (i = 0; i < r->nprobes; i++)
        cJSON_AddItemToArray(arr, probe_json(r, &r->probes[i]));
    pg_json_add_number(root, "seconds", r->seconds);
    return pg_json_print(root, 1);
}

void pg_bisect_result_clear(pg_bisect_result *r)
{
    size_t i;

    pg_rev_clear(&r->good);
    pg_rev_clear(&r->bad);
    pg_commit_infos_free(r->commits, r->ncommits);
    for (i = 0; i < r->nprobes; i++)
        probe_clear(&r->probes[i]);
    free(r->probes);
    pg_strvec_clear(&r->followed);
    memset(r, 0, sizeof(*r));
}

/* Bisects regression `b` of `r` (compared by `opts`) into its culprit
 * fields; 0 (a failure is said), or PG_ERR_INTERRUPTED. */
static int bisect_one(pg_bench_result *b, const pg_result *r,
                      const pg_compare_opts *opts,
                      void (*say)(void *payload, const char *what),
                      void *payload)
{
    const char *only[2] = {b->name, NULL};
    pg_bisect_opts o;
    pg_bisect_result found;
    int err;

    pg_bisect_opts_init(&o);
    o.compare = *opts;
    o.compare.only = only;
    o.compare.shards = o.compare.shard = 0;
    o.compare.timings_path = NULL;
    o.compare.profile = 0; /* the probes are measured, not profiled */
    o.good = r->base.commit;
    o.bad = r->head.commit;
    if (opts->on_progress)
        opts->on_progress(opts->payload, "bisecting");
    err = pg_bisect(&found, &o);
    if (err >= 0 && found.culprit >= 0 && !found.no_regression) {
        const pg_commit_info *c = &found.commits[found.culprit];
        b->culprit = pg_strdup(c->commit);
        b->culprit_subject = pg_strdup(c->subject);
        b->culprit_author = pg_strdup(c->author);
        b->culprit_candidates = (int)(found.culprit - found.first + 1);
    } else if (err < 0 && err != PG_ERR_INTERRUPTED) {
        char *what =
            pg_strdupf("%s not bisected: %s", b->name, pg_error_last());
        say(payload, what);
        free(what);
    }
    pg_bisect_result_clear(&found);
    return err == PG_ERR_INTERRUPTED ? err : 0;
}

int pg_bisect_regressions(pg_result *r, const pg_compare_opts *opts,
                          void (*say)(void *payload, const char *what),
                          void *payload)
{
    size_t i, done = 0;
    int err = 0;

    if (r->aa || !pg_result_count(r, PG_STATUS_REGRESSION))
        return 0;
    /* A clean working tree is its commit; uncommitted changes have no
     * history to search, and that is said, not passed over. */
    if (r->head.worktree && r->head.dirty) {
        char *what = pg_strdupf(
            "--bisect: not bisected: the head is the working tree with "
            "uncommitted changes, which have no commits to search; commit "
            "them, or name the head (perfgate compare %.10s HEAD --bisect)",
            r->base.commit && *r->base.commit ? r->base.commit : "BASE");
        say(payload, what);
        free(what);
        return 0;
    }
    if (!r->head.commit || !*r->head.commit)
        return 0;
    for (i = 0; i < r->nbenchmarks && done < PG_BISECT_MOST && !err; i++)
        if (r->benchmarks[i].status == PG_STATUS_REGRESSION) {
            done++;
            err = bisect_one(&r->benchmarks[i], r, opts, say, payload);
        }
    return err;
}
