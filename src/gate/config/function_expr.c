/*
 * function_expr.c - the integer expressions of a function benchmark's
 * counts, lengths and work formulas: whole numbers, case parameters,
 * buffers' lengths, + - * / % and parentheses with C's precedence, left
 * to right.  Compiled here into postfix tables; nothing the user wrote
 * reaches the generated C as text (function_ctx.h).
 */
#include "function_ctx.h"
#include "error.h"
#include "str.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

typedef struct xparse {
    check_ctx *ctx;
    const char *text, *p;
    const pg_fmark *mark;
    const char *what;
    int lengths; /* buffers' names may be used, for their lengths */
    expr *out;
    int depth;
} xparse;

/* The most operations an expression may hold: far more than a size
 * needs, few enough that the generated problem stays small. */
enum { MAX_OPS = 256 };

static void push(expr *e, int op, long long num, const char *name, int at)
{
    e->ops = pg_realloc(e->ops, (e->n + 1) * sizeof(*e->ops));
    e->ops[e->n].op = op;
    e->ops[e->n].num = num;
    e->ops[e->n].name = name;
    e->ops[e->n].slot = at;
    e->n++;
}

static void skip_space(xparse *x)
{
    while (*x->p == ' ' || *x->p == '\t')
        x->p++;
}

static int xfail(xparse *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int xfail(xparse *x, const char *fmt, ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;
    int err;

    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    err = pg_fn_fail(x->ctx, x->mark, (size_t)(x->p - x->text), "%s: %s",
                     x->what, pg_str_cstr(&msg));
    pg_str_clear(&msg);
    return err;
}

/* The names an expression may use here, for a message. */
static void known_names(xparse *x, pg_str *out)
{
    size_t i;
    int any = 0;

    if (x->ctx->ncases)
        for (i = 0; i < x->ctx->cases[0].nparams; i++)
            if (pg_fn_case_param(x->ctx, x->ctx->cases[0].keys[i]))
                pg_str_printf(out, "%s%s", any++ ? ", " : "",
                              x->ctx->cases[0].keys[i]);
    if (x->lengths)
        for (i = 0; i < x->ctx->nslots; i++)
            if (x->ctx->slots[i].kind != K_SCALAR &&
                x->ctx->slots[i].kind != K_RETURN)
                pg_str_printf(out, "%s%s (its length)", any++ ? ", " : "",
                              x->ctx->slots[i].name);
    if (!any)
        pg_str_puts(out, "none: the benchmark has no 'cases'");
}

static int x_sum(xparse *x);

static int x_primary(xparse *x)
{
    skip_space(x);
    if (++x->depth > 24)
        return xfail(x, "nested too deep");
    if (*x->p == '(') {
        x->p++;
        if (x_sum(x) < 0)
            return PG_ERR_USAGE;
        skip_space(x);
        if (*x->p != ')')
            return xfail(x, "')' expected");
        x->p++;
    } else if (*x->p == '-') {
        x->p++;
        if (x_primary(x) < 0)
            return PG_ERR_USAGE;
        push(x->out, X_NEG, 0, NULL, 0);
    } else if (isdigit((unsigned char)*x->p)) {
        char *end;
        long long v;
        errno = 0;
        v = strtoll(x->p, &end, 10);
        if (errno || isalnum((unsigned char)*end) || *end == '.')
            return xfail(x, "a whole number expected (no more than %lld)",
                         LLONG_MAX);
        push(x->out, X_NUM, v, NULL, 0);
        x->p = end;
    } else if (isalpha((unsigned char)*x->p) || *x->p == '_') {
        const char *start = x->p;
        char *name;
        int s;
        while (isalnum((unsigned char)*x->p) || *x->p == '_')
            x->p++;
        name = pg_strdupf("%.*s", (int)((size_t)(x->p - start)), start);
        s = pg_fn_find_slot(x->ctx, name);
        if (pg_fn_case_param(x->ctx, name)) {
            size_t i;
            /* The name lives as long as the cases do. */
            for (i = 0; i < x->ctx->cases[0].nparams; i++)
                if (!strcmp(x->ctx->cases[0].keys[i], name))
                    push(x->out, X_PARAM, 0, x->ctx->cases[0].keys[i], 0);
        } else if (x->lengths && s >= 0 && x->ctx->slots[s].kind != K_SCALAR) {
            push(x->out, X_LENGTH, 0, NULL, s);
        } else {
            pg_str known = PG_STR_INIT;
            int err;
            x->p = start;
            known_names(x, &known);
            if (x->ctx->ncases && !pg_fn_case_param(x->ctx, name) &&
                pg_casespec_has(&x->ctx->cases[0], name))
                err = xfail(x, "'%s' is not a parameter of every case", name);
            else
                err = xfail(x, "unknown name '%s' (it may name: %s)", name,
                            pg_str_cstr(&known));
            pg_str_clear(&known);
            free(name);
            return err;
        }
        free(name);
    } else {
        return xfail(x, "%s expected",
                     *x->p ? "a number, a name or '('" : "a value");
    }
    x->depth--;
    return 0;
}

static int x_product(xparse *x)
{
    if (x_primary(x) < 0)
        return PG_ERR_USAGE;
    for (;;) {
        char c;
        skip_space(x);
        c = *x->p;
        if (c != '*' && c != '/' && c != '%')
            return 0;
        x->p++;
        if (x_primary(x) < 0)
            return PG_ERR_USAGE;
        push(x->out, c == '*' ? X_MUL : c == '/' ? X_DIV : X_MOD, 0, NULL, 0);
    }
}

static int x_sum(xparse *x)
{
    if (x_product(x) < 0)
        return PG_ERR_USAGE;
    for (;;) {
        char c;
        skip_space(x);
        c = *x->p;
        if (c != '+' && c != '-')
            return 0;
        x->p++;
        if (x_product(x) < 0)
            return PG_ERR_USAGE;
        push(x->out, c == '+' ? X_ADD : X_SUB, 0, NULL, 0);
    }
}

int pg_fn_compile_expr(check_ctx *ctx, expr *out, const char *text, size_t len,
                       const pg_fmark *mark, size_t offset, const char *what,
                       int lengths)
{
    xparse x;
    char *t = pg_strdupf("%.*s", (int)(len), text);
    int err;

    memset(&x, 0, sizeof(x));
    x.ctx = ctx;
    x.text = t - offset; /* columns count from the start of the value */
    x.p = t;
    x.mark = mark;
    x.what = what;
    x.lengths = lengths;
    x.out = out;
    err = x_sum(&x);
    if (!err && out->n > MAX_OPS)
        err = xfail(&x, "longer than %d operations", MAX_OPS);
    skip_space(&x);
    if (!err && *x.p)
        err = xfail(&x, "unexpected '%c'", *x.p);
    if (!err)
        push(out, X_END, 0, NULL, 0);
    free(t);
    return err;
}

int pg_fn_eval_expr(const expr *e, const pg_casespec *c, long long *out)
{
    long long st[32];
    size_t i;
    int n = 0;

    for (i = 0; i < e->n && e->ops[i].op != X_END; i++) {
        const xop *o = &e->ops[i];
        long long a, b, r = 0;
        if (o->op == X_NUM || o->op == X_PARAM) {
            size_t k;
            if (n == 32)
                return -1;
            st[n] = o->num;
            if (o->op == X_PARAM)
                for (k = 0; k < c->nparams; k++)
                    if (!strcmp(c->keys[k], o->name))
                        st[n] = c->values[k];
            n++;
            continue;
        }
        if (o->op == X_LENGTH || n < 1)
            return -1;
        if (o->op == X_NEG) {
            if (st[n - 1] == LLONG_MIN)
                return -1;
            st[n - 1] = -st[n - 1];
            continue;
        }
        if (n < 2)
            return -1;
        b = st[--n];
        a = st[n - 1];
        if ((o->op == X_ADD && __builtin_add_overflow(a, b, &r)) ||
            (o->op == X_SUB && __builtin_sub_overflow(a, b, &r)) ||
            (o->op == X_MUL && __builtin_mul_overflow(a, b, &r)))
            return -1;
        if (o->op == X_DIV || o->op == X_MOD) {
            if (b == 0 || (a == LLONG_MIN && b == -1))
                return -1;
            r = o->op == X_DIV ? a / b : a % b;
        }
        st[n - 1] = r;
    }
    if (n != 1)
        return -1;
    *out = st[0];
    return 0;
}
