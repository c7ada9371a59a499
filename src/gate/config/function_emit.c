/*
 * function_emit.c - the problem generated from a checked function
 * benchmark: C (a table of its arguments and the typed calls) that
 * includes perfgate/function.h.  Nothing the user wrote is pasted in:
 * names come from the parsed prototype (identifiers), expressions are
 * tables of numbers and names, and every string is written escaped
 * (function_ctx.h).
 */
#include "function_ctx.h"
#include "str.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* perfgate/function.h's names of the kinds, fills and operations. */
static const char *const kind_names[] = {"PGF_SCALAR", "PGF_INPUT",
                                         "PGF_OUTPUT", "PGF_INOUT",
                                         "PGF_RETURN", "PGF_SCRATCH"};
static const char *const fill_names[] = {
    "PGF_RANDOM", "PGF_TEXT", "PGF_ZEROS",  "PGF_ASCENDING",
    "PGF_RANGE",  "PGF_FILE", "PGF_POISON", "PGF_FROM"};
static const char *const op_names[] = {
    "PGF_END", "PGF_NUM", "PGF_PARAM", "PGF_LENGTH", "PGF_ADD",
    "PGF_SUB", "PGF_MUL", "PGF_DIV",   "PGF_MOD",    "PGF_NEG"};

/* `s` as a C string literal, every character that is not plain escaped. */
static void literal(pg_str *out, const char *s)
{
    pg_str_putc(out, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum(c) ||
            (c != '"' && c != '\\' && c != '?' && c >= 0x20 && c < 0x7f))
            pg_str_putc(out, (char)c);
        else
            pg_str_printf(out, "\\%03o", c);
    }
    pg_str_putc(out, '"');
}

void pg_fn_emit_expr(pg_str *out, const char *id, const expr *e)
{
    size_t i;

    pg_str_printf(out, "static const pgf_op %s[] = {\n", id);
    for (i = 0; i < e->n; i++) {
        pg_str_printf(out, "    {%s, %lldLL, ", op_names[e->ops[i].op],
                      e->ops[i].num);
        if (e->ops[i].name)
            literal(out, e->ops[i].name);
        else
            pg_str_puts(out, "NULL");
        pg_str_printf(out, ", %d},\n", e->ops[i].slot);
    }
    pg_str_puts(out, "};\n");
}

/* The field of slot `i` in struct args. */
static void field(pg_str *out, size_t i)
{
    pg_str_printf(out, "a->v%zu", i);
}

static void emit_struct(pg_str *out, const check_ctx *ctx)
{
    size_t i;

    pg_str_puts(out, "struct args {\n");
    for (i = 0; i < ctx->nslots; i++) {
        const slot *s = &ctx->slots[i];
        pg_str_puts(out, "    ");
        if (s->kind == K_SCRATCH)
            pg_str_printf(out, "%s *",
                          s->type.kind == PG_CKIND_VOID ? "unsigned char"
                                                        : s->type.spelling);
        else
            pg_fn_type_text(out, &s->type);
        pg_str_printf(out, "%sv%zu; /* %s */\n",
                      s->type.pointer || s->kind == K_SCRATCH ? "" : " ", i,
                      s->name);
    }
    pg_str_puts(out, "    char end;\n};\n\n");
}

static void emit_call_type(pg_str *out, const pg_prototype *p, int batch)
{
    size_t i;

    pg_fn_type_text(out, &p->result);
    pg_str_puts(out, " (*)(");
    for (i = 0; i < p->nparams; i++) {
        pg_str_puts(out, i ? ", " : "");
        pg_fn_type_text(out, &p->params[i].type);
    }
    if (batch)
        pg_str_puts(out, p->nparams ? ", int, const size_t *"
                                    : "int, const size_t *");
    pg_str_puts(out, p->nparams || batch ? ")" : "void)");
}

