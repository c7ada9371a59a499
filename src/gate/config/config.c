/*
 * config.c - parsing and checking perfgate.yml: the file's shape and
 * limits, its settings and benchmarks (a function's entry is
 * config_function.c's, accept: config_accept.c's).
 *
 * libyaml's document API gives a tree whose nodes carry their positions;
 * the checks below walk it with the schema in hand, so that every message
 * points at the key or value at fault (config_parse.c).
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

#define PG_CONFIG_MAX_BYTES (1 << 20)
#define MAX_CASES 1000 /* per benchmark */

static const char *const top_keys[] = {"version", "settings", "benchmarks",
                                       "accept", NULL};
static const char *const settings_keys[] = {
    "noise_floor", "max_time",   "min_rounds", "timeout",
    "gate",        "build",      "library",    "measure",
    "count_floor", "counter",    "path_check", "inconclusive",
    "pass_env",    "skip_paths", "memory",     "memory_floor",
    NULL};
static const char *const bench_keys[] = {
    "name",       "problem",     "sources",     "symbol",   "language",
    "cflags",     "include",     "cases",       "cache",    "cuda_arch",
    "nvcc_flags", "symbols",     "gate",        "build",    "library",
    "ldflags",    "adapters",    "file_cflags", "function", "args",
    "check",      "helpers",     "work",        "measure",  "inconclusive",
    "batch",      "noise_floor", "returns",     "header",   "suite",
    "kind",       "filter",      "memory",      NULL};

/* The config's own files (a problem, an adapter) are compiled in the box,
 * which hides homes and /tmp: their directory is shown there, read-only,
 * and that alone. */
static void show_dir_of(const char *file)
{
    char *dir = pg_path_dirname(file);

    pg_box_show(dir);
    free(dir);
}

const char *pg_language_for(const char *source)
{
    const char *dot = strrchr(source, '.');

    if (!dot)
        return NULL;
    if (!strcmp(dot, ".c"))
        return "c";
    if (!strcmp(dot, ".cu"))
        return "cuda";
    if (!strcmp(dot, ".cc") || !strcmp(dot, ".cpp") || !strcmp(dot, ".cxx"))
        return "c++";
    return NULL;
}

/*
 * A list of compiler or linker flags.  In a flow list a comma splits
 * items, so [-O3, -Wl,-Bsymbolic] reads as -O3, -Wl and -Bsymbolic: a
 * lone -Wl, -Wa or -Wp (which never stand alone) is refused with the
 * quoted flag to write instead.
 */
static int get_flags(parse_ctx *ctx, yaml_node_t *node, const char *key,
                     char ***out, size_t *count)
{
    size_t i, j;
    int err;

    if ((err = pg_conf_get_string_list(ctx, node, key, out, count)) < 0)
        return err;
    for (i = 0; i < *count; i++) {
        const char *f = (*out)[i];
        pg_str fix = PG_STR_INIT;
        if (strcmp(f, "-Wl") && strcmp(f, "-Wa") && strcmp(f, "-Wp"))
            continue;
        /* What the comma split off: the next item, and any after it that
         * is not a flag of its own (-Wl,-z,now). */
        pg_str_puts(&fix, f);
        for (j = i + 1; j < *count && (j == i + 1 || (*out)[j][0] != '-'); j++)
            pg_str_printf(&fix, ",%s", (*out)[j]);
        err =
            pg_conf_fail_at(ctx, node,
                            "'%s' holds '%s' alone: in a [flow, list] a comma "
                            "splits one flag in two; quote it (\"%s\") or put "
                            "each flag on its own '- ' line",
                            key, f, pg_str_cstr(&fix));
        pg_str_clear(&fix);
        return err;
    }
    return 0;
}

/* A path in the compared revisions: relative, and not out of them. */
int pg_conf_check_repo_path(parse_ctx *ctx, yaml_node_t *node, const char *what,
                            const char *path)
{
    if (path[0] == '/' || !strncmp(path, "../", 3) || strstr(path, "/../") ||
        !strcmp(path, ".."))
        return pg_conf_fail_at(ctx, node,
                               "%s '%s' must be a path inside the repository",
                               what, path);
    return 0;
}

static int get_positive_int(parse_ctx *ctx, yaml_node_t *node, const char *key,
                            int *out)
{
    long long v;

    if (!pg_conf_is_plain(node) || pg_parse_ll(&v, pg_conf_scalar(node)) < 0)
        return pg_conf_fail_at(ctx, node, "'%s' must be a whole number", key);
    if (v < 1 || v > 1000000000)
        return pg_conf_fail_at(ctx, node,
                               "'%s' must be between 1 and 1000000000", key);
    *out = (int)v;
    return 0;
}

