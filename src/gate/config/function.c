/*
 * function.c - a benchmark declared by its prototype: its `args` checked
 * against the prototype and the cases, and its problem generated (see
 * function.h and include/perfgate/function.h).
 *
 * Nothing the user wrote is pasted into the generated C: names come from
 * the parsed prototype (identifiers), expressions are compiled here into
 * tables of numbers and names, and every string is written escaped.
 */
#include "function.h"
#include "error.h"
#include "fs.h"
#include "prototype.h"
#include "str.h"
#include "strvec.h"
#include "words.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

/* The kinds and classes of perfgate/function.h, by the names it uses. */
static const char *const kind_names[] = {"PGF_SCALAR", "PGF_INPUT",
                                         "PGF_OUTPUT", "PGF_INOUT",
                                         "PGF_RETURN", "PGF_SCRATCH"};
enum { K_SCALAR, K_INPUT, K_OUTPUT, K_INOUT, K_RETURN, K_SCRATCH };
static const char *const fill_names[] = {
    "PGF_RANDOM", "PGF_TEXT", "PGF_ZEROS",  "PGF_ASCENDING",
    "PGF_RANGE",  "PGF_FILE", "PGF_POISON", "PGF_FROM"};
enum { F_POISON = 6, F_FROM = 7 };

/* Expressions: postfix, as perfgate/function.h evaluates them. */
enum {
    X_END,
    X_NUM,
    X_PARAM,
    X_LENGTH,
    X_ADD,
    X_SUB,
    X_MUL,
    X_DIV,
    X_MOD,
    X_NEG
};
static const char *const op_names[] = {
    "PGF_END", "PGF_NUM", "PGF_PARAM", "PGF_LENGTH", "PGF_ADD",
    "PGF_SUB", "PGF_MUL", "PGF_DIV",   "PGF_MOD",    "PGF_NEG"};

typedef struct xop {
    int op;
    long long num;
    const char *name; /* X_PARAM: the case's parameter */
    int slot;         /* X_LENGTH */
} xop;

typedef struct expr {
    xop *ops;
    size_t n;
} expr;

/* One row of the generated table. */
typedef struct slot {
    const char *name;
    int kind;
    pg_ctype type; /* the parameter's (a buffer: of its elements) */
    expr value;    /* a scalar's value, or a buffer's count */
    int has_value;
    int is_number;
    double number;
    int fill; /* pg_fill, F_POISON or F_FROM */
    double lo, hi;
    const char *file;
    int from; /* the call that writes it, or -1 */
} slot;

/* A `from:` call. */
typedef struct call {
    const char *text;
    char *where;        /* "perfgate.yml:7:30", for the side that lacks it */
    pg_prototype proto; /* the helper's */
    int *buffer;        /* per argument: its slot, or -1 for a scalar */
    expr *x;            /* per argument: a scalar's value */
} call;

typedef struct check_ctx {
    pg_function *f;
    const char *display;
    const pg_casespec *cases;
    size_t ncases;
    pg_prototype proto;
    pg_prototype *helpers;
    size_t nhelpers;
    slot *slots;
    size_t nslots;
    call *calls;
    size_t ncalls;
    expr length;     /* returns: length, an expression */
    int length_slot; /* or the output parameter that holds it; -1 */
} check_ctx;

