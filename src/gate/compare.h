/*
 * compare.h - the whole gate: config -> revisions -> builds -> runs ->
 * result.  The command line (cmd_compare.c) is a thin layer over this.
 */
#ifndef PG_COMPARE_H
#define PG_COMPARE_H

#include "ci.h"
#include "config.h"
#include "result.h"

typedef struct pg_compare_opts {
    const char *repo_path;   /* where to look for the repository */
    const char *config_path; /* NULL: perfgate.yml at the repository root */
    const char *base;        /* NULL: HEAD */
    const char *head;        /* NULL: the working tree */
    /* --pass-env: more names the box lets through (NULL-ended), beyond
     * what the config's pass_env: may (the invoker's, always trusted) */
    const char *const *pass_env;
    /* base...head: the base is the merge base of `base` and the head (the
     * working tree's HEAD), as git's A...B. */
    int merge_base;
    /* With neither base nor head: the CI system's revisions, or NULL. */
    const pg_ci *ci;
    int aa; /* self-check: `base` against itself, each side built apart */
    /* How narrow each benchmark's interval is to be, either side of its
     * change, as a fraction of the floor (pg_estimate_rule); 0: as the
     * verdict needs (perfgate record asks PG_RECORD_PRECISION). */
    double precision;
    const char *const *only; /* NULL, or the benchmarks to run (NULL-ended) */
    int shard, shards; /* run shard `shard` (1-based) of `shards`; 0: all */
    /* An earlier result whose measuring times balance the shards; NULL:
     * their cases do. */
    const char *timings_path;
    /* The build cache: NULL for the default (pg_cache_default_dir); none
     * kept with no_cache. */
    const char *cache_dir;
    int no_cache;
    int jobs;    /* builds at once; 0: one per CPU */
    int profile; /* profile each C regression's worst case (profile.h) */
    /* Overrides from flags; negative when not given. */
    double noise_floor;
    const char *measure; /* "time", "instructions", "cycles", "all" */
    double count_floor;
    const char *counter;      /* "auto", "hardware", "callgrind" */
    const char *path_check;   /* "warn", "gate", "off" */
    const char *inconclusive; /* "pass", "fail" */
    const char *memory;       /* "report", "gate", "off" */
    double memory_floor;
    double max_time;
    int min_rounds;
    double timeout;
    /* Progress lines for a terminal; may be NULL. */
    void (*on_progress)(void *payload, const char *line);
    /* Each benchmark as it is decided, the index-th of count (for a log
     * that is not a terminal); may be NULL. */
    void (*on_bench_done)(void *payload, const pg_bench_result *b, size_t index,
                          size_t count);
    void *payload;
} pg_compare_opts;

void pg_compare_opts_init(pg_compare_opts *opts);

/*
 * Runs the comparison and fills `out` (decided, ready to render).  Returns
 * PG_ERR_USAGE for a bad config or revision, PG_ERR_INTERRUPTED on a
 * signal, another negative value when perfgate itself failed.  `out` is
 * to be pg_result_clear()ed either way (after an error it holds what was
 * done before it, and is not to be rendered).
 */
int pg_compare(pg_result *out, const pg_compare_opts *opts);

#endif
