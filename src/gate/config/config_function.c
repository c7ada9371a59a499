/*
 * config_function.c - a benchmark declared by its prototype in
 * perfgate.yml (function.h): its args:, check:, work:, returns:, batch:
 * and helpers: read and checked, then the function made ready
 * (config_parse.h).
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

static const char *const buffer_keys[] = {"count", "fill", "range", "file",
                                          "from",  "with", NULL};
static const char *const check_keys_[] = {"rel", "abs", "reference", NULL};
static const char *const work_keys[] = {"flops", "bytes", NULL};
static const char *const returns_keys[] = {"free", "length", "timed", NULL};

static int parse_fvalues(parse_ctx *ctx, yaml_node_t *map, pg_fvalue **out,
                         size_t *n, int nested);

static pg_fmark fmark_of(const yaml_node_t *node)
{
    pg_fmark m;

    m.at = pg_conf_mark_of(node);
    m.quoted = node->type == YAML_SCALAR_NODE &&
               node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    return m;
}

/* A scalar that is a number or an expression, as text. */
static int get_expr(parse_ctx *ctx, yaml_node_t *node, const char *key,
                    char **out, pg_fmark *mark)
{
    if (!pg_conf_scalar(node) || !*pg_conf_scalar(node))
        return pg_conf_fail_at(
            ctx, node, "'%s' must be a number or an expression such as 2*n",
            key);
    *out = pg_strdup(pg_conf_scalar(node));
    *mark = fmark_of(node);
    return 0;
}

static int get_bool(parse_ctx *ctx, yaml_node_t *node, const char *key,
                    int *out)
{
    const char *t = pg_conf_is_plain(node) ? pg_conf_scalar(node) : NULL;

    if (t && (!strcmp(t, "true") || !strcmp(t, "false"))) {
        *out = !strcmp(t, "true");
        return 0;
    }
    return pg_conf_fail_at(ctx, node, "'%s' must be true or false", key);
}

static int get_number(parse_ctx *ctx, yaml_node_t *node, const char *key,
                      double *out)
{
    const char *t = pg_conf_scalar(node);
    char *end;

    errno = 0;
    if (!t || !*t || (*out = strtod(t, &end), *end) || errno || !isfinite(*out))
        return pg_conf_fail_at(ctx, node, "'%s' must be a number", key);
    return 0;
}

/* A buffer: {count: N, fill: KIND, range: [LO, HI], file: PATH,
 * from: "CALL", with: {...}}. */
/* range: [LO, HI], at `x` (its key at `key`): the buffer's values. */
static int buffer_range(parse_ctx *ctx, pg_fvalue *v, yaml_node_t *x,
                        yaml_node_t *key)
{
    yaml_node_t *lo, *hi;
    int err;

    if (v->fill_given)
        return pg_conf_fail_at(ctx, key, "give 'fill' or 'range', not both");
    if (x->type != YAML_SEQUENCE_NODE || pg_conf_seq_len(x) != 2)
        return pg_conf_fail_at(ctx, x, "range must be [LO, HI]");
    lo = pg_conf_node_at(ctx, x->data.sequence.items.start[0]);
    hi = pg_conf_node_at(ctx, x->data.sequence.items.start[1]);
    if ((err = get_number(ctx, lo, "range", &v->lo)) < 0 ||
        (err = get_number(ctx, hi, "range", &v->hi)) < 0)
        return err;
    if (v->lo > v->hi)
        return pg_conf_fail_at(
            ctx, x, "range [%g, %g]: LO must not be above HI", v->lo, v->hi);
    v->fill = PG_FILL_RANGE;
    v->fill_given = 1;
    v->fill_mark = fmark_of(x);
    return 0;
}

