/*
 * config.c - parsing and checking perfgate.yml.
 *
 * libyaml's document API gives a tree whose nodes carry their positions;
 * the checks below walk it with the schema in hand, so that every message
 * points at the key or value at fault.
 */
#include "config.h"
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

/* The config's own files (a problem, an adapter) are compiled in the box,
 * which hides homes and /tmp: their directory is shown there, read-only,
 * and that alone. */
static void show_dir_of(const char *file)
{
    char *dir = pg_path_dirname(file);

    pg_box_show(dir);
    free(dir);
}

#define PG_CONFIG_MAX_BYTES (1 << 20)
/* What a config may be, beyond its size: far more than any real one needs,
 * far less than it takes to keep perfgate busy. */
#define MAX_DEPTH 32     /* mappings and lists inside each other */
#define MAX_NODES 100000 /* scalars, mappings and lists */
#define MAX_ALIASES 100  /* *references to &anchors */
#define MAX_BENCHMARKS 1000
#define MAX_CASES 1000 /* per benchmark */

typedef struct parse_ctx {
    yaml_document_t *doc;
    const char *display;
    const char *dir;
    const char *const *builtins;
    char *build, *library; /* settings' defaults for every benchmark */
} parse_ctx;

static int parse_accepts(parse_ctx *ctx, yaml_node_t *root, pg_config *cfg);

static const char *const top_keys[] = {"version", "settings", "benchmarks",
                                       "accept", NULL};
static const char *const accept_keys[] = {"benchmark", "up_to", "why", "until",
                                          NULL};
static const char *const settings_keys[] = {
    "noise_floor", "max_time",     "min_rounds", "timeout",     "gate",
    "build",       "library",      "measure",    "count_floor", "counter",
    "path_check",  "inconclusive", "pass_env",   "skip_paths",  NULL};
static const char *const bench_keys[] = {
    "name",       "problem",     "sources",     "symbol",   "language",
    "cflags",     "include",     "cases",       "cache",    "cuda_arch",
    "nvcc_flags", "symbols",     "gate",        "build",    "library",
    "ldflags",    "adapters",    "file_cflags", "function", "args",
    "check",      "helpers",     "work",        "measure",  "inconclusive",
    "batch",      "noise_floor", "returns",     "header",   NULL};
static const char *const buffer_keys[] = {"count", "fill", "range", "file",
                                          "from",  "with", NULL};
static const char *const check_keys_[] = {"rel", "abs", "reference", NULL};
static const char *const work_keys[] = {"flops", "bytes", NULL};
static const char *const returns_keys[] = {"free", "length", "timed", NULL};

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

static pg_mark mark_of(const yaml_node_t *node)
{
    pg_mark m;

    m.line = (int)node->start_mark.line + 1;
    m.col = (int)node->start_mark.column + 1;
    return m;
}

static int fail_at(parse_ctx *ctx, const yaml_node_t *node, const char *fmt,
                   ...) __attribute__((format(printf, 3, 4)));

static int fail_at(parse_ctx *ctx, const yaml_node_t *node, const char *fmt,
                   ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;
    pg_mark m = mark_of(node);

    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    pg_error_set(PG_ERR_USAGE, "%s:%d:%d: %s", ctx->display, m.line, m.col,
                 pg_str_cstr(&msg));
    pg_str_clear(&msg);
    return PG_ERR_USAGE;
}

static yaml_node_t *node_at(parse_ctx *ctx, int id)
{
    return yaml_document_get_node(ctx->doc, id);
}

/* How many items a sequence node holds. */
static size_t seq_len(const yaml_node_t *seq)
{
    return (size_t)(seq->data.sequence.items.top -
                    seq->data.sequence.items.start);
}

static const char *scalar(const yaml_node_t *node)
{
    return node->type == YAML_SCALAR_NODE
               ? (const char *)node->data.scalar.value
               : NULL;
}

static int is_plain(const yaml_node_t *node)
{
    return node->type == YAML_SCALAR_NODE &&
           node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static const char *type_name(const yaml_node_t *node)
{
    switch (node->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    default:
        return "a scalar";
    }
}

/*
 * Checks that every key of `map` is a scalar from `allowed` and appears
 * once; suggests the nearest allowed key for a typo.
 */
static int check_keys(parse_ctx *ctx, yaml_node_t *map, const char *where,
                      const char *const *allowed)
{
    yaml_node_pair_t *p, *q;

    for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *key = node_at(ctx, p->key);
        const char *k = scalar(key);
        const char *const *a;
        const char *hint;

        if (!k)
            return fail_at(ctx, key, "keys %s must be plain words", where);
        for (a = allowed; *a && strcmp(*a, k); a++)
            ;
        if (!*a) {
            hint = pg_suggest(k, allowed);
            if (hint)
                return fail_at(ctx, key,
                               "unknown key '%s' %s (did you mean '%s'?)", k,
                               where, hint);
            return fail_at(ctx, key, "unknown key '%s' %s", k, where);
        }
        for (q = map->data.mapping.pairs.start; q < p; q++) {
            if (!strcmp(scalar(node_at(ctx, q->key)), k))
                return fail_at(ctx, key, "duplicate key '%s' %s", k, where);
        }
    }
    return 0;
}

static yaml_node_t *lookup(parse_ctx *ctx, yaml_node_t *map, const char *key,
                           yaml_node_t **key_node)
{
    yaml_node_pair_t *p;

    for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_at(ctx, p->key);
        if (scalar(k) && !strcmp(scalar(k), key)) {
            if (key_node)
                *key_node = k;
            return node_at(ctx, p->value);
        }
    }
    return NULL;
}

static int get_string(parse_ctx *ctx, yaml_node_t *node, const char *key,
                      char **out)
{
    const char *v = scalar(node);

    if (!v)
        return fail_at(ctx, node, "'%s' must be a string, not %s", key,
                       type_name(node));
    if (!*v)
        return fail_at(ctx, node, "'%s' must not be empty", key);
    free(*out);
    *out = pg_strdup(v);
    return 0;
}

