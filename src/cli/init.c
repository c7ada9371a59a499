/*
 * init.c - what `perfgate init` writes: a starter solution for a problem,
 * and the config with a benchmark added.
 */
#include "init.h"
#include "config.h"
#include "error.h"
#include "prototype.h"

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

/* An entry, its dash at column `dash`: "- name: NAME" and the lines of
 * `body`, indented under it. */
static void put_entry(pg_str *out, int dash, const char *name, const char *body)
{
    const char *p = body;

    pg_str_printf(out, "%*s- name: %s\n", dash, "", name);
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        pg_str_printf(out, "%*s%.*s\n", dash + 2, "", (int)len, p);
        p += len + (nl != NULL);
    }
}

/* A parameter's name that says it is a size: n, len, size, count, ... */
static int sizelike(const char *name)
{
    static const char *const words[] = {
        "n",     "len", "length", "size",  "count",   "num",    "nbytes",
        "bytes", "sz",  "nelem",  "nmemb", "srcSize", "srcLen", NULL};
    size_t i, len = strlen(name);

    for (i = 0; words[i]; i++)
        if (!strcmp(name, words[i]))
            return 1;
    return (len > 3 && (!strcmp(name + len - 3, "len") ||
                        !strcmp(name + len - 3, "Len"))) ||
           (len > 4 && (!strcmp(name + len - 4, "size") ||
                        !strcmp(name + len - 4, "Size")));
}

/* The integer parameter that sizes the buffers: a size-like name, else
 * the first integer after a pointer; NULL when there is none. */
static const pg_cparam *size_param(const pg_prototype *p)
{
    size_t i;

    for (i = 0; i < p->nparams; i++)
        if (!p->params[i].type.pointer &&
            p->params[i].type.kind == PG_CKIND_INT &&
            sizelike(p->params[i].name))
            return &p->params[i];
    for (i = 1; i < p->nparams; i++)
        if (!p->params[i].type.pointer &&
            p->params[i].type.kind == PG_CKIND_INT &&
            p->params[i - 1].type.pointer)
            return &p->params[i];
    return NULL;
}

