/*
 * perfgate/function.h - the code of the problems that perfgate generates
 * from a prototype (a benchmark with `function:` in perfgate.yml).
 *
 * A generated problem is a table that describes the function's parameters
 * (each one's type, where its value comes from, and whether it is read or
 * written), the typed call of the function, and the typed calls that make
 * its inputs (`from:`).  This header does everything else: it evaluates
 * the counts and values of each case, fills and poisons the buffers, and
 * compares the head's outputs with the base's (or with a reference).
 *
 * Not a stable interface: only generated problems include it, and each
 * perfgate generates its own anew (`perfgate init --problem` writes one
 * out, for a problem file of your own to start from).  Everything here is
 * static, so that the plugin holds its own copy and needs nothing from
 * perfgate but the functions of problem.h.
 */
#ifndef PERFGATE_FUNCTION_H
#define PERFGATE_FUNCTION_H

#include <perfgate/problem.h>

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* What a slot of the table is. */
enum {
    PGF_SCALAR,  /* a parameter passed by value */
    PGF_INPUT,   /* `const T *`: read by the function */
    PGF_OUTPUT,  /* `T *`: written by it; poisoned before the checked call */
    PGF_INOUT,   /* `T *` given a fill: read and written */
    PGF_RETURN,  /* the value it returns */
    PGF_SCRATCH, /* a buffer of `with:`, for a `from:` call only */
};

/* The class of a scalar or of a buffer's elements. */
enum { PGF_INT, PGF_UINT, PGF_FLOAT, PGF_BOOL };

/* Where a buffer's contents come from. */
enum {
    PGF_RANDOM,    /* the case's random stream */
    PGF_TEXT,      /* words and spaces */
    PGF_ZEROS,     /* zero bytes */
    PGF_ASCENDING, /* 0, 1, 2, ... */
    PGF_RANGE,     /* uniform in [lo, hi] */
    PGF_FILE,      /* a file's bytes, over and over */
    PGF_POISON,    /* an output: NaN, or 0xA5 bytes */
    PGF_FROM,      /* written by a `from:` call */
};

/*
 * An integer expression of the case's parameters, in postfix: each op
 * pushes a value (NUM, PARAM, LENGTH) or combines the top two (or one).
 */
enum {
    PGF_END,
    PGF_NUM,    /* num */
    PGF_PARAM,  /* the case parameter `name` */
    PGF_LENGTH, /* the length of slot `slot`: its count, or what its
                   from: call returned */
    PGF_ADD,
    PGF_SUB,
    PGF_MUL,
    PGF_DIV,
    PGF_MOD,
    PGF_NEG,
};

typedef struct pgf_op {
    int op;
    long long num;
    const char *name;
    int slot;
} pgf_op;

typedef struct pgf_slot {
    const char *name; /* as the prototype or the config names it */
    int kind;
    int type;            /* PGF_INT ... of the scalar or of each element */
    size_t size;         /* its bytes, or each element's */
    size_t offset;       /* in the generated `struct args`: value or pointer */
    const pgf_op *value; /* scalar: its value; buffer: its count (NULL: a
                            file's whole length) */
    int is_number;       /* a floating scalar given as `number` */
    double number;
    int fill;
    double lo, hi;    /* PGF_RANGE */
    const char *file; /* PGF_FILE: its path */
    int from;         /* PGF_FROM: the index of the call */
} pgf_slot;

/* A `from:` call: its scalar arguments, in order, each with its type. */
typedef struct pgf_call {
    const char *text; /* as written, for messages */
    const char *function;
    const pgf_op *const *args;
    const int *types;    /* PGF_INT ... */
    const size_t *sizes; /* bytes */
    size_t nargs;
    int returns_length; /* its result is the buffer's length */
} pgf_call;

enum { PGF_CHECK_NONE, PGF_CHECK_BASE, PGF_CHECK_REFERENCE };

