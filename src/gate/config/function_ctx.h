/*
 * function_ctx.h - what the checks of a function benchmark
 * (function_check.c), its expressions (function_expr.c) and the problem
 * generated from it (function_emit.c) share: the table of arguments being
 * checked, and the error that names a place in the config.  Private to
 * gate/config.
 */
#ifndef PG_FUNCTION_CTX_H
#define PG_FUNCTION_CTX_H

#include <stddef.h>

#include "function.h"
#include "prototype.h"
#include "str.h"

/* The kinds and fills of perfgate/function.h (function_emit.c names
 * them as it does). */
enum { K_SCALAR, K_INPUT, K_OUTPUT, K_INOUT, K_RETURN, K_SCRATCH };
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

/* An error at `m`, `offset` characters into the text there
 * (PG_ERR_USAGE, "FILE:LINE:COL: message"). */
int pg_fn_fail(check_ctx *ctx, const pg_fmark *m, size_t offset,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Whether every case has parameter `name`. */
int pg_fn_case_param(const check_ctx *ctx, const char *name);

/* The slot of parameter `name` (not the result), or -1. */
int pg_fn_find_slot(const check_ctx *ctx, const char *name);

/* The C type of a parameter, "const unsigned char *". */
void pg_fn_type_text(pg_str *out, const pg_ctype *t);

/* The class perfgate/function.h gives a type (PGF_FLOAT, ...). */
const char *pg_fn_class_of(const pg_ctype *t);

/* The size of a buffer's element (void: bytes). */
size_t pg_fn_elem_size(const pg_ctype *t);

/*
 * Compiles `text` (`len` bytes at `mark`, `offset` characters in; `what`
 * names it in messages) into `out`: an integer expression of case
 * parameters, and of buffers' lengths where `lengths` allows.  0, or
 * PG_ERR_USAGE at the offending character.
 */
int pg_fn_compile_expr(check_ctx *ctx, expr *out, const char *text, size_t len,
                       const pg_fmark *mark, size_t offset, const char *what,
                       int lengths);

/* Evaluates `e` on case `c` (no lengths): 0, or -1 when it cannot be
 * (overflow, division by zero, a length). */
int pg_fn_eval_expr(const expr *e, const pg_casespec *c, long long *out);

/* Writes `e` as the table `id` of perfgate/function.h's postfix ops. */
void pg_fn_emit_expr(pg_str *out, const char *id, const expr *e);

/* Generates the problem of the checked function into ctx->f->source (and
 * batch:'s wrapper into ctx->f->batch_source). */
void pg_fn_generate(check_ctx *ctx, const expr *flops, const expr *bytes);

#endif
