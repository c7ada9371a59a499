/*
 * prototype.c - reading a C prototype (prototype.h).  A small tokenizer
 * and a parser for the declarations perfgate can gate, and nothing more:
 * whatever it does not understand is refused with what to do instead.
 */
#include "prototype.h"
#include "error.h"
#include "str.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "banned.h"

#define FIX_PROBLEM                                                            \
    "write a problem file for it (perfgate init --problem), or an adapter "    \
    "that takes plain arguments"

typedef enum {
    TOK_END,
    TOK_IDENT,
    TOK_STAR,
    TOK_COMMA,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_LBRACKET,
    TOK_RBRACKET,
    TOK_ELLIPSIS,
    TOK_SEMI,
    TOK_OTHER
} tok_kind;

typedef struct token {
    tok_kind kind;
    const char *at;
    size_t len;
} token;

typedef struct parser {
    const char *text;
    const char *p;
    token tok;
    size_t *column;
    int failed;
} parser;

static int is_ident_char(char c, int first)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (!first && c >= '0' && c <= '9');
}

static void next(parser *ps)
{
    const char *p = ps->p;

    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    ps->tok.at = p;
    ps->tok.len = 1;
    if (!*p) {
        ps->tok.kind = TOK_END;
        ps->tok.len = 0;
    } else if (is_ident_char(*p, 1)) {
        ps->tok.kind = TOK_IDENT;
        while (is_ident_char(p[ps->tok.len], 0))
            ps->tok.len++;
    } else if (!strncmp(p, "...", 3)) {
        ps->tok.kind = TOK_ELLIPSIS;
        ps->tok.len = 3;
    } else {
        switch (*p) {
        case '*':
            ps->tok.kind = TOK_STAR;
            break;
        case ',':
            ps->tok.kind = TOK_COMMA;
            break;
        case '(':
            ps->tok.kind = TOK_LPAREN;
            break;
        case ')':
            ps->tok.kind = TOK_RPAREN;
            break;
        case '[':
            ps->tok.kind = TOK_LBRACKET;
            break;
        case ']':
            ps->tok.kind = TOK_RBRACKET;
            break;
        case ';':
            ps->tok.kind = TOK_SEMI;
            break;
        default:
            ps->tok.kind = TOK_OTHER;
        }
    }
    ps->p = p + ps->tok.len;
}

static int tok_is(const parser *ps, const char *word)
{
    return ps->tok.kind == TOK_IDENT && strlen(word) == ps->tok.len &&
           !strncmp(ps->tok.at, word, ps->tok.len);
}