typedef struct pgf_function {
    const char *name;
    const pgf_slot *slots;
    size_t nslots;
    const pgf_call *calls;
    size_t ncalls;
    size_t args_size; /* sizeof(struct args) */
    int check;
    double rel, abs;       /* how far floats may be apart */
    const char *reference; /* PGF_CHECK_REFERENCE: the function */
    /* The typed call of the function with the arguments in `args`. */
    void (*call)(void *args, pg_fn fn);
    /* The typed `from:` call `index`, with its scalar arguments in `x`:
     * 0 with its result in *result, or -1 after pg_fail(). */
    int (*make)(int index, void *args, const long long *x, pg_case *c,
                long long *result);
    const pgf_op *flops, *bytes; /* work: per call; NULL: none */
    /* A pointer result (returns:): 0 none, else compared by content: a
     * NUL-terminated string when it has no length, else `length`
     * elements (an expression), or as many as the first element of
     * output slot `length_slot` says (-1: none). */
    int owned;
    const pgf_op *length;
    int length_slot;
    /* The function that frees it: NULL none (free: none), "free" the C
     * library's, else the side's own; `free_timed`: each result is freed
     * in the next timed call, as part of the work, not between batches. */
    const char *free_name;
    int free_timed;
    /* batch: each timed call calls the function this many times, each
     * on the next slice of every buffer (a buffer holds that many slices
     * of its count; the checked call reads and writes the first). */
    int batch;
} pgf_function;

/* What setup() returns: the arguments, with what the checks need. */
typedef struct pgf_state {
    const pgf_function *f;
    pg_case *c;
    void *args;      /* struct args, passed to the function */
    void *ref;       /* the same, for the reference; NULL: none */
    size_t *lengths; /* per slot: elements (buffers) */
    int checked;     /* verify() has compared with the reference */
    /* returns: the results run() kept, to be freed outside the clock
     * (pgf_between), newest last; `full` when a batch had no room left. */
    void (*release)(void *);
    void **kept;
    size_t nkept, cap;
    int full;
} pgf_state;

/* A stack machine for the expressions; 0, or -1 after pg_fail(). */
static int pgf_eval(pg_case *c, const pgf_op *op, const size_t *lengths,
                    const char *what, long long *out)
{
    long long stack[32];
    int n = 0;

    for (; op->op != PGF_END; op++) {
        long long a, b, r = 0;
        int bad = 0;
        if (op->op == PGF_NUM || op->op == PGF_PARAM || op->op == PGF_LENGTH) {
            if (n == 32)
                return pg_fail(c, "%s: the expression is too deep", what);
            if (op->op == PGF_NUM)
                stack[n++] = op->num;
            else if (op->op == PGF_PARAM)
                stack[n++] = pg_param(c, op->name, 0);
            else
                stack[n++] = (long long)lengths[op->slot];
            continue;
        }
        if (op->op == PGF_NEG) {
            if (n < 1 || stack[n - 1] == LLONG_MIN)
                return pg_fail(c, "%s: out of range", what);
            stack[n - 1] = -stack[n - 1];
            continue;
        }
        if (n < 2)
            return pg_fail(c, "%s: a malformed expression", what);
        b = stack[--n];
        a = stack[n - 1];
        switch (op->op) {
        case PGF_ADD:
            bad = __builtin_add_overflow(a, b, &r);
            break;
        case PGF_SUB:
            bad = __builtin_sub_overflow(a, b, &r);
            break;
        case PGF_MUL:
            bad = __builtin_mul_overflow(a, b, &r);
            break;
        case PGF_DIV:
        case PGF_MOD:
            if (b == 0)
                return pg_fail(c, "%s: division by zero", what);
            if (a == LLONG_MIN && b == -1)
                bad = 1;
            else
                r = op->op == PGF_DIV ? a / b : a % b;
            break;
        default:
            return pg_fail(c, "%s: a malformed expression", what);
        }
        if (bad)
            return pg_fail(c, "%s: out of range (a 64-bit overflow)", what);
        stack[n - 1] = r;
    }
    if (n != 1)
        return pg_fail(c, "%s: a malformed expression", what);
    *out = stack[0];
    return 0;
}

/* Whether `v` fits a scalar of `type` and `size` bytes. */
static int pgf_fits(long long v, int type, size_t size)
{
    if (type == PGF_BOOL)
        return v == 0 || v == 1;
    if (type == PGF_FLOAT || size >= 8)
        return type != PGF_UINT || v >= 0;
    if (type == PGF_UINT)
        return v >= 0 && (unsigned long long)v < (1ULL << (8 * size));
    return v >= -(1LL << (8 * size - 1)) && v < (1LL << (8 * size - 1));
}