static int get_duration(parse_ctx *ctx, yaml_node_t *node, const char *key,
                        double *out)
{
    const char *v = pg_conf_scalar(node);

    if (!v || pg_parse_duration(out, v) < 0 || *out <= 0)
        return pg_conf_fail_at(
            ctx, node, "'%s' must be a duration such as 10s, 500ms or 2m", key);
    return 0;
}

/* A key with two values: *out is 0 for `off`, 1 for `on`. */
static int get_choice(parse_ctx *ctx, yaml_node_t *v, const char *key,
                      const char *off, const char *on, int *out)
{
    const char *t = pg_conf_scalar(v);

    if (t && (!strcmp(t, off) || !strcmp(t, on))) {
        *out = !strcmp(t, on);
        return 0;
    }
    return pg_conf_fail_at(ctx, v, "%s '%s': want '%s' or '%s'", key,
                           t ? t : "", off, on);
}

/* A noise floor: a percentage or a fraction, above 0 and below 100%. */
static int get_floor(parse_ctx *ctx, yaml_node_t *v, const char *key,
                     double *out)
{
    const char *t = pg_conf_scalar(v);

    if (!t || pg_parse_fraction(out, t) < 0) {
        char *end = NULL;
        double bare = t ? strtod(t, &end) : 0;
        if (t && end != t && !*end && bare > 1)
            return pg_conf_fail_at(
                ctx, v, "'%s' %s is more than 100%% (did you mean '%s%%'?)",
                key, t, t);
        return pg_conf_fail_at(
            ctx, v,
            "'%s' must be a percentage such as 5%% or a fraction "
            "such as 0.05",
            key);
    }
    if (*out >= 1.0)
        return pg_conf_fail_at(ctx, v, "'%s' must be below 100%%", key);
    /* At 0%, noise alone fails identical code. */
    if (*out <= 0)
        return pg_conf_fail_at(
            ctx, v,
            "'%s' must be above 0%%: every measurement has some "
            "noise (perfgate compare --aa shows this machine's)",
            key);
    return 0;
}

/* memory: and memory_floor: in settings. */
static int parse_memory(parse_ctx *ctx, yaml_node_t *node, pg_settings *s)
{
    yaml_node_t *v;
    int err;

    if ((v = pg_conf_lookup(ctx, node, "memory", NULL)) &&
        (err = pg_conf_get_memory(ctx, v, &s->memory)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "memory_floor", NULL)) &&
        (err = get_floor(ctx, v, "memory_floor", &s->memory_floor)) < 0)
        return err;
    return 0;
}

/* measure: time, instructions, cycles or all. */
static int get_measure(parse_ctx *ctx, yaml_node_t *v, int *out)
{
    const char *t = pg_conf_scalar(v);
    int m = !t ? -1 : !strcmp(t, "all") ? PG_MEASURE_ALL : pg_metric_parse(t);

    if (m < 0)
        return pg_conf_fail_at(
            ctx, v,
            "measure '%s': want 'time', 'instructions', 'cycles' "
            "or 'all'",
            t ? t : "");
    *out = m;
    return 0;
}

/*
 * skip_paths: patterns of paths in the tree that no build reads: relative,
 * no "..", a trailing '/' dropped.
 */
static int get_skip_paths(parse_ctx *ctx, yaml_node_t *node, pg_config *cfg)
{
    size_t i;
    int err;

    if ((err = pg_conf_get_string_list(
             ctx, node, "skip_paths", &cfg->skip_paths, &cfg->nskip_paths)) < 0)
        return err;
    for (i = 0; i < cfg->nskip_paths; i++) {
        char *p = cfg->skip_paths[i];
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
            p[--n] = '\0';
        if (!*p || p[0] == '/' || strstr(p, ".."))
            return pg_conf_fail_at(
                ctx, node,
                "skip_paths: '%s' is not a path in the "
                "repository: give one such as tests/vectors or "
                "'data/*.bin'",
                p);
    }
    return 0;
}

/*
 * pass_env: names of environment variables for the box to let through.
 * A name only (the value is the environment's, at each run); not HOME or
 * TMPDIR, which are the box's own.
 */
