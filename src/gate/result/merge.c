/*
 * merge.c - the shards of a run, as one result.
 */
#include "merge.h"
#include "error.h"
#include "stats.h"
#include "str.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

static int same(const char *a, const char *b)
{
    return a && b ? !strcmp(a, b) : a == b;
}

/* Part i's one shard, or an error saying why it is not a shard's result. */
static int shard_of(const pg_result *p, const char *name)
{
    if (p->nshards != 1 || p->shards[0].count < 1 || p->shards[0].index < 1 ||
        p->shards[0].index > p->shards[0].count)
        return pg_error_set(PG_ERR_USAGE,
                            "%s: not the result of one shard (run "
                            "perfgate compare --shard K/N --json FILE)",
                            name);
    return 0;
}

/* The checks that the parts are shards of one run. */
static int check_parts(const pg_result *parts, size_t n,
                       const char *const *names)
{
    const pg_result *first = &parts[0];
    int count, err, *seen;
    size_t i;

    for (i = 0; i < n; i++)
        if ((err = shard_of(&parts[i], names[i])) < 0)
            return err;
    /* A shard says how many benchmarks it ran: one that lost some is not
     * whole. */
    for (i = 0; i < n; i++)
        if (parts[i].nbenchmarks != parts[i].shards[0].benchmarks)
            return pg_error_set(
                PG_ERR_USAGE,
                "%s: shard %d/%d ran %zu benchmarks and "
                "holds %zu: it is not whole",
                names[i], parts[i].shards[0].index, parts[i].shards[0].count,
                parts[i].shards[0].benchmarks, parts[i].nbenchmarks);
    count = first->shards[0].count;
    for (i = 1; i < n; i++) {
        const pg_result *p = &parts[i];
        const char *what =
            p->shards[0].count != count                 ? "the number of shards"
            : !same(p->base.commit, first->base.commit) ? "the base commit"
            : !same(p->head.commit, first->head.commit) ? "the head commit"
            : p->noise_floor != first->noise_floor      ? "the noise floor"
            : p->count_floor != first->count_floor      ? "the count floor"
            : p->aa != first->aa                        ? "the mode (--aa)"
            : !same(p->config_digest, first->config_digest) ? "the config"
            : !same(p->shards[0].balance, first->shards[0].balance)
                ? "how the benchmarks were dealt (--timings)"
                : NULL;
        if (what)
            return pg_error_set(PG_ERR_USAGE,
                                "%s and %s differ in %s: shards of one run "
                                "compare the same revisions with the same "
                                "config and floors",
                                names[0], names[i], what);
    }
    seen = pg_calloc((size_t)count + 1, sizeof(*seen));
    for (i = 0, err = 0; i < n && !err; i++) {
        int k = parts[i].shards[0].index;
        if (seen[k])
            err = pg_error_set(PG_ERR_USAGE, "%s and %s are both shard %d/%d",
                               names[seen[k] - 1], names[i], k, count);
        seen[k] = (int)i + 1;
    }
    for (i = 1; !err && i <= (size_t)count; i++)
        if (!seen[i])
            err = pg_error_set(PG_ERR_USAGE,
                               "shard %zu/%d is missing: merge the results "
                               "of all %d shards",
                               i, count, count);
    free(seen);
    return err;
}

/* No benchmark in two shards (they were not dealt from one config). */
static int check_benchmarks(const pg_result *out)
{
    size_t i, j;

    for (i = 0; i < out->nbenchmarks; i++)
        for (j = i + 1; j < out->nbenchmarks; j++)
            if (same(out->benchmarks[i].name, out->benchmarks[j].name))
                return pg_error_set(
                    PG_ERR_USAGE, "benchmark '%s' is in shards %d and %d",
                    out->benchmarks[i].name, out->benchmarks[i].shard,
                    out->benchmarks[j].shard);
    return 0;
}

static int by_index(const void *a, const void *b)
{
    return ((const pg_shard_info *)a)->index -
           ((const pg_shard_info *)b)->index;
}