static int fail(check_ctx *ctx, const pg_fmark *m, size_t offset,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* An error at `m`, `offset` characters into the text there. */
static int fail(check_ctx *ctx, const pg_fmark *m, size_t offset,
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

/* Whether every case has parameter `name`. */
static int case_param(const check_ctx *ctx, const char *name)
{
    size_t i;

    for (i = 0; i < ctx->ncases; i++)
        if (!pg_casespec_has(&ctx->cases[i], name))
            return 0;
    return ctx->ncases > 0;
}

static int find_slot(const check_ctx *ctx, const char *name)
{
    size_t i;

    for (i = 0; i < ctx->nslots; i++)
        if (ctx->slots[i].kind != K_RETURN && !strcmp(ctx->slots[i].name, name))
            return (int)i;
    return -1;
}

/* ---- expressions ---- */

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
    err = fail(x->ctx, x->mark, (size_t)(x->p - x->text), "%s: %s", x->what,
               pg_str_cstr(&msg));
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
            if (case_param(x->ctx, x->ctx->cases[0].keys[i]))
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
        s = find_slot(x->ctx, name);
        if (case_param(x->ctx, name)) {
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
            if (x->ctx->ncases && !case_param(x->ctx, name) &&
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

/*
 * Compiles `text` (at `mark`, `offset` characters in) into `out`: an
 * integer expression of case parameters, and of buffers' lengths where
 * `lengths` allows.
 */
static int compile_expr(check_ctx *ctx, expr *out, const char *text, size_t len,
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

/* Evaluates `e` on case `c` (no lengths): 0, or -1 when it cannot be. */
static int eval_expr(const expr *e, const pg_casespec *c, long long *out)
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

/* ---- types ---- */

/* The C type of a parameter, "const unsigned char *". */
static void type_text(pg_str *out, const pg_ctype *t)
{
    pg_str_printf(out, "%s%s%s", t->pointer && t->is_const ? "const " : "",
                  t->spelling, t->pointer ? " *" : "");
}

static const char *class_of(const pg_ctype *t)
{
    if (t->kind == PG_CKIND_FLOAT)
        return "PGF_FLOAT";
    if (t->kind == PG_CKIND_BOOL)
        return "PGF_BOOL";
    if (t->kind == PG_CKIND_VOID)
        return "PGF_UINT";
    return t->is_signed ? "PGF_INT" : "PGF_UINT";
}

static size_t elem_size(const pg_ctype *t)
{
    return t->kind == PG_CKIND_VOID ? 1 : t->size;
}

/* ---- the config's values ---- */

static int parse_proto(check_ctx *ctx, pg_prototype *out, const char *text,
                       const pg_fmark *mark)
{
    size_t col = 1;

    if (pg_prototype_parse(out, text, &col) < 0) {
        char *why = pg_strdup(pg_error_last());
        int err = fail(ctx, mark, col - 1, "%s", why);
        free(why);
        return err;
    }
    return 0;
}

static const pg_fvalue *given(const pg_fvalue *v, size_t n, const char *name)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!strcmp(v[i].name, name))
            return &v[i];
    return NULL;
}

/* A buffer's fill, checked against its element type. */
static int check_fill(check_ctx *ctx, slot *s, const pg_fvalue *v)
{
    int bytes = s->type.kind == PG_CKIND_VOID ||
                (s->type.kind == PG_CKIND_INT && s->type.size == 1);

    s->fill = (int)v->fill;
    s->lo = v->lo;
    s->hi = v->hi;
    s->file = v->file_path;
    if (v->fill == PG_FILL_TEXT && !bytes)
        return fail(ctx, &v->fill_mark, 0,
                    "fill: text needs bytes (char, unsigned char, int8_t, "
                    "uint8_t or void), and '%s' holds %s",
                    v->name, s->type.spelling);
    if (v->fill == PG_FILL_RANGE && s->type.kind != PG_CKIND_FLOAT &&
        (v->lo != floor(v->lo) || v->hi != floor(v->hi)))
        return fail(ctx, &v->fill_mark, 0,
                    "'%s' holds %s: its range must be whole numbers", v->name,
                    s->type.spelling);
    if (v->fill == PG_FILL_RANGE && s->type.kind == PG_CKIND_INT) {
        double top = s->type.size >= 8 ? 9.2e18
                     : s->type.is_signed
                         ? ldexp(1, 8 * (int)s->type.size - 1) - 1
                         : ldexp(1, 8 * (int)s->type.size) - 1;
        double bottom = s->type.is_signed ? -top - 1 : 0;
        if (v->lo < bottom || v->hi > top)
            return fail(ctx, &v->fill_mark, 0,
                        "range [%g, %g] does not fit %s (%g to %g)", v->lo,
                        v->hi, s->type.spelling, bottom, top);
    }
    if (!v->count && v->fill != PG_FILL_FILE && !v->from)
        return fail(ctx, &v->mark, 0,
                    "'%s' needs a count of elements: {count: EXPR}, for "
                    "example {count: n}",
                    v->name);
    return 0;
}

/* Adds a buffer slot for `v`, of elements of `type`. */
static int add_buffer(check_ctx *ctx, const pg_fvalue *v, const pg_ctype *type,
                      int kind)
{
    slot *s;

    ctx->slots = pg_realloc(ctx->slots, (ctx->nslots + 1) * sizeof(*s));
    s = &ctx->slots[ctx->nslots++];
    memset(s, 0, sizeof(*s));
    s->name = v->name;
    s->kind = kind;
    s->type = *type;
    s->from = -1;
    return check_fill(ctx, s, v);
}

/* The parameter `p`'s slot: its value given, or derived. */
static int add_param(check_ctx *ctx, const pg_cparam *p)
{
    const pg_function *f = ctx->f;
    const pg_fvalue *v = given(f->args, f->nargs, p->name);
    pg_str t = PG_STR_INIT;
    slot *s;
    int err = 0;

    type_text(&t, &p->type);
    if (p->type.pointer) {
        int kind = p->type.is_const ? K_INPUT : K_OUTPUT;
        if (!v)
            err = fail(ctx, &f->args_mark, 0,
                       "parameter '%s' (%s) needs a value in 'args': "
                       "{count: N} elements, for example %s: {count: n}",
                       p->name, pg_str_cstr(&t), p->name);
        else if (!v->is_buffer)
            err = fail(ctx, &v->expr_mark, 0,
                       "'%s' is a pointer (%s): give it a buffer, "
                       "{count: N}, not a number",
                       p->name, pg_str_cstr(&t));
        else if (kind == K_OUTPUT && (v->fill_given || v->from))
            kind = K_INOUT;
        if (!err)
            err = add_buffer(ctx, v, &p->type, kind);
        if (!err && kind == K_OUTPUT)
            ctx->slots[ctx->nslots - 1].fill = F_POISON;
        pg_str_clear(&t);
        return err;
    }
    ctx->slots = pg_realloc(ctx->slots, (ctx->nslots + 1) * sizeof(*s));
    s = &ctx->slots[ctx->nslots++];
    memset(s, 0, sizeof(*s));
    s->name = p->name;
    s->kind = K_SCALAR;
    s->type = p->type;
    s->from = -1;
    if (v && v->is_buffer)
        err = fail(ctx, &v->mark, 0,
                   "'%s' is a %s, not a pointer: give it a number or an "
                   "expression such as 2*n",
                   p->name, pg_str_cstr(&t));
    else if (!v && !case_param(ctx, p->name))
        err = fail(ctx, &f->args_mark, 0,
                   "parameter '%s' (%s) needs a value: give it in 'args' "
                   "(%s: 1024, or an expression of the cases' parameters "
                   "such as 2*n), or name a case parameter '%s'",
                   p->name, pg_str_cstr(&t), p->name, p->name);
    pg_str_clear(&t);
    return err;
}

/* A scalar's value (after the buffers, whose lengths it may name). */
static int scalar_value(check_ctx *ctx, slot *s)
{
    const pg_function *f = ctx->f;
    const pg_fvalue *v = given(f->args, f->nargs, s->name);
    char *end;
    double d;

    s->has_value = 1;
    if (!v)
        return compile_expr(ctx, &s->value, s->name, strlen(s->name),
                            &f->args_mark, 0, s->name, 0);
    if (s->type.kind == PG_CKIND_FLOAT) {
        errno = 0;
        d = strtod(v->expr, &end);
        if (end != v->expr && !*end && !errno && isfinite(d)) {
            s->is_number = 1;
            s->number = d;
            return 0;
        }
    }
    return compile_expr(ctx, &s->value, v->expr, strlen(v->expr), &v->expr_mark,
                        0, s->name, 1);
}

/* ---- from: calls ---- */

static const pg_prototype *helper(check_ctx *ctx, const char *name)
{
    size_t i;

    for (i = 0; i < ctx->nhelpers; i++)
        if (!strcmp(ctx->helpers[i].name, name))
            return &ctx->helpers[i];
    return NULL;
}

/* Whether buffer slot `s` may be passed for pointer parameter `p`. */
static int same_elements(const slot *s, const pg_ctype *p)
{
    return p->kind == PG_CKIND_VOID || s->type.kind == PG_CKIND_VOID ||
           (p->kind == s->type.kind && p->size == s->type.size);
}

/*
 * Parses the `from:` call of buffer `v` (slot `self`): NAME(ARG, ...),
 * each ARG a buffer (`v` itself or one of its `with:`) or an expression.
 */
static int parse_call(check_ctx *ctx, const pg_fvalue *v, int self)
{
    const pg_fmark *m = &v->from_mark;
    const char *t = v->from, *p = t, *open = strchr(t, '(');
    const pg_prototype *h;
    call *c;
    char *name;
    size_t i;
    int err = 0;

    while (*p == ' ')
        p++;
    if (!open || open == p)
        return fail(ctx, m, 0,
                    "from: a call expected, NAME(ARG, ...), such as "
                    "\"compress(raw, %s, n)\"",
                    v->name);
    name = pg_strdupf("%.*s", (int)((size_t)(open - p)), p);
    while (*name && name[strlen(name) - 1] == ' ')
        name[strlen(name) - 1] = '\0';
    if (!(h = helper(ctx, name))) {
        err = fail(ctx, m, (size_t)(p - t),
                   "from: '%s' is not declared: add its prototype to the "
                   "benchmark's 'helpers', for example helpers: [\"int "
                   "%s(const char *src, char *dst, int n)\"]",
                   name, name);
        free(name);
        return err;
    }
    free(name);
    /* perfgate/function.h passes a call's arguments in an array of 16. */
    if (h->nparams > 16)
        return fail(ctx, m, (size_t)(p - t),
                    "from: %s takes %zu arguments; a from: call takes at "
                    "most 16 (wrap it in an adapter)",
                    h->name, h->nparams);
    ctx->calls = pg_realloc(ctx->calls, (ctx->ncalls + 1) * sizeof(*c));
    c = &ctx->calls[ctx->ncalls++];
    memset(c, 0, sizeof(*c));
    c->text = v->from;
    c->where =
        pg_strdupf("%s:%d:%d", ctx->display, m->at.line, m->at.col + m->quoted);
    c->proto = *h; /* borrowed: ctx->helpers owns it */
    c->buffer = pg_calloc(h->nparams + 1, sizeof(int));
    c->x = pg_calloc(h->nparams + 1, sizeof(expr));
    p = open + 1;
    for (i = 0; !err; i++) {
        const char *start, *end;
        int depth = 0, s;
        char *word;
        while (*p == ' ')
            p++;
        start = p;
        while (*p && (depth || (*p != ',' && *p != ')'))) {
            depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
            p++;
        }
        if (!*p)
            return fail(ctx, m, (size_t)(p - t), "from: ')' expected");
        end = p;
        while (end > start && end[-1] == ' ')
            end--;
        if (end == start && *p == ')' && i == 0 && h->nparams == 0)
            break;
        if (i >= h->nparams)
            return fail(ctx, m, (size_t)(start - t),
                        "from: %s takes %zu arguments", h->name, h->nparams);
        word = pg_strdupf("%.*s", (int)((size_t)(end - start)), start);
        s = find_slot(ctx, word);
        c->buffer[i] = -1;
        if (h->params[i].type.pointer) {
            if (s < 0 || ctx->slots[s].kind == K_SCALAR ||
                (s != self && ctx->slots[s].kind != K_SCRATCH))
                err = fail(ctx, m, (size_t)(start - t),
                           "from: %s's '%s' is a pointer: pass '%s' itself "
                           "or a buffer of its 'with'",
                           h->name, h->params[i].name, v->name);
            else if (!same_elements(&ctx->slots[s], &h->params[i].type))
                err = fail(ctx, m, (size_t)(start - t),
                           "from: '%s' holds %s, and %s's '%s' takes %s", word,
                           ctx->slots[s].type.spelling, h->name,
                           h->params[i].name, h->params[i].type.spelling);
            c->buffer[i] = s;
        } else {
            err = compile_expr(ctx, &c->x[i], start, (size_t)(end - start), m,
                               (size_t)(start - t), "from", 1);
        }
        free(word);
        if (*p == ')')
            break;
        p++;
    }
    if (!err && i + 1 != h->nparams && h->nparams)
        return fail(ctx, m, (size_t)(p - t), "from: %s takes %zu arguments",
                    h->name, h->nparams);
    while (!err && *++p == ' ')
        ;
    if (!err && *p)
        return fail(ctx, m, (size_t)(p - t), "from: nothing may follow ')'");
    return err;
}

/* The buffers of `with:`, typed by the helper parameter each is passed
 * to; then the call. */
static int add_with(check_ctx *ctx, const pg_fvalue *v, int self)
{
    size_t i;
    int err;

    for (i = 0; i < v->nwith; i++) {
        const pg_fvalue *w = &v->with[i];
        pg_ctype bytes = {(char *)"unsigned char", PG_CKIND_INT, 0, 1, 1, 0};
        if (find_slot(ctx, w->name) >= 0)
            return fail(ctx, &w->mark, 0,
                        "'%s' is already a parameter or a buffer", w->name);
        if (!w->is_buffer)
            return fail(ctx, &w->mark, 0,
                        "'%s' in 'with' must be a buffer, {count: N}", w->name);
        if ((err = add_buffer(ctx, w, &bytes, K_SCRATCH)) < 0)
            return err;
    }
    if ((err = parse_call(ctx, v, self)) < 0)
        return err;
    /* Each buffer of `with` takes the type its parameter has. */
    for (i = 0; i < ctx->calls[ctx->ncalls - 1].proto.nparams; i++) {
        const call *c = &ctx->calls[ctx->ncalls - 1];
        int s = c->buffer[i];
        if (s >= 0 && ctx->slots[s].kind == K_SCRATCH &&
            c->proto.params[i].type.kind != PG_CKIND_VOID) {
            ctx->slots[s].type = c->proto.params[i].type;
            if ((err = check_fill(
                     ctx, &ctx->slots[s],
                     given(v->with, v->nwith, ctx->slots[s].name))) < 0)
                return err;
        }
    }
    ctx->slots[self].fill = F_FROM;
    ctx->slots[self].from = (int)ctx->ncalls - 1;
    return 0;
}

/* ---- sizes ---- */

/* Refuses a case whose buffers could never fit: four sets of them
 * (each side's, the shared, a reference's) in half the memory. */
static int check_memory(check_ctx *ctx)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double limit =
        pages > 0 && page > 0 ? (double)pages * (double)page / 2 : 1e15;
    size_t c, i;

    for (c = 0; c < ctx->ncases; c++) {
        double total = 0;
        for (i = 0; i < ctx->nslots; i++) {
            const slot *s = &ctx->slots[i];
            const pg_fvalue *v;
            long long n;
            if (s->kind == K_SCALAR || s->kind == K_RETURN || !s->has_value)
                continue;
            /* batch: a slice a call: that many times the count. */
            double slices = s->kind == K_SCRATCH ? 1 : ctx->f->batch;
            if (eval_expr(&s->value, &ctx->cases[c], &n) < 0 || n < 0 ||
                4 * (total +=
                     (double)n * (double)elem_size(&s->type) * slices) >
                    limit) {
                v = given(ctx->f->args, ctx->f->nargs, s->name);
                return fail(ctx, v ? &v->count_mark : &ctx->f->args_mark, 0,
                            "on case %s, '%s' %s", ctx->cases[c].name, s->name,
                            eval_expr(&s->value, &ctx->cases[c], &n) < 0
                                ? "has a count that overflows or divides "
                                  "by zero"
                            : n < 0 ? "has a negative count"
                            : ctx->f->batch > 1
                                ? "and the other buffers need more memory "
                                  "than this machine has, a slice for each "
                                  "call of a batch: make the case or "
                                  "batch: smaller"
                                : "and the other buffers need more "
                                  "memory than this machine has: make "
                                  "the case smaller");
            }
        }
    }
    return 0;
}

/* ---- the checks, in order ---- */

static int check_names(check_ctx *ctx)
{
    const pg_function *f = ctx->f;
    pg_strvec names = PG_STRVEC_INIT;
    size_t i;
    int err = 0;

    for (i = 0; i < ctx->proto.nparams; i++)
        pg_strvec_push(&names, ctx->proto.params[i].name);
    for (i = 0; i < f->nargs && !err; i++) {
        char hint[128];
        if (pg_prototype_param(&ctx->proto, f->args[i].name))
            continue;
        err = fail(ctx, &f->args[i].mark, 0, "'%s' is not a parameter of %s%s",
                   f->args[i].name, ctx->proto.name,
                   pg_suggest_text(hint, sizeof(hint), f->args[i].name,
                                   pg_strvec_list(&names)));
    }
    pg_strvec_clear(&names);
    return err;
}

static int check_slots(check_ctx *ctx)
{
    const pg_function *f = ctx->f;
    size_t i, n;
    int err;

    for (i = 0; i < ctx->proto.nparams; i++)
        if ((err = add_param(ctx, &ctx->proto.params[i])) < 0)
            return err;
    if (ctx->proto.result.kind != PG_CKIND_VOID) {
        slot *s;
        ctx->slots = pg_realloc(ctx->slots, (ctx->nslots + 1) * sizeof(*s));
        s = &ctx->slots[ctx->nslots++];
        memset(s, 0, sizeof(*s));
        s->name = "result";
        s->kind = K_RETURN;
        s->type = ctx->proto.result;
        s->from = -1;
    }
    /* Counts first (case parameters only), then the calls that make
     * inputs, then the scalars, which may name buffers' lengths. */
    n = ctx->nslots;
    for (i = 0; i < n; i++) {
        slot *s = &ctx->slots[i];
        const pg_fvalue *v = given(f->args, f->nargs, s->name);
        if (s->kind == K_SCALAR || s->kind == K_RETURN)
            continue;
        if (v->count) {
            s->has_value = 1;
            if ((err = compile_expr(ctx, &s->value, v->count, strlen(v->count),
                                    &v->count_mark, 0, "count", 0)) < 0)
                return err;
        }
        if (v->from) {
            if (!v->count)
                return fail(ctx, &v->mark, 0,
                            "'%s' needs a count, the most elements its "
                            "'from' call may write: {count: N, from: ...}",
                            v->name);
            if ((err = add_with(ctx, v, (int)i)) < 0)
                return err;
            s = &ctx->slots[i];
        } else if (v->nwith) {
            return fail(ctx, &v->with[0].mark, 0,
                        "'with' serves a 'from' call, and '%s' has none",
                        v->name);
        }
    }
    for (i = n; i < ctx->nslots; i++) {
        slot *s = &ctx->slots[i];
        const pg_fvalue *v = NULL;
        size_t k;
        for (k = 0; k < f->nargs && !v; k++)
            v = given(f->args[k].with, f->args[k].nwith, s->name);
        if (v && v->count) {
            s->has_value = 1;
            if ((err = compile_expr(ctx, &s->value, v->count, strlen(v->count),
                                    &v->count_mark, 0, "count", 0)) < 0)
                return err;
        }
    }
    for (i = 0; i < ctx->nslots; i++)
        if (ctx->slots[i].kind == K_SCALAR &&
            (err = scalar_value(ctx, &ctx->slots[i])) < 0)
            return err;
    return 0;
}

/* returns: against the result's type, before the slots. */
static int check_returns(check_ctx *ctx)
{
    const pg_function *f = ctx->f;
    const pg_ctype *r = &ctx->proto.result;
    pg_str type = PG_STR_INIT;
    int err = 0;

    type_text(&type, r);
    if (!r->pointer && f->returns)
        err = fail(ctx, &f->returns_mark, 0,
                   "returns: is for a function that returns a pointer, and "
                   "%s returns %s: delete it",
                   ctx->proto.name, pg_str_cstr(&type));
    else if (r->pointer && !f->returns)
        err = fail(ctx, &f->mark, 0,
                   "%s returns a pointer: say what it points to with "
                   "returns: {free: free} (a string the caller frees), "
                   "{length: N, free: FUNCTION} (N elements), or {free: "
                   "none} (memory the caller does not own)",
                   ctx->proto.name);
    else if (r->pointer && f->batch > 1)
        err = fail(ctx, &f->returns_mark, 0,
                   "returns: and batch: do not go together: every batched "
                   "call's result would be freed inside the timed call; time "
                   "one call (delete batch:), or write an adapter");
    else if (r->pointer && !f->length &&
             !(r->kind == PG_CKIND_INT && r->size == 1))
        err = fail(ctx, &f->returns_mark, 0,
                   "returns: %s returns %s, not a string: give its length in "
                   "elements, such as {length: n, free: free}",
                   ctx->proto.name, pg_str_cstr(&type));
    else if (r->pointer && f->free_timed && !f->free_fn)
        err = fail(ctx, &f->returns_mark, 0,
                   "returns: timed: true times the freeing of each result, "
                   "and free: none frees nothing: delete one of them");
    pg_str_clear(&type);
    return err;
}

/* returns: length, once the slots are known: an output parameter the call
 * writes the length to, or an expression. */
static int check_length(check_ctx *ctx)
{
    const pg_function *f = ctx->f;
    int k;

    ctx->length_slot = -1;
    if (!f->returns || !f->length)
        return 0;
    k = find_slot(ctx, f->length);
    if (k >= 0 && ctx->slots[k].kind == K_OUTPUT &&
        ctx->slots[k].type.kind == PG_CKIND_INT) {
        ctx->length_slot = k;
        return 0;
    }
    return compile_expr(ctx, &ctx->length, f->length, strlen(f->length),
                        &f->length_mark, 0, "length", 1);
}

/* ---- the generated problem ---- */

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

static void emit_expr(pg_str *out, const char *id, const expr *e)
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
            type_text(out, &s->type);
        pg_str_printf(out, "%sv%zu; /* %s */\n",
                      s->type.pointer || s->kind == K_SCRATCH ? "" : " ", i,
                      s->name);
    }
    pg_str_puts(out, "    char end;\n};\n\n");
}