static int get_pass_env(parse_ctx *ctx, yaml_node_t *node, pg_config *cfg)
{
    size_t i;
    int err;

    if ((err = pg_conf_get_string_list(ctx, node, "pass_env", &cfg->pass_env,
                                       &cfg->npass_env)) < 0)
        return err;
    for (i = 0; i < cfg->npass_env; i++) {
        const char *n = cfg->pass_env[i];
        if (!pg_box_env_name_ok(n))
            return pg_conf_fail_at(
                ctx, node,
                "pass_env: '%s' is not the name of an "
                "environment variable (letters, digits and _, "
                "not starting with a digit)",
                n);
        if (!strcmp(n, "HOME") || !strcmp(n, "TMPDIR"))
            return pg_conf_fail_at(
                ctx, node,
                "pass_env: %s is the box's own (an empty private "
                "directory) and cannot be passed in",
                n);
    }
    return 0;
}

static int parse_settings(parse_ctx *ctx, yaml_node_t *node, pg_config *cfg)
{
    pg_settings *s = &cfg->settings;
    yaml_node_t *v;
    int err;

    if (node->type == YAML_SCALAR_NODE && !*pg_conf_scalar(node))
        return 0; /* "settings:" with nothing under it */
    if (node->type != YAML_MAPPING_NODE)
        return pg_conf_fail_at(ctx, node,
                               "'settings' must be a mapping, not %s",
                               pg_conf_type_name(node));
    if ((err = pg_conf_check_keys(ctx, node, "in settings", settings_keys)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "build", NULL)) &&
        (err = pg_conf_get_string(ctx, v, "build", &ctx->build)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "library", NULL)) &&
        ((err = pg_conf_get_string(ctx, v, "library", &ctx->library)) < 0 ||
         (err = pg_conf_check_repo_path(ctx, v, "library", ctx->library)) < 0))
        return err;
    if ((v = pg_conf_lookup(ctx, node, "noise_floor", NULL))) {
        if ((err = get_floor(ctx, v, "noise_floor", &s->noise_floor)) < 0)
            return err;
        s->floor_source = PG_FLOOR_CONFIG;
    }
    if ((v = pg_conf_lookup(ctx, node, "count_floor", NULL)) &&
        (err = get_floor(ctx, v, "count_floor", &s->count_floor)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "measure", NULL)) &&
        (err = get_measure(ctx, v, &s->measure)) < 0)
        return err;
    if ((err = parse_memory(ctx, node, s)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "counter", NULL))) {
        const char *t = pg_conf_scalar(v);
        int k = !t ? -1 : !strcmp(t, "auto") ? 0 : pg_counter_parse(t);
        if (k < 0 || (t && !strcmp(t, "none")))
            return pg_conf_fail_at(ctx, v,
                                   "counter '%s': want 'auto', 'hardware' or "
                                   "'callgrind'",
                                   t ? t : "");
        s->counter = k;
    }
    if ((v = pg_conf_lookup(ctx, node, "path_check", NULL))) {
        const char *t = pg_conf_scalar(v);
        int m = t ? pg_path_check_parse(t) : -1;
        if (m < 0)
            return pg_conf_fail_at(
                ctx, v, "path_check '%s': want 'warn', 'gate' or 'off'",
                t ? t : "");
        s->path_check = m;
    }
    if ((v = pg_conf_lookup(ctx, node, "max_time", NULL)) &&
        (err = get_duration(ctx, v, "max_time", &s->max_time)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "timeout", NULL)) &&
        (err = get_duration(ctx, v, "timeout", &s->timeout)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "min_rounds", NULL)) &&
        (err = get_positive_int(ctx, v, "min_rounds", &s->min_rounds)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "gate", NULL)) &&
        (err = get_choice(ctx, v, "gate", "total", "cases", &s->gate_cases)) <
            0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "inconclusive", NULL)) &&
        (err = get_choice(ctx, v, "inconclusive", "pass", "fail",
                          &s->inconclusive_fails)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "skip_paths", NULL)) &&
        (err = get_skip_paths(ctx, v, cfg)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "pass_env", NULL)) &&
        (err = get_pass_env(ctx, v, cfg)) < 0)
        return err;
    return 0;
}

static int parse_case(parse_ctx *ctx, yaml_node_t *node, pg_casespec *out)
{
    yaml_node_pair_t *p;

    memset(out, 0, sizeof(*out));
    out->mark = pg_conf_mark_of(node);
    if (node->type != YAML_MAPPING_NODE)
        return pg_conf_fail_at(ctx, node,
                               "each case must be a mapping of parameters, "
                               "such as {n: 1000}");
    for (p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = pg_conf_node_at(ctx, p->key),
                    *v = pg_conf_node_at(ctx, p->value);
        long long value;

        if (!pg_conf_scalar(k) || !pg_valid_name(pg_conf_scalar(k)))
            return pg_conf_fail_at(ctx, k,
                                   "case parameters must be plain names");
        if (pg_casespec_has(out, pg_conf_scalar(k)))
            return pg_conf_fail_at(ctx, k, "duplicate parameter '%s' in case",
                                   pg_conf_scalar(k));
        if (!pg_conf_is_plain(v) || pg_parse_ll(&value, pg_conf_scalar(v)) < 0)
            return pg_conf_fail_at(ctx, v,
                                   "case parameter '%s' must be a whole number",
                                   pg_conf_scalar(k));
        pg_casespec_add(out, pg_conf_scalar(k), value);
    }
    if (out->nparams == 0)
        return pg_conf_fail_at(ctx, node,
                               "a case needs at least one parameter");
    pg_casespec_name(out);
    return 0;
}