int pg_merge(pg_result *out, pg_result *parts, size_t n,
             const char *const *names)
{
    size_t i, j;
    int err;

    memset(out, 0, sizeof(*out));
    if (!n)
        return pg_error_set(PG_ERR_USAGE, "no results to merge");
    if ((err = check_parts(parts, n, names)) < 0)
        return err;
    /* The first part's description of the run, and everyone's shards and
     * benchmarks. */
    /* Each benchmark is the shard's that holds it, whatever the file
     * says of it. */
    for (i = 0; i < n; i++)
        for (j = 0; j < parts[i].nbenchmarks; j++)
            parts[i].benchmarks[j].shard = parts[i].shards[0].index;
    *out = parts[0];
    memset(&parts[0], 0, sizeof(parts[0]));
    for (i = 1; i < n; i++) {
        pg_result *p = &parts[i];
        /* One shard that ran unboxed makes the whole run so. */
        if (!out->held_env && p->held_env) {
            out->held_env = p->held_env;
            p->held_env = NULL;
        }
        if (!out->unboxed && p->unboxed) {
            out->unboxed = p->unboxed;
            p->unboxed = NULL;
        }
        if (!out->groups_kept && p->groups_kept) {
            out->groups_kept = p->groups_kept;
            p->groups_kept = NULL;
        }
        /* Likewise one whose box's processes were not capped. */
        if (!out->uncapped && p->uncapped) {
            free(out->capped_by);
            out->capped_by = NULL;
            out->max_processes = 0;
            out->uncapped = p->uncapped;
            p->uncapped = NULL;
        }
        /* How main moved: the first shard's history that has one (each
         * shard's benchmarks keep their own figures). */
        if (!out->main_machine && p->main_machine) {
            out->main_machine = p->main_machine;
            p->main_machine = NULL;
        }
        out->shards =
            pg_realloc(out->shards, (out->nshards + 1) * sizeof(*out->shards));
        out->shards[out->nshards++] = p->shards[0];
        p->shards[0].host = NULL;
        p->shards[0].balance = NULL;
        out->benchmarks =
            pg_realloc(out->benchmarks, (out->nbenchmarks + p->nbenchmarks) *
                                            sizeof(*out->benchmarks));
        for (j = 0; j < p->nbenchmarks; j++)
            out->benchmarks[out->nbenchmarks++] = p->benchmarks[j];
        free(p->benchmarks);
        p->benchmarks = NULL;
        p->nbenchmarks = 0;
        if (!out->gpu.present && p->gpu.present)
            out->gpu = p->gpu;
        out->build_seconds += p->build_seconds;
        if (p->seconds > out->seconds)
            out->seconds = p->seconds; /* the run took its slowest shard */
    }
    qsort(out->shards, out->nshards, sizeof(*out->shards), by_index);
    if ((err = check_benchmarks(out)) < 0)
        pg_result_clear(out);
    else
        pg_stats_judge(out); /* a merged result is judged where it is made */
    return err;
}

int pg_merge_check_names(const pg_result *r, const char *const *names, size_t n)
{
    size_t i, j;

    for (i = 0; i < r->nbenchmarks; i++) {
        for (j = 0; j < n && !same(r->benchmarks[i].name, names[j]); j++)
            ;
        if (j == n)
            return pg_error_set(PG_ERR_USAGE,
                                "benchmark '%s' (shard %d) is not in the "
                                "config: the shards were not dealt from it",
                                r->benchmarks[i].name, r->benchmarks[i].shard);
    }
    for (j = 0; j < n; j++) {
        for (i = 0;
             i < r->nbenchmarks && !same(r->benchmarks[i].name, names[j]); i++)
            ;
        if (i == r->nbenchmarks)
            return pg_error_set(PG_ERR_USAGE,
                                "benchmark '%s' of the config is in no shard: "
                                "a shard's result lost it",
                                names[j]);
    }
    return 0;
}