/* Stores `v` (or `d`, for a float) as a scalar of `type` and `size`. */
static void pgf_store(void *at, int type, size_t size, long long v, double d)
{
    if (type == PGF_FLOAT && size == sizeof(float)) {
        float x = (float)d;
        memcpy(at, &x, sizeof(x));
    } else if (type == PGF_FLOAT && size == sizeof(double)) {
        memcpy(at, &d, sizeof(d));
    } else if (type == PGF_FLOAT) {
        long double x = (long double)d;
        memcpy(at, &x, sizeof(x));
    } else {
        /* Little-endian: the low bytes of v. */
        unsigned long long u = (unsigned long long)v;
        unsigned char b[8];
        size_t i;
        for (i = 0; i < 8; i++)
            b[i] = (unsigned char)(u >> (8 * i));
        memcpy(at, b, size < 8 ? size : 8);
    }
}

/* Reads a scalar of `type` and `size` as a double (floats) or as
 * long long (integers). */
static double pgf_load_float(const void *at, size_t size)
{
    if (size == sizeof(float)) {
        float x;
        memcpy(&x, at, sizeof(x));
        return x;
    }
    if (size == sizeof(double)) {
        double x;
        memcpy(&x, at, sizeof(x));
        return x;
    }
    {
        long double x;
        memcpy(&x, at, sizeof(x));
        return (double)x;
    }
}

static long long pgf_load_int(const void *at, int type, size_t size)
{
    const unsigned char *b = at;
    unsigned long long u = 0;
    size_t i;

    for (i = 0; i < size && i < 8; i++)
        u |= (unsigned long long)b[i] << (8 * i);
    if (type == PGF_INT && size < 8 && (u >> (8 * size - 1)) & 1)
        u |= ~0ULL << (8 * size);
    return (long long)u;
}

/* One element of a fill, as a number. */
static void pgf_element(pg_case *c, const pgf_slot *s, size_t i,
                        unsigned char *at)
{
    if (s->fill == PGF_ZEROS) {
        memset(at, 0, s->size);
    } else if (s->fill == PGF_ASCENDING) {
        pgf_store(at, s->type, s->size, (long long)i, (double)i);
    } else if (s->fill == PGF_RANGE && s->type == PGF_FLOAT) {
        pgf_store(at, s->type, s->size, 0,
                  s->lo + (s->hi - s->lo) * (double)(pg_random(c) >> 11) *
                              (1.0 / 9007199254740992.0));
    } else if (s->fill == PGF_RANGE) {
        pgf_store(at, s->type, s->size,
                  pg_random_int(c, (long long)s->lo, (long long)s->hi), 0);
    } else if (s->type == PGF_FLOAT) {
        pgf_store(at, s->type, s->size, 0, pg_random_float(c, -1.0f, 1.0f));
    } else if (s->type == PGF_BOOL) {
        pgf_store(at, s->type, s->size, (long long)(pg_random(c) & 1), 0);
    } else {
        pgf_store(at, PGF_UINT, s->size, (long long)pg_random(c), 0);
    }
}

/* `n` bytes of text: words from a list, with spaces and a newline now and
 * then, as prose compresses and splits. */
static void pgf_text(pg_case *c, unsigned char *out, size_t n)
{
    static const char *const words[] = {
        "the",     "of",     "and",    "to",     "in",     "a",      "is",
        "that",    "for",    "it",     "as",     "was",    "with",   "be",
        "by",      "on",     "not",    "he",     "this",   "are",    "or",
        "his",     "from",   "at",     "which",  "but",    "have",   "an",
        "had",     "they",   "you",    "were",   "their",  "one",    "all",
        "we",      "can",    "her",    "has",    "there",  "been",   "if",
        "more",    "when",   "will",   "would",  "who",    "so",     "no",
        "time",    "could",  "people", "number", "water",  "called", "between",
        "measure", "faster", "slower", "change", "memory", "branch", "cache",
        "buffer"};
    size_t i = 0;

    while (i < n) {
        const char *w = words[pg_random(c) % (sizeof(words) / sizeof(*words))];
        size_t k;
        for (k = 0; w[k] && i < n; k++)
            out[i++] = (unsigned char)w[k];
        if (i < n)
            out[i++] = pg_random(c) % 12 == 0 ? '\n' : ' ';
    }
}