static void emit_call_type(pg_str *out, const pg_prototype *p, int batch)
{
    size_t i;

    type_text(out, &p->result);
    pg_str_puts(out, " (*)(");
    for (i = 0; i < p->nparams; i++) {
        pg_str_puts(out, i ? ", " : "");
        type_text(out, &p->params[i].type);
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
        type_text(&out, &p->result);
        pg_str_printf(&out, " %s%s(", i ? "pg_batch_" : "", p->name);
        for (j = 0; j < p->nparams; j++) {
            pg_str_puts(&out, j ? ", " : "");
            type_text(&out, &p->params[j].type);
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
        type_text(&out, &p->result);
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
            type_text(out, &c->proto.params[j].type);
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
            emit_expr(out, id, &c->x[j]);
        }
        pg_str_printf(out, "static const pgf_op *const call%zu_args[] = {", i);
        for (j = 0; j < c->proto.nparams; j++)
            if (c->buffer[j] >= 0)
                pg_str_puts(out, "NULL, ");
            else
                pg_str_printf(out, "call%zu_x%zu, ", i, j);
        pg_str_printf(out, "NULL};\nstatic const int call%zu_types[] = {", i);
        for (j = 0; j < c->proto.nparams; j++)
            pg_str_printf(out, "%s, ", class_of(&c->proto.params[j].type));
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
        emit_expr(out, id, &ctx->slots[i].value);
    }
    pg_str_puts(out, "static const pgf_slot slots[] = {\n");
    for (i = 0; i < ctx->nslots; i++) {
        const slot *s = &ctx->slots[i];
        pg_str_puts(out, "    {");
        literal(out, s->name);
        pg_str_printf(out, ", %s, %s, %zu, offsetof(struct args, v%zu), ",
                      kind_names[s->kind], class_of(&s->type),
                      elem_size(&s->type), i);
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

static void generate(check_ctx *ctx, const expr *flops, const expr *bytes)
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
        emit_expr(&out, "flops_op", flops);
        pg_str_printf(&work, "%s FLOPs", f->flops);
    }
    if (ctx->length.n)
        emit_expr(&out, "length_op", &ctx->length);
    if (f->bytes) {
        emit_expr(&out, "bytes_op", bytes);
        pg_str_printf(&work, "%s%s bytes", f->flops ? ", " : "", f->bytes);
    }
    emit_problem(&out, ctx, pg_str_cstr(&work));
    f->source = pg_str_detach(&out);
    free(f->batch_source);
    f->batch_source = f->batch > 1 ? batch_wrapper(ctx) : NULL;
    pg_str_clear(&work);
}

