/*
 * function.h - a benchmark declared by its prototype (perfgate.yml's
 * `function:`): what the config says of each parameter, checked against
 * the prototype, and the problem generated from it.
 *
 *     - name: crc32
 *       function: "unsigned long crc32_z(unsigned long crc,
 *                  const unsigned char *buf, size_t len)"
 *       sources: [crc32.c]
 *       args: {crc: 0, buf: {count: len}}
 *       cases: [{len: 64}, {len: 4096}]
 *
 * The generated problem is C (a table, and the typed calls) that includes
 * perfgate/function.h; perfgate compiles it as it compiles a problem file.
 * Its compare() checks the head's return value and outputs against the
 * base's on the same inputs.
 */
#ifndef PG_FUNCTION_H
#define PG_FUNCTION_H

#include <stddef.h>

#include "casespec.h"

/* Where a buffer's contents come from (perfgate/function.h's PGF_*). */
typedef enum pg_fill {
    PG_FILL_RANDOM = 0,
    PG_FILL_TEXT,
    PG_FILL_ZEROS,
    PG_FILL_ASCENDING,
    PG_FILL_RANGE,
    PG_FILL_FILE,
} pg_fill;

/* A position in the config, and whether the text there is quoted (then
 * column + 1 is its first character). */
typedef struct pg_fmark {
    pg_mark at;
    int quoted;
} pg_fmark;

/* An entry of `args:` (or of a buffer's `with:`). */
typedef struct pg_fvalue {
    char *name;
    pg_fmark mark; /* of the key */
    int is_buffer; /* a mapping: {count: ...} */
    char *expr;    /* a scalar's value, as written */
    pg_fmark expr_mark;
    char *count; /* a buffer's count; NULL: a file's length */
    pg_fmark count_mark;
    pg_fill fill;
    int fill_given;
    pg_fmark fill_mark;
    double lo, hi; /* PG_FILL_RANGE */
    char *file;    /* PG_FILL_FILE: as written, and resolved */
    char *file_path;
    char *from; /* a call that writes the buffer; NULL: none */
    pg_fmark from_mark;
    struct pg_fvalue *with; /* the buffers `from` may also name */
    size_t nwith;
} pg_fvalue;

enum { PG_CHECK_BASE = 0, PG_CHECK_NONE, PG_CHECK_REFERENCE };

typedef struct pg_function {
    char *prototype; /* with header:, once declared, what it declares */
    pg_fmark mark;
    /* header: the header that declares it (a path in the tree), and what
     * function: said (its name, or a prototype in the header's types),
     * kept once prototype is the declaration read (declare.h); NULL
     * without header: and until then. */
    char *header;
    pg_fmark header_mark;
    char *declared;
    char **helpers; /* prototypes of the functions `from:` calls */
    pg_fmark *helper_marks;
    size_t nhelpers;
    pg_fvalue *args;
    size_t nargs;
    pg_fmark args_mark;
    int check;       /* PG_CHECK_* */
    double rel, abs; /* how far the head's floats may be from the base's */
    char *reference; /* PG_CHECK_REFERENCE */
    pg_fmark check_mark;
    char *flops, *bytes; /* work per call, as expressions; NULL: none */
    pg_fmark flops_mark, bytes_mark;
    /* batch: each timed call of the problem calls the function this many
     * times on the same arguments, so that the harness's own cost per
     * call is shared that many ways; times are reported per call of the
     * function.  1: one call. */
    int batch;
    /* returns: for a pointer result.  The function that frees it (the
     * side's own, or "free"; NULL: free: none, the caller owns nothing);
     * its length in elements (an expression, or an output parameter the
     * call writes it to; NULL: a NUL-terminated string); and whether its
     * freeing is timed, as part of the work (by default results are freed
     * between timed batches, outside the clock). */
    int returns;
    pg_fmark returns_mark;
    char *free_fn;
    pg_fmark free_mark;
    char *length;
    pg_fmark length_mark;
    int free_timed;

    /* Filled by pg_function_check(): */
    char *name;   /* the function's */
    char *source; /* the generated problem */
    /* batch > 1: a C file compiled into each side's library beside its
     * sources, whose function pg_batch_NAME(ARGS..., int n) calls NAME
     * n times directly, so that the harness's own cost (an indirect call
     * of the library) is paid once a batch; the benchmark times it.
     * NULL: none. */
    char *batch_source;
    int has_output; /* anything to compare: a result or an output */
} pg_function;

/*
 * Checks `f` against its prototype and the benchmark's `cases`, and
 * generates its problem into f->source.  `display` names the config in
 * messages.  0, or PG_ERR_USAGE with a
 * "FILE:LINE:COL: message" error.
 */
int pg_function_check(pg_function *f, const char *display,
                      const pg_casespec *cases, size_t ncases);

void pg_function_free(pg_function *f);

/*
 * Whether the files that argument `index` of `f` (and its `with`) reads
 * are inside `root`; 0 with *file the first that is not.
 */
int pg_function_files_inside(const pg_function *f, size_t index,
                             const char *root, const char **file);

#endif