/* Fills the host copy `host` of slot `s`, `n` elements. */
static int pgf_fill(pg_case *c, const pgf_slot *s, unsigned char *host,
                    size_t n)
{
    size_t i, bytes = n * s->size;

    if (s->fill == PGF_TEXT) {
        pgf_text(c, host, bytes);
    } else if (s->fill == PGF_POISON) {
        for (i = 0; i < n; i++)
            if (s->type == PGF_FLOAT)
                pgf_store(host + i * s->size, s->type, s->size, 0, NAN);
            else
                memset(host + i * s->size, 0xA5, s->size);
    } else if (s->fill == PGF_FILE) {
        FILE *f = fopen(s->file, "rb");
        size_t got = 0, r;
        if (!f)
            return pg_fail(c, "%s: cannot read %s", s->name, s->file);
        while (got < bytes && (r = fread(host + got, 1, bytes - got, f)) > 0)
            got += r;
        /* A short file is read again from its start. */
        while (got > 0 && got < bytes) {
            size_t more = got < bytes - got ? got : bytes - got;
            memcpy(host + got, host, more);
            got += more;
        }
        fclose(f);
        if (got < bytes)
            return pg_fail(c, "%s: %s is empty", s->name, s->file);
    } else {
        for (i = 0; i < n; i++)
            pgf_element(c, s, i, host + i * s->size);
    }
    return 0;
}

/* The elements of a file: its length over the element's size. */
static int pgf_file_length(pg_case *c, const pgf_slot *s, long long *n)
{
    FILE *f = fopen(s->file, "rb");
    long len;

    if (!f || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0) {
        if (f)
            fclose(f);
        return pg_fail(c, "%s: cannot read %s", s->name, s->file);
    }
    fclose(f);
    *n = (long long)len / (long long)s->size;
    return 0;
}

static unsigned char *pgf_read(pg_case *c, void *args, const pgf_slot *s,
                               size_t n);

/* Where slot `s`'s value or pointer is in `args`. */
static void *pgf_at(void *args, const pgf_slot *s)
{
    return (unsigned char *)args + s->offset;
}

/* Memory from pg_alloc() for slot `s`, `n` elements, filled as it says. */
static int pgf_buffer(pgf_state *st, size_t index, void *args, size_t n)
{
    const pgf_slot *s = &st->f->slots[index];
    pg_case *c = st->c;
    size_t bytes;
    unsigned char *host;
    void *p;

    size_t slices =
        st->f->batch > 1 && s->kind != PGF_SCRATCH ? (size_t)st->f->batch : 1;

    if (__builtin_mul_overflow(n, s->size, &bytes) ||
        __builtin_mul_overflow(bytes, slices, &bytes) || bytes > (1ULL << 46))
        return pg_fail(c, "%s: %zu elements are more than this machine has",
                       s->name, n);
    if (!(p = pg_alloc(c, bytes ? bytes : 1)))
        return pg_fail(c, "%s: out of memory for %zu bytes", s->name, bytes);
    memcpy(pgf_at(args, s), &p, sizeof(p));
    st->lengths[index] = n;
    if (s->fill == PGF_ZEROS || s->fill == PGF_FROM || !bytes)
        return 0;
    if (!(host = malloc(bytes)))
        return pg_fail(c, "%s: out of memory for %zu bytes", s->name, bytes);
    if (pgf_fill(c, s, host, n * slices) < 0) {
        free(host);
        return -1;
    }
    pg_upload(c, p, host, bytes);
    free(host);
    return 0;
}

/* The buffers of a slot list of one kind, in order. */
static int pgf_buffers(pgf_state *st, void *args, int kind)
{
    const pgf_function *f = st->f;
    size_t i;

    for (i = 0; i < f->nslots; i++) {
        const pgf_slot *s = &f->slots[i];
        long long n;
        if (s->kind == PGF_SCALAR || s->kind == PGF_RETURN ||
            (kind == PGF_SCRATCH) != (s->kind == PGF_SCRATCH))
            continue;
        if (s->value ? pgf_eval(st->c, s->value, st->lengths, s->name, &n)
                     : pgf_file_length(st->c, s, &n))
            return -1;
        if (n < 0)
            return pg_fail(st->c, "%s: a count of %lld elements", s->name, n);
        if (pgf_buffer(st, i, args, (size_t)n) < 0)
            return -1;
    }
    return 0;
}