static int check_work(check_ctx *ctx, expr *flops, expr *bytes)
{
    pg_function *f = ctx->f;
    int err;

    if (f->flops && (err = compile_expr(ctx, flops, f->flops, strlen(f->flops),
                                        &f->flops_mark, 0, "flops", 0)) < 0)
        return err;
    if (f->bytes && (err = compile_expr(ctx, bytes, f->bytes, strlen(f->bytes),
                                        &f->bytes_mark, 0, "bytes", 0)) < 0)
        return err;
    return 0;
}

static void ctx_clear(check_ctx *ctx)
{
    size_t i, j;

    for (i = 0; i < ctx->nslots; i++)
        free(ctx->slots[i].value.ops);
    free(ctx->slots);
    for (i = 0; i < ctx->ncalls; i++) {
        for (j = 0; j < ctx->calls[i].proto.nparams; j++)
            free(ctx->calls[i].x[j].ops);
        free(ctx->calls[i].x);
        free(ctx->calls[i].buffer);
        free(ctx->calls[i].where);
    }
    free(ctx->calls);
    free(ctx->length.ops);
    for (i = 0; i < ctx->nhelpers; i++)
        pg_prototype_clear(&ctx->helpers[i]);
    free(ctx->helpers);
    pg_prototype_clear(&ctx->proto);
}

