/*
 * prebuild.c - building ahead of the measuring (prebuild.h).
 */
#include "prebuild.h"
#include "str.h"
#include "affected.h"
#include "build.h"
#include "fs.h"
#include "catalog.h"
#include "proc.h"
#include "toolchain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* The builds ahead of the measuring: the benchmarks to build, in turn,
 * and how many are done. */
typedef struct ahead ahead;

/* A build worker's task: benchmark `index` of the config. */
typedef struct ahead_task {
    ahead *a;
    size_t index;
} ahead_task;

struct ahead {
    pg_bench_ctx *c;
    ahead_task *tasks; /* one per selected benchmark */
    size_t next, done, total;
    int jobs;
};

/*
 * In a child: builds into the cache what measuring benchmark t->index
 * will need (its problem, and each side the change reaches), saying "k
 * KEY KEY" (its keys, "-" for none) and "c KEY" for each build it
 * compiled on `msg`.
 */
static int build_one(void *task, int msg)
{
    const ahead_task *t = task;
    pg_bench_ctx *c = t->a->c;
    const pg_bench_config *b = &c->cfg->benchmarks[t->index];
    char *dir = pg_strdupf("%s/w%zu", c->build_dir, t->index), *lib = NULL;
    pg_bench_keys keys;
    int s;

    c->progress = NULL;
    if (pg_mkdir_p(dir) < 0 || pg_build_problem(&lib, b, dir, c->cache) < 0 ||
        pg_benchmark_keys(c, b, &keys) < 0)
        goto done;
    pg_proc_send(msg, NULL, "k %s %s", keys.keyed[0] ? keys.key[0] : "-",
                 keys.keyed[1] ? keys.key[1] : "-");
    for (s = 0; s < 2 && !pg_benchmark_unreached(c, &keys); s++) {
        const char *tag = s ? "head" : "base";
        pg_build build;
        /* Cleared: an unkeyed side skips pg_build_from_cache, which
         * would have cleared it. */
        memset(&build, 0, sizeof(build));
        if (!keys.keyed[s] ||
            pg_build_from_cache(&build, c->cache, keys.key[s], b, dir, tag)) {
            pg_build_clear(&build);
            continue;
        }
        if (pg_build_solution(&build, b, c->rev[s].dir, dir, tag,
                              pg_build_limit(&c->cfg->settings)) == 0 &&
            build.ok &&
            pg_cache_put_file(c->cache, keys.key[s], "so", build.lib) == 0)
            pg_proc_send(msg, NULL, "c %s", keys.key[s]);
        pg_build_clear(&build);
    }
done:
    free(lib);
    pg_rm_rf(dir);
    free(dir);
    return 0;
}

/*
 * What can be told here, with no compiler and no worker: 1 when benchmark
 * `index` needs nothing built (its problem is kept, and so is each build
 * of a side the change reaches, under keys told from what the compiler
 * said before), its keys then in c->keys.  0 for a worker to build it.
 */
static int kept_ahead(pg_bench_ctx *c, size_t index)
{
    const pg_bench_config *b = &c->cfg->benchmarks[index];
    pg_bench_keys k;
    int s, err;

    if (!pg_build_problem_kept(b, c->build_dir, c->cache))
        return 0;
    for (s = 0; s < 2; s++) {
        err = pg_affected_key_kept(k.key[s], c->cache, b, c->rev[s].dir);
        if (err < 0 || err == PG_AFFECTED_ASK)
            return 0;
        k.keyed[s] = err == 0;
    }
    for (s = 0; s < 2 && !pg_benchmark_unreached(c, &k); s++)
        if (k.keyed[s] && !pg_cache_has(c->cache, k.key[s], "so"))
            return 0;
    c->keys[index] = k;
    c->known[index] = 1;
    return 1;
}

static int next_build(void *payload, int (**fn)(void *, int), void **task)
{
    ahead *a = payload;

    if (a->next == a->total)
        return 0;
    *fn = build_one;
    *task = &a->tasks[a->next++];
    return 1;
}

/* What a worker says: its benchmark's keys, or a build it compiled. */
static void build_said(void *payload, void *task, const char *line)
{
    pg_bench_ctx *c = ((ahead *)payload)->c;
    const ahead_task *t = task;
    char k[2][PG_CACHE_ID];
    int s;

    if (sscanf(line, "k %40s %40s", k[0], k[1]) == 2) {
        for (s = 0; s < 2; s++) {
            c->keys[t->index].keyed[s] = strlen(k[s]) == PG_CACHE_ID - 1;
            memcpy(c->keys[t->index].key[s], k[s], PG_CACHE_ID);
        }
        c->known[t->index] = 1;
    } else if (line[0] == 'c' && strlen(line) == PG_CACHE_ID + 1) {
        pg_strvec_push(&c->compiled, line + 2);
    }
}

/* A worker's end: what it wrote (a trace under -v) is shown whole. */
static void build_done(void *payload, void *task, const pg_proc_result *res)
{
    ahead *a = payload;

    (void)task;
    if (res->output.size)
        fputs(pg_str_cstr(&res->output), stderr);
    a->done++;
    pg_progress_sayf(a->c->progress,
                     "building: %zu of %zu benchmarks, %d at once", a->done,
                     a->total, a->jobs);
}

int pg_prebuild(pg_bench_ctx *c, const size_t *which, size_t n, int jobs)
{
    pg_proc_parallel pp;
    ahead a;
    size_t i, all = c->cfg->nbenchmarks;
    int err, cuda = 0;

    memset(&a, 0, sizeof(a));
    a.c = c;
    a.tasks = pg_calloc(n + 1, sizeof(*a.tasks));
    c->keys = pg_calloc(all + 1, sizeof(*c->keys));
    c->known = pg_calloc(all + 1, 1);
    /* Who compiles, asked here once rather than in every worker. */
    for (i = 0; i < n; i++)
        cuda |= !strcmp(c->cfg->benchmarks[which[i]].language, "cuda");
    pg_toolchain_probe(cuda);
    for (i = 0; i < n; i++)
        /* A suite's build is the project's own, run where it is measured. */
        if (!c->cfg->benchmarks[which[i]].suite && !kept_ahead(c, which[i])) {
            a.tasks[a.total].a = &a;
            a.tasks[a.total++].index = which[i];
        }
    if (!a.total) {
        free(a.tasks);
        return 0;
    }
    a.jobs = (size_t)jobs > a.total ? (int)a.total : jobs;

    memset(&pp, 0, sizeof(pp));
    pp.jobs = a.jobs;
    /* A problem and two sides, each as long as a build may take. */
    pp.opts.timeout = 3 * pg_build_limit(&c->cfg->settings);
    pp.next_task = next_build;
    pp.on_line = build_said;
    pp.task_done = build_done;
    pp.payload = &a;
    pg_progress_sayf(c->progress, "building: 0 of %zu benchmarks, %d at once",
                     a.total, a.jobs);
    err = pg_proc_run_parallel(&pp);
    free(a.tasks);
    return err;
}