/* The typed call of the function, on `a`, into its result's slot; under
 * batch:, of its batch wrapper, `n` calls, the buffers' slices
 * `strides` (an expression: elements per slot) apart. */
static void emit_target_call(pg_str *out, const check_ctx *ctx, int n,
                             const char *strides)
{
    size_t i, result = ctx->nslots;

    for (i = 0; i < ctx->nslots; i++)
        if (ctx->slots[i].kind == K_RETURN)
            result = i;
    pg_str_puts(out, "    ");
    if (result < ctx->nslots)
        pg_str_printf(out, "a->v%zu = ", result);
    pg_str_puts(out, "((");
    emit_call_type(out, &ctx->proto, ctx->f->batch > 1);
    pg_str_puts(out, ")fn)(");
    for (i = 0; i < ctx->proto.nparams; i++) {
        pg_str_puts(out, i ? ", " : "");
        field(out, i);
    }
    if (ctx->f->batch > 1)
        pg_str_printf(out, "%s%d, %s", ctx->proto.nparams ? ", " : "", n,
                      strides);
    pg_str_puts(out, ");\n");
}

/* batch:'s wrapper, compiled into each side (pg_function's batch_source):
 * the function called n times directly, each call on the next slice of
 * every buffer (stride[j] elements on, for parameter j), its last result
 * returned. */
static char *batch_wrapper(const check_ctx *ctx)
{
    const pg_prototype *p = &ctx->proto;
    int returns = p->result.kind != PG_CKIND_VOID || p->result.pointer;
    pg_str out = PG_STR_INIT;
    size_t i;

    pg_str_puts(&out, "/* perfgate: batch: for the benchmark's function "
                      "(perfgate.yml) */\n#include <stddef.h>\n"
                      "#include <stdint.h>\n#include <stdbool.h>\n\n");
    for (i = 0; i < 2; i++) {
        size_t j;
        pg_fn_type_text(&out, &p->result);
        pg_str_printf(&out, " %s%s(", i ? "pg_batch_" : "", p->name);
        for (j = 0; j < p->nparams; j++) {
            pg_str_puts(&out, j ? ", " : "");
            pg_fn_type_text(&out, &p->params[j].type);
            pg_str_printf(&out, " p%zu", j);
        }
        if (i)
            pg_str_printf(&out, "%sint n, const size_t *stride",
                          p->nparams ? ", " : "");
        else if (!p->nparams)
            pg_str_puts(&out, "void");
        pg_str_puts(&out, i ? ")\n{\n" : ");\n");
    }
    if (returns) {
        pg_str_puts(&out, "    ");
        pg_fn_type_text(&out, &p->result);
        pg_str_puts(&out, " r = 0;\n");
    }
    pg_str_printf(&out, "    for (int k = 0; k < n; k++) {\n        %s%s(",
                  returns ? "r = " : "", p->name);
    for (i = 0; i < p->nparams; i++)
        pg_str_printf(&out, "%sp%zu", i ? ", " : "", i);
    pg_str_puts(&out, ");\n        if (k + 1 == n)\n            break;\n");
    for (i = 0; i < p->nparams; i++) {
        const pg_ctype *t = &p->params[i].type;
        if (!t->pointer)
            continue;
        if (t->kind == PG_CKIND_VOID)
            pg_str_printf(&out,
                          "        p%zu = (%svoid *)((%sunsigned char *)p%zu "
                          "+ stride[%zu]);\n",
                          i, t->is_const ? "const " : "",
                          t->is_const ? "const " : "", i, i);
        else
            pg_str_printf(&out, "        p%zu += stride[%zu];\n", i, i);
    }
    pg_str_printf(&out, "    }\n%s}\n", returns ? "    return r;\n" : "");
    return pg_str_detach(&out);
}