/* A list of strings; a single string is taken as a list of one. */
static int get_string_list(parse_ctx *ctx, yaml_node_t *node, const char *key,
                           char ***out, size_t *count)
{
    yaml_node_item_t *it;
    size_t n = 0;

    if (node->type == YAML_SCALAR_NODE) {
        *out = pg_calloc(1, sizeof(char *));
        *count = 1;
        return get_string(ctx, node, key, &(*out)[0]);
    }
    if (node->type != YAML_SEQUENCE_NODE)
        return fail_at(ctx, node, "'%s' must be a list of strings", key);
    *out = pg_calloc((size_t)(node->data.sequence.items.top -
                              node->data.sequence.items.start) +
                         1,
                     sizeof(char *));
    for (it = node->data.sequence.items.start;
         it < node->data.sequence.items.top; it++) {
        yaml_node_t *item = node_at(ctx, *it);
        int err;
        *count = n + 1;
        if ((err = get_string(ctx, item, key, &(*out)[n++])) < 0)
            return err;
    }
    *count = n;
    return 0;
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

    if ((err = get_string_list(ctx, node, key, out, count)) < 0)
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
        err = fail_at(ctx, node,
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
static int check_repo_path(parse_ctx *ctx, yaml_node_t *node, const char *what,
                           const char *path)
{
    if (path[0] == '/' || !strncmp(path, "../", 3) || strstr(path, "/../") ||
        !strcmp(path, ".."))
        return fail_at(ctx, node,
                       "%s '%s' must be a path inside the repository", what,
                       path);
    return 0;
}

static int get_positive_int(parse_ctx *ctx, yaml_node_t *node, const char *key,
                            int *out)
{
    long long v;

    if (!is_plain(node) || pg_parse_ll(&v, scalar(node)) < 0)
        return fail_at(ctx, node, "'%s' must be a whole number", key);
    if (v < 1 || v > 1000000000)
        return fail_at(ctx, node, "'%s' must be between 1 and 1000000000", key);
    *out = (int)v;
    return 0;
}

static int get_duration(parse_ctx *ctx, yaml_node_t *node, const char *key,
                        double *out)
{
    const char *v = scalar(node);

    if (!v || pg_parse_duration(out, v) < 0 || *out <= 0)
        return fail_at(ctx, node,
                       "'%s' must be a duration such as 10s, 500ms or 2m", key);
    return 0;
}

/* A key with two values: *out is 0 for `off`, 1 for `on`. */
static int get_choice(parse_ctx *ctx, yaml_node_t *v, const char *key,
                      const char *off, const char *on, int *out)
{
    const char *t = scalar(v);

    if (t && (!strcmp(t, off) || !strcmp(t, on))) {
        *out = !strcmp(t, on);
        return 0;
    }
    return fail_at(ctx, v, "%s '%s': want '%s' or '%s'", key, t ? t : "", off,
                   on);
}

/* A noise floor: a percentage or a fraction, above 0 and below 100%. */
static int get_floor(parse_ctx *ctx, yaml_node_t *v, const char *key,
                     double *out)
{
    const char *t = scalar(v);

    if (!t || pg_parse_fraction(out, t) < 0) {
        char *end = NULL;
        double bare = t ? strtod(t, &end) : 0;
        if (t && end != t && !*end && bare > 1)
            return fail_at(ctx, v,
                           "'%s' %s is more than 100%% (did you mean '%s%%'?)",
                           key, t, t);
        return fail_at(ctx, v,
                       "'%s' must be a percentage such as 5%% or a fraction "
                       "such as 0.05",
                       key);
    }
    if (*out >= 1.0)
        return fail_at(ctx, v, "'%s' must be below 100%%", key);
    /* At 0%, noise alone fails identical code. */
    if (*out <= 0)
        return fail_at(ctx, v,
                       "'%s' must be above 0%%: every measurement has some "
                       "noise (perfgate compare --aa shows this machine's)",
                       key);
    return 0;
}

/* measure: time, instructions, cycles or all. */
static int get_measure(parse_ctx *ctx, yaml_node_t *v, int *out)
{
    const char *t = scalar(v);
    int m = !t ? -1 : !strcmp(t, "all") ? PG_MEASURE_ALL : pg_metric_parse(t);

    if (m < 0)
        return fail_at(ctx, v,
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

    if ((err = get_string_list(ctx, node, "skip_paths", &cfg->skip_paths,
                               &cfg->nskip_paths)) < 0)
        return err;
    for (i = 0; i < cfg->nskip_paths; i++) {
        char *p = cfg->skip_paths[i];
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
            p[--n] = '\0';
        if (!*p || p[0] == '/' || strstr(p, ".."))
            return fail_at(ctx, node,
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

    if ((err = get_string_list(ctx, node, "pass_env", &cfg->pass_env,
                               &cfg->npass_env)) < 0)
        return err;
    for (i = 0; i < cfg->npass_env; i++) {
        const char *n = cfg->pass_env[i];
        if (!pg_box_env_name_ok(n))
            return fail_at(ctx, node,
                           "pass_env: '%s' is not the name of an "
                           "environment variable (letters, digits and _, "
                           "not starting with a digit)",
                           n);
        if (!strcmp(n, "HOME") || !strcmp(n, "TMPDIR"))
            return fail_at(ctx, node,
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

    if (node->type == YAML_SCALAR_NODE && !*scalar(node))
        return 0; /* "settings:" with nothing under it */
    if (node->type != YAML_MAPPING_NODE)
        return fail_at(ctx, node, "'settings' must be a mapping, not %s",
                       type_name(node));
    if ((err = check_keys(ctx, node, "in settings", settings_keys)) < 0)
        return err;
    if ((v = lookup(ctx, node, "build", NULL)) &&
        (err = get_string(ctx, v, "build", &ctx->build)) < 0)
        return err;
    if ((v = lookup(ctx, node, "library", NULL)) &&
        ((err = get_string(ctx, v, "library", &ctx->library)) < 0 ||
         (err = check_repo_path(ctx, v, "library", ctx->library)) < 0))
        return err;
    if ((v = lookup(ctx, node, "noise_floor", NULL))) {
        if ((err = get_floor(ctx, v, "noise_floor", &s->noise_floor)) < 0)
            return err;
        s->floor_source = PG_FLOOR_CONFIG;
    }
    if ((v = lookup(ctx, node, "count_floor", NULL)) &&
        (err = get_floor(ctx, v, "count_floor", &s->count_floor)) < 0)
        return err;
    if ((v = lookup(ctx, node, "measure", NULL)) &&
        (err = get_measure(ctx, v, &s->measure)) < 0)
        return err;
    if ((v = lookup(ctx, node, "counter", NULL))) {
        const char *t = scalar(v);
        int k = !t ? -1 : !strcmp(t, "auto") ? 0 : pg_counter_parse(t);
        if (k < 0 || (t && !strcmp(t, "none")))
            return fail_at(ctx, v,
                           "counter '%s': want 'auto', 'hardware' or "
                           "'callgrind'",
                           t ? t : "");
        s->counter = k;
    }
    if ((v = lookup(ctx, node, "path_check", NULL))) {
        const char *t = scalar(v);
        int m = t ? pg_path_check_parse(t) : -1;
        if (m < 0)
            return fail_at(ctx, v,
                           "path_check '%s': want 'warn', 'gate' or 'off'",
                           t ? t : "");
        s->path_check = m;
    }
    if ((v = lookup(ctx, node, "max_time", NULL)) &&
        (err = get_duration(ctx, v, "max_time", &s->max_time)) < 0)
        return err;
    if ((v = lookup(ctx, node, "timeout", NULL)) &&
        (err = get_duration(ctx, v, "timeout", &s->timeout)) < 0)
        return err;
    if ((v = lookup(ctx, node, "min_rounds", NULL)) &&
        (err = get_positive_int(ctx, v, "min_rounds", &s->min_rounds)) < 0)
        return err;
    if ((v = lookup(ctx, node, "gate", NULL)) &&
        (err = get_choice(ctx, v, "gate", "total", "cases", &s->gate_cases)) <
            0)
        return err;
    if ((v = lookup(ctx, node, "inconclusive", NULL)) &&
        (err = get_choice(ctx, v, "inconclusive", "pass", "fail",
                          &s->inconclusive_fails)) < 0)
        return err;
    if ((v = lookup(ctx, node, "skip_paths", NULL)) &&
        (err = get_skip_paths(ctx, v, cfg)) < 0)
        return err;
    if ((v = lookup(ctx, node, "pass_env", NULL)) &&
        (err = get_pass_env(ctx, v, cfg)) < 0)
        return err;
    return 0;
}

static int parse_case(parse_ctx *ctx, yaml_node_t *node, pg_casespec *out)
{
    yaml_node_pair_t *p;

    memset(out, 0, sizeof(*out));
    out->mark = mark_of(node);
    if (node->type != YAML_MAPPING_NODE)
        return fail_at(ctx, node,
                       "each case must be a mapping of parameters, "
                       "such as {n: 1000}");
    for (p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_at(ctx, p->key), *v = node_at(ctx, p->value);
        long long value;

        if (!scalar(k) || !pg_valid_name(scalar(k)))
            return fail_at(ctx, k, "case parameters must be plain names");
        if (pg_casespec_has(out, scalar(k)))
            return fail_at(ctx, k, "duplicate parameter '%s' in case",
                           scalar(k));
        if (!is_plain(v) || pg_parse_ll(&value, scalar(v)) < 0)
            return fail_at(ctx, v, "case parameter '%s' must be a whole number",
                           scalar(k));
        pg_casespec_add(out, scalar(k), value);
    }
    if (out->nparams == 0)
        return fail_at(ctx, node, "a case needs at least one parameter");
    pg_casespec_name(out);
    return 0;
}

static int parse_problem(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    const char *const *bi;
    const char *hint;
    int err;

    if ((err = get_string(ctx, node, "problem", &b->problem)) < 0)
        return err;
    b->problem_mark = mark_of(node);
    if (strchr(b->problem, '/') || strstr(b->problem, ".c")) {
        b->problem_path = pg_path_join(ctx->dir, b->problem);
        if (!pg_path_is_file(b->problem_path))
            return fail_at(ctx, node, "problem file '%s' not found (%s)",
                           b->problem, b->problem_path);
        show_dir_of(b->problem_path);
        return 0;
    }
    for (bi = ctx->builtins; *bi; bi++)
        if (!strcmp(*bi, b->problem))
            return 0;
    hint = pg_suggest(b->problem, ctx->builtins);
    if (hint)
        return fail_at(ctx, node, "unknown problem '%s' (did you mean '%s'?)",
                       b->problem, hint);
    return fail_at(ctx, node,
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
    if (v->type != YAML_SEQUENCE_NODE || seq_len(v) == 0)
        return fail_at(ctx, v->type == YAML_SEQUENCE_NODE && key ? key : v,
                       "%s", empty);
    if (seq_len(v) > (size_t)max)
        return fail_at(ctx, v, too_many, max);
    return 0;
}

static int parse_bench_name(parse_ctx *ctx, yaml_node_t *node,
                            pg_bench_config *b)
{
    yaml_node_t *v;
    int err;

    if (!(v = lookup(ctx, node, "name", NULL)))
        return fail_at(ctx, node, "benchmark has no 'name'");
    if ((err = get_string(ctx, v, "name", &b->name)) < 0)
        return err;
    if (!pg_valid_name(b->name))
        return fail_at(ctx, v,
                       "benchmark name '%s' may only hold letters, digits, "
                       "'_', '.' and '-'",
                       b->name);
    b->mark = mark_of(v);
    return 0;
}

static int parse_sources(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v;
    size_t i;
    int err;

    if (!(v = lookup(ctx, node, "sources", NULL))) {
        if (b->library || b->nadapters)
            return 0;
        return fail_at(ctx, node,
                       "benchmark '%s' has no 'sources' (nor a 'library' "
                       "that its 'build' makes, nor 'adapters')",
                       b->name);
    }
    if ((err = get_string_list(ctx, v, "sources", &b->sources, &b->nsources)) <
        0)
        return err;
    if (b->nsources == 0)
        return fail_at(ctx, v, "'sources' must list at least one file");
    for (i = 0; i < b->nsources; i++)
        if ((err = check_repo_path(ctx, v, "source", b->sources[i])) < 0)
            return err;
    return 0;
}

/* 'language', else what the first source's extension says. */
static int parse_language(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v;
    const char *lang;
    int err;

    if ((v = lookup(ctx, node, "language", NULL))) {
        if ((err = get_string(ctx, v, "language", &b->language)) < 0)
            return err;
        if (strcmp(b->language, "c") && strcmp(b->language, "c++") &&
            strcmp(b->language, "cuda"))
            return fail_at(ctx, v, "language '%s': want 'c', 'c++' or 'cuda'",
                           b->language);
        return 0;
    }
    if (!b->nsources) {
        b->language = pg_strdup("c"); /* a library and adapters: C's ABI */
        return 0;
    }
    if (!(lang = pg_language_for(b->sources[0])))
        return fail_at(ctx, node,
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

    if ((v = lookup(ctx, node, "cuda_arch", NULL))) {
        if (v->type == YAML_SCALAR_NODE) {
            b->cuda_arch = pg_calloc(1, sizeof(char *));
            b->ncuda_arch = 1;
            err = get_string(ctx, v, "cuda_arch", &b->cuda_arch[0]);
        } else {
            err = get_string_list(ctx, v, "cuda_arch", &b->cuda_arch,
                                  &b->ncuda_arch);
        }
        if (err < 0)
            return err;
        for (i = 0; i < b->ncuda_arch; i++)
            if (strncmp(b->cuda_arch[i], "sm_", 3) ||
                strspn(b->cuda_arch[i] + 3, "0123456789") < 2)
                return fail_at(ctx, v,
                               "cuda_arch '%s': want names such as sm_80 or "
                               "sm_90",
                               b->cuda_arch[i]);
    }
    if ((v = lookup(ctx, node, "nvcc_flags", NULL)) &&
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
    if ((v = lookup(ctx, node, "cache", NULL)) &&
        (err = get_choice(ctx, v, "cache", "warm", "cold", &b->cold)) < 0)
        return err;
    b->measure = -1;
    if ((v = lookup(ctx, node, "measure", NULL)) &&
        (err = get_measure(ctx, v, &b->measure)) < 0)
        return err;
    b->gate = -1;
    if ((v = lookup(ctx, node, "gate", NULL)) &&
        (err = get_choice(ctx, v, "gate", "total", "cases", &b->gate)) < 0)
        return err;
    b->inconclusive = -1;
    if ((v = lookup(ctx, node, "inconclusive", NULL)) &&
        (err = get_choice(ctx, v, "inconclusive", "pass", "fail",
                          &b->inconclusive)) < 0)
        return err;
    if ((v = lookup(ctx, node, "noise_floor", NULL)) &&
        (err = get_floor(ctx, v, "noise_floor", &b->noise_floor)) < 0)
        return err;
    if ((v = lookup(ctx, node, "symbols", NULL)) &&
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
        return fail_at(ctx, v,
                       "'file_cflags' must map sources to their flags, such "
                       "as {lib/huf.c: [-fno-tree-vectorize]}");
    b->file_cflags = pg_calloc(
        (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start) + 1,
        sizeof(*b->file_cflags));
    for (pair = v->data.mapping.pairs.start; pair < v->data.mapping.pairs.top;
         pair++) {
        yaml_node_t *k = node_at(ctx, pair->key);
        yaml_node_t *val = node_at(ctx, pair->value);
        pg_file_flags *f = &b->file_cflags[b->nfile_cflags++];
        if ((err = get_string(ctx, k, "file_cflags", &f->pattern)) < 0 ||
            (err = check_repo_path(ctx, k, "source", f->pattern)) < 0 ||
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

    if ((v = lookup(ctx, node, "build", NULL))) {
        if ((err = get_string(ctx, v, "build", &b->build)) < 0)
            return err;
    } else if (ctx->build) {
        b->build = pg_strdup(ctx->build);
    }
    if ((lib = lookup(ctx, node, "library", NULL))) {
        if ((err = get_string_list(ctx, lib, "library", &b->libraries,
                                   &b->nlibraries)) < 0)
            return err;
        if (!b->nlibraries)
            return fail_at(ctx, lib,
                           "'library' names no file: give the path the "
                           "build makes, or a list of them to try in order");
        for (i = 0; i < b->nlibraries; i++)
            if ((err = check_repo_path(ctx, lib, "library", b->libraries[i])) <
                0)
                return err;
        b->library = pg_strdup(b->libraries[0]);
    } else if (ctx->library) {
        b->library = pg_strdup(ctx->library);
        b->libraries = pg_calloc(1, sizeof(char *));
        b->libraries[0] = pg_strdup(ctx->library);
        b->nlibraries = 1;
    }
    if (b->library && !b->build)
        return fail_at(ctx, lib ? lib : node,
                       "benchmark '%s' names a 'library' but no 'build' "
                       "command makes it (add build: make, or a script)",
                       b->name);
    if (!(v = lookup(ctx, node, "adapters", NULL)))
        return 0;
    if ((err = get_string_list(ctx, v, "adapters", &b->adapters,
                               &b->nadapters)) < 0)
        return err;
    for (i = 0; i < b->nadapters; i++) {
        char *path = pg_path_join(ctx->dir, b->adapters[i]);
        if (!pg_path_is_file(path)) {
            err = fail_at(ctx, v,
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

    if ((v = lookup(ctx, node, "cflags", NULL))) {
        if ((err = get_flags(ctx, v, "cflags", &b->cflags, &b->ncflags)) < 0)
            return err;
    } else {
        b->cflags = pg_calloc(1, sizeof(char *));
        b->cflags[0] = pg_strdup("-O2");
        b->ncflags = 1;
    }
    if ((v = lookup(ctx, node, "include", NULL)) &&
        (err = get_string_list(ctx, v, "include", &b->include, &b->ninclude)) <
            0)
        return err;
    if ((v = lookup(ctx, node, "ldflags", NULL)) &&
        (err = get_flags(ctx, v, "ldflags", &b->ldflags, &b->nldflags)) < 0)
        return err;
    if ((v = lookup(ctx, node, "file_cflags", NULL)))
        return parse_file_cflags(ctx, v, b);
    return 0;
}

static int parse_cases(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    yaml_node_t *v;
    yaml_node_item_t *it;
    int err;

    if (!(v = lookup(ctx, node, "cases", NULL)))
        return 0;
    if ((err = check_list(ctx, v, NULL, MAX_CASES,
                          "'cases' must be a list of mappings, such as "
                          "[{n: 1000}, {n: 100000}]",
                          "more than %d cases in one benchmark; a few sizes "
                          "that matter say more than many")) < 0)
        return err;
    b->cases = pg_calloc(seq_len(v), sizeof(pg_casespec));
    for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        size_t j;
        yaml_node_t *cn = node_at(ctx, *it);
        if ((err = parse_case(ctx, cn, &b->cases[b->ncases++])) < 0)
            return err;
        for (j = 0; j + 1 < b->ncases; j++)
            if (!strcmp(b->cases[j].name, b->cases[b->ncases - 1].name))
                return fail_at(ctx, cn, "duplicate case '%s'",
                               b->cases[j].name);
    }
    return 0;
}

/* ---- a benchmark declared by its prototype (function.h) ---- */

static pg_fmark fmark_of(const yaml_node_t *node)
{
    pg_fmark m;

    m.at = mark_of(node);
    m.quoted = node->type == YAML_SCALAR_NODE &&
               node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    return m;
}

/* A scalar that is a number or an expression, as text. */
static int get_expr(parse_ctx *ctx, yaml_node_t *node, const char *key,
                    char **out, pg_fmark *mark)
{
    if (!scalar(node) || !*scalar(node))
        return fail_at(ctx, node,
                       "'%s' must be a number or an expression such as 2*n",
                       key);
    *out = pg_strdup(scalar(node));
    *mark = fmark_of(node);
    return 0;
}

static int get_bool(parse_ctx *ctx, yaml_node_t *node, const char *key,
                    int *out)
{
    const char *t = is_plain(node) ? scalar(node) : NULL;

    if (t && (!strcmp(t, "true") || !strcmp(t, "false"))) {
        *out = !strcmp(t, "true");
        return 0;
    }
    return fail_at(ctx, node, "'%s' must be true or false", key);
}

static int get_number(parse_ctx *ctx, yaml_node_t *node, const char *key,
                      double *out)
{
    const char *t = scalar(node);
    char *end;

    errno = 0;
    if (!t || !*t || (*out = strtod(t, &end), *end) || errno || !isfinite(*out))
        return fail_at(ctx, node, "'%s' must be a number", key);
    return 0;
}

static int parse_fvalues(parse_ctx *ctx, yaml_node_t *map, pg_fvalue **out,
                         size_t *n, int nested);

/* A buffer: {count: N, fill: KIND, range: [LO, HI], file: PATH,
 * from: "CALL", with: {...}}. */
static int parse_buffer(parse_ctx *ctx, yaml_node_t *node, pg_fvalue *v,
                        int nested)
{
    static const char *const fills[] = {"random", "text", "zeros", "ascending",
                                        NULL};
    yaml_node_t *x, *key;
    int err, i;

    if ((err = check_keys(ctx, node, "in a buffer", buffer_keys)) < 0)
        return err;
    v->is_buffer = 1;
    if ((x = lookup(ctx, node, "count", NULL)) &&
        (err = get_expr(ctx, x, "count", &v->count, &v->count_mark)) < 0)
        return err;
    if ((x = lookup(ctx, node, "fill", &key))) {
        for (i = 0; fills[i] && (!scalar(x) || strcmp(scalar(x), fills[i]));
             i++)
            ;
        if (!fills[i])
            return fail_at(ctx, x,
                           "fill: want random, text, zeros or ascending (or "
                           "range: [LO, HI], or file: PATH)");
        v->fill = (pg_fill)i;
        v->fill_given = 1;
        v->fill_mark = fmark_of(x);
    }
    if ((x = lookup(ctx, node, "range", &key))) {
        yaml_node_t *lo, *hi;
        if (v->fill_given)
            return fail_at(ctx, key, "give 'fill' or 'range', not both");
        if (x->type != YAML_SEQUENCE_NODE || seq_len(x) != 2)
            return fail_at(ctx, x, "range must be [LO, HI]");
        lo = node_at(ctx, x->data.sequence.items.start[0]);
        hi = node_at(ctx, x->data.sequence.items.start[1]);
        if ((err = get_number(ctx, lo, "range", &v->lo)) < 0 ||
            (err = get_number(ctx, hi, "range", &v->hi)) < 0)
            return err;
        if (v->lo > v->hi)
            return fail_at(ctx, x, "range [%g, %g]: LO must not be above HI",
                           v->lo, v->hi);
        v->fill = PG_FILL_RANGE;
        v->fill_given = 1;
        v->fill_mark = fmark_of(x);
    }
    if ((x = lookup(ctx, node, "file", &key))) {
        if (v->fill_given)
            return fail_at(ctx, key, "give one of 'fill', 'range', 'file'");
        if ((err = get_string(ctx, x, "file", &v->file)) < 0)
            return err;
        v->file_path = pg_path_join(ctx->dir, v->file);
        if (!pg_path_is_file(v->file_path))
            return fail_at(ctx, x,
                           "file '%s' not found (%s); it is read from the "
                           "working tree, beside the config",
                           v->file, v->file_path);
        /* Read by the measuring child, in the box. */
        pg_box_show(v->file_path);
        v->fill = PG_FILL_FILE;
        v->fill_given = 1;
        v->fill_mark = fmark_of(x);
    }
    if ((x = lookup(ctx, node, "from", &key))) {
        if (nested)
            return fail_at(ctx, key, "a buffer of 'with' cannot have a 'from'");
        if (v->fill_given)
            return fail_at(ctx, key, "'from' writes the buffer: drop its fill");
        if ((err = get_string(ctx, x, "from", &v->from)) < 0)
            return err;
        v->from_mark = fmark_of(x);
    }
    if ((x = lookup(ctx, node, "with", &key))) {
        if (nested || !v->from)
            return fail_at(ctx, key,
                           "'with' holds the buffers of a 'from' call");
        return parse_fvalues(ctx, x, &v->with, &v->nwith, 1);
    }
    return 0;
}

/* The entries of `args` (or of `with`, nested). */
static int parse_fvalues(parse_ctx *ctx, yaml_node_t *map, pg_fvalue **out,
                         size_t *n, int nested)
{
    yaml_node_pair_t *p;
    int err;

    if (map->type != YAML_MAPPING_NODE)
        return fail_at(ctx, map,
                       "'%s' must be a mapping of names to values, such as "
                       "{len: n, buf: {count: n}}",
                       nested ? "with" : "args");
    *out = pg_calloc(
        (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start) +
            1,
        sizeof(pg_fvalue));
    for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = node_at(ctx, p->key), *v = node_at(ctx, p->value);
        pg_fvalue *fv = &(*out)[*n];
        size_t i;

        if (!scalar(k) || !pg_valid_name(scalar(k)) || strchr(scalar(k), '.') ||
            strchr(scalar(k), '-'))
            return fail_at(ctx, k, "'%s' must be a C name",
                           scalar(k) ? scalar(k) : "?");
        for (i = 0; i < *n; i++)
            if (!strcmp((*out)[i].name, scalar(k)))
                return fail_at(ctx, k, "'%s' is given twice", scalar(k));
        (*n)++;
        fv->name = pg_strdup(scalar(k));
        fv->mark = fmark_of(k);
        if (v->type == YAML_MAPPING_NODE)
            err = parse_buffer(ctx, v, fv, nested);
        else if (nested)
            err = fail_at(ctx, v, "'%s' in 'with' must be a buffer, {count: N}",
                          fv->name);
        else
            err = get_expr(ctx, v, fv->name, &fv->expr, &fv->expr_mark);
        if (err < 0)
            return err;
    }
    return 0;
}

/* check: base | none | "reference NAME" | {rel: R, abs: A, reference: NAME} */
static int parse_check(parse_ctx *ctx, yaml_node_t *v, pg_function *f)
{
    const char *t = scalar(v);
    yaml_node_t *x;
    int err;

    f->check_mark = fmark_of(v);
    if (t && !strcmp(t, "base"))
        return 0;
    if (t && !strcmp(t, "none")) {
        f->check = PG_CHECK_NONE;
        return 0;
    }
    if (t && !strncmp(t, "reference ", 10) && pg_valid_name(t + 10)) {
        f->check = PG_CHECK_REFERENCE;
        f->reference = pg_strdup(t + 10);
        return 0;
    }
    if (v->type != YAML_MAPPING_NODE)
        return fail_at(ctx, v,
                       "check: want base (the default), none, "
                       "\"reference FUNCTION\", or {rel: 1e-6, abs: 0}");
    if ((err = check_keys(ctx, v, "in 'check'", check_keys_)) < 0)
        return err;
    if ((x = lookup(ctx, v, "rel", NULL)) &&
        (err = get_number(ctx, x, "rel", &f->rel)) < 0)
        return err;
    if ((x = lookup(ctx, v, "abs", NULL)) &&
        (err = get_number(ctx, x, "abs", &f->abs)) < 0)
        return err;
    if (f->rel < 0 || f->abs < 0)
        return fail_at(ctx, v, "check: rel and abs must not be negative");
    if ((x = lookup(ctx, v, "reference", NULL))) {
        if ((err = get_string(ctx, x, "reference", &f->reference)) < 0)
            return err;
        if (!pg_valid_name(f->reference))
            return fail_at(ctx, x, "reference: a function's name");
        f->check = PG_CHECK_REFERENCE;
    }
    return 0;
}

static int parse_work(parse_ctx *ctx, yaml_node_t *v, pg_function *f)
{
    yaml_node_t *x;
    int err;

    if (v->type != YAML_MAPPING_NODE)
        return fail_at(ctx, v,
                       "work: a mapping, such as {bytes: len} or "
                       "{flops: 2*n, bytes: 8*n}");
    if ((err = check_keys(ctx, v, "in 'work'", work_keys)) < 0)
        return err;
    if ((x = lookup(ctx, v, "flops", NULL)) &&
        (err = get_expr(ctx, x, "flops", &f->flops, &f->flops_mark)) < 0)
        return err;
    if ((x = lookup(ctx, v, "bytes", NULL)) &&
        (err = get_expr(ctx, x, "bytes", &f->bytes, &f->bytes_mark)) < 0)
        return err;
    return 0;
}

/* returns: what a pointer result is, and how it is freed. */
static int parse_returns(parse_ctx *ctx, yaml_node_t *v, pg_function *f)
{
    yaml_node_t *x;
    int err;

    f->returns = 1;
    f->returns_mark = fmark_of(v);
    f->free_fn = pg_strdup("free");
    f->free_mark = f->returns_mark;
    if (v->type != YAML_MAPPING_NODE)
        return fail_at(ctx, v,
                       "returns: a mapping, such as {free: free} (a string "
                       "the caller frees), {length: n, free: my_free} (n "
                       "elements) or {free: none} (memory the caller does "
                       "not own)");
    if ((err = check_keys(ctx, v, "in 'returns'", returns_keys)) < 0)
        return err;
    if ((x = lookup(ctx, v, "free", NULL))) {
        free(f->free_fn);
        f->free_fn = NULL;
        if ((err = get_string(ctx, x, "free", &f->free_fn)) < 0)
            return err;
        f->free_mark = fmark_of(x);
        if (!pg_valid_name(f->free_fn) ||
            (f->free_fn[0] >= '0' && f->free_fn[0] <= '9'))
            return fail_at(ctx, x,
                           "free: the function that frees the result, such "
                           "as free or cmark_node_free, or none");
        if (!strcmp(f->free_fn, "none")) {
            free(f->free_fn);
            f->free_fn = NULL;
        }
    }
    if ((x = lookup(ctx, v, "length", NULL)) &&
        (err = get_expr(ctx, x, "length", &f->length, &f->length_mark)) < 0)
        return err;
    if ((x = lookup(ctx, v, "timed", NULL)) &&
        (err = get_bool(ctx, x, "timed", &f->free_timed)) < 0)
        return err;
    return 0;
}

/* The keys a function benchmark has, before its cases are read. */
/* batch: how many calls of the function one timed call makes. */
static int get_batch(parse_ctx *ctx, yaml_node_t *node, int *out)
{
    long long v;

    if (!is_plain(node) || pg_parse_ll(&v, scalar(node)) < 0 || v < 1 ||
        v > 1000000)
        return fail_at(ctx, node,
                       "'batch' must be a whole number of calls from 1 to "
                       "1000000, such as batch: 64 (each timed call then "
                       "calls the function 64 times)");
    *out = (int)v;
    return 0;
}

static int parse_function(parse_ctx *ctx, yaml_node_t *node, yaml_node_t *v,
                          pg_bench_config *b)
{
    pg_function *f = b->function = pg_calloc(1, sizeof(*f));
    yaml_node_t *x, *key;
    size_t i;
    int err;

    if ((x = lookup(ctx, node, "problem", &key)))
        return fail_at(ctx, key,
                       "give 'problem' or 'function', not both: 'function' "
                       "makes the problem from the prototype");
    if ((x = lookup(ctx, node, "symbol", &key)))
        return fail_at(ctx, key,
                       "'symbol' is the function's name in 'function'");
    if ((err = get_string(ctx, v, "function", &f->prototype)) < 0)
        return err;
    f->mark = fmark_of(v);
    f->args_mark = f->mark;
    if ((x = lookup(ctx, node, "helpers", NULL))) {
        if ((err = get_string_list(ctx, x, "helpers", &f->helpers,
                                   &f->nhelpers)) < 0)
            return err;
        f->helper_marks = pg_calloc(f->nhelpers + 1, sizeof(pg_fmark));
        for (i = 0; i < f->nhelpers; i++)
            f->helper_marks[i] =
                fmark_of(x->type == YAML_SEQUENCE_NODE
                             ? node_at(ctx, x->data.sequence.items.start[i])
                             : x);
    }
    if ((x = lookup(ctx, node, "args", &key))) {
        f->args_mark = fmark_of(key);
        if ((err = parse_fvalues(ctx, x, &f->args, &f->nargs, 0)) < 0)
            return err;
    }
    if ((x = lookup(ctx, node, "check", NULL)) &&
        (err = parse_check(ctx, x, f)) < 0)
        return err;
    if ((x = lookup(ctx, node, "work", NULL)) &&
        (err = parse_work(ctx, x, f)) < 0)
        return err;
    f->batch = 1;
    if ((x = lookup(ctx, node, "batch", NULL)) &&
        (err = get_batch(ctx, x, &f->batch)) < 0)
        return err;
    if ((x = lookup(ctx, node, "returns", NULL)) &&
        (err = parse_returns(ctx, x, f)) < 0)
        return err;
    if ((x = lookup(ctx, node, "header", NULL))) {
        if ((err = get_string(ctx, x, "header", &f->header)) < 0)
            return err;
        f->header_mark = fmark_of(x);
        if (f->header[0] == '/' || strstr(f->header, "..") || !*f->header)
            return fail_at(ctx, x,
                           "header: the header's path in the repository, "
                           "such as include/xxhash.h");
    } else if (!strchr(f->prototype, '(')) {
        return fail_at(ctx, v,
                       "function: '%s' is a name without its prototype: add "
                       "header: with the header that declares it, or write "
                       "the prototype, such as \"int %s(const char *s, "
                       "size_t n)\"",
                       f->prototype, f->prototype);
    }
    return 0;
}

/* A problem benchmark with keys that only a function's has. */
static int function_keys_alone(parse_ctx *ctx, yaml_node_t *node)
{
    static const char *const keys[] = {"args",  "check",   "helpers", "work",
                                       "batch", "returns", NULL};
    const char *const *k;
    yaml_node_t *key;

    for (k = keys; *k; k++)
        if (lookup(ctx, node, *k, &key))
            return fail_at(ctx, key,
                           "'%s' belongs to a benchmark declared by its "
                           "'function', not to one with a 'problem'",
                           *k);
    return 0;
}

/* After the cases: checked against the prototype, and its problem made. */
static int check_function(parse_ctx *ctx, yaml_node_t *node, pg_bench_config *b)
{
    pg_function *f = b->function;

    if (!strcmp(b->language, "cuda"))
        return fail_at(ctx, node,
                       "benchmark '%s': a CUDA kernel needs a problem file "
                       "(its launch is not in its prototype)",
                       b->name);
    if (!b->ncases)
        return fail_at(ctx, node,
                       "benchmark '%s' needs 'cases', the sizes to measure "
                       "at, such as cases: [{n: 1000}, {n: 1000000}]",
                       b->name);
    b->problem_mark = f->mark.at;
    /* header: is read once the sides' trees are there (declare.h); until
     * then the benchmark goes by the function's name. */
    if (f->header) {
        const char *paren = strchr(f->prototype, '(');
        const char *end = paren ? paren : f->prototype + strlen(f->prototype);
        const char *p;
        while (end > f->prototype && isspace((unsigned char)end[-1]))
            end--;
        for (p = end; p > f->prototype &&
                      (isalnum((unsigned char)p[-1]) || p[-1] == '_');
             p--)
            ;
        if (p == end)
            return fail_at(ctx, node,
                           "function: give the function's name, or its "
                           "prototype");
        free(b->symbol);
        b->symbol = pg_strdupf("%.*s", (int)(end - p), p);
        b->problem = pg_strdup(b->symbol);
        return 0;
    }
    return pg_config_function_ready(b, ctx->display);
}

int pg_config_function_ready(pg_bench_config *b, const char *display)
{
    pg_function *f = b->function;
    int err;

    if ((err = pg_function_check(f, display, b->cases, b->ncases)) < 0)
        return err;
    free(b->symbol);
    /* batch: the benchmark times the wrapper that calls it n times. */
    b->symbol = f->batch_source ? pg_strdupf("pg_batch_%s", f->name)
                                : pg_strdup(f->name);
    free(b->problem);
    b->problem = pg_strdup(f->name);
    return 0;
}

static int parse_benchmark(parse_ctx *ctx, yaml_node_t *node,
                           pg_bench_config *b)
{
    yaml_node_t *v;
    int err;

    memset(b, 0, sizeof(*b));
    b->mark = mark_of(node);
    if (node->type != YAML_MAPPING_NODE)
        return fail_at(ctx, node, "each benchmark must be a mapping, not %s",
                       type_name(node));
    if ((err = check_keys(ctx, node, "in benchmark", bench_keys)) < 0 ||
        (err = parse_bench_name(ctx, node, b)) < 0)
        return err;
    if ((v = lookup(ctx, node, "function", NULL))) {
        if ((err = parse_function(ctx, node, v, b)) < 0)
            return err;
    } else if (!(v = lookup(ctx, node, "problem", NULL))) {
        return fail_at(ctx, node,
                       "benchmark '%s' has no 'function' (the C prototype "
                       "of the function to gate) nor 'problem'",
                       b->name);
    } else if ((err = parse_problem(ctx, v, b)) < 0) {
        return err;
    } else if ((err = function_keys_alone(ctx, node)) < 0) {
        return err;
    }
    if ((err = parse_project(ctx, node, b)) < 0 ||
        (err = parse_sources(ctx, node, b)) < 0)
        return err;
    b->symbol = pg_strdup("solution");
    if ((v = lookup(ctx, node, "symbol", NULL)) &&
        (err = get_string(ctx, v, "symbol", &b->symbol)) < 0)
        return err;
    if ((err = parse_language(ctx, node, b)) < 0 ||
        (err = parse_cuda(ctx, node, b)) < 0 ||
        (err = parse_choices(ctx, node, b)) < 0 ||
        (err = parse_flags(ctx, node, b)) < 0 ||
        (err = parse_cases(ctx, node, b)) < 0)
        return err;
    if (b->function && (err = check_function(ctx, node, b)) < 0)
        return err;
    return 0;
}

static int parse_root(parse_ctx *ctx, yaml_node_t *root, pg_config *cfg)
{
    yaml_node_t *v, *key;
    yaml_node_item_t *it;
    int err;

    if (!root || (root->type == YAML_SCALAR_NODE && !*scalar(root)))
        return pg_error_set(PG_ERR_USAGE,
                            "%s:1:1: the file is empty; it needs "
                            "'version: 1' and 'benchmarks'",
                            ctx->display);
    if (root->type != YAML_MAPPING_NODE)
        return fail_at(ctx, root,
                       "the top level must be a mapping with 'version' and "
                       "'benchmarks'");
    if ((err = check_keys(ctx, root, "at the top level", top_keys)) < 0)
        return err;

    if (!(v = lookup(ctx, root, "version", NULL)))
        return fail_at(ctx, root, "missing 'version: 1' at the top level");
    if (!is_plain(v) || strcmp(scalar(v), "1"))
        return fail_at(ctx, v,
                       "unsupported version '%s': this perfgate reads "
                       "version 1",
                       scalar(v) ? scalar(v) : "?");

    if ((v = lookup(ctx, root, "settings", NULL)) &&
        (err = parse_settings(ctx, v, cfg)) < 0)
        return err;

    if (!(v = lookup(ctx, root, "benchmarks", &key)))
        return fail_at(ctx, root,
                       "missing 'benchmarks': list at least one benchmark");
    if ((err = check_list(ctx, v, key, MAX_BENCHMARKS,
                          "'benchmarks' must be a list of at least one "
                          "benchmark",
                          "more than %d benchmarks; split them over several "
                          "configs (perfgate compare --config FILE)")) < 0)
        return err;
    cfg->benchmarks = pg_calloc(seq_len(v), sizeof(pg_bench_config));
    for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        yaml_node_t *bn = node_at(ctx, *it);
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
    return parse_accepts(ctx, root, cfg);
}

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
        return fail_at(ctx, node,
                       "each 'accept' entry is a mapping: {benchmark: NAME, "
                       "up_to: 8%%, why: \"...\", until: YYYY-MM-DD}");
    if ((err = check_keys(ctx, node, "in an accept entry", accept_keys)) < 0)
        return err;
    if (!(v = lookup(ctx, node, "benchmark", NULL)))
        return fail_at(ctx, node,
                       "an 'accept' entry names no benchmark: add benchmark: "
                       "NAME, the one whose regression is accepted");
    if ((err = get_string(ctx, v, "benchmark", &a->benchmark)) < 0)
        return err;
    for (i = 0; i < cfg->nbenchmarks && i < MAX_BENCHMARKS; i++)
        names[i] = cfg->benchmarks[i].name;
    names[i] = NULL;
    for (i = 0; i < cfg->nbenchmarks; i++)
        if (!strcmp(cfg->benchmarks[i].name, a->benchmark))
            break;
    if (i == cfg->nbenchmarks) {
        const char *hint = pg_suggest(a->benchmark, names);
        return fail_at(ctx, v,
                       "'accept' names benchmark '%s', which perfgate.yml "
                       "does not have%s%s%s",
                       a->benchmark, hint ? " (did you mean '" : "",
                       hint ? hint : "", hint ? "'?)" : "");
    }
    if (pg_config_accept(cfg, a->benchmark) != a)
        return fail_at(ctx, v, "a second 'accept' entry for benchmark '%s'",
                       a->benchmark);
    if (!(v = lookup(ctx, node, "up_to", NULL)))
        return fail_at(ctx, node,
                       "an 'accept' entry needs 'up_to', how much slower it "
                       "may be, such as up_to: 8%%");
    if (!scalar(v) || pg_parse_fraction(&a->up_to, scalar(v)) < 0 ||
        !(a->up_to > 0) || a->up_to > 10)
        return fail_at(ctx, v,
                       "'up_to' must be how much slower it may be, a "
                       "percentage above 0 such as 8%% (at most 1000%%)");
    if (!(v = lookup(ctx, node, "why", NULL)))
        return fail_at(ctx, node,
                       "an 'accept' entry needs 'why', the reason a reviewer "
                       "agreed to, such as why: \"bounds checks on every "
                       "read\"");
    if ((err = get_string(ctx, v, "why", &a->why)) < 0)
        return err;
    if ((v = lookup(ctx, node, "until", NULL)) &&
        parse_day(scalar(v), a->until) < 0)
        return fail_at(ctx, v,
                       "'until' must be a day as YYYY-MM-DD, such as "
                       "until: 2027-03-31 (the last day it holds)");
    return 0;
}

/* accept: a list of entries, after the benchmarks they name. */
static int parse_accepts(parse_ctx *ctx, yaml_node_t *root, pg_config *cfg)
{
    yaml_node_item_t *it;
    yaml_node_t *v;
    int err;

    if (!(v = lookup(ctx, root, "accept", NULL)))
        return 0;
    if (v->type != YAML_SEQUENCE_NODE)
        return fail_at(ctx, v,
                       "'accept' must be a list of entries, such as "
                       "accept: [{benchmark: sum, up_to: 8%%, why: \"...\"}]");
    cfg->accepts = pg_calloc(seq_len(v) + 1, sizeof(pg_accept));
    for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
         it++) {
        pg_accept *a = &cfg->accepts[cfg->naccepts++];
        if ((err = parse_accept(ctx, node_at(ctx, *it), cfg, a)) < 0)
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

static int too_big(const char *display, const yaml_mark_t *mark,
                   const char *what, int limit)
{
    return pg_error_set(PG_ERR_USAGE,
                        "%s:%d:%d: more than %d %s: perfgate reads configs "
                        "up to that",
                        display, (int)mark->line + 1, (int)mark->column + 1,
                        limit, what);
}

/*
 * Reads the config's events, before any document is built, and refuses
 * one deeper, larger or with more aliases than a config can need: a pull
 * request may carry a config made to keep perfgate busy.  Syntax errors
 * are left for the loader to report.
 */
static int check_shape(const char *text, size_t len, const char *display)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    int depth = 0, nodes = 0, aliases = 0, err = 0, done = 0;

    if (!yaml_parser_initialize(&parser))
        return pg_error_set(PG_ERR_GENERIC, "cannot initialize libyaml");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    while (!err && !done && yaml_parser_parse(&parser, &ev)) {
        switch (ev.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (++depth > MAX_DEPTH)
                err = too_big(display, &ev.start_mark, "levels of nesting",
                              MAX_DEPTH);
            /* fall through */
        case YAML_SCALAR_EVENT:
            if (!err && ++nodes > MAX_NODES)
                err = too_big(display, &ev.start_mark, "values", MAX_NODES);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        case YAML_ALIAS_EVENT:
            if (++aliases > MAX_ALIASES)
                err = too_big(display, &ev.start_mark, "aliases", MAX_ALIASES);
            break;
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    return err;
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

    if ((err = check_shape(text, len, display)) < 0)
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