/* file: PATH, at `x`: the buffer's bytes, from a file beside the config. */
static int buffer_file(parse_ctx *ctx, pg_fvalue *v, yaml_node_t *x,
                       yaml_node_t *key)
{
    int err;

    if (v->fill_given)
        return pg_conf_fail_at(ctx, key, "give one of 'fill', 'range', 'file'");
    if ((err = pg_conf_get_string(ctx, x, "file", &v->file)) < 0)
        return err;
    v->file_path = pg_path_join(ctx->dir, v->file);
    if (!pg_path_is_file(v->file_path))
        return pg_conf_fail_at(ctx, x,
                               "file '%s' not found (%s); it is read from the "
                               "working tree, beside the config",
                               v->file, v->file_path);
    /* Read by the measuring child, in the box. */
    pg_box_show(v->file_path);
    v->fill = PG_FILL_FILE;
    v->fill_given = 1;
    v->fill_mark = fmark_of(x);
    return 0;
}

static int parse_buffer(parse_ctx *ctx, yaml_node_t *node, pg_fvalue *v,
                        int nested)
{
    static const char *const fills[] = {"random", "text", "zeros", "ascending",
                                        NULL};
    yaml_node_t *x, *key;
    int err, i;

    if ((err = pg_conf_check_keys(ctx, node, "in a buffer", buffer_keys)) < 0)
        return err;
    v->is_buffer = 1;
    if ((x = pg_conf_lookup(ctx, node, "count", NULL)) &&
        (err = get_expr(ctx, x, "count", &v->count, &v->count_mark)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, node, "fill", &key))) {
        for (i = 0; fills[i] &&
                    (!pg_conf_scalar(x) || strcmp(pg_conf_scalar(x), fills[i]));
             i++)
            ;
        if (!fills[i])
            return pg_conf_fail_at(
                ctx, x,
                "fill: want random, text, zeros or ascending (or "
                "range: [LO, HI], or file: PATH)");
        v->fill = (pg_fill)i;
        v->fill_given = 1;
        v->fill_mark = fmark_of(x);
    }
    if ((x = pg_conf_lookup(ctx, node, "range", &key)) &&
        (err = buffer_range(ctx, v, x, key)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, node, "file", &key)) &&
        (err = buffer_file(ctx, v, x, key)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, node, "from", &key))) {
        if (nested)
            return pg_conf_fail_at(ctx, key,
                                   "a buffer of 'with' cannot have a 'from'");
        if (v->fill_given)
            return pg_conf_fail_at(ctx, key,
                                   "'from' writes the buffer: drop its fill");
        if ((err = pg_conf_get_string(ctx, x, "from", &v->from)) < 0)
            return err;
        v->from_mark = fmark_of(x);
    }
    if ((x = pg_conf_lookup(ctx, node, "with", &key))) {
        if (nested || !v->from)
            return pg_conf_fail_at(ctx, key,
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
        return pg_conf_fail_at(
            ctx, map,
            "'%s' must be a mapping of names to values, such as "
            "{len: n, buf: {count: n}}",
            nested ? "with" : "args");
    *out = pg_calloc(
        (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start) +
            1,
        sizeof(pg_fvalue));
    for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = pg_conf_node_at(ctx, p->key),
                    *v = pg_conf_node_at(ctx, p->value);
        pg_fvalue *fv = &(*out)[*n];
        size_t i;

        if (!pg_conf_scalar(k) || !pg_valid_name(pg_conf_scalar(k)) ||
            strchr(pg_conf_scalar(k), '.') || strchr(pg_conf_scalar(k), '-'))
            return pg_conf_fail_at(ctx, k, "'%s' must be a C name",
                                   pg_conf_scalar(k) ? pg_conf_scalar(k) : "?");
        for (i = 0; i < *n; i++)
            if (!strcmp((*out)[i].name, pg_conf_scalar(k)))
                return pg_conf_fail_at(ctx, k, "'%s' is given twice",
                                       pg_conf_scalar(k));
        (*n)++;
        fv->name = pg_strdup(pg_conf_scalar(k));
        fv->mark = fmark_of(k);
        if (v->type == YAML_MAPPING_NODE)
            err = parse_buffer(ctx, v, fv, nested);
        else if (nested)
            err = pg_conf_fail_at(ctx, v,
                                  "'%s' in 'with' must be a buffer, {count: N}",
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
    const char *t = pg_conf_scalar(v);
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
        return pg_conf_fail_at(
            ctx, v,
            "check: want base (the default), none, "
            "\"reference FUNCTION\", or {rel: 1e-6, abs: 0}");
    if ((err = pg_conf_check_keys(ctx, v, "in 'check'", check_keys_)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, v, "rel", NULL)) &&
        (err = get_number(ctx, x, "rel", &f->rel)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, v, "abs", NULL)) &&
        (err = get_number(ctx, x, "abs", &f->abs)) < 0)
        return err;
    if (f->rel < 0 || f->abs < 0)
        return pg_conf_fail_at(ctx, v,
                               "check: rel and abs must not be negative");
    if ((x = pg_conf_lookup(ctx, v, "reference", NULL))) {
        if ((err = pg_conf_get_string(ctx, x, "reference", &f->reference)) < 0)
            return err;
        if (!pg_valid_name(f->reference))
            return pg_conf_fail_at(ctx, x, "reference: a function's name");
        f->check = PG_CHECK_REFERENCE;
    }
    return 0;
}