static void emit_make(pg_str *out, const check_ctx *ctx)
{
    pg_str msg = PG_STR_INIT;
    size_t i, j;

    pg_str_puts(out, "static int make(int index, void *args, const long long "
                     "*x, pg_case *c,\n                long long *result)\n"
                     "{\n    struct args *a = args;\n    pg_fn fn;\n\n"
                     "    (void)a;\n    (void)x;\n    (void)fn;\n"
                     "    switch (index) {\n");
    for (i = 0; i < ctx->ncalls; i++) {
        const call *c = &ctx->calls[i];
        pg_str_printf(out, "    case %zu:\n        if (!(fn = pg_lookup(c, ",
                      i);
        literal(out, c->proto.name);
        pg_str_puts(out, ")))\n            return pg_fail(c, \"%s: %s\", ");
        literal(out, c->where);
        pg_str_puts(out, ", ");
        pg_str_printf(&msg,
                      "from: no function '%s' on this side: add the "
                      "file that defines it to 'sources'",
                      c->proto.name);
        literal(out, pg_str_cstr(&msg));
        pg_str_reset(&msg);
        pg_str_puts(out, ");\n        ");
        if (c->proto.result.kind != PG_CKIND_VOID)
            pg_str_puts(out, "*result = (long long)");
        pg_str_puts(out, "((");
        emit_call_type(out, &c->proto, 0);
        pg_str_puts(out, ")fn)(");
        for (j = 0; j < c->proto.nparams; j++) {
            pg_str_puts(out, j ? ", " : "");
            pg_str_puts(out, "(");
            pg_fn_type_text(out, &c->proto.params[j].type);
            if (c->buffer[j] >= 0)
                pg_str_printf(out, ")a->v%d", c->buffer[j]);
            else
                pg_str_printf(out, ")x[%zu]", j);
        }
        pg_str_puts(out, ");\n        return 0;\n");
    }
    pg_str_puts(out, "    }\n    return pg_fail(c, \"no such call\");\n}\n\n");
    pg_str_clear(&msg);
}

static void emit_calls(pg_str *out, const check_ctx *ctx)
{
    size_t i, j;

    for (i = 0; i < ctx->ncalls; i++) {
        const call *c = &ctx->calls[i];
        char id[64];
        for (j = 0; j < c->proto.nparams; j++) {
            if (c->buffer[j] >= 0)
                continue;
            snprintf(id, sizeof(id), "call%zu_x%zu", i, j);
            pg_fn_emit_expr(out, id, &c->x[j]);
        }
        pg_str_printf(out, "static const pgf_op *const call%zu_args[] = {", i);
        for (j = 0; j < c->proto.nparams; j++)
            if (c->buffer[j] >= 0)
                pg_str_puts(out, "NULL, ");
            else
                pg_str_printf(out, "call%zu_x%zu, ", i, j);
        pg_str_printf(out, "NULL};\nstatic const int call%zu_types[] = {", i);
        for (j = 0; j < c->proto.nparams; j++)
            pg_str_printf(out, "%s, ",
                          pg_fn_class_of(&c->proto.params[j].type));
        pg_str_printf(out, "0};\nstatic const size_t call%zu_sizes[] = {", i);
        for (j = 0; j < c->proto.nparams; j++)
            pg_str_printf(out, "%zu, ",
                          c->proto.params[j].type.pointer
                              ? sizeof(void *)
                              : c->proto.params[j].type.size);
        pg_str_puts(out, "0};\n");
    }
    pg_str_puts(out, "static const pgf_call calls[] = {\n");
    for (i = 0; i < ctx->ncalls; i++) {
        const call *c = &ctx->calls[i];
        pg_str_puts(out, "    {");
        literal(out, c->text);
        pg_str_puts(out, ", ");
        literal(out, c->proto.name);
        pg_str_printf(out,
                      ", call%zu_args, call%zu_types, call%zu_sizes, %zu, "
                      "%d},\n",
                      i, i, i, c->proto.nparams,
                      c->proto.result.kind == PG_CKIND_INT);
    }
    pg_str_puts(out, "    {NULL, NULL, NULL, NULL, NULL, 0, 0},\n};\n\n");
}

