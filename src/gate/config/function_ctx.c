/*
 * function_ctx.c - what a function benchmark's checks, expressions and
 * generated problem share (function_ctx.h).
 */
#include "function_ctx.h"
#include "error.h"
#include "str.h"

#include <stdarg.h>
#include <string.h>

#include "banned.h"

int pg_fn_fail(check_ctx *ctx, const pg_fmark *m, size_t offset,
               const char *fmt, ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    pg_error_set(PG_ERR_USAGE, "%s:%d:%d: %s", ctx->display, m->at.line,
                 m->at.col + m->quoted + (int)offset, pg_str_cstr(&msg));
    pg_str_clear(&msg);
    return PG_ERR_USAGE;
}

int pg_fn_case_param(const check_ctx *ctx, const char *name)
{
    size_t i;

    for (i = 0; i < ctx->ncases; i++)
        if (!pg_casespec_has(&ctx->cases[i], name))
            return 0;
    return ctx->ncases > 0;
}

int pg_fn_find_slot(const check_ctx *ctx, const char *name)
{
    size_t i;

    for (i = 0; i < ctx->nslots; i++)
        if (ctx->slots[i].kind != K_RETURN && !strcmp(ctx->slots[i].name, name))
            return (int)i;
    return -1;
}

void pg_fn_type_text(pg_str *out, const pg_ctype *t)
{
    pg_str_printf(out, "%s%s%s", t->pointer && t->is_const ? "const " : "",
                  t->spelling, t->pointer ? " *" : "");
}

const char *pg_fn_class_of(const pg_ctype *t)
{
    if (t->kind == PG_CKIND_FLOAT)
        return "PGF_FLOAT";
    if (t->kind == PG_CKIND_BOOL)
        return "PGF_BOOL";
    if (t->kind == PG_CKIND_VOID)
        return "PGF_UINT";
    return t->is_signed ? "PGF_INT" : "PGF_UINT";
}

size_t pg_fn_elem_size(const pg_ctype *t)
{
    return t->kind == PG_CKIND_VOID ? 1 : t->size;
}