static int parse_problem(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    const char *const *bi;
    const char *hint;
    int err;

    if ((err = pg_conf_get_string(ctx, node, "problem", &b->problem)) < 0)
        return err;
    b->problem_mark = pg_conf_mark_of(node);
    if (strchr(b->problem, '/') || strstr(b->problem, ".c")) {
        b->problem_path = pg_path_join(ctx->dir, b->problem);
        if (!pg_path_is_file(b->problem_path))
            return pg_conf_fail_at(ctx, node,
                                   "problem file '%s' not found (%s)",
                                   b->problem, b->problem_path);
        show_dir_of(b->problem_path);
        return 0;
    }
    for (bi = ctx->builtins; *bi; bi++)
        if (!strcmp(*bi, b->problem))
            return 0;
    hint = pg_suggest(b->problem, ctx->builtins);
    if (hint)
        return pg_conf_fail_at(ctx, node,
                               "unknown problem '%s' (did you mean '%s'?)",
                               b->problem, hint);
    return pg_conf_fail_at(ctx, node,
                           "unknown problem '%s': use a built-in problem "
                           "(perfgate problems) or a path to a problem .c file",
                           b->problem);
}

/*
 * A list that must hold between one and `max` items: `empty` says what it
 * must be (at the key when the value is a list, else at the value), and
 * `too_many` (a format taking `max`) what to do instead.
 */
static int check_list(parse_ctx *ctx, yaml_node_t *v, yaml_node_t *key, int max,
                      const char *empty, const char *too_many)
{
    if (v->type != YAML_SEQUENCE_NODE || pg_conf_seq_len(v) == 0)
        return pg_conf_fail_at(
            ctx, v->type == YAML_SEQUENCE_NODE && key ? key : v, "%s", empty);
    if (pg_conf_seq_len(v) > (size_t)max)
        return pg_conf_fail_at(ctx, v, too_many, max);
    return 0;
}

static int parse_bench_name(parse_ctx *ctx, yaml_node_t *node,
                            pg_bench_config *b)
{
    yaml_node_t *v;
    int err;

    if (!(v = pg_conf_lookup(ctx, node, "name", NULL)))
        return pg_conf_fail_at(ctx, node, "benchmark has no 'name'");
    if ((err = pg_conf_get_string(ctx, v, "name", &b->name)) < 0)
        return err;
    if (!pg_valid_name(b->name))
        return pg_conf_fail_at(
            ctx, v,
            "benchmark name '%s' may only hold letters, digits, "
            "'_', '.' and '-'",
            b->name);
    b->mark = pg_conf_mark_of(v);
    return 0;
}

static int parse_sources(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v;
    size_t i;
    int err;

    if (!(v = pg_conf_lookup(ctx, node, "sources", NULL))) {
        if (b->library || b->nadapters)
            return 0;
        return pg_conf_fail_at(
            ctx, node,
            "benchmark '%s' has no 'sources' (nor a 'library' "
            "that its 'build' makes, nor 'adapters')",
            b->name);
    }
    if ((err = pg_conf_get_string_list(ctx, v, "sources", &b->sources,
                                       &b->nsources)) < 0)
        return err;
    if (b->nsources == 0)
        return pg_conf_fail_at(ctx, v, "'sources' must list at least one file");
    for (i = 0; i < b->nsources; i++)
        if ((err = pg_conf_check_repo_path(ctx, v, "source", b->sources[i])) <
            0)
            return err;
    return 0;
}

/* 'language', else what the first source's extension says. */
static int parse_language(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v;
    const char *lang;
    int err;

    if ((v = pg_conf_lookup(ctx, node, "language", NULL))) {
        if ((err = pg_conf_get_string(ctx, v, "language", &b->language)) < 0)
            return err;
        if (strcmp(b->language, "c") && strcmp(b->language, "c++") &&
            strcmp(b->language, "cuda"))
            return pg_conf_fail_at(ctx, v,
                                   "language '%s': want 'c', 'c++' or 'cuda'",
                                   b->language);
        return 0;
    }
    if (!b->nsources) {
        b->language = pg_strdup("c"); /* a library and adapters: C's ABI */
        return 0;
    }
    if (!(lang = pg_language_for(b->sources[0])))
        return pg_conf_fail_at(ctx, node,
                               "cannot tell the language of '%s' from its "
                               "extension (.c, .cu, .cc, .cpp): add 'language: "
                               "c', 'c++' or 'cuda'",
                               b->sources[0]);
    b->language = pg_strdup(lang);
    return 0;
}

