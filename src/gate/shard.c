/*
 * shard.c - dealing benchmarks to shards (shard.h).
 */
#include "shard.h"
#include "str.h"
#include "cache.h"
#include "error.h"
#include "fs.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* A benchmark's cases (a problem's defaults are three). */
static double cases_of(const pg_bench_config *b)
{
    return b->ncases ? (double)b->ncases : 3.0;
}

/* Its measuring time in `r`, or -1 when it has none. */
static double seconds_in(const pg_result *r, const char *name)
{
    size_t j;

    for (j = 0; j < r->nbenchmarks; j++)
        if (!strcmp(r->benchmarks[j].name, name) &&
            isfinite(r->benchmarks[j].seconds) && r->benchmarks[j].seconds > 0)
            return r->benchmarks[j].seconds;
    return -1;
}

void pg_shard_costs(double *cost, const pg_config *cfg,
                    const pg_result *timings)
{
    double known = 0, cases = 0;
    size_t i, n = cfg->nbenchmarks;

    for (i = 0; i < n; i++) {
        cost[i] = timings ? seconds_in(timings, cfg->benchmarks[i].name) : -1;
        if (cost[i] >= 0) {
            known += cost[i];
            cases += cases_of(&cfg->benchmarks[i]);
        }
    }
    for (i = 0; i < n; i++)
        if (cost[i] < 0)
            cost[i] = cases_of(&cfg->benchmarks[i]) *
                      (cases > 0 ? known / cases : 1.0);
}

/* A benchmark in the dealing order: what the order is made of, so that the
 * comparison needs nothing else. */
typedef struct deal {
    double cost;
    const char *name;
    size_t index;
} deal;

static int costlier_first(const void *a, const void *b)
{
    const deal *x = a, *y = b;

    return x->cost > y->cost   ? -1
           : x->cost < y->cost ? 1
                               : strcmp(x->name, y->name);
}

void pg_shard_plan(int *shard_of, const char *const *names, const double *cost,
                   const unsigned char *named, size_t n, int shards)
{
    deal *order = pg_calloc(n ? n : 1, sizeof(*order));
    double *load = pg_calloc(shards > 0 ? (size_t)shards : 1, sizeof(*load));
    size_t i, k, m = 0;

    for (i = 0; i < n; i++) {
        shard_of[i] = 0;
        if (named[i]) {
            order[m].cost = cost[i];
            order[m].name = names[i];
            order[m++].index = i;
        }
    }
    qsort(order, m, sizeof(*order), costlier_first);
    for (i = 0; i < m && shards > 0; i++) {
        size_t best = 0;
        for (k = 1; k < (size_t)shards; k++)
            if (load[k] < load[best])
                best = k;
        load[best] += order[i].cost;
        shard_of[order[i].index] = (int)best + 1;
    }
    free(order);
    free(load);
}

int pg_shard_costs_from(double **cost, char **balance, const pg_config *cfg,
                        const char *timings_path)
{
    char *text, id[PG_CACHE_ID];
    pg_result prev;
    size_t len;
    int err;

    *cost = pg_calloc(cfg->nbenchmarks ? cfg->nbenchmarks : 1, sizeof(**cost));
    *balance = NULL;
    if (!timings_path) {
        pg_shard_costs(*cost, cfg, NULL);
        *balance = pg_strdup("cases");
        return 0;
    }
    if (pg_read_file(&text, &len, timings_path, (size_t)256 << 20) < 0)
        return pg_error_set(PG_ERR_USAGE, "--timings %s: %s", timings_path,
                            strerror(errno));
    err = pg_result_from_json(&prev, text, timings_path);
    pg_cache_id(id, text, len);
    free(text);
    if (err < 0)
        return err;
    pg_shard_costs(*cost, cfg, &prev);
    *balance = pg_strdupf("timings %s", id);
    pg_result_clear(&prev);
    return 0;
}