/* batch:, a buffer a `from:` call made: its first slice in every other
 * (each batched call reads what the call made). */
static int pgf_slices(pgf_state *st, void *args)
{
    const pgf_function *f = st->f;
    size_t i, k;

    for (i = 0; f->batch > 1 && i < f->nslots; i++) {
        const pgf_slot *s = &f->slots[i];
        size_t bytes = st->lengths[i] * s->size;
        unsigned char *host, *p;
        if (s->fill != PGF_FROM || s->kind == PGF_SCRATCH)
            continue;
        /* The slices are as long as the buffer's count, not the length
         * the call returned. */
        if (s->value) {
            long long n;
            if (pgf_eval(st->c, s->value, st->lengths, s->name, &n) < 0)
                return -1;
            bytes = (size_t)n * s->size;
        }
        if (!(host = pgf_read(st->c, args, s, bytes / (s->size ? s->size : 1))))
            return pg_fail(st->c, "%s: out of memory", s->name);
        memcpy(&p, pgf_at(args, s), sizeof(p));
        for (k = 1; k < (size_t)f->batch; k++)
            pg_upload(st->c, p + k * bytes, host, bytes);
        free(host);
    }
    return 0;
}

/* Runs the `from:` calls, each after the buffers it reads are made. */
static int pgf_make(pgf_state *st, void *args)
{
    const pgf_function *f = st->f;
    size_t i, j;

    for (i = 0; i < f->nslots; i++) {
        const pgf_slot *s = &f->slots[i];
        const pgf_call *call;
        long long x[16], result;
        if (s->fill != PGF_FROM)
            continue;
        call = &f->calls[s->from];
        for (j = 0; j < call->nargs && j < 16; j++) {
            x[j] = 0;
            if (!call->args[j]) /* a buffer */
                continue;
            if (pgf_eval(st->c, call->args[j], st->lengths, call->text, &x[j]) <
                0)
                return -1;
            if (!pgf_fits(x[j], call->types[j], call->sizes[j]))
                return pg_fail(st->c,
                               "%s: argument %zu is %lld, out of its "
                               "type's range",
                               call->text, j + 1, x[j]);
        }
        if (f->make(s->from, args, x, st->c, &result) < 0)
            return -1;
        if (!call->returns_length)
            continue;
        if (result < 0 || (unsigned long long)result > st->lengths[i])
            return pg_fail(st->c,
                           "%s returned %lld: not a length of %s, which "
                           "holds %zu (a failure, or a buffer too small?)",
                           call->text, result, s->name, st->lengths[i]);
        st->lengths[i] = (size_t)result;
    }
    return pgf_slices(st, args);
}

/* The scalars, which may name the buffers' lengths. */
static int pgf_scalars(pgf_state *st, void *args)
{
    const pgf_function *f = st->f;
    size_t i;

    for (i = 0; i < f->nslots; i++) {
        const pgf_slot *s = &f->slots[i];
        long long v = 0;
        if (s->kind != PGF_SCALAR)
            continue;
        if (!s->is_number &&
            pgf_eval(st->c, s->value, st->lengths, s->name, &v) < 0)
            return -1;
        if (!s->is_number && !pgf_fits(v, s->type, s->size))
            return pg_fail(st->c, "%s = %lld does not fit its type", s->name,
                           v);
        pgf_store(pgf_at(args, s), s->type, s->size, v,
                  s->is_number ? s->number : (double)v);
    }
    return 0;
}

/* A set of arguments: buffers, inputs made, scalars. */
static void *pgf_arguments(pgf_state *st)
{
    void *args = pg_host_alloc(st->c, st->f->args_size);

    if (!args || pgf_buffers(st, args, PGF_SCRATCH) < 0 ||
        pgf_buffers(st, args, -1) < 0 || pgf_make(st, args) < 0 ||
        pgf_scalars(st, args) < 0)
        return NULL;
    return args;
}

/*
 * The reference's arguments: the same scalars and a copy of every input,
 * its own outputs, poisoned.  NULL after pg_fail().
 */