static int parse_cuda(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v;
    size_t i;
    int err;

    if ((v = pg_conf_lookup(ctx, node, "cuda_arch", NULL))) {
        if (v->type == YAML_SCALAR_NODE) {
            b->cuda_arch = pg_calloc(1, sizeof(char *));
            b->ncuda_arch = 1;
            err = pg_conf_get_string(ctx, v, "cuda_arch", &b->cuda_arch[0]);
        } else {
            err = pg_conf_get_string_list(ctx, v, "cuda_arch", &b->cuda_arch,
                                          &b->ncuda_arch);
        }
        if (err < 0)
            return err;
        for (i = 0; i < b->ncuda_arch; i++)
            if (strncmp(b->cuda_arch[i], "sm_", 3) ||
                strspn(b->cuda_arch[i] + 3, "0123456789") < 2)
                return pg_conf_fail_at(
                    ctx, v,
                    "cuda_arch '%s': want names such as sm_80 or "
                    "sm_90",
                    b->cuda_arch[i]);
    }
    if ((v = pg_conf_lookup(ctx, node, "nvcc_flags", NULL)) &&
        (err = get_flags(ctx, v, "nvcc_flags", &b->nvcc_flags,
                         &b->nnvcc_flags)) < 0)
        return err;
    return 0;
}

/* cache, gate and symbols: one word each. */
static int parse_choices(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v;
    int err;

    /* Kernels are cold by default: in a real pipeline their inputs were
     * just written by something else, not left in the L2 by themselves. */
    b->cold = !strcmp(b->language, "cuda");
    if ((v = pg_conf_lookup(ctx, node, "cache", NULL)) &&
        (err = get_choice(ctx, v, "cache", "warm", "cold", &b->cold)) < 0)
        return err;
    b->measure = -1;
    if ((v = pg_conf_lookup(ctx, node, "measure", NULL)) &&
        (err = get_measure(ctx, v, &b->measure)) < 0)
        return err;
    b->memory = -1;
    if ((v = pg_conf_lookup(ctx, node, "memory", NULL)) &&
        (err = pg_conf_get_memory(ctx, v, &b->memory)) < 0)
        return err;
    b->gate = -1;
    if ((v = pg_conf_lookup(ctx, node, "gate", NULL)) &&
        (err = get_choice(ctx, v, "gate", "total", "cases", &b->gate)) < 0)
        return err;
    b->inconclusive = -1;
    if ((v = pg_conf_lookup(ctx, node, "inconclusive", NULL)) &&
        (err = get_choice(ctx, v, "inconclusive", "pass", "fail",
                          &b->inconclusive)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "noise_floor", NULL)) &&
        (err = get_floor(ctx, v, "noise_floor", &b->noise_floor)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "symbols", NULL)) &&
        (err = get_choice(ctx, v, "symbols", "local", "interposable",
                          &b->interposable)) < 0)
        return err;
    return 0;
}

/* file_cflags: {PATTERN: [FLAG, ...], ...} */
static int parse_file_cflags(parse_ctx *ctx, yaml_node_t *v, pg_bench_config *b)
{
    yaml_node_pair_t *pair;
    int err;

    if (v->type != YAML_MAPPING_NODE)
        return pg_conf_fail_at(
            ctx, v,
            "'file_cflags' must map sources to their flags, such "
            "as {lib/huf.c: [-fno-tree-vectorize]}");
    b->file_cflags = pg_calloc(
        (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start) + 1,
        sizeof(*b->file_cflags));
    for (pair = v->data.mapping.pairs.start; pair < v->data.mapping.pairs.top;
         pair++) {
        yaml_node_t *k = pg_conf_node_at(ctx, pair->key);
        yaml_node_t *val = pg_conf_node_at(ctx, pair->value);
        pg_file_flags *f = &b->file_cflags[b->nfile_cflags++];
        if ((err = pg_conf_get_string(ctx, k, "file_cflags", &f->pattern)) <
                0 ||
            (err = pg_conf_check_repo_path(ctx, k, "source", f->pattern)) < 0 ||
            (err = get_flags(ctx, val, "file_cflags", &f->flags, &f->nflags)) <
                0)
            return err;
    }
    return 0;
}

