/*
 * config_accept.c - accept: in perfgate.yml, and the same from a commit's
 * Perf-Accepted: trailer or a pull request's label: a regression accepted
 * on purpose, up to a size, for a reason, until a day (config_parse.h).
 */
#include "config.h"
#include "config_parse.h"
#include "box.h"
#include "cleanup.h"
#include "counter.h"
#include "error.h"
#include "fs.h"
#include "function.h"
#include "str.h"
#include "units.h"
#include "words.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <yaml.h>

#include "banned.h"

static const char *const accept_keys[] = {"benchmark", "up_to", "why", "until",
                                          NULL};

/* "YYYY-MM-DD", a day of the calendar, into out (11 bytes); -1 if not. */
static int parse_day(const char *t, char out[11])
{
    static const int days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, m, d, n = 0;

    if (!t || strlen(t) != 10 ||
        sscanf(t, "%4d-%2d-%2d%n", &y, &m, &d, &n) != 3 || n != 10 ||
        y < 2000 || m < 1 || m > 12 || d < 1 || d > days[m - 1] ||
        (m == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
        return -1;
    memcpy(out, t, 10);
    out[10] = '\0';
    return 0;
}

/* One accept: entry. */
static int parse_accept(parse_ctx *ctx, yaml_node_t *node, pg_config *cfg,
                        pg_accept *a)
{
    const char *names[MAX_BENCHMARKS + 1];
    yaml_node_t *v;
    size_t i;
    int err;

    if (node->type != YAML_MAPPING_NODE)
        return pg_conf_fail_at(
            ctx, node,
            "each 'accept' entry is a mapping: {benchmark: NAME, "
            "up_to: 8%%, why: \"...\", until: YYYY-MM-DD}");
    if ((err = pg_conf_check_keys(ctx, node, "in an accept entry",
                                  accept_keys)) < 0)
        return err;
    if (!(v = pg_conf_lookup(ctx, node, "benchmark", NULL)))
        return pg_conf_fail_at(
            ctx, node,
            "an 'accept' entry names no benchmark: add benchmark: "
            "NAME, the one whose regression is accepted");
    if ((err = pg_conf_get_string(ctx, v, "benchmark", &a->benchmark)) < 0)
        return err;
    for (i = 0; i < cfg->nbenchmarks && i < MAX_BENCHMARKS; i++)
        names[i] = cfg->benchmarks[i].name;
    names[i] = NULL;
    for (i = 0; i < cfg->nbenchmarks; i++)
        if (!strcmp(cfg->benchmarks[i].name, a->benchmark))
            break;
    if (i == cfg->nbenchmarks) {
        const char *hint = pg_suggest(a->benchmark, names);
        return pg_conf_fail_at(
            ctx, v,
            "'accept' names benchmark '%s', which perfgate.yml "
            "does not have%s%s%s",
            a->benchmark, hint ? " (did you mean '" : "", hint ? hint : "",
            hint ? "'?)" : "");
    }
    if (pg_config_accept(cfg, a->benchmark) != a)
        return pg_conf_fail_at(
            ctx, v, "a second 'accept' entry for benchmark '%s'", a->benchmark);
    if (!(v = pg_conf_lookup(ctx, node, "up_to", NULL)))
        return pg_conf_fail_at(
            ctx, node,
            "an 'accept' entry needs 'up_to', how much slower it "
            "may be, such as up_to: 8%%");
    if (!pg_conf_scalar(v) ||
        pg_parse_fraction(&a->up_to, pg_conf_scalar(v)) < 0 ||
        !(a->up_to > 0) || a->up_to > 10)
        return pg_conf_fail_at(
            ctx, v,
            "'up_to' must be how much slower it may be, a "
            "percentage above 0 such as 8%% (at most 1000%%)");
    if (!(v = pg_conf_lookup(ctx, node, "why", NULL)))
        return pg_conf_fail_at(
            ctx, node,
            "an 'accept' entry needs 'why', the reason a reviewer "
            "agreed to, such as why: \"bounds checks on every "
            "read\"");
    if ((err = pg_conf_get_string(ctx, v, "why", &a->why)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "until", NULL)) &&
        parse_day(pg_conf_scalar(v), a->until) < 0)
        return pg_conf_fail_at(ctx, v,
                               "'until' must be a day as YYYY-MM-DD, such as "
                               "until: 2027-03-31 (the last day it holds)");
    return 0;
}

/* accept: a list of entries, after the benchmarks they name. */
int pg_conf_parse_accepts(parse_ctx *ctx, yaml_node_t *root, pg_config *cfg)
{
    yaml_node_item_t *it;
    yaml_node_t *v;
    int err;

    if (!(v = pg_conf_lookup(ctx, root, "accept", NULL)))
        return 0;
    if (v->type != YAML_SEQUENCE_NODE)
        return pg_conf_fail_at(
            ctx, v,
            "'accept' must be a list of entries, such as "
            "accept: [{benchmark: sum, up_to: 8%%, why: \"...\"}]");
    cfg->accepts = pg_calloc(pg_conf_seq_len(v) + 1, sizeof(pg_accept));
    for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        pg_accept *a = &cfg->accepts[cfg->naccepts++];
        if ((err = parse_accept(ctx, pg_conf_node_at(ctx, *it), cfg, a)) < 0)
            return err;
    }
    return 0;
}