static void *pgf_twin(pgf_state *st)
{
    const pgf_function *f = st->f;
    unsigned char *twin = pg_host_alloc(st->c, f->args_size);
    size_t i;

    if (!twin)
        return NULL;
    memcpy(twin, st->args, f->args_size);
    for (i = 0; i < f->nslots; i++) {
        const pgf_slot *s = &f->slots[i];
        size_t bytes = st->lengths[i] * s->size;
        unsigned char *host;
        void *p;
        if (s->kind == PGF_SCALAR || s->kind == PGF_RETURN)
            continue;
        if (!(p = pg_alloc(st->c, bytes ? bytes : 1)) ||
            !(host = s->kind == PGF_OUTPUT
                         ? malloc(bytes ? bytes : 1)
                         : pgf_read(st->c, st->args, s, st->lengths[i]))) {
            pg_fail(st->c, "%s: out of memory for the reference", s->name);
            return NULL;
        }
        if (s->kind == PGF_OUTPUT)
            pgf_fill(st->c, s, host, st->lengths[i]);
        pg_upload(st->c, p, host, bytes);
        free(host);
        memcpy(twin + s->offset, &p, sizeof(p));
    }
    return twin;
}

/* The most results kept between batches: beyond it, a batch frees its
 * newest in the next call, inside the clock. */
#define PGF_KEPT_MAX ((size_t)1 << 20)

static void pgf_free_libc(void *p)
{
    free(p);
}

/* What frees a result, the side's own function or the C library's: 0, or
 * -1 after pg_fail(). */
static int pgf_releaser(pgf_state *st)
{
    const pgf_function *f = st->f;
    pg_fn fn;

    if (!f->owned || !f->free_name)
        return 0;
    if (!strcmp(f->free_name, "free")) {
        st->release = pgf_free_libc;
    } else {
        if (!(fn = pg_lookup(st->c, f->free_name)))
            return pg_fail(st->c,
                           "returns: no function '%s' on this side to free "
                           "the result with: add the file that defines it "
                           "to 'sources', or name another with free:",
                           f->free_name);
        st->release = (void (*)(void *))fn;
    }
    st->cap = f->free_timed ? 1 : 64;
    if (!(st->kept = malloc(st->cap * sizeof(void *))))
        return pg_fail(st->c, "out of memory for the results to free");
    return 0;
}

/* A result run() made: kept to be freed between batches; when there is
 * no room (or its freeing is timed), the one kept last is freed now. */
static void pgf_keep(pgf_state *st, void *p)
{
    if (!p || !st->release)
        return;
    if (st->nkept < st->cap) {
        st->kept[st->nkept++] = p;
        return;
    }
    st->release(st->kept[st->nkept - 1]);
    st->kept[st->nkept - 1] = p;
    st->full = 1;
}

/* pg_problem.between: every kept result freed but the newest, which
 * verify() and compare() may read; more room when a batch ran out. */
static void pgf_between(void *state)
{
    pgf_state *st = state;
    size_t i;

    if (!st->release || st->f->free_timed || st->nkept < 2)
        return;
    for (i = 0; i + 1 < st->nkept; i++)
        st->release(st->kept[i]);
    st->kept[0] = st->kept[st->nkept - 1];
    st->nkept = 1;
    if (st->full && st->cap < PGF_KEPT_MAX) {
        void **more = realloc(st->kept, 2 * st->cap * sizeof(void *));
        if (more) {
            st->kept = more;
            st->cap *= 2;
        }
    }
    st->full = 0;
}

/* pg_problem.teardown: every result still kept freed. */
static void pgf_teardown(void *state)
{
    pgf_state *st = state;
    size_t i;

    for (i = 0; st->release && i < st->nkept; i++)
        st->release(st->kept[i]);
    free(st->kept);
    st->kept = NULL;
    st->nkept = 0;
}

static void *pgf_setup(const pgf_function *f, pg_case *c)
{
    pgf_state *st = pg_host_alloc(c, sizeof(*st));

    if (!st || !(st->lengths = pg_host_alloc(c, f->nslots * sizeof(size_t))))
        return NULL;
    st->f = f;
    st->c = c;
    if (pgf_releaser(st) < 0)
        return NULL;
    if (!(st->args = pgf_arguments(st)))
        return NULL;
    if (f->check == PGF_CHECK_REFERENCE && !(st->ref = pgf_twin(st)))
        return NULL;
    return st;
}