/*
 * build and library (else the settings'), and adapters: files beside the
 * config, compiled into both sides.
 */
static int parse_project(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v, *lib;
    size_t i;
    int err;

    if ((v = pg_conf_lookup(ctx, node, "build", NULL))) {
        if ((err = pg_conf_get_string(ctx, v, "build", &b->build)) < 0)
            return err;
    } else if (ctx->build) {
        b->build = pg_strdup(ctx->build);
    }
    if ((lib = pg_conf_lookup(ctx, node, "library", NULL))) {
        if ((err = pg_conf_get_string_list(ctx, lib, "library", &b->libraries,
                                           &b->nlibraries)) < 0)
            return err;
        if (!b->nlibraries)
            return pg_conf_fail_at(
                ctx, lib,
                "'library' names no file: give the path the "
                "build makes, or a list of them to try in order");
        for (i = 0; i < b->nlibraries; i++)
            if ((err = pg_conf_check_repo_path(ctx, lib, "library",
                                               b->libraries[i])) < 0)
                return err;
        b->library = pg_strdup(b->libraries[0]);
    } else if (ctx->library) {
        b->library = pg_strdup(ctx->library);
        b->libraries = pg_calloc(1, sizeof(char *));
        b->libraries[0] = pg_strdup(ctx->library);
        b->nlibraries = 1;
    }
    if (b->library && !b->build)
        return pg_conf_fail_at(
            ctx, lib ? lib : node,
            "benchmark '%s' names a 'library' but no 'build' "
            "command makes it (add build: make, or a script)",
            b->name);
    if (!(v = pg_conf_lookup(ctx, node, "adapters", NULL)))
        return 0;
    if ((err = pg_conf_get_string_list(ctx, v, "adapters", &b->adapters,
                                       &b->nadapters)) < 0)
        return err;
    for (i = 0; i < b->nadapters; i++) {
        char *path = pg_path_join(ctx->dir, b->adapters[i]);
        if (!pg_path_is_file(path)) {
            err = pg_conf_fail_at(
                ctx, v,
                "adapter '%s' not found (%s); adapters are paths "
                "relative to the config's directory",
                b->adapters[i], path);
            free(path);
            return err;
        }
        free(b->adapters[i]);
        b->adapters[i] = path;
        show_dir_of(path);
    }
    return 0;
}

static int parse_flags(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v;
    int err;

    if ((v = pg_conf_lookup(ctx, node, "cflags", NULL))) {
        if ((err = get_flags(ctx, v, "cflags", &b->cflags, &b->ncflags)) < 0)
            return err;
    } else {
        b->cflags = pg_calloc(1, sizeof(char *));
        b->cflags[0] = pg_strdup("-O2");
        b->ncflags = 1;
    }
    if ((v = pg_conf_lookup(ctx, node, "include", NULL)) &&
        (err = pg_conf_get_string_list(ctx, v, "include", &b->include,
                                       &b->ninclude)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "ldflags", NULL)) &&
        (err = get_flags(ctx, v, "ldflags", &b->ldflags, &b->nldflags)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "file_cflags", NULL)))
        return parse_file_cflags(ctx, v, b);
    return 0;
}

static int parse_cases(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v;
    yaml_node_item_t *it;
    int err;

    if (!(v = pg_conf_lookup(ctx, node, "cases", NULL)))
        return 0;
    if ((err = check_list(ctx, v, NULL, MAX_CASES,
                          "'cases' must be a list of mappings, such as "
                          "[{n: 1000}, {n: 100000}]",
                          "more than %d cases in one benchmark; a few sizes "
                          "that matter say more than many")) < 0)
        return err;
    b->cases = pg_calloc(pg_conf_seq_len(v), sizeof(pg_casespec));
    for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        size_t j;
        yaml_node_t *cn = pg_conf_node_at(ctx, *it);
        if ((err = parse_case(ctx, cn, &b->cases[b->ncases++])) < 0)
            return err;
        for (j = 0; j + 1 < b->ncases; j++)
            if (!strcmp(b->cases[j].name, b->cases[b->ncases - 1].name))
                return pg_conf_fail_at(ctx, cn, "duplicate case '%s'",
                                       b->cases[j].name);
    }
    return 0;
}