static int parse_work(parse_ctx *ctx, yaml_node_t *v, pg_function *f)
{
    yaml_node_t *x;
    int err;

    if (v->type != YAML_MAPPING_NODE)
        return pg_conf_fail_at(ctx, v,
                               "work: a mapping, such as {bytes: len} or "
                               "{flops: 2*n, bytes: 8*n}");
    if ((err = pg_conf_check_keys(ctx, v, "in 'work'", work_keys)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, v, "flops", NULL)) &&
        (err = get_expr(ctx, x, "flops", &f->flops, &f->flops_mark)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, v, "bytes", NULL)) &&
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
        return pg_conf_fail_at(
            ctx, v,
            "returns: a mapping, such as {free: free} (a string "
            "the caller frees), {length: n, free: my_free} (n "
            "elements) or {free: none} (memory the caller does "
            "not own)");
    if ((err = pg_conf_check_keys(ctx, v, "in 'returns'", returns_keys)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, v, "free", NULL))) {
        free(f->free_fn);
        f->free_fn = NULL;
        if ((err = pg_conf_get_string(ctx, x, "free", &f->free_fn)) < 0)
            return err;
        f->free_mark = fmark_of(x);
        if (!pg_valid_name(f->free_fn) ||
            (f->free_fn[0] >= '0' && f->free_fn[0] <= '9'))
            return pg_conf_fail_at(
                ctx, x,
                "free: the function that frees the result, such "
                "as free or cmark_node_free, or none");
        if (!strcmp(f->free_fn, "none")) {
            free(f->free_fn);
            f->free_fn = NULL;
        }
    }
    if ((x = pg_conf_lookup(ctx, v, "length", NULL)) &&
        (err = get_expr(ctx, x, "length", &f->length, &f->length_mark)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, v, "timed", NULL)) &&
        (err = get_bool(ctx, x, "timed", &f->free_timed)) < 0)
        return err;
    return 0;
}

/* batch: how many calls of the function one timed call makes. */
static int get_batch(parse_ctx *ctx, yaml_node_t *node, int *out)
{
    long long v;

    if (!pg_conf_is_plain(node) || pg_parse_ll(&v, pg_conf_scalar(node)) < 0 ||
        v < 1 || v > 1000000)
        return pg_conf_fail_at(
            ctx, node,
            "'batch' must be a whole number of calls from 1 to "
            "1000000, such as batch: 64 (each timed call then "
            "calls the function 64 times)");
    *out = (int)v;
    return 0;
}

