/*
 * prototype.h - a C function's prototype, as a user writes it in
 * perfgate.yml to gate the function without a problem file:
 *
 *     unsigned long crc32_z(unsigned long crc, const unsigned char *buf,
 *                           size_t len)
 *
 * It understands what perfgate can make inputs for and compare: C's
 * integer and floating types, char, bool, the fixed-width types of
 * stdint.h, size_t and its kin, void (as a return type, or the pointee of
 * a `void *` whose count is in bytes), and one level of pointer to any of
 * them, const or not (`T x[]` is `T *x`), as a parameter or the result
 * (what a pointer result is, function_check.c asks of `returns:`).  Anything else (a
 * struct, a union, an enum, a function pointer, a type it does not know, `T
 * **`,
 * `...`) is refused with the parameter named and what to do instead: a
 * problem file, or an adapter that takes plain arguments.
 */
#ifndef PG_PROTOTYPE_H
#define PG_PROTOTYPE_H

#include <stddef.h>

typedef enum pg_ckind {
    PG_CKIND_VOID = 0,
    PG_CKIND_BOOL,
    PG_CKIND_INT,   /* the integer types, char among them */
    PG_CKIND_FLOAT, /* float, double, long double */
} pg_ckind;

/* A parameter's or the result's type. */
typedef struct pg_ctype {
    char *spelling; /* the base type, normalized: "unsigned long" */
    pg_ckind kind;  /* of the base type (the pointee, for a pointer) */
    int is_signed;  /* PG_CKIND_INT: signed */
    size_t size;    /* bytes of the base type on this machine; 0: void */
    int pointer;    /* 1: a pointer to the base type */
    int is_const;   /* pointer: the pointee is const (an input) */
} pg_ctype;

typedef struct pg_cparam {
    char *name;
    pg_ctype type;
    size_t column; /* where it starts in the text, 1-based */
} pg_cparam;

typedef struct pg_prototype {
    char *name; /* the function's: the symbol gated */
    pg_ctype result;
    pg_cparam *params; /* in order; none for "(void)" */
    size_t nparams;
} pg_prototype;

/*
 * Parses `text`.  0 with `out` filled (pg_prototype_clear() frees it);
 * PG_ERR_USAGE with a message for the user (what is wrong, at which
 * parameter, and what to write instead), *column set to where (1-based)
 * and `out` empty.
 */
int pg_prototype_parse(pg_prototype *out, const char *text, size_t *column);

void pg_prototype_clear(pg_prototype *p);

/* 1 when the `len` characters at `name` are a word of a type this reads
 * as it is: C's own type words and the typedef names it knows (size_t,
 * uint64_t, bool, ...). */
int pg_prototype_known_type(const char *name, size_t len);

/* The parameter named `name`, or NULL. */
const pg_cparam *pg_prototype_param(const pg_prototype *p, const char *name);

#endif