static int parse_benchmark(parse_ctx *ctx, yaml_node_t *node,
                           pg_bench_config *b)
{
    yaml_node_t *v;
    int err;

    memset(b, 0, sizeof(*b));
    b->mark = pg_conf_mark_of(node);
    if (node->type != YAML_MAPPING_NODE)
        return pg_conf_fail_at(ctx, node,
                               "each benchmark must be a mapping, not %s",
                               pg_conf_type_name(node));
    if ((err = pg_conf_check_keys(ctx, node, "in benchmark", bench_keys)) < 0 ||
        (err = parse_bench_name(ctx, node, b)) < 0)
        return err;
    if ((v = pg_conf_lookup(ctx, node, "suite", NULL))) {
        if ((err = pg_conf_parse_suite(ctx, node, v, b)) < 0)
            return err;
        return parse_choices(ctx, node, b);
    }
    if ((v = pg_conf_lookup(ctx, node, "function", NULL))) {
        if ((err = pg_conf_parse_function(ctx, node, v, b)) < 0)
            return err;
    } else if (!(v = pg_conf_lookup(ctx, node, "problem", NULL))) {
        return pg_conf_fail_at(
            ctx, node,
            "benchmark '%s' has no 'function' (the C prototype "
            "of the function to gate), 'problem' nor 'suite' (a "
            "Google Benchmark binary the build makes)",
            b->name);
    } else if ((err = parse_problem(ctx, v, b)) < 0) {
        return err;
    } else if ((err = pg_conf_function_keys_alone(ctx, node)) < 0) {
        return err;
    }
    if ((err = parse_project(ctx, node, b)) < 0 ||
        (err = parse_sources(ctx, node, b)) < 0)
        return err;
    b->symbol = pg_strdup("solution");
    if ((v = pg_conf_lookup(ctx, node, "symbol", NULL)) &&
        (err = pg_conf_get_string(ctx, v, "symbol", &b->symbol)) < 0)
        return err;
    if ((err = parse_language(ctx, node, b)) < 0 ||
        (err = parse_cuda(ctx, node, b)) < 0 ||
        (err = parse_choices(ctx, node, b)) < 0 ||
        (err = parse_flags(ctx, node, b)) < 0 ||
        (err = parse_cases(ctx, node, b)) < 0)
        return err;
    if (b->function && (err = pg_conf_check_function(ctx, node, b)) < 0)
        return err;
    return 0;
}

static int parse_root(parse_ctx *ctx, yaml_node_t *root, pg_config *cfg)
{
    yaml_node_t *v, *key;
    yaml_node_item_t *it;
    int err;

    if (!root || (root->type == YAML_SCALAR_NODE && !*pg_conf_scalar(root)))
        return pg_error_set(PG_ERR_USAGE,
                            "%s:1:1: the file is empty; it needs "
                            "'version: 1' and 'benchmarks'",
                            ctx->display);
    if (root->type != YAML_MAPPING_NODE)
        return pg_conf_fail_at(
            ctx, root,
            "the top level must be a mapping with 'version' and "
            "'benchmarks'");
    if ((err = pg_conf_check_keys(ctx, root, "at the top level", top_keys)) < 0)
        return err;

    if (!(v = pg_conf_lookup(ctx, root, "version", NULL)))
        return pg_conf_fail_at(ctx, root,
                               "missing 'version: 1' at the top level");
    if (!pg_conf_is_plain(v) || strcmp(pg_conf_scalar(v), "1"))
        return pg_conf_fail_at(ctx, v,
                               "unsupported version '%s': this perfgate reads "
                               "version 1",
                               pg_conf_scalar(v) ? pg_conf_scalar(v) : "?");

    if ((v = pg_conf_lookup(ctx, root, "settings", NULL)) &&
        (err = parse_settings(ctx, v, cfg)) < 0)
        return err;

    if (!(v = pg_conf_lookup(ctx, root, "benchmarks", &key)))
        return pg_conf_fail_at(
            ctx, root, "missing 'benchmarks': list at least one benchmark");
    if ((err = check_list(ctx, v, key, MAX_BENCHMARKS,
                          "'benchmarks' must be a list of at least one "
                          "benchmark",
                          "more than %d benchmarks; split them over several "
                          "configs (perfgate compare --config FILE)")) < 0)
        return err;
    cfg->benchmarks = pg_calloc(pg_conf_seq_len(v), sizeof(pg_bench_config));
    for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        yaml_node_t *bn = pg_conf_node_at(ctx, *it);
        pg_bench_config *b = &cfg->benchmarks[cfg->nbenchmarks++];
        size_t j;

        if ((err = parse_benchmark(ctx, bn, b)) < 0)
            return err;
        for (j = 0; j + 1 < cfg->nbenchmarks; j++) {
            if (!strcmp(cfg->benchmarks[j].name, b->name)) {
                pg_error_set(PG_ERR_USAGE,
                             "%s:%d:%d: duplicate benchmark name '%s' "
                             "(first at line %d)",
                             ctx->display, b->mark.line, b->mark.col, b->name,
                             cfg->benchmarks[j].mark.line);
                return PG_ERR_USAGE;
            }
        }
    }
    return pg_conf_parse_accepts(ctx, root, cfg);
}