/* `a` for its benchmark, in place of an entry the config or a trailer
 * had; `a` is the config's then. */
static void put_accept(pg_config *cfg, pg_accept *a)
{
    pg_accept *old = (pg_accept *)pg_config_accept(cfg, a->benchmark);

    if (old) {
        free(old->benchmark);
        free(old->why);
        *old = *a;
        return;
    }
    cfg->accepts =
        pg_realloc(cfg->accepts, (cfg->naccepts + 1) * sizeof(*cfg->accepts));
    cfg->accepts[cfg->naccepts++] = *a;
}

/* Benchmark `name` of the config, or -1 with an error that says `where`
 * named it and suggests the nearest name. */
static int named_benchmark(const pg_config *cfg, const char *name,
                           const char *where)
{
    const char *names[MAX_BENCHMARKS + 1];
    const char *hint;
    size_t i;

    for (i = 0; i < cfg->nbenchmarks; i++)
        if (!strcmp(cfg->benchmarks[i].name, name))
            return (int)i;
    for (i = 0; i < cfg->nbenchmarks && i < MAX_BENCHMARKS; i++)
        names[i] = cfg->benchmarks[i].name;
    names[i] = NULL;
    hint = pg_suggest(name, names);
    pg_error_set(PG_ERR_USAGE,
                 "%s names benchmark '%s', which %s does not have%s%s%s", where,
                 name, cfg->path, hint ? " (did you mean '" : "",
                 hint ? hint : "", hint ? "'?)" : "");
    return -1;
}

int pg_config_accept_trailer(pg_config *cfg, const char *commit,
                             const char *value)
{
    char name[256], up[32], where[64];
    pg_accept a;
    int at = 0;

    memset(&a, 0, sizeof(a));
    if (sscanf(value, "%255s %31s %n", name, up, &at) != 2 || !at ||
        !value[at] || up[strlen(up) - 1] != '%' ||
        pg_parse_fraction(&a.up_to, up) < 0 || !(a.up_to > 0) || a.up_to > 10)
        return pg_error_set(PG_ERR_USAGE,
                            "commit %.12s: '%s: %s' does not read as "
                            "'%s: BENCHMARK UP_TO%% WHY', such as "
                            "'%s: parse 8%% bounds checks on every read'",
                            commit, PG_ACCEPT_TRAILER, value, PG_ACCEPT_TRAILER,
                            PG_ACCEPT_TRAILER);
    snprintf(where, sizeof(where), "commit %.12s: %s:", commit,
             PG_ACCEPT_TRAILER);
    if (named_benchmark(cfg, name, where) < 0)
        return PG_ERR_USAGE;
    a.benchmark = pg_strdup(name);
    a.why = pg_strdup(value + at);
    snprintf(a.from, sizeof(a.from), "%.12s", commit);
    put_accept(cfg, &a);
    return 0;
}

/* An entry of the label `label` for benchmark `name`. */
static void put_label(pg_config *cfg, const char *name, const char *label)
{
    pg_accept a;

    memset(&a, 0, sizeof(a));
    a.benchmark = pg_strdup(name);
    a.up_to = 10;
    a.why = pg_strdupf("the pull request's label '%s'", label);
    snprintf(a.from, sizeof(a.from), "%s", PG_ACCEPT_LABEL);
    put_accept(cfg, &a);
}

int pg_config_accept_label(pg_config *cfg, const char *label)
{
    size_t n = strlen(PG_ACCEPT_LABEL), i;
    const char *rest = label + n;
    char where[160];
    int k;

    if (strncasecmp(label, PG_ACCEPT_LABEL, n) || (*rest && *rest != ':'))
        return 0;
    rest += *rest == ':';
    rest += strspn(rest, " ");
    if (!*rest) {
        for (i = 0; i < cfg->nbenchmarks; i++)
            put_label(cfg, cfg->benchmarks[i].name, label);
        return 0;
    }
    snprintf(where, sizeof(where), "the pull request's label '%.100s'", label);
    if ((k = named_benchmark(cfg, rest, where)) < 0)
        return PG_ERR_USAGE;
    put_label(cfg, cfg->benchmarks[k].name, label);
    return 0;
}

const pg_accept *pg_config_accept(const pg_config *cfg, const char *name)
{
    size_t i;

    for (i = 0; i < cfg->naccepts; i++)
        if (cfg->accepts[i].benchmark &&
            !strcmp(cfg->accepts[i].benchmark, name))
            return &cfg->accepts[i];
    return NULL;
}

int pg_accept_expired(const pg_accept *a)
{
    char today[11];
    time_t now = time(NULL);
    struct tm tm;

    if (!*a->until || !gmtime_r(&now, &tm))
        return 0;
    strftime(today, sizeof(today), "%Y-%m-%d", &tm);
    return strcmp(a->until, today) < 0;
}