/* The arguments of the from-calls skip buffers: their ops are NULL, and
 * pgf_make() must not evaluate them; it passes x[j] = 0 for them. */

static void emit_slots(pg_str *out, const check_ctx *ctx)
{
    size_t i;

    for (i = 0; i < ctx->nslots; i++) {
        char id[64];
        if (!ctx->slots[i].has_value || ctx->slots[i].is_number)
            continue;
        snprintf(id, sizeof(id), "value%zu", i);
        pg_fn_emit_expr(out, id, &ctx->slots[i].value);
    }
    pg_str_puts(out, "static const pgf_slot slots[] = {\n");
    for (i = 0; i < ctx->nslots; i++) {
        const slot *s = &ctx->slots[i];
        pg_str_puts(out, "    {");
        literal(out, s->name);
        pg_str_printf(out, ", %s, %s, %zu, offsetof(struct args, v%zu), ",
                      kind_names[s->kind], pg_fn_class_of(&s->type),
                      pg_fn_elem_size(&s->type), i);
        if (s->has_value && !s->is_number)
            pg_str_printf(out, "value%zu", i);
        else
            pg_str_puts(out, "NULL");
        pg_str_printf(out, ", %d, %.17g, %s, %.17g, %.17g, ", s->is_number,
                      s->number, fill_names[s->fill], s->lo, s->hi);
        if (s->file)
            literal(out, s->file);
        else
            pg_str_puts(out, "NULL");
        pg_str_printf(out, ", %d},\n", s->from);
    }
    pg_str_puts(out, "};\n\n");
}

static int side_setup(const check_ctx *ctx)
{
    const pg_function *f = ctx->f;

    /* A side's own free function is looked up in its set-up. */
    return ctx->ncalls > 0 ||
           (f->returns && f->free_fn && strcmp(f->free_fn, "free"));
}

static int owned(const check_ctx *ctx)
{
    return ctx->f->returns && ctx->proto.result.pointer;
}