int pg_init_function_entry(pg_str *out, const char *prototype,
                           const char *const *sources, size_t nsources)
{
    pg_prototype p;
    const pg_cparam *size;
    const char *n;
    size_t i, col;
    int err;

    if ((err = pg_prototype_parse(&p, prototype, &col)) < 0)
        return err;
    size = size_param(&p);
    n = size ? size->name : "n";
    pg_str_puts(out, "function: \"");
    for (i = 0; prototype[i]; i++) {
        if (prototype[i] == '"' || prototype[i] == '\\')
            pg_str_putc(out, '\\');
        pg_str_putc(out,
                    isspace((unsigned char)prototype[i]) ? ' ' : prototype[i]);
    }
    pg_str_puts(out, "\"\nsources: [");
    for (i = 0; i < nsources; i++)
        pg_str_printf(out, "%s%s", i ? ", " : "", sources[i]);
    pg_str_puts(out, "]\n");
    if (p.nparams > (size != NULL))
        pg_str_puts(out, "args:\n");
    for (i = 0; i < p.nparams; i++) {
        const pg_cparam *a = &p.params[i];
        if (a == size)
            continue; /* named like the cases' parameter: derived */
        pg_str_printf(out, "  %s: ", a->name);
        if (a->type.pointer && !size)
            pg_str_printf(out,
                          "{count: 1024}  # TODO: how many elements %s "
                          "holds (an expression of the cases' parameters)\n",
                          a->name);
        else if (a->type.pointer && a->type.is_const &&
                 !strcmp(a->type.spelling, "char"))
            pg_str_printf(out,
                          "{count: %s, fill: text}  # or random, zeros, "
                          "range: [LO, HI], file: PATH\n",
                          n);
        else if (a->type.pointer && a->type.is_const)
            pg_str_printf(out,
                          "{count: %s}  # random; or fill: ..., "
                          "range: [LO, HI]\n",
                          n);
        else if (a->type.pointer)
            pg_str_printf(out,
                          "{count: %s}  # written by the function: "
                          "checked against the base's\n",
                          n);
        else if (a->type.kind == PG_CKIND_FLOAT)
            pg_str_printf(out, "1.0  # TODO: a value for %s\n", a->name);
        else
            pg_str_printf(out,
                          "0  # TODO: a value for %s (a number, or an "
                          "expression such as 2*%s)\n",
                          a->name, n);
    }
    if (p.result.pointer && p.result.kind == PG_CKIND_INT && p.result.size == 1)
        pg_str_puts(out, "returns: {free: free}  # a string the caller "
                         "frees; or free: its own function, or none\n");
    else if (p.result.pointer)
        pg_str_puts(out, "returns: {length: 1024, free: free}  # TODO: how "
                         "many elements the result holds, and what frees "
                         "it (or none)\n");
    pg_str_printf(out, "cases: [{%s: 64}, {%s: 4096}, {%s: 1048576}]\n", n, n,
                  n);
    pg_prototype_clear(&p);
    return 0;
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

/* A parameter's type as C spells it, "const unsigned char *"; a void
 * pointee is bytes where `bytes` asks. */
static void put_type(pg_str *out, const pg_ctype *t, int bytes)
{
    const char *base =
        bytes && t->kind == PG_CKIND_VOID ? "unsigned char" : t->spelling;

    pg_str_printf(out, "%s%s%s", t->pointer && t->is_const ? "const " : "",
                  base, t->pointer ? " *" : "");
}

/* The state: the case's size, the arguments apart (so that no
 * parameter's name can clash), the result. */
static void put_state(pg_str *out, const pg_prototype *p)
{
    size_t i;

    pg_str_puts(out, "struct state {\n    size_t n; /* the case's */\n"
                     "    struct {\n");
    for (i = 0; i < p->nparams; i++) {
        pg_str_puts(out, "        ");
        put_type(out, &p->params[i].type, 1);
        pg_str_printf(out, "%s%s;\n", p->params[i].type.pointer ? "" : " ",
                      p->params[i].name);
    }
    pg_str_puts(out, "    } arg;\n");
    if (p->result.kind != PG_CKIND_VOID) {
        pg_str_puts(out, "    ");
        put_type(out, &p->result, 0);
        pg_str_puts(out, " result;\n");
    }
    pg_str_puts(out, "};\n\n");
}

/* setup()'s line for argument `a` of `p`'s function (`size` its size). */
static void put_arg_setup(pg_str *out, const pg_prototype *p,
                          const pg_cparam *a, const pg_cparam *size)
{
    const char *elem =
        a->type.kind == PG_CKIND_VOID ? "unsigned char" : a->type.spelling;

    if (a == size) {
        pg_str_printf(out, "    s->arg.%s = (%s)s->n;\n", a->name,
                      a->type.spelling);
    } else if (!a->type.pointer) {
        pg_str_printf(out, "    s->arg.%s = 0; /* TODO: its value */\n",
                      a->name);
    } else if (!a->type.is_const) {
        pg_str_printf(out,
                      "    /* TODO: how many elements %s() writes */\n"
                      "    if (!(s->arg.%s = pg_alloc(c, s->n * sizeof(%s))))\n"
                      "        return NULL;\n",
                      p->name, a->name, elem);
    } else {
        pg_str_printf(out,
                      "    {\n        /* TODO: what %s holds */\n"
                      "        %s *host = pg_host_alloc(c, s->n * "
                      "sizeof(%s));\n        if (!host)\n"
                      "            return NULL;\n"
                      "        for (i = 0; i < s->n; i++)\n"
                      "            host[i] = (%s)%s;\n"
                      "        if (!(s->arg.%s = pg_alloc_copy(c, host, s->n * "
                      "sizeof(%s))))\n            return NULL;\n    }\n",
                      a->name, elem, elem, elem,
                      a->type.kind == PG_CKIND_FLOAT
                          ? "pg_random_float(c, -1, 1)"
                          : "pg_random(c)",
                      a->name, elem);
    }
}

/* setup(): the state, each argument as its type allows. */
static void put_setup(pg_str *out, const pg_prototype *p)
{
    const pg_cparam *size = size_param(p);
    size_t i;

    pg_str_puts(out, "static void *setup(pg_case *c)\n{\n"
                     "    struct state *s = pg_host_alloc(c, sizeof(*s));\n"
                     "    size_t i;\n\n    if (!s)\n        return NULL;\n"
                     "    s->n = (size_t)pg_param(c, \"n\", 1024);\n");
    for (i = 0; i < p->nparams; i++)
        put_arg_setup(out, p, &p->params[i], size);
    pg_str_puts(out, "    (void)i;\n    return s;\n}\n\n");
}

int pg_init_function_problem(pg_str *out, const char *prototype,
                             const char *path)
{
    pg_prototype p;
    size_t i, col;
    int err;

    if ((err = pg_prototype_parse(&p, prototype, &col)) < 0)
        return err;
    pg_str_printf(out,
                  "/*\n * The problem of %s(), written by `perfgate init "
                  "--problem` from its\n * prototype: fill in the TODOs "
                  "(what the inputs hold, and what verify()\n * checks), "
                  "then run `perfgate compare`.  See perfgate/problem.h.\n"
                  " */\n#include <perfgate/problem.h>\n\n"
                  "#include <stdbool.h>\n#include <stddef.h>\n"
                  "#include <stdint.h>\n#include <sys/types.h>\n\n"
                  "typedef ",
                  p.name);
    put_type(out, &p.result, 0);
    pg_str_puts(out, " (*function_fn)(");
    for (i = 0; i < p.nparams; i++) {
        pg_str_puts(out, i ? ", " : "");
        put_type(out, &p.params[i].type, 0);
    }
    pg_str_puts(out, p.nparams ? ");\n\n" : "void);\n\n");
    put_state(out, &p);
    put_setup(out, &p);
    pg_str_puts(out, "/* Timed: the call alone. */\n"
                     "static void run(void *state, pg_fn fn)\n{\n"
                     "    struct state *s = state;\n\n    ");
    if (p.result.kind != PG_CKIND_VOID)
        pg_str_puts(out, "s->result = ");
    pg_str_puts(out, "((function_fn)fn)(");
    for (i = 0; i < p.nparams; i++)
        pg_str_printf(out, "%ss->arg.%s", i ? ", " : "", p.params[i].name);
    pg_str_printf(out,
                  ");\n}\n\nstatic int verify(void *state, pg_case *c)\n{\n"
                  "    struct state *s = state;\n\n"
                  "    /* TODO: check what the last run() returned and wrote "
                  "against a\n     * reference (pg_download() what it "
                  "wrote first). */\n    (void)s;\n"
                  "    return pg_fail(c, \"verify() is not written yet: "
                  "%s\");\n}\n\nstatic const pg_problem problem = {\n"
                  "    .abi = PG_PROBLEM_ABI,\n    .name = \"%s\",\n"
                  "    .signature = \"",
                  path, p.name);
    for (i = 0; prototype[i]; i++)
        if (prototype[i] != '"' && prototype[i] != '\\' &&
            !isspace((unsigned char)prototype[i]))
            pg_str_putc(out, prototype[i]);
        else if (isspace((unsigned char)prototype[i]))
            pg_str_putc(out, ' ');
    pg_str_puts(out, "\",\n    .default_cases = \"n=64; n=4096; n=1048576\",\n"
                     "    .setup = setup,\n    .run = run,\n"
                     "    .verify = verify,\n};\nPG_EXPORT_PROBLEM(problem)\n");
    pg_prototype_clear(&p);
    return 0;
}

int pg_init_add_benchmark(pg_str *out, const char *text, size_t len,
                          const char *display, const char *dir,
                          const char *const *builtins, const char *name,
                          const char *problem, const char *source)
{
    pg_str body = PG_STR_INIT;
    int err;

    pg_str_printf(&body, "problem: %s\nsources: [%s]\n", problem, source);
    err = pg_init_add_entry(out, text, len, display, dir, builtins, name,
                            pg_str_cstr(&body));
    pg_str_clear(&body);
    return err;
}

int pg_init_add_entry(pg_str *out, const char *text, size_t len,
                      const char *display, const char *dir,
                      const char *const *builtins, const char *name,
                      const char *body)
{
    pg_config cfg;
    size_t i;
    int err, col;

    if (!text) {
        pg_str_puts(out, "version: 1\nbenchmarks:\n");
        put_entry(out, 2, name, body);
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
            put_entry(&entry, 2, name, body);
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
        put_entry(out, col, name, body);
    }
    /* What was written must read back. */
    err = pg_config_parse(&cfg, out->ptr, out->size, display, dir, builtins);
    pg_config_clear(&cfg);
    return err < 0 ? err : 0;
}