/* Element `i` of slot `s` in `mem` (host memory), for a message. */
static void pgf_show(char *out, size_t size, const pgf_slot *s,
                     const unsigned char *mem)
{
    if (s->type == PGF_FLOAT)
        snprintf(out, size, "%.9g", pgf_load_float(mem, s->size));
    else if (s->type == PGF_UINT)
        snprintf(out, size, "%llu",
                 (unsigned long long)pgf_load_int(mem, PGF_UINT, s->size));
    else
        snprintf(out, size, "%lld", pgf_load_int(mem, s->type, s->size));
}

/* Whether element `got` differs from `want` beyond the tolerance. */
static int pgf_differs(const pgf_function *f, const pgf_slot *s,
                       const unsigned char *got, const unsigned char *want)
{
    double g, w;

    if (s->type != PGF_FLOAT)
        return memcmp(got, want, s->size) != 0;
    g = pgf_load_float(got, s->size);
    w = pgf_load_float(want, s->size);
    if (isnan(g) || isnan(w))
        return isnan(g) != isnan(w);
    if (g == w)
        return 0;
    return !(fabs(g - w) <= f->abs + f->rel * fabs(w));
}

/* A copy in host memory of buffer slot `s` of `args` (free() it). */
static unsigned char *pgf_read(pg_case *c, void *args, const pgf_slot *s,
                               size_t n)
{
    unsigned char *host = malloc(n * s->size ? n * s->size : 1);
    void *p;

    memcpy(&p, pgf_at(args, s), sizeof(p));
    if (host)
        pg_download(c, host, p, n * s->size);
    return host;
}

/* How many elements the pointer result `p` of `args` holds: 0, or -1
 * after pg_fail(). */
static int pgf_owned_length(const pgf_function *f, pg_case *c, void *args,
                            const unsigned char *p, const size_t *lengths,
                            size_t *out)
{
    long long n;

    if (f->length_slot >= 0) {
        const pgf_slot *s = &f->slots[f->length_slot];
        unsigned char *first;
        if (lengths[f->length_slot] < 1)
            return pg_fail(c,
                           "returns: %s holds no element to read the "
                           "length from",
                           s->name);
        if (!(first = pgf_read(c, args, s, 1)))
            return pg_fail(c, "out of memory reading %s", s->name);
        n = pgf_load_int(first, s->type, s->size);
        free(first);
    } else if (f->length) {
        if (pgf_eval(c, f->length, lengths, "returns: length", &n) < 0)
            return -1;
    } else {
        *out = strlen((const char *)p);
        return 0;
    }
    if (n < 0)
        return pg_fail(c, "returns: a length of %lld", n);
    *out = (size_t)n;
    return 0;
}

/* The pointer results of `got` and `want` by content: 0, or pg_fail()
 * naming the first difference. */
static int pgf_compare_owned(const pgf_function *f, pg_case *c, void *got,
                             void *want, const pgf_slot *s,
                             const size_t *lengths, const char *whose)
{
    const unsigned char *g, *w;
    size_t gn, wn, k;
    char a[64], b[64];

    memcpy(&g, pgf_at(got, s), sizeof(g));
    memcpy(&w, pgf_at(want, s), sizeof(w));
    if (!g || !w) {
        if (g == w)
            return 0;
        return pg_fail(c, "%s() returned %s, %s %s", f->name,
                       g ? "a result" : "NULL", whose, w ? "a result" : "NULL");
    }
    if (pgf_owned_length(f, c, got, g, lengths, &gn) < 0 ||
        pgf_owned_length(f, c, want, w, lengths, &wn) < 0)
        return -1;
    if (gn != wn)
        return pg_fail(c, "%s() returned %zu %s, %s %zu", f->name, gn,
                       f->length || f->length_slot >= 0 ? "elements" : "bytes",
                       whose, wn);
    for (k = 0; k < gn; k++) {
        if (!pgf_differs(f, s, g + k * s->size, w + k * s->size))
            continue;
        pgf_show(a, sizeof(a), s, g + k * s->size);
        pgf_show(b, sizeof(b), s, w + k * s->size);
        return pg_fail(c, "%s()'s result[%zu] = %s, %s %s", f->name, k, a,
                       whose, b);
    }
    return 0;
}

