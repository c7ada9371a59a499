/*
 * init.c - what `perfgate init` writes: a starter solution for a problem,
 * and the config with a benchmark added.
 */
#include "init.h"
#include "config.h"
#include "error.h"

#include <ctype.h>
#include <string.h>
#include <yaml.h>

#include "banned.h"

static const char *scalar(const yaml_node_t *node)
{
    return node && node->type == YAML_SCALAR_NODE
               ? (const char *)node->data.scalar.value
               : NULL;
}

/* The name of a parameter declaration: its last identifier. */
static void put_param_name(pg_str *out, const char *decl, size_t len)
{
    size_t end = len, start;

    while (end &&
           !(isalnum((unsigned char)decl[end - 1]) || decl[end - 1] == '_'))
        end--;
    start = end;
    while (start &&
           (isalnum((unsigned char)decl[start - 1]) || decl[start - 1] == '_'))
        start--;
    pg_str_put(out, decl + start, end - start);
}

/*
 * Calls `each` with every parameter name of `signature`, in order; -1 when
 * it has no parameter list.
 */
static int each_param(const char *signature,
                      void (*each)(pg_str *out, const char *decl, size_t len),
                      pg_str *out)
{
    const char *open = strchr(signature, '('), *close = strrchr(signature, ')');
    const char *p;

    if (!open || !close || close < open)
        return -1;
    for (p = open + 1; p < close;) {
        const char *comma = memchr(p, ',', (size_t)(close - p));
        size_t len = (size_t)((comma ? comma : close) - p);
        size_t lead = strspn(p, " ");
        /* "(void)" declares no parameter; "void *p" is one. */
        int none = len - lead >= 4 && !strncmp(p + lead, "void", 4) &&
                   strspn(p + lead + 4, " ") == len - lead - 4;
        if (len > lead && !none)
            each(out, p, len);
        p += len + 1;
    }
    return 0;
}

static void put_void_cast(pg_str *out, const char *decl, size_t len)
{
    pg_str_puts(out, "    (void)");
    put_param_name(out, decl, len);
    pg_str_puts(out, ";\n");
}

static void put_argument(pg_str *out, const char *decl, size_t len)
{
    if (out->size && out->ptr[out->size - 1] != '(')
        pg_str_puts(out, ", ");
    put_param_name(out, decl, len);
}

int pg_init_starter_c(pg_str *out, const char *problem, const char *signature)
{
    const char *open = strchr(signature, '('), *close = strrchr(signature, ')');

    if (!open || !close || close < open)
        return -1;
    pg_str_printf(out,
                  "/*\n"
                  " * A solution to perfgate's problem '%s'.  Fill in the "
                  "body, commit,\n"
                  " * then change it and run `perfgate compare` to see the "
                  "difference.\n"
                  " */\n"
                  "#include <stddef.h>\n"
                  "\n"
                  "%s\n"
                  "{\n"
                  "    /* your code here */\n",
                  problem, signature);
    each_param(signature, put_void_cast, out);
    pg_str_puts(out, "}\n");
    return 0;
}

int pg_init_starter_cuda(pg_str *out, const char *problem,
                         const char *signature)
{
    const char *open = strchr(signature, '('), *close = strrchr(signature, ')');

    if (!open || !close || close < open)
        return -1;
    /* The kernel takes the solution's parameters. */
    pg_str_printf(out,
                  "// A CUDA solution to perfgate's problem '%s'.  The "
                  "pointers are device\n"
                  "// memory.  Write the kernel and its launch, commit, then "
                  "change them\n"
                  "// and run `perfgate compare` to see the difference.\n"
                  "#include <cstddef>\n"
                  "\n"
                  "__global__ static void kernel%.*s\n"
                  "{\n"
                  "    // your kernel here\n"
                  "}\n"
                  "\n"
                  "extern \"C\" %s\n"
                  "{\n"
                  "    // choose the grid for the problem's size\n"
                  "    kernel<<<1, 1>>>(",
                  problem, (int)(close - open + 1), open, signature);
    each_param(signature, put_argument, out);
    pg_str_puts(out, ");\n}\n");
    return 0;
}

/* The entry pg_init_add_benchmark() writes, its dash at column `dash`. */
static void put_entry(pg_str *out, int dash, const char *name,
                      const char *problem, const char *source)
{
    pg_str_printf(out, "%*s- name: %s\n", dash, "", name);
    pg_str_printf(out, "%*sproblem: %s\n", dash + 2, "", problem);
    pg_str_printf(out, "%*ssources: [%s]\n", dash + 2, "", source);
}

/* The column of the block list of benchmarks that ends `text`, or -1. */
static int trailing_benchmarks_column(const char *text, size_t len)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_node_t *root, *seq = NULL;
    yaml_node_pair_t *last;
    int col = -1;

    if (!yaml_parser_initialize(&parser))
        return -1;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        yaml_parser_delete(&parser);
        return -1;
    }
    root = yaml_document_get_root_node(&doc);
    if (root && root->type == YAML_MAPPING_NODE &&
        root->data.mapping.pairs.top > root->data.mapping.pairs.start) {
        const char *key;
        last = root->data.mapping.pairs.top - 1;
        key = scalar(yaml_document_get_node(&doc, last->key));
        if (key && !strcmp(key, "benchmarks"))
            seq = yaml_document_get_node(&doc, last->value);
    }
    if (seq && seq->type == YAML_SEQUENCE_NODE &&
        seq->data.sequence.style == YAML_BLOCK_SEQUENCE_STYLE &&
        seq->data.sequence.items.top > seq->data.sequence.items.start)
        col = (int)seq->start_mark.column;
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    return col;
}

int pg_init_add_benchmark(pg_str *out, const char *text, size_t len,
                          const char *display, const char *dir,
                          const char *const *builtins, const char *name,
                          const char *problem, const char *source)
{
    pg_config cfg;
    size_t i;
    int err, col;

    if (!text) {
        pg_str_puts(out, "version: 1\nbenchmarks:\n");
        put_entry(out, 2, name, problem, source);
    } else {
        if ((err = pg_config_parse(&cfg, text, len, display, dir, builtins)) <
            0) {
            pg_config_clear(&cfg);
            return err;
        }
        for (i = 0; i < cfg.nbenchmarks; i++)
            if (!strcmp(cfg.benchmarks[i].name, name)) {
                pg_config_clear(&cfg);
                return pg_error_set(PG_ERR_USAGE,
                                    "%s already has a benchmark '%s': choose "
                                    "another name with --name",
                                    display, name);
            }
        pg_config_clear(&cfg);
        if ((col = trailing_benchmarks_column(text, len)) < 0) {
            pg_str entry = PG_STR_INIT;
            put_entry(&entry, 2, name, problem, source);
            err = pg_error_set(PG_ERR_USAGE,
                               "%s does not end with a list of benchmarks, so "
                               "perfgate will not edit it: add this to its "
                               "'benchmarks' yourself:\n%s",
                               display, pg_str_cstr(&entry));
            pg_str_clear(&entry);
            return err;
        }
        pg_str_put(out, text, len);
        if (len && text[len - 1] != '\n')
            pg_str_putc(out, '\n');
        put_entry(out, col, name, problem, source);
    }
    /* What was written must read back. */
    err = pg_config_parse(&cfg, out->ptr, out->size, display, dir, builtins);
    pg_config_clear(&cfg);
    return err < 0 ? err : 0;
}
