/*
 * config_suite.c - a suite: entry of perfgate.yml (config_parse.h): the
 * benchmark binary a project's own build makes, run as its harness runs
 * it.
 */
#include "config.h"
#include "config_parse.h"
#include "settings.h"
#include "str.h"
#include "words.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* What a suite entry may say; the rest belongs to the code perfgate
 * builds itself, which a suite's build does instead. */
static const char *const suite_keys[] = {
    "name", "suite",        "kind",        "filter",  "build",
    "gate", "inconclusive", "noise_floor", "measure", NULL};

/* The first key of `node` that a suite cannot have, or NULL. */
static yaml_node_t *foreign_key(parse_ctx *ctx, yaml_node_t *node)
{
    yaml_node_pair_t *pair;

    for (pair = node->data.mapping.pairs.start;
         pair < node->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = pg_conf_node_at(ctx, pair->key);
        const char *const *ok;
        int found = 0;
        for (ok = suite_keys; *ok && !found; ok++)
            found = !strcmp(pg_conf_scalar(k), *ok);
        if (!found)
            return k;
    }
    return NULL;
}

static int parse_kind(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    static const char *const kinds[] = {"google-benchmark", "nvbench", NULL};
    yaml_node_t *v = pg_conf_lookup(ctx, node, "kind", NULL);
    const char *t, *hint;
    int k;

    b->suite_kind = PG_SUITE_GBENCH;
    if (!v)
        return 0;
    t = pg_conf_scalar(v);
    if (t && (k = pg_suite_kind_parse(t)) >= 0) {
        b->suite_kind = k;
        return 0;
    }
    hint = t ? pg_suggest(t, kinds) : NULL;
    if (hint)
        return pg_conf_fail_at(ctx, v, "kind '%s': did you mean '%s'?", t,
                               hint);
    return pg_conf_fail_at(
        ctx, v, "kind '%s': want 'google-benchmark' or 'nvbench'", t ? t : "");
}

int pg_conf_parse_suite(parse_ctx *ctx, yaml_node_t *node, yaml_node_t *v,
                        pg_bench_config *b)
{
    yaml_node_t *bad = foreign_key(ctx, node), *f;
    int err;

    if (bad)
        return pg_conf_fail_at(
            ctx, bad,
            "'%s' does not apply to a suite: its benchmarks are the "
            "binary's own, built by the project's 'build' command",
            pg_conf_scalar(bad));
    if ((err = pg_conf_get_string(ctx, v, "suite", &b->suite)) < 0 ||
        (err = pg_conf_check_repo_path(ctx, v, "suite", b->suite)) < 0 ||
        (err = parse_kind(ctx, node, b)) < 0)
        return err;
    if ((f = pg_conf_lookup(ctx, node, "filter", NULL))) {
        if ((err = pg_conf_get_string(ctx, f, "filter", &b->filter)) < 0)
            return err;
        if (!*b->filter || strchr(b->filter, '\n'))
            return pg_conf_fail_at(ctx, f,
                                   "'filter' must be one line of regex, "
                                   "such as 'BM_copy|BM_sort'");
    }
    if ((f = pg_conf_lookup(ctx, node, "build", NULL))) {
        if ((err = pg_conf_get_string(ctx, f, "build", &b->build)) < 0)
            return err;
    } else if (ctx->build) {
        b->build = pg_strdup(ctx->build);
    } else {
        return pg_conf_fail_at(
            ctx, node,
            "suite '%s' needs the 'build' command that makes %s in a "
            "checkout (such as build: cmake -S . -B build && cmake "
            "--build build --target bench)",
            b->name, b->suite);
    }
    /* What the reports name as its problem, and what its key reads. */
    b->problem = pg_strdup(pg_suite_kind_name((pg_suite_kind)b->suite_kind));
    b->problem_mark = pg_conf_mark_of(v);
    b->language = pg_strdup("c++");
    return 0;
}