int pg_function_check(pg_function *f, const char *display,
                      const pg_casespec *cases, size_t ncases)
{
    check_ctx ctx;
    expr flops = {NULL, 0}, bytes = {NULL, 0};
    size_t i;
    int err;

    memset(&ctx, 0, sizeof(ctx));
    ctx.f = f;
    ctx.display = display;
    ctx.cases = cases;
    ctx.ncases = ncases;
    ctx.length_slot = -1;
    if ((err = parse_proto(&ctx, &ctx.proto, f->prototype, &f->mark)) < 0)
        goto done;
    ctx.helpers = pg_calloc(f->nhelpers + 1, sizeof(*ctx.helpers));
    for (i = 0; i < f->nhelpers; i++, ctx.nhelpers++)
        if ((err = parse_proto(&ctx, &ctx.helpers[i], f->helpers[i],
                               &f->helper_marks[i])) < 0)
            goto done;
    if ((err = check_returns(&ctx)) < 0 || (err = check_names(&ctx)) < 0 ||
        (err = check_slots(&ctx)) < 0 || (err = check_length(&ctx)) < 0 ||
        (err = check_work(&ctx, &flops, &bytes)) < 0 ||
        (err = check_memory(&ctx)) < 0)
        goto done;
    for (i = 0; i < ctx.nslots; i++)
        if (ctx.slots[i].kind == K_RETURN || ctx.slots[i].kind == K_OUTPUT ||
            ctx.slots[i].kind == K_INOUT)
            f->has_output = 1;
    free(f->name);
    f->name = pg_strdup(ctx.proto.name);
    generate(&ctx, &flops, &bytes);
done:
    free(flops.ops);
    free(bytes.ops);
    ctx_clear(&ctx);
    return err;
}

