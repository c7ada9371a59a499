/*
 * config_parse.h - what the parts of perfgate.yml's parser share: the
 * parse's context, the YAML reader that points every message at the key
 * or value at fault (config_parse.c), and each part's entry: config.c
 * the file, its settings and benchmarks; config_function.c a function's
 * entry; config_accept.c accept:.  Private to gate/config.  It names the
 * config's types by their tags, so that config.c, which includes it, is
 * not included back.
 */
#ifndef PG_CONFIG_PARSE_H
#define PG_CONFIG_PARSE_H

#include <stddef.h>
#include <yaml.h>

#include "casespec.h"

struct pg_bench_config;
struct pg_config;

#define MAX_BENCHMARKS 1000

typedef struct parse_ctx {
    yaml_document_t *doc;
    const char *display;
    const char *dir;
    const char *const *builtins;
    char *build, *library; /* settings' defaults for every benchmark */
} parse_ctx;

pg_mark pg_conf_mark_of(const yaml_node_t *node);

int pg_conf_fail_at(parse_ctx *ctx, const yaml_node_t *node, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));

yaml_node_t *pg_conf_node_at(parse_ctx *ctx, int id);

/* How many items a sequence node holds. */
size_t pg_conf_seq_len(const yaml_node_t *seq);

const char *pg_conf_scalar(const yaml_node_t *node);

int pg_conf_is_plain(const yaml_node_t *node);

const char *pg_conf_type_name(const yaml_node_t *node);

/*
 * Checks that every key of `map` is a scalar from `allowed` and appears
 * once; suggests the nearest allowed key for a typo.
 */
int pg_conf_check_keys(parse_ctx *ctx, yaml_node_t *map, const char *where,
                       const char *const *allowed);

yaml_node_t *pg_conf_lookup(parse_ctx *ctx, yaml_node_t *map, const char *key,
                            yaml_node_t **key_node);

/* memory: report, gate or off, into *out (PG_MEMORY_*); 0 or negative. */
int pg_conf_get_memory(parse_ctx *ctx, yaml_node_t *v, int *out);

int pg_conf_get_string(parse_ctx *ctx, yaml_node_t *node, const char *key,
                       char **out);

/* A list of strings; a single string is taken as a list of one. */
int pg_conf_get_string_list(parse_ctx *ctx, yaml_node_t *node, const char *key,
                            char ***out, size_t *count);

int pg_conf_parse_function(parse_ctx *ctx, yaml_node_t *node, yaml_node_t *v,
                           struct pg_bench_config *b);

/* A path in the compared revisions: relative, and not out of them. */
int pg_conf_check_repo_path(parse_ctx *ctx, yaml_node_t *node, const char *what,
                            const char *path);

/* A suite: entry (config_suite.c): its own keys, none of a function's
 * or a problem's, and the project build that makes it. */
int pg_conf_parse_suite(parse_ctx *ctx, yaml_node_t *node, yaml_node_t *v,
                        struct pg_bench_config *b);

/* A problem benchmark with keys that only a function's has. */
int pg_conf_function_keys_alone(parse_ctx *ctx, yaml_node_t *node);

/* After the cases: checked against the prototype, and its problem made. */
int pg_conf_check_function(parse_ctx *ctx, yaml_node_t *node,
                           struct pg_bench_config *b);

/* accept: a list of entries, after the benchmarks they name. */
int pg_conf_parse_accepts(parse_ctx *ctx, yaml_node_t *root,
                          struct pg_config *cfg);

/*
 * Reads the config's events, before any document is built, and refuses
 * one deeper, larger or with more aliases than a config can need: a pull
 * request may carry a config made to keep perfgate busy.  Syntax errors
 * are left for the loader to report.  0, or PG_ERR_USAGE.
 */
int pg_conf_check_shape(const char *text, size_t len, const char *display);

#endif
