/*
 * config_parse.c - perfgate.yml's YAML read with every node's place at
 * hand, so that a message points at the key or value at fault
 * (config_parse.h).
 */
#include "config_parse.h"
#include "error.h"
#include "settings.h"
#include "str.h"
#include "words.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* What a config may be, beyond its size: far more than any real one needs,
 * far less than it takes to keep perfgate busy. */
#define MAX_DEPTH 32     /* mappings and lists inside each other */
#define MAX_NODES 100000 /* scalars, mappings and lists */
#define MAX_ALIASES 100  /* *references to &anchors */

pg_mark pg_conf_mark_of(const yaml_node_t *node)
{
    pg_mark m;

    m.line = (int)node->start_mark.line + 1;
    m.col = (int)node->start_mark.column + 1;
    return m;
}

int pg_conf_fail_at(parse_ctx *ctx, const yaml_node_t *node, const char *fmt,
                    ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;
    pg_mark m = pg_conf_mark_of(node);

    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    pg_error_set(PG_ERR_USAGE, "%s:%d:%d: %s", ctx->display, m.line, m.col,
                 pg_str_cstr(&msg));
    pg_str_clear(&msg);
    return PG_ERR_USAGE;
}

yaml_node_t *pg_conf_node_at(parse_ctx *ctx, int id)
{
    return yaml_document_get_node(ctx->doc, id);
}

/* How many items a sequence node holds. */
size_t pg_conf_seq_len(const yaml_node_t *seq)
{
    return (size_t)(seq->data.sequence.items.top -
                    seq->data.sequence.items.start);
}

const char *pg_conf_scalar(const yaml_node_t *node)
{
    return node->type == YAML_SCALAR_NODE
               ? (const char *)node->data.scalar.value
               : NULL;
}

int pg_conf_is_plain(const yaml_node_t *node)
{
    return node->type == YAML_SCALAR_NODE &&
           node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

const char *pg_conf_type_name(const yaml_node_t *node)
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
int pg_conf_check_keys(parse_ctx *ctx, yaml_node_t *map, const char *where,
                       const char *const *allowed)
{
    yaml_node_pair_t *p, *q;

    for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *key = pg_conf_node_at(ctx, p->key);
        const char *k = pg_conf_scalar(key);
        const char *const *a;
        const char *hint;

        if (!k)
            return pg_conf_fail_at(ctx, key, "keys %s must be plain words",
                                   where);
        for (a = allowed; *a && strcmp(*a, k); a++)
            ;
        if (!*a) {
            hint = pg_suggest(k, allowed);
            if (hint)
                return pg_conf_fail_at(
                    ctx, key, "unknown key '%s' %s (did you mean '%s'?)", k,
                    where, hint);
            return pg_conf_fail_at(ctx, key, "unknown key '%s' %s", k, where);
        }
        for (q = map->data.mapping.pairs.start; q < p; q++) {
            if (!strcmp(pg_conf_scalar(pg_conf_node_at(ctx, q->key)), k))
                return pg_conf_fail_at(ctx, key, "duplicate key '%s' %s", k,
                                       where);
        }
    }
    return 0;
}

yaml_node_t *pg_conf_lookup(parse_ctx *ctx, yaml_node_t *map, const char *key,
                            yaml_node_t **key_node)
{
    yaml_node_pair_t *p;

    for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = pg_conf_node_at(ctx, p->key);
        if (pg_conf_scalar(k) && !strcmp(pg_conf_scalar(k), key)) {
            if (key_node)
                *key_node = k;
            return pg_conf_node_at(ctx, p->value);
        }
    }
    return NULL;
}

int pg_conf_get_string(parse_ctx *ctx, yaml_node_t *node, const char *key,
                       char **out)
{
    const char *v = pg_conf_scalar(node);

    if (!v)
        return pg_conf_fail_at(ctx, node, "'%s' must be a string, not %s", key,
                               pg_conf_type_name(node));
    if (!*v)
        return pg_conf_fail_at(ctx, node, "'%s' must not be empty", key);
    free(*out);
    *out = pg_strdup(v);
    return 0;
}

/* A list of strings; a single string is taken as a list of one. */
int pg_conf_get_string_list(parse_ctx *ctx, yaml_node_t *node, const char *key,
                            char ***out, size_t *count)
{
    yaml_node_item_t *it;
    size_t n = 0;

    if (node->type == YAML_SCALAR_NODE) {
        *out = pg_calloc(1, sizeof(char *));
        *count = 1;
        return pg_conf_get_string(ctx, node, key, &(*out)[0]);
    }
    if (node->type != YAML_SEQUENCE_NODE)
        return pg_conf_fail_at(ctx, node, "'%s' must be a list of strings",
                               key);
    *out = pg_calloc((size_t)(node->data.sequence.items.top -
                              node->data.sequence.items.start) +
                         1,
                     sizeof(char *));
    for (it = node->data.sequence.items.start;
         it < node->data.sequence.items.top; it++) {
        yaml_node_t *item = pg_conf_node_at(ctx, *it);
        int err;
        *count = n + 1;
        if ((err = pg_conf_get_string(ctx, item, key, &(*out)[n++])) < 0)
            return err;
    }
    *count = n;
    return 0;
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
int pg_conf_check_shape(const char *text, size_t len, const char *display)
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

int pg_conf_get_memory(parse_ctx *ctx, yaml_node_t *v, int *out)
{
    const char *t = pg_conf_scalar(v);

    if (!t || (*out = pg_memory_mode_parse(t)) < 0)
        return pg_conf_fail_at(
            ctx, v, "memory '%s': want 'report', 'gate' or 'off'", t ? t : "");
    return 0;
}