static int value_inside(const pg_fvalue *v, const char *root, const char **file)
{
    size_t i;

    if (v->file_path && pg_path_inside(root, v->file_path) != 1) {
        *file = v->file;
        return 0;
    }
    for (i = 0; i < v->nwith; i++)
        if (!value_inside(&v->with[i], root, file))
            return 0;
    return 1;
}

int pg_function_files_inside(const pg_function *f, size_t index,
                             const char *root, const char **file)
{
    return value_inside(&f->args[index], root, file);
}

static void free_value(pg_fvalue *v)
{
    size_t i;

    free(v->name);
    free(v->expr);
    free(v->count);
    free(v->file);
    free(v->file_path);
    free(v->from);
    for (i = 0; i < v->nwith; i++)
        free_value(&v->with[i]);
    free(v->with);
}

void pg_function_free(pg_function *f)
{
    size_t i;

    if (!f)
        return;
    free(f->prototype);
    for (i = 0; i < f->nhelpers; i++)
        free(f->helpers[i]);
    free(f->helpers);
    free(f->helper_marks);
    for (i = 0; i < f->nargs; i++)
        free_value(&f->args[i]);
    free(f->args);
    free(f->reference);
    free(f->header);
    free(f->declared);
    free(f->free_fn);
    free(f->length);
    free(f->flops);
    free(f->bytes);
    free(f->name);
    free(f->source);
    free(f->batch_source);
    free(f);
}