/*
 * The outputs and the result in `got` (whose lengths are `lengths`)
 * against those in `want`: 0, or pg_fail() naming the first element that
 * differs, "out[4095] = 0, base 12".
 */
static int pgf_compare(const pgf_function *f, pg_case *c, void *got, void *want,
                       const size_t *lengths, const char *whose)
{
    size_t i, k;

    for (i = 0; i < f->nslots; i++) {
        const pgf_slot *s = &f->slots[i];
        unsigned char *g, *w;
        char a[64], b[64];
        int err = 0;

        if (s->kind == PGF_RETURN && f->owned) {
            if (pgf_compare_owned(f, c, got, want, s, lengths, whose) < 0)
                return -1;
            continue;
        }
        if (s->kind == PGF_RETURN) {
            if (!pgf_differs(f, s, pgf_at(got, s), pgf_at(want, s)))
                continue;
            pgf_show(a, sizeof(a), s, pgf_at(got, s));
            pgf_show(b, sizeof(b), s, pgf_at(want, s));
            return pg_fail(c, "%s() returned %s, %s %s", f->name, a, whose, b);
        }
        if (s->kind != PGF_OUTPUT && s->kind != PGF_INOUT)
            continue;
        g = pgf_read(c, got, s, lengths[i]);
        w = pgf_read(c, want, s, lengths[i]);
        for (k = 0; g && w && k < lengths[i] && !err; k++) {
            if (!pgf_differs(f, s, g + k * s->size, w + k * s->size))
                continue;
            pgf_show(a, sizeof(a), s, g + k * s->size);
            pgf_show(b, sizeof(b), s, w + k * s->size);
            err = pg_fail(c, "%s[%zu] = %s, %s %s", s->name, k, a, whose, b);
        }
        if (!g || !w)
            err = pg_fail(c, "out of memory comparing %s", s->name);
        free(g);
        free(w);
        if (err)
            return err;
    }
    return 0;
}

/* The head's state against the base's (pg_problem.compare). */
static int pgf_compare_sides(void *head, void *base, pg_case *c)
{
    pgf_state *h = head, *b = base;
    size_t i;

    if (h->f->check != PGF_CHECK_BASE)
        return 0;
    /* Inputs a side made itself may differ in length (its own
     * compressor's output): outputs must not. */
    for (i = 0; i < h->f->nslots; i++)
        if ((h->f->slots[i].kind == PGF_OUTPUT ||
             h->f->slots[i].kind == PGF_INOUT) &&
            h->lengths[i] != b->lengths[i])
            return pg_fail(c, "%s holds %zu elements, the base's %zu",
                           h->f->slots[i].name, h->lengths[i], b->lengths[i]);
    return pgf_compare(h->f, c, h->args, b->args, h->lengths, "base");
}

/* The result's slot (the function returns something). */
static const pgf_slot *pgf_result_slot(const pgf_function *f)
{
    size_t i;

    for (i = 0; i < f->nslots; i++)
        if (f->slots[i].kind == PGF_RETURN)
            return &f->slots[i];
    return &f->slots[0];
}

/* The side against the reference, on the first checked call. */
static int pgf_verify(void *state, pg_case *c)
{
    pgf_state *st = state;
    pg_fn ref;
    int err;

    if (st->f->check != PGF_CHECK_REFERENCE || st->checked)
        return 0;
    st->checked = 1;
    if (!(ref = pg_lookup(c, st->f->reference)))
        return -1;
    st->f->call(st->ref, ref);
    err =
        pgf_compare(st->f, c, st->args, st->ref, st->lengths, st->f->reference);
    /* The reference's own result is freed as the function's is. */
    if (st->f->owned && st->release) {
        void *p;
        memcpy(&p, pgf_at(st->ref, pgf_result_slot(st->f)), sizeof(p));
        if (p)
            st->release(p);
    }
    return err;
}

/* An expression of work, or 0 when there is none or it fails. */
static double pgf_work(const pgf_op *op, const pg_case *c)
{
    long long v;

    if (!op || pgf_eval((pg_case *)c, op, NULL, "work", &v) < 0)
        return 0;
    return (double)v;
}

#endif