static int fail(parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets the error, once, with where it is. */
static int fail(parser *ps, const char *at, const char *fmt, ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;

    if (ps->failed)
        return PG_ERR_USAGE;
    ps->failed = 1;
    if (ps->column)
        *ps->column = (size_t)(at - ps->text) + 1;
    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    pg_error_set(PG_ERR_USAGE, "%s", pg_str_cstr(&msg));
    pg_str_clear(&msg);
    return PG_ERR_USAGE;
}

/* The typedef names perfgate knows, with what they are here. */
static const struct named {
    const char *name;
    pg_ckind kind;
    int is_signed;
    size_t size;
} named_types[] = {{"size_t", PG_CKIND_INT, 0, sizeof(size_t)},
                   {"ssize_t", PG_CKIND_INT, 1, sizeof(ssize_t)},
                   {"ptrdiff_t", PG_CKIND_INT, 1, sizeof(ptrdiff_t)},
                   {"intptr_t", PG_CKIND_INT, 1, sizeof(intptr_t)},
                   {"uintptr_t", PG_CKIND_INT, 0, sizeof(uintptr_t)},
                   {"int8_t", PG_CKIND_INT, 1, 1},
                   {"int16_t", PG_CKIND_INT, 1, 2},
                   {"int32_t", PG_CKIND_INT, 1, 4},
                   {"int64_t", PG_CKIND_INT, 1, 8},
                   {"uint8_t", PG_CKIND_INT, 0, 1},
                   {"uint16_t", PG_CKIND_INT, 0, 2},
                   {"uint32_t", PG_CKIND_INT, 0, 4},
                   {"uint64_t", PG_CKIND_INT, 0, 8},
                   {"bool", PG_CKIND_BOOL, 0, sizeof(bool)},
                   {"_Bool", PG_CKIND_BOOL, 0, sizeof(bool)},
                   {NULL, PG_CKIND_VOID, 0, 0}};

int pg_prototype_known_type(const char *name, size_t len)
{
    static const char *const words[] = {
        "const", "signed", "unsigned", "short",  "long",  "int",  "char",
        "float", "double", "void",     "struct", "union", "enum", NULL};
    const struct named *n;
    size_t i;

    for (n = named_types; n->name; n++)
        if (strlen(n->name) == len && !strncmp(n->name, name, len))
            return 1;
    for (i = 0; words[i]; i++)
        if (strlen(words[i]) == len && !strncmp(words[i], name, len))
            return 1;
    return 0;
}

/* The words of a declaration's type, counted as they come. */
typedef struct specs {
    const char *start;
    int nconst, nsigned, nunsigned, nshort, nlong, nint, nchar, nfloat, ndouble,
        nvoid;
    const struct named *named;
    int any;
} specs;

static int qualifier(const parser *ps)
{
    return tok_is(ps, "volatile") || tok_is(ps, "restrict") ||
           tok_is(ps, "__restrict") || tok_is(ps, "__restrict__") ||
           tok_is(ps, "static") || tok_is(ps, "extern") ||
           tok_is(ps, "inline") || tok_is(ps, "__inline") ||
           tok_is(ps, "__inline__");
}

/* One word of a type; 0 when it is none (the name that follows). */
static int take_spec(parser *ps, specs *s)
{
    const struct named *n;
    int *count = tok_is(ps, "const")      ? &s->nconst
                 : tok_is(ps, "signed")   ? &s->nsigned
                 : tok_is(ps, "unsigned") ? &s->nunsigned
                 : tok_is(ps, "short")    ? &s->nshort
                 : tok_is(ps, "long")     ? &s->nlong
                 : tok_is(ps, "int")      ? &s->nint
                 : tok_is(ps, "char")     ? &s->nchar
                 : tok_is(ps, "float")    ? &s->nfloat
                 : tok_is(ps, "double")   ? &s->ndouble
                 : tok_is(ps, "void")     ? &s->nvoid
                                          : NULL;

    if (count) {
        (*count)++;
        return 1;
    }
    if (qualifier(ps))
        return 1;
    /* A typedef name is a type only where no type was given yet. */
    for (n = named_types; n->name && !s->any && !s->named; n++)
        if (tok_is(ps, n->name)) {
            s->named = n;
            return 1;
        }
    return 0;
}

/* The type words at the parser, up to the name or a '*'. */
static int read_specs(parser *ps, specs *s, const char *what)
{
    memset(s, 0, sizeof(*s));
    s->start = ps->tok.at;
    for (; ps->tok.kind == TOK_IDENT; next(ps)) {
        if (tok_is(ps, "struct") || tok_is(ps, "union") || tok_is(ps, "enum"))
            return fail(ps, ps->tok.at,
                        "%s is a %.*s, which perfgate cannot make up: %s", what,
                        (int)ps->tok.len, ps->tok.at, FIX_PROBLEM);
        if (!take_spec(ps, s))
            break;
        s->any |= !tok_is(ps, "const") && !qualifier(ps);
    }
    if (!s->any && !s->named) {
        if (ps->tok.kind == TOK_IDENT)
            return fail(ps, ps->tok.at,
                        "%s has type '%.*s', which perfgate does not know: it "
                        "knows C's integer and floating types, char, bool, "
                        "size_t and the types of stdint.h; for another, %s",
                        what, (int)ps->tok.len, ps->tok.at, FIX_PROBLEM);
        return fail(ps, ps->tok.at, "%s has no type", what);
    }
    return 0;
}

/* What the type words mean; `t` filled, or an error. */
static int resolve(parser *ps, const specs *s, pg_ctype *t, const char *what)
{
    int words = s->nshort + s->nlong + s->nint + s->nchar + s->nfloat +
                s->ndouble + s->nvoid + s->nsigned + s->nunsigned;
    const char *sign = s->nunsigned ? "unsigned " : "";

    memset(t, 0, sizeof(*t));
    t->is_const = s->nconst > 0;
    if (s->named) {
        if (words)
            return fail(ps, s->start,
                        "%s: '%s' cannot be combined with other "
                        "type words",
                        what, s->named->name);
        t->kind = s->named->kind;
        t->is_signed = s->named->is_signed;
        t->size = s->named->size;
        t->spelling = pg_strdup(
            s->named->kind == PG_CKIND_BOOL ? "bool" : s->named->name);
        return 0;
    }
    if ((s->nsigned && s->nunsigned) || s->nsigned > 1 || s->nunsigned > 1 ||
        s->nshort > 1 || s->nlong > 2 || (s->nshort && s->nlong) ||
        s->nchar > 1 || s->nint > 1 || s->nfloat > 1 || s->ndouble > 1 ||
        s->nvoid > 1)
        return fail(ps, s->start, "%s: not a C type", what);
    if (s->nvoid) {
        if (words != 1)
            return fail(ps, s->start, "%s: not a C type", what);
        t->kind = PG_CKIND_VOID;
        t->spelling = pg_strdup("void");
    } else if (s->nfloat || s->ndouble) {
        if (words != s->nfloat + s->ndouble + s->nlong ||
            (s->nfloat && s->nlong) || s->nlong > 1)
            return fail(ps, s->start, "%s: not a C type", what);
        t->kind = PG_CKIND_FLOAT;
        t->is_signed = 1;
        t->size = s->nfloat  ? sizeof(float)
                  : s->nlong ? sizeof(long double)
                             : sizeof(double);
        t->spelling = pg_strdup(s->nfloat  ? "float"
                                : s->nlong ? "long double"
                                           : "double");
    } else if (s->nchar) {
        if (s->nshort || s->nlong || s->nint)
            return fail(ps, s->start, "%s: not a C type", what);
        t->kind = PG_CKIND_INT;
        t->size = 1;
        /* Plain char is signed or not as the machine has it. */
        t->is_signed = s->nunsigned ? 0 : s->nsigned ? 1 : (char)-1 < 0;
        t->spelling = pg_strdupf("%s%schar", sign, s->nsigned ? "signed " : "");
    } else {
        t->kind = PG_CKIND_INT;
        t->is_signed = !s->nunsigned;
        t->size = s->nshort       ? sizeof(short)
                  : s->nlong == 2 ? sizeof(long long)
                  : s->nlong      ? sizeof(long)
                                  : sizeof(int);
        t->spelling = pg_strdupf("%s%s", sign,
                                 s->nshort       ? "short"
                                 : s->nlong == 2 ? "long long"
                                 : s->nlong      ? "long"
                                                 : "int");
    }
    return 0;
}

/* The '*'s after the type words (each may be followed by qualifiers of
 * the pointer itself, which do not matter here). */
static int read_pointers(parser *ps, pg_ctype *t, const char *what)
{
    const char *first = NULL;

    while (ps->tok.kind == TOK_STAR) {
        if (t->pointer)
            return fail(ps, first,
                        "%s is a pointer to a pointer, which perfgate cannot "
                        "fill: %s",
                        what, FIX_PROBLEM);
        first = ps->tok.at;
        t->pointer = 1;
        next(ps);
        while (tok_is(ps, "const") || qualifier(ps))
            next(ps);
    }
    return 0;
}

/* One parameter: its type, its name and an optional "[...]". */
static int read_param(parser *ps, pg_cparam *out, size_t index)
{
    char what[64];
    const char *start = ps->tok.at;
    specs s;
    int err;

    snprintf(what, sizeof(what), "parameter %zu", index + 1);
    out->column = (size_t)(start - ps->text) + 1;
    if (ps->tok.kind == TOK_ELLIPSIS)
        return fail(ps, start,
                    "'...': perfgate cannot call a function with variable "
                    "arguments; %s",
                    FIX_PROBLEM);
    if ((err = read_specs(ps, &s, what)) < 0 ||
        (err = resolve(ps, &s, &out->type, what)) < 0 ||
        (err = read_pointers(ps, &out->type, what)) < 0)
        return err;
    if (ps->tok.kind == TOK_LPAREN)
        return fail(ps, ps->tok.at,
                    "%s is a function pointer, which perfgate cannot make "
                    "up: %s",
                    what, FIX_PROBLEM);
    if (ps->tok.kind != TOK_IDENT)
        return fail(ps, ps->tok.at,
                    "%s (%s%s) has no name: name it, for args: in "
                    "perfgate.yml refers to parameters by name",
                    what, out->type.spelling, out->type.pointer ? " *" : "");
    out->name = pg_strdupf("%.*s", (int)ps->tok.len, ps->tok.at);
    next(ps);
    /* "T x[]" or "T x[N]" is "T *x". */
    if (ps->tok.kind == TOK_LBRACKET) {
        if (out->type.pointer)
            return fail(ps, ps->tok.at,
                        "parameter '%s' is an array of pointers, which "
                        "perfgate cannot fill: %s",
                        out->name, FIX_PROBLEM);
        while (ps->tok.kind != TOK_RBRACKET && ps->tok.kind != TOK_END)
            next(ps);
        if (ps->tok.kind != TOK_RBRACKET)
            return fail(ps, ps->tok.at, "parameter '%s': ']' missing",
                        out->name);
        next(ps);
        out->type.pointer = 1;
    }
    if (!out->type.pointer && out->type.kind == PG_CKIND_VOID)
        return fail(ps, start, "parameter '%s' is void", out->name);
    return 0;
}

static int read_params(parser *ps, pg_prototype *out)
{
    size_t cap = 0, i;
    int err;

    /* "()" and "(void)": none. */
    if (ps->tok.kind == TOK_RPAREN)
        return 0;
    if (tok_is(ps, "void")) {
        const char *save = ps->p;
        token t = ps->tok;
        next(ps);
        if (ps->tok.kind == TOK_RPAREN)
            return 0;
        ps->p = save;
        ps->tok = t;
    }
    for (;;) {
        if (out->nparams == cap) {
            cap = cap ? cap * 2 : 4;
            out->params = pg_realloc(out->params, cap * sizeof(*out->params));
        }
        memset(&out->params[out->nparams], 0, sizeof(*out->params));
        err = read_param(ps, &out->params[out->nparams], out->nparams);
        out->nparams++;
        if (err < 0)
            return err;
        for (i = 0; i + 1 < out->nparams; i++)
            if (!strcmp(out->params[i].name,
                        out->params[out->nparams - 1].name))
                return fail(
                    ps, ps->text + out->params[out->nparams - 1].column - 1,
                    "two parameters are named '%s'", out->params[i].name);
        if (ps->tok.kind == TOK_RPAREN)
            return 0;
        if (ps->tok.kind != TOK_COMMA)
            return fail(ps, ps->tok.at,
                        "expected ',' or ')' after parameter '%s'",
                        out->params[out->nparams - 1].name);
        next(ps);
    }
}

int pg_prototype_parse(pg_prototype *out, const char *text, size_t *column)
{
    parser ps;
    specs s;
    int err;

    memset(out, 0, sizeof(*out));
    memset(&ps, 0, sizeof(ps));
    ps.text = ps.p = text;
    ps.column = column;
    if (column)
        *column = 0;
    next(&ps);
    if ((err = read_specs(&ps, &s, "the result")) < 0 ||
        (err = resolve(&ps, &s, &out->result, "the result")) < 0 ||
        (err = read_pointers(&ps, &out->result, "the result")) < 0)
        goto done;
    if (ps.tok.kind != TOK_IDENT) {
        err = fail(&ps, ps.tok.at,
                   "not a C prototype: expected the function's name; write "
                   "it as in a header, 'TYPE NAME(TYPE NAME, ...)'");
        goto done;
    }
    out->name = pg_strdupf("%.*s", (int)ps.tok.len, ps.tok.at);
    next(&ps);
    if (ps.tok.kind != TOK_LPAREN) {
        err = fail(&ps, ps.tok.at, "not a C prototype: expected '(' after '%s'",
                   out->name);
        goto done;
    }
    next(&ps);
    if ((err = read_params(&ps, out)) < 0)
        goto done;
    next(&ps); /* the ')' */
    if (ps.tok.kind == TOK_SEMI)
        next(&ps);
    if (ps.tok.kind != TOK_END)
        err = fail(&ps, ps.tok.at,
                   "not a C prototype: '%.*s' after the closing ')'",
                   (int)ps.tok.len, ps.tok.at);
done:
    if (err < 0)
        pg_prototype_clear(out);
    return err;
}

void pg_prototype_clear(pg_prototype *p)
{
    size_t i;

    for (i = 0; i < p->nparams; i++) {
        free(p->params[i].name);
        free(p->params[i].type.spelling);
    }
    free(p->params);
    free(p->name);
    free(p->result.spelling);
    memset(p, 0, sizeof(*p));
}

const pg_cparam *pg_prototype_param(const pg_prototype *p, const char *name)
{
    size_t i;

    for (i = 0; i < p->nparams; i++)
        if (!strcmp(p->params[i].name, name))
            return &p->params[i];
    return NULL;
}