int pg_config_parse(pg_config *out, const char *text, size_t len,
                    const char *display, const char *dir,
                    const char *const *builtins)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    parse_ctx ctx;
    int err;

    memset(out, 0, sizeof(*out));
    out->path = pg_strdup(display);
    pg_settings_defaults(&out->settings);
    {
        uint64_t h = 0xcbf29ce484222325ULL;
        size_t i;
        for (i = 0; i < len; i++)
            h = (h ^ (unsigned char)text[i]) * 0x100000001b3ULL;
        snprintf(out->digest, sizeof(out->digest), "%016llx",
                 (unsigned long long)h);
    }

    if ((err = pg_conf_check_shape(text, len, display)) < 0)
        return err;
    if (!yaml_parser_initialize(&parser))
        return pg_error_set(PG_ERR_GENERIC, "cannot initialize libyaml");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        err = pg_error_set(PG_ERR_USAGE, "%s:%d:%d: invalid YAML: %s%s%s",
                           display, (int)parser.problem_mark.line + 1,
                           (int)parser.problem_mark.column + 1,
                           parser.problem ? parser.problem : "syntax error",
                           parser.context ? " " : "",
                           parser.context ? parser.context : "");
        yaml_parser_delete(&parser);
        return err;
    }
    memset(&ctx, 0, sizeof(ctx));
    ctx.doc = &doc;
    ctx.display = display;
    ctx.dir = dir;
    ctx.builtins = builtins;
    err = parse_root(&ctx, yaml_document_get_root_node(&doc), out);
    free(ctx.build);
    free(ctx.library);
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return err;
}

int pg_config_load(pg_config *out, const char *path, const char *display,
                   const char *const *builtins)
{
    char *text = NULL, *dir;
    size_t len = 0;
    int err;

    if (pg_read_file(&text, &len, path, PG_CONFIG_MAX_BYTES) < 0) {
        memset(out, 0, sizeof(*out));
        /* A FIFO that nobody writes: Ctrl-C is not a bad config. */
        if (errno == EINTR || pg_interrupted())
            return pg_error_set(PG_ERR_INTERRUPTED, "interrupted");
        if (errno == ENOENT)
            return pg_error_set(PG_ERR_USAGE,
                                "%s: no such file; make one with "
                                "'perfgate init --function \"PROTOTYPE\" "
                                "--sources FILE' (every key: docs/config.md "
                                "in perfgate's source), or pass --config "
                                "FILE",
                                display);
        return pg_error_set(PG_ERR_USAGE, "%s: cannot read: %s", display,
                            errno == EFBIG ? "larger than 1 MiB"
                                           : strerror(errno));
    }
    dir = pg_path_dirname(path);
    err = pg_config_parse(out, text, len, display, dir, builtins);
    free(dir);
    free(text);
    return err;
}

static void free_list(char **list, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

void pg_config_clear(pg_config *cfg)
{
    size_t i, j;

    for (i = 0; i < cfg->nbenchmarks; i++) {
        pg_bench_config *b = &cfg->benchmarks[i];
        free(b->name);
        free(b->problem);
        free(b->problem_path);
        pg_function_free(b->function);
        free_list(b->sources, b->nsources);
        free(b->symbol);
        free(b->language);
        free_list(b->cuda_arch, b->ncuda_arch);
        free_list(b->nvcc_flags, b->nnvcc_flags);
        free_list(b->cflags, b->ncflags);
        free_list(b->include, b->ninclude);
        free(b->build);
        free(b->library);
        free(b->suite);
        free(b->filter);
        free_list(b->libraries, b->nlibraries);
        free_list(b->ldflags, b->nldflags);
        free_list(b->adapters, b->nadapters);
        for (j = 0; j < b->nfile_cflags; j++) {
            free(b->file_cflags[j].pattern);
            free_list(b->file_cflags[j].flags, b->file_cflags[j].nflags);
        }
        free(b->file_cflags);
        for (j = 0; j < b->ncases; j++)
            pg_casespec_clear(&b->cases[j]);
        free(b->cases);
    }
    free(cfg->benchmarks);
    for (i = 0; i < cfg->naccepts; i++) {
        free(cfg->accepts[i].benchmark);
        free(cfg->accepts[i].why);
    }
    free(cfg->accepts);
    free_list(cfg->pass_env, cfg->npass_env);
    free_list(cfg->skip_paths, cfg->nskip_paths);
    free(cfg->path);
    memset(cfg, 0, sizeof(*cfg));
}