int pg_conf_parse_function(parse_ctx *ctx, yaml_node_t *node, yaml_node_t *v,
                           pg_bench_config *b)
{
    pg_function *f = b->function = pg_calloc(1, sizeof(*f));
    yaml_node_t *x, *key;
    size_t i;
    int err;

    if ((x = pg_conf_lookup(ctx, node, "problem", &key)))
        return pg_conf_fail_at(
            ctx, key,
            "give 'problem' or 'function', not both: 'function' "
            "makes the problem from the prototype");
    if ((x = pg_conf_lookup(ctx, node, "symbol", &key)))
        return pg_conf_fail_at(ctx, key,
                               "'symbol' is the function's name in 'function'");
    if ((err = pg_conf_get_string(ctx, v, "function", &f->prototype)) < 0)
        return err;
    f->mark = fmark_of(v);
    f->args_mark = f->mark;
    if ((x = pg_conf_lookup(ctx, node, "helpers", NULL))) {
        if ((err = pg_conf_get_string_list(ctx, x, "helpers", &f->helpers,
                                           &f->nhelpers)) < 0)
            return err;
        f->helper_marks = pg_calloc(f->nhelpers + 1, sizeof(pg_fmark));
        for (i = 0; i < f->nhelpers; i++)
            f->helper_marks[i] = fmark_of(
                x->type == YAML_SEQUENCE_NODE
                    ? pg_conf_node_at(ctx, x->data.sequence.items.start[i])
                    : x);
    }
    if ((x = pg_conf_lookup(ctx, node, "args", &key))) {
        f->args_mark = fmark_of(key);
        if ((err = parse_fvalues(ctx, x, &f->args, &f->nargs, 0)) < 0)
            return err;
    }
    if ((x = pg_conf_lookup(ctx, node, "check", NULL)) &&
        (err = parse_check(ctx, x, f)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, node, "work", NULL)) &&
        (err = parse_work(ctx, x, f)) < 0)
        return err;
    f->batch = 1;
    if ((x = pg_conf_lookup(ctx, node, "batch", NULL)) &&
        (err = get_batch(ctx, x, &f->batch)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, node, "returns", NULL)) &&
        (err = parse_returns(ctx, x, f)) < 0)
        return err;
    if ((x = pg_conf_lookup(ctx, node, "header", NULL))) {
        if ((err = pg_conf_get_string(ctx, x, "header", &f->header)) < 0)
            return err;
        f->header_mark = fmark_of(x);
        if (f->header[0] == '/' || strstr(f->header, "..") || !*f->header)
            return pg_conf_fail_at(
                ctx, x,
                "header: the header's path in the repository, "
                "such as include/xxhash.h");
    } else if (!strchr(f->prototype, '(')) {
        return pg_conf_fail_at(
            ctx, v,
            "function: '%s' is a name without its prototype: add "
            "header: with the header that declares it, or write "
            "the prototype, such as \"int %s(const char *s, "
            "size_t n)\"",
            f->prototype, f->prototype);
    }
    return 0;
}

/* A problem benchmark with keys that only a function's has. */
int pg_conf_function_keys_alone(parse_ctx *ctx, yaml_node_t *node)
{
    static const char *const keys[] = {"args",  "check",   "helpers", "work",
                                       "batch", "returns", NULL};
    const char *const *k;
    yaml_node_t *key;

    for (k = keys; *k; k++)
        if (pg_conf_lookup(ctx, node, *k, &key))
            return pg_conf_fail_at(
                ctx, key,
                "'%s' belongs to a benchmark declared by its "
                "'function', not to one with a 'problem'",
                *k);
    return 0;
}

/* After the cases: checked against the prototype, and its problem made. */
int pg_conf_check_function(parse_ctx *ctx, yaml_node_t *node,
                           pg_bench_config *b)
{
    pg_function *f = b->function;

    if (!strcmp(b->language, "cuda"))
        return pg_conf_fail_at(
            ctx, node,
            "benchmark '%s': a CUDA kernel needs a problem file "
            "(its launch is not in its prototype)",
            b->name);
    if (!b->ncases)
        return pg_conf_fail_at(
            ctx, node,
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
            return pg_conf_fail_at(ctx, node,
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
