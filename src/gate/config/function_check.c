/*
 * function_check.c - a benchmark declared by its prototype (function.h):
 * its `args` checked against the prototype and the cases, in order, and
 * its problem then generated (function_emit.c; the expressions are
 * function_expr.c's).
 */
#include "function.h"
#include "function_ctx.h"
#include "error.h"
#include "fs.h"
#include "prototype.h"
#include "str.h"
#include "strvec.h"
#include "words.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

/* ---- the config's values ---- */

static int parse_proto(check_ctx *ctx, pg_prototype *out, const char *text,
                       const pg_fmark *mark)
{
    size_t col = 1;

    if (pg_prototype_parse(out, text, &col) < 0) {
        char *why = pg_strdup(pg_error_last());
        int err = pg_fn_fail(ctx, mark, col - 1, "%s", why);
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
        return pg_fn_fail(
            ctx, &v->fill_mark, 0,
            "fill: text needs bytes (char, unsigned char, int8_t, "
            "uint8_t or void), and '%s' holds %s",
            v->name, s->type.spelling);
    if (v->fill == PG_FILL_RANGE && s->type.kind != PG_CKIND_FLOAT &&
        (v->lo != floor(v->lo) || v->hi != floor(v->hi)))
        return pg_fn_fail(ctx, &v->fill_mark, 0,
                          "'%s' holds %s: its range must be whole numbers",
                          v->name, s->type.spelling);
    if (v->fill == PG_FILL_RANGE && s->type.kind == PG_CKIND_INT) {
        double top = s->type.size >= 8 ? 9.2e18
                     : s->type.is_signed
                         ? ldexp(1, 8 * (int)s->type.size - 1) - 1
                         : ldexp(1, 8 * (int)s->type.size) - 1;
        double bottom = s->type.is_signed ? -top - 1 : 0;
        if (v->lo < bottom || v->hi > top)
            return pg_fn_fail(ctx, &v->fill_mark, 0,
                              "range [%g, %g] does not fit %s (%g to %g)",
                              v->lo, v->hi, s->type.spelling, bottom, top);
    }
    if (!v->count && v->fill != PG_FILL_FILE && !v->from)
        return pg_fn_fail(ctx, &v->mark, 0,
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

    pg_fn_type_text(&t, &p->type);
    if (p->type.pointer) {
        int kind = p->type.is_const ? K_INPUT : K_OUTPUT;
        if (!v)
            err = pg_fn_fail(ctx, &f->args_mark, 0,
                             "parameter '%s' (%s) needs a value in 'args': "
                             "{count: N} elements, for example %s: {count: n}",
                             p->name, pg_str_cstr(&t), p->name);
        else if (!v->is_buffer)
            err = pg_fn_fail(ctx, &v->expr_mark, 0,
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
        err = pg_fn_fail(ctx, &v->mark, 0,
                         "'%s' is a %s, not a pointer: give it a number or an "
                         "expression such as 2*n",
                         p->name, pg_str_cstr(&t));
    else if (!v && !pg_fn_case_param(ctx, p->name))
        err = pg_fn_fail(ctx, &f->args_mark, 0,
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
        return pg_fn_compile_expr(ctx, &s->value, s->name, strlen(s->name),
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
    return pg_fn_compile_expr(ctx, &s->value, v->expr, strlen(v->expr),
                              &v->expr_mark, 0, s->name, 1);
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
/*
 * Argument `i` of call `c` (in `v`'s from:, `len` characters at `start`):
 * a pointer parameter takes `v` itself (slot `self`) or a buffer of its
 * `with`, of the same elements; any other an expression.
 */
static int call_arg(check_ctx *ctx, call *c, size_t i, const pg_fvalue *v,
                    int self, const char *start, size_t len)
{
    const pg_fmark *m = &v->from_mark;
    const pg_cparam *param = &c->proto.params[i];
    size_t at = (size_t)(start - v->from);
    char *word = pg_strdupf("%.*s", (int)len, start);
    int s = pg_fn_find_slot(ctx, word), err = 0;

    c->buffer[i] = -1;
    if (!param->type.pointer) {
        free(word);
        return pg_fn_compile_expr(ctx, &c->x[i], start, len, m, at, "from", 1);
    }
    if (s < 0 || ctx->slots[s].kind == K_SCALAR ||
        (s != self && ctx->slots[s].kind != K_SCRATCH))
        err = pg_fn_fail(ctx, m, at,
                         "from: %s's '%s' is a pointer: pass '%s' itself or "
                         "a buffer of its 'with'",
                         c->proto.name, param->name, v->name);
    else if (!same_elements(&ctx->slots[s], &param->type))
        err = pg_fn_fail(ctx, m, at,
                         "from: '%s' holds %s, and %s's '%s' takes %s", word,
                         ctx->slots[s].type.spelling, c->proto.name,
                         param->name, param->type.spelling);
    c->buffer[i] = s;
    free(word);
    return err;
}

/* The helper `v`'s from: calls, its name from `name` to the '(' at
 * `open`; NULL, with the error set, when it is not a declared helper's. */
static const pg_prototype *called(check_ctx *ctx, const pg_fvalue *v,
                                  const char *name, const char *open)
{
    const pg_fmark *m = &v->from_mark;
    const pg_prototype *h;
    char *word;

    if (!open || open == name) {
        pg_fn_fail(ctx, m, 0,
                   "from: a call expected, NAME(ARG, ...), such as "
                   "\"compress(raw, %s, n)\"",
                   v->name);
        return NULL;
    }
    word = pg_strdupf("%.*s", (int)((size_t)(open - name)), name);
    while (*word && word[strlen(word) - 1] == ' ')
        word[strlen(word) - 1] = '\0';
    if (!(h = helper(ctx, word)))
        pg_fn_fail(ctx, m, (size_t)(name - v->from),
                   "from: '%s' is not declared: add its prototype to the "
                   "benchmark's 'helpers', for example helpers: [\"int "
                   "%s(const char *src, char *dst, int n)\"]",
                   word, word);
    free(word);
    return h;
}

static int parse_call(check_ctx *ctx, const pg_fvalue *v, int self)
{
    const pg_fmark *m = &v->from_mark;
    const char *t = v->from, *p = t, *open = strchr(t, '(');
    const pg_prototype *h;
    call *c;
    size_t i;
    int err = 0;

    while (*p == ' ')
        p++;
    if (!(h = called(ctx, v, p, open)))
        return PG_ERR_USAGE;
    /* perfgate/function.h passes a call's arguments in an array of 16. */
    if (h->nparams > 16)
        return pg_fn_fail(ctx, m, (size_t)(p - t),
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
        int depth = 0;
        while (*p == ' ')
            p++;
        start = p;
        while (*p && (depth || (*p != ',' && *p != ')'))) {
            depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
            p++;
        }
        if (!*p)
            return pg_fn_fail(ctx, m, (size_t)(p - t), "from: ')' expected");
        end = p;
        while (end > start && end[-1] == ' ')
            end--;
        if (end == start && *p == ')' && i == 0 && h->nparams == 0)
            break;
        if (i >= h->nparams)
            return pg_fn_fail(ctx, m, (size_t)(start - t),
                              "from: %s takes %zu arguments", h->name,
                              h->nparams);
        err = call_arg(ctx, c, i, v, self, start, (size_t)(end - start));
        if (*p == ')')
            break;
        p++;
    }
    if (!err && i + 1 != h->nparams && h->nparams)
        return pg_fn_fail(ctx, m, (size_t)(p - t),
                          "from: %s takes %zu arguments", h->name, h->nparams);
    while (!err && *++p == ' ')
        ;
    if (!err && *p)
        return pg_fn_fail(ctx, m, (size_t)(p - t),
                          "from: nothing may follow ')'");
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
        if (pg_fn_find_slot(ctx, w->name) >= 0)
            return pg_fn_fail(ctx, &w->mark, 0,
                              "'%s' is already a parameter or a buffer",
                              w->name);
        if (!w->is_buffer)
            return pg_fn_fail(ctx, &w->mark, 0,
                              "'%s' in 'with' must be a buffer, {count: N}",
                              w->name);
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
            if (pg_fn_eval_expr(&s->value, &ctx->cases[c], &n) < 0 || n < 0 ||
                4 * (total +=
                     (double)n * (double)pg_fn_elem_size(&s->type) * slices) >
                    limit) {
                v = given(ctx->f->args, ctx->f->nargs, s->name);
                return pg_fn_fail(
                    ctx, v ? &v->count_mark : &ctx->f->args_mark, 0,
                    "on case %s, '%s' %s", ctx->cases[c].name, s->name,
                    pg_fn_eval_expr(&s->value, &ctx->cases[c], &n) < 0
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
        err = pg_fn_fail(ctx, &f->args[i].mark, 0,
                         "'%s' is not a parameter of %s%s", f->args[i].name,
                         ctx->proto.name,
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
            if ((err = pg_fn_compile_expr(ctx, &s->value, v->count,
                                          strlen(v->count), &v->count_mark, 0,
                                          "count", 0)) < 0)
                return err;
        }
        if (v->from) {
            if (!v->count)
                return pg_fn_fail(
                    ctx, &v->mark, 0,
                    "'%s' needs a count, the most elements its "
                    "'from' call may write: {count: N, from: ...}",
                    v->name);
            if ((err = add_with(ctx, v, (int)i)) < 0)
                return err;
            s = &ctx->slots[i];
        } else if (v->nwith) {
            return pg_fn_fail(ctx, &v->with[0].mark, 0,
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
            if ((err = pg_fn_compile_expr(ctx, &s->value, v->count,
                                          strlen(v->count), &v->count_mark, 0,
                                          "count", 0)) < 0)
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

    pg_fn_type_text(&type, r);
    if (!r->pointer && f->returns)
        err =
            pg_fn_fail(ctx, &f->returns_mark, 0,
                       "returns: is for a function that returns a pointer, and "
                       "%s returns %s: delete it",
                       ctx->proto.name, pg_str_cstr(&type));
    else if (r->pointer && !f->returns)
        err = pg_fn_fail(ctx, &f->mark, 0,
                         "%s returns a pointer: say what it points to with "
                         "returns: {free: free} (a string the caller frees), "
                         "{length: N, free: FUNCTION} (N elements), or {free: "
                         "none} (memory the caller does not own)",
                         ctx->proto.name);
    else if (r->pointer && f->batch > 1)
        err = pg_fn_fail(
            ctx, &f->returns_mark, 0,
            "returns: and batch: do not go together: every batched "
            "call's result would be freed inside the timed call; time "
            "one call (delete batch:), or write an adapter");
    else if (r->pointer && !f->length &&
             !(r->kind == PG_CKIND_INT && r->size == 1))
        err = pg_fn_fail(
            ctx, &f->returns_mark, 0,
            "returns: %s returns %s, not a string: give its length in "
            "elements, such as {length: n, free: free}",
            ctx->proto.name, pg_str_cstr(&type));
    else if (r->pointer && f->free_timed && !f->free_fn)
        err =
            pg_fn_fail(ctx, &f->returns_mark, 0,
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
    k = pg_fn_find_slot(ctx, f->length);
    if (k >= 0 && ctx->slots[k].kind == K_OUTPUT &&
        ctx->slots[k].type.kind == PG_CKIND_INT) {
        ctx->length_slot = k;
        return 0;
    }
    return pg_fn_compile_expr(ctx, &ctx->length, f->length, strlen(f->length),
                              &f->length_mark, 0, "length", 1);
}

static int check_work(check_ctx *ctx, expr *flops, expr *bytes)
{
    pg_function *f = ctx->f;
    int err;

    if (f->flops &&
        (err = pg_fn_compile_expr(ctx, flops, f->flops, strlen(f->flops),
                                  &f->flops_mark, 0, "flops", 0)) < 0)
        return err;
    if (f->bytes &&
        (err = pg_fn_compile_expr(ctx, bytes, f->bytes, strlen(f->bytes),
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
    pg_fn_generate(&ctx, &flops, &bytes);
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