static void emit_problem(pg_str *out, const check_ctx *ctx, const char *work)
{
    const pg_function *f = ctx->f;
    pg_str cases = PG_STR_INIT;
    size_t i, j;

    for (i = 0; i < ctx->ncases; i++) {
        pg_str_puts(&cases, i ? "; " : "");
        for (j = 0; j < ctx->cases[i].nparams; j++)
            pg_str_printf(&cases, "%s%s=%lld", j ? "," : "",
                          ctx->cases[i].keys[j], ctx->cases[i].values[j]);
    }
    pg_str_puts(out, "static const pgf_function function = {\n    ");
    literal(out, ctx->proto.name);
    pg_str_printf(out,
                  ", slots, %zu, calls, %zu, sizeof(struct args), %s, "
                  "%.17g, %.17g, ",
                  ctx->nslots, ctx->ncalls,
                  f->check == PG_CHECK_NONE        ? "PGF_CHECK_NONE"
                  : f->check == PG_CHECK_REFERENCE ? "PGF_CHECK_REFERENCE"
                                                   : "PGF_CHECK_BASE",
                  f->rel, f->abs);
    if (f->reference)
        literal(out, f->reference);
    else
        pg_str_puts(out, "NULL");
    pg_str_printf(out, ",\n    call, make, %s, %s,\n    %d, %s, %d, ",
                  f->flops ? "flops_op" : "NULL",
                  f->bytes ? "bytes_op" : "NULL", owned(ctx),
                  ctx->length.n ? "length_op" : "NULL", ctx->length_slot);
    if (owned(ctx) && f->free_fn)
        literal(out, f->free_fn);
    else
        pg_str_puts(out, "NULL");
    pg_str_printf(out, ", %d, %d,\n};\n\n", f->free_timed, f->batch);
    pg_str_puts(out, "static void *setup(pg_case *c)\n{\n"
                     "    return pgf_setup(&function, c);\n}\n\n"
                     "/* Timed: the call alone (batch: that many). */\n"
                     "static void run(void *state, pg_fn fn)\n{\n"
                     "    struct args *a = ((pgf_state *)state)->args;\n\n");
    emit_target_call(out, ctx, f->batch, "((pgf_state *)state)->lengths");
    for (i = 0; owned(ctx) && i < ctx->nslots; i++)
        if (ctx->slots[i].kind == K_RETURN)
            pg_str_printf(out, "    pgf_keep(state, (void *)a->v%zu);\n", i);
    pg_str_puts(out, "}\n\n");
    if (f->flops)
        pg_str_puts(out, "static double flops(const pg_case *c)\n{\n    "
                         "return pgf_work(function.flops, c);\n}\n\n");
    if (f->bytes)
        pg_str_puts(out, "static double bytes(const pg_case *c)\n{\n    "
                         "return pgf_work(function.bytes, c);\n}\n\n");
    pg_str_puts(out, "static const pg_problem problem = {\n"
                     "    .abi = PG_PROBLEM_ABI,\n    .name = ");
    literal(out, ctx->proto.name);
    pg_str_puts(out, ",\n    .signature = ");
    literal(out, f->prototype);
    pg_str_puts(out, ",\n    .default_cases = ");
    literal(out, pg_str_cstr(&cases));
    pg_str_printf(out,
                  ",\n    .setup = setup,\n    .run = run,\n"
                  "    .verify = pgf_verify,\n"
                  "    .compare = pgf_compare_sides,\n"
                  "    .side_setup = %d,\n",
                  side_setup(ctx));
    if (f->flops)
        pg_str_puts(out, "    .flops = flops,\n");
    if (f->bytes)
        pg_str_puts(out, "    .bytes = bytes,\n");
    if (owned(ctx))
        pg_str_puts(out, "    .between = pgf_between,\n"
                         "    .teardown = pgf_teardown,\n");
    if (*work) {
        pg_str_puts(out, "    .work = ");
        literal(out, work);
        pg_str_puts(out, ",\n");
    }
    pg_str_puts(out, "};\nPG_EXPORT_PROBLEM(problem)\n");
    pg_str_clear(&cases);
}

void pg_fn_generate(check_ctx *ctx, const expr *flops, const expr *bytes)
{
    pg_function *f = ctx->f;
    pg_str out = PG_STR_INIT, work = PG_STR_INIT;

    /* A comment holds no user text but the function's name, which the
     * prototype's parser took as an identifier. */
    pg_str_printf(&out,
                  "/*\n * The problem perfgate generated for %s() from its "
                  "prototype\n * (perfgate.yml's `function:`); see "
                  "perfgate/function.h.\n */\n"
                  "#include <perfgate/function.h>\n\n",
                  ctx->proto.name);
    emit_struct(&out, ctx);
    pg_str_puts(&out, "static void call(void *args, pg_fn fn)\n{\n"
                      "    struct args *a = args;\n\n");
    emit_target_call(&out, ctx, 1, "NULL");
    pg_str_puts(&out, "}\n\n");
    emit_make(&out, ctx);
    emit_calls(&out, ctx);
    emit_slots(&out, ctx);
    if (f->flops) {
        pg_fn_emit_expr(&out, "flops_op", flops);
        pg_str_printf(&work, "%s FLOPs", f->flops);
    }
    if (ctx->length.n)
        pg_fn_emit_expr(&out, "length_op", &ctx->length);
    if (f->bytes) {
        pg_fn_emit_expr(&out, "bytes_op", bytes);
        pg_str_printf(&work, "%s%s bytes", f->flops ? ", " : "", f->bytes);
    }
    emit_problem(&out, ctx, pg_str_cstr(&work));
    f->source = pg_str_detach(&out);
    free(f->batch_source);
    f->batch_source = f->batch > 1 ? batch_wrapper(ctx) : NULL;
    pg_str_clear(&work);
}
