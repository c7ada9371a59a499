/*
 * profile.c - where the time went (profile.h).
 */
#include "profile.h"
#include "build.h"
#include "error.h"
#include "fs.h"
#include "ncu.h"
#include "proc.h"
#include "run.h"
#include "runspec.h"
#include "sanitize.h"
#include "str.h"
#include "strvec.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define TOP_FUNCTIONS 20  /* kept in the result */
#define LINED_FUNCTIONS 3 /* whose lines are kept */
#define TOP_LINES 10      /* per function */
#define TOP_OUTSIDE 10    /* functions outside the user's code */
#define TEXT_MAX 120      /* bytes of a line's source text kept */

/* A row and what finds it: a function, file, text and object, and `at`, a
 * line number (or, for a line paired by its text, which occurrence of that
 * text in its function it is). */
typedef struct crow {
    pg_profile_row r;
    int at;
} crow;

/* A side's costs, as callgrind counted them: a row per function of the
 * side's library and per line of those functions, and a row per function
 * outside it that they called. */
typedef struct costs {
    crow *rows;
    size_t n, cap;
    /* Rows by key: open addressing, each slot a row's index + 1 (0:
     * empty), so that a profile of many functions is read in linear time.
     * NULL once the rows are sorted. */
    size_t *index;
    size_t nindex; /* a power of two, at least twice n */
    double outside; /* every call out of the user's code, inclusive */
} costs;

typedef struct row_key {
    const char *function, *file, *text, *object;
    int at;
} row_key;

static uint64_t hash_str(uint64_t h, const char *s)
{
    for (s = s ? s : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return (h ^ 0xff) * 1099511628211ULL;
}

static size_t row_hash(const row_key *k)
{
    uint64_t h = 1469598103934665603ULL;

    h = hash_str(h, k->function);
    h = hash_str(h, k->file);
    h = hash_str(h, k->text);
    h = hash_str(h, k->object);
    return (size_t)((h ^ (uint64_t)(unsigned)k->at) * 1099511628211ULL);
}

static int same(const char *a, const char *b)
{
    return a ? b && !strcmp(a, b) : !b;
}

static int row_is(const crow *c, const row_key *k)
{
    return c->at == k->at && same(c->r.function, k->function) &&
           same(c->r.file, k->file) && same(c->r.text, k->text) &&
           same(c->r.object, k->object);
}

/* The slot where the row for `k` is, or would go. */
static size_t *slot_of(const costs *c, const row_key *k)
{
    size_t i = row_hash(k) & (c->nindex - 1);

    while (c->index[i] && !row_is(&c->rows[c->index[i] - 1], k))
        i = (i + 1) & (c->nindex - 1);
    return &c->index[i];
}

static row_key key_of(const crow *c)
{
    row_key k = {c->r.function, c->r.file, c->r.text, c->r.object, c->at};

    return k;
}

static void reindex(costs *c)
{
    size_t i;

    free(c->index);
    c->nindex = c->nindex ? 2 * c->nindex : 256;
    c->index = pg_calloc(c->nindex, sizeof(*c->index));
    for (i = 0; i < c->n; i++) {
        row_key k = key_of(&c->rows[i]);
        *slot_of(c, &k) = i + 1;
    }
}

/* The row for `k`, made (with no cost on either side) when it is new. */
static pg_profile_row *row_of(costs *c, const row_key *k)
{
    size_t *slot;
    crow *to;

    if (!c->index || 2 * (c->n + 1) > c->nindex)
        reindex(c);
    slot = slot_of(c, k);
    if (*slot)
        return &c->rows[*slot - 1].r;
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->rows = pg_realloc(c->rows, c->cap * sizeof(*c->rows));
    }
    to = &c->rows[c->n];
    memset(to, 0, sizeof(*to));
    to->r.function = pg_strdup(k->function);
    to->r.file = pg_strdup(k->file);
    to->r.text = pg_strdup(k->text);
    to->r.object = pg_strdup(k->object);
    to->r.line = k->at;
    to->at = k->at;
    *slot = ++c->n;
    return &to->r;
}

static void row_clear(pg_profile_row *r)
{
    free(r->function);
    free(r->file);
    free(r->text);
    free(r->object);
}

static void costs_clear(costs *c)
{
    size_t i;

    for (i = 0; i < c->n; i++)
        row_clear(&c->rows[i].r);
    free(c->rows);
    free(c->index);
    memset(c, 0, sizeof(*c));
}

/* "key=value" at the start of `line`: the value, else NULL. */
static const char *value_of(const char *line, const char *key)
{
    size_t n = strlen(key);

    return !strncmp(line, key, n) && line[n] == '=' ? line + n + 1 : NULL;
}

/* Where callgrind's reader is: the function whose costs follow, and the
 * call whose inclusive cost the next cost line is. */
typedef struct reader {
    char *ob, *fl, *fi, *fn;
    char *cob, *cfn; /* the callee; cob NULL: in ob */
    int after_call;
    double ncalls; /* the call's count, after a "calls=" line */
    const char *lib;
    size_t root; /* the length of side_dir, no trailing '/' */
    const char *side_dir;
} reader;

static void reader_set(char **field, const char *value)
{
    free(*field);
    *field = pg_strdup(value);
}

/* The C library's functions that allocate on the caller's behalf. */
static int allocator(const char *fn)
{
    static const char *const names[] = {
        "malloc",         "calloc",  "realloc",  "reallocarray",
        "strdup",         "strndup", "memalign", "aligned_alloc",
        "posix_memalign", "valloc",  "pvalloc",  "asprintf",
        "vasprintf",      NULL};
    size_t i;

    for (i = 0; fn && names[i]; i++)
        if (!strcmp(fn, names[i]))
            return 1;
    return 0;
}

/* A cost line: `cost` at line `pos` of the current function, its own or,
 * after a "calls=" line, a call's (which is inclusive). */
static void reader_cost(costs *out, reader *rd, long pos, double cost)
{
    const char *file = rd->fi ? rd->fi : rd->fl;
    const char *callee_ob = rd->cob ? rd->cob : rd->ob;
    int call = rd->after_call, outside;
    pg_profile_row *fn, *line = NULL;
    row_key k = {rd->fn, NULL, NULL, NULL, 0};

    /* A function with a name (not a stub's address), of the side's
     * library; its files named as in the tree, so that both sides' lines
     * meet. */
    if (!rd->fn || !rd->ob || strcmp(rd->ob, rd->lib) ||
        !strncmp(rd->fn, "0x", 2))
        return;
    if (file && !strncmp(file, rd->side_dir, rd->root) &&
        file[rd->root] == '/') {
        /* "DIR//src/x.c": a compiler that took its directory from a PWD
         * with a slash at its end (the working tree's). */
        for (file += rd->root; *file == '/'; file++)
            ;
    }
    fn = row_of(out, &k);
    if (pos > 0 && pos <= INT_MAX && file) {
        row_key kl = {rd->fn, file, NULL, NULL, (int)pos};
        line = row_of(out, &kl);
    }
    if (!call) {
        fn->self[0] += cost;
        fn->cost[0] += cost;
        if (line) {
            line->self[0] += cost;
            line->cost[0] += cost;
        }
        return;
    }
    if (line)
        line->cost[0] += cost;
    /* A function calling itself: its cost is counted where it is. */
    if (!rd->cfn || !same(rd->cfn, rd->fn) || strcmp(callee_ob, rd->ob))
        fn->cost[0] += cost;
    outside = strcmp(callee_ob, rd->lib) != 0;
    if (outside && allocator(rd->cfn)) {
        /* An allocation site: the line, and what it calls; the function
         * alone ("" for its file) where the code has no line numbers (a
         * project's own build, which --profile does not build again). */
        row_key ka = {rd->fn, line ? file : "", NULL, rd->cfn,
                      line ? (int)pos : 0};
        pg_profile_row *a = row_of(out, &ka);
        a->cost[0] += rd->ncalls;
        a->self[0] += rd->ncalls;
    }
    if (outside && rd->cfn && strncmp(rd->cfn, "0x", 2)) {
        row_key ko = {rd->cfn, NULL, NULL, pg_path_basename(callee_ob), 0};
        pg_profile_row *o = row_of(out, &ko);
        o->cost[0] += cost;
        o->self[0] += cost;
    }
    if (outside)
        out->outside += cost;
}

/*
 * Reads callgrind's output (written with --compress-strings=no and
 * --compress-pos=no) for the functions whose object is `lib`: each one's
 * own cost and its inclusive cost (its own and its calls'), into rows with
 * line 0, the same for each of their lines (with file), and what their
 * calls out of `lib` cost, per function called.  The cost line after a
 * "calls=" line is the call's, inclusive.
 */
static int read_callgrind(costs *out, const char *path, const char *lib,
                          const char *side_dir)
{
    reader rd;
    char *text = NULL, *line, *next;

    memset(&rd, 0, sizeof(rd));
    rd.lib = lib;
    rd.side_dir = side_dir;
    rd.root = strlen(side_dir);
    while (rd.root > 1 && side_dir[rd.root - 1] == '/')
        rd.root--;
    if (pg_read_file(&text, NULL, path, (size_t)256 << 20) < 0)
        return -1;
    for (line = text; line && *line; line = next) {
        const char *v;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if ((v = value_of(line, "ob"))) {
            reader_set(&rd.ob, v);
        } else if ((v = value_of(line, "fl"))) {
            reader_set(&rd.fl, v);
            free(rd.fi), rd.fi = NULL;
        } else if ((v = value_of(line, "fi")) || (v = value_of(line, "fe"))) {
            reader_set(&rd.fi, v);
        } else if ((v = value_of(line, "fn"))) {
            reader_set(&rd.fn, v);
            free(rd.fi), rd.fi = NULL;
        } else if ((v = value_of(line, "cob"))) {
            reader_set(&rd.cob, v);
        } else if ((v = value_of(line, "cfn"))) {
            reader_set(&rd.cfn, v);
        } else if (!strncmp(line, "calls=", 6)) {
            /* "calls=0": a call still under way when callgrind dumped
             * (the stack around a dump taken inside the program): its
             * cost is its callees' own, counted where they are. */
            rd.ncalls = strtod(line + 6, NULL);
            rd.after_call = rd.ncalls == 0 ? 2 : 1;
        } else if (*line >= '0' && *line <= '9') {
            char *end;
            long pos = strtol(line, &end, 10);
            if (rd.after_call != 2)
                reader_cost(out, &rd, pos, strtod(end, NULL));
            if (rd.after_call) {
                free(rd.cob), rd.cob = NULL;
                free(rd.cfn), rd.cfn = NULL;
            }
            rd.after_call = 0;
        }
    }
    free(rd.ob);
    free(rd.fl);
    free(rd.fi);
    free(rd.fn);
    free(rd.cob);
    free(rd.cfn);
    free(text);
    return 0;
}

/* The line that starts at `p`, trimmed and at most TEXT_MAX bytes; NULL
 * when it is blank. */
static char *line_text(const char *p)
{
    const char *end = strchr(p, '\n');
    char *cut, *text;
    size_t n;

    end = end ? end : p + strlen(p);
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    if (end == p)
        return NULL;
    n = pg_utf8_cut(p, (size_t)(end - p) < TEXT_MAX ? (size_t)(end - p)
                                                    : TEXT_MAX);
    cut = pg_strdupf("%.*s", (int)n, p);
    text = pg_text_clean(cut);
    free(cut);
    return text;
}

/* A source file of the tree, and where each of its lines starts. */
typedef struct source {
    char *name, *body;
    const char **starts;
    size_t nlines;
} source;

static void source_clear(source *f)
{
    free(f->name);
    free(f->body);
    free(f->starts);
    memset(f, 0, sizeof(*f));
}

/* Reads `name` of the tree: only a file inside it (a relative name, all
 * its links inside the tree), since a hostile change can name any file in
 * its debug information.  No body when it cannot be read. */
static void source_read(source *f, const char *side_dir, const char *name)
{
    char *path = pg_path_join(side_dir, name);
    const char *p;
    size_t n = 0;

    source_clear(f);
    f->name = pg_strdup(name);
    if (name[0] == '/' || pg_path_inside(side_dir, path) != 1 ||
        pg_read_regular_file(&f->body, NULL, path, (size_t)16 << 20) < 0)
        f->body = NULL;
    free(path);
    if (!f->body)
        return;
    for (p = f->body; (p = strchr(p, '\n')); p++)
        n++;
    f->starts = pg_calloc(n + 2, sizeof(*f->starts));
    f->starts[f->nlines++] = f->body;
    for (p = f->body; (p = strchr(p, '\n')) && p[1]; p++)
        f->starts[f->nlines++] = p + 1;
}

static int by_file_then_line(const void *x, const void *y)
{
    const pg_profile_row *a = &((const crow *)x)->r, *b = &((const crow *)y)->r;
    int d = strcmp(a->file ? a->file : "", b->file ? b->file : "");

    return d ? d : (a->line > b->line) - (a->line < b->line);
}

/*
 * Each line row's source text, from the side's tree (source_read): each
 * file read once, each line found at once, whatever the debug information
 * claims.  The rows are reordered and the index dropped.
 */
static void read_texts(costs *c, const char *side_dir)
{
    source f;
    size_t i;

    memset(&f, 0, sizeof(f));
    /* Texts are part of the key: the index would point wrong. */
    free(c->index);
    c->index = NULL;
    c->nindex = 0;
    if (c->n)
        qsort(c->rows, c->n, sizeof(*c->rows), by_file_then_line);
    for (i = 0; i < c->n; i++) {
        pg_profile_row *r = &c->rows[i].r;
        if (!r->file || !*r->file)
            continue;
        if (!f.name || strcmp(f.name, r->file))
            source_read(&f, side_dir, r->file);
        if (f.body && r->line >= 1 && (size_t)r->line <= f.nlines) {
            free(r->text);
            r->text = line_text(f.starts[r->line - 1]);
        }
    }
    source_clear(&f);
}

static int by_text_then_line(const void *x, const void *y)
{
    const pg_profile_row *a = &((const crow *)x)->r, *b = &((const crow *)y)->r;
    int d;

    if ((d = strcmp(a->function, b->function)))
        return d;
    if ((d = strcmp(a->file ? a->file : "", b->file ? b->file : "")))
        return d;
    if (!a->text != !b->text)
        return a->text ? 1 : -1;
    if (a->text && (d = strcmp(a->text, b->text)))
        return d;
    /* A line's allocation sites after it, each its own series. */
    if ((d = strcmp(a->object ? a->object : "", b->object ? b->object : "")))
        return d;
    return (a->line > b->line) - (a->line < b->line);
}

/*
 * Pairs a side's lines by their text: each line row's key becomes which
 * occurrence of its text (in its function and file) it is, so that the
 * same code meets on both sides wherever lines were added above it.  A
 * line without text keeps its number.
 */
static void key_by_text(costs *c)
{
    size_t i;

    if (c->n)
        qsort(c->rows, c->n, sizeof(*c->rows), by_text_then_line);
    for (i = 0; i < c->n; i++) {
        crow *r = &c->rows[i];
        if (!r->r.text)
            continue;
        r->at = 1;
        if (i > 0 && r[-1].r.text && !strcmp(r[-1].r.text, r->r.text) &&
            !strcmp(r[-1].r.function, r->r.function) &&
            same(r[-1].r.file, r->r.file) && same(r[-1].r.object, r->r.object))
            r->at = r[-1].at + 1;
    }
    free(c->index);
    c->index = NULL;
    c->nindex = 0;
}

typedef struct job {
    const pg_bench_config *b;
    const char *problem_lib, *work_dir;
    const pg_casespec *c;
    double timeout;
    const char *ncu; /* a CUDA kernel's profile: ncu's path; NULL: C's */
    int cold;        /* CUDA: the case's inputs cold, as measured */
} job;

/* Each flag of `flags` and `more`: a new array for a pg_bench_config. */
static char **with_flag(char *const *flags, size_t n, const char *more)
{
    char **all = pg_calloc(n + 2, sizeof(*all));
    size_t i;

    for (i = 0; i < n; i++)
        all[i] = flags[i];
    all[n] = (char *)more;
    return all;
}

/* The measuring child's spec for one side's case, run once and checked
 * (not timed), its library `lib`, into `path`. */
static int write_spec(const job *j, const pg_bench_config *b, const char *lib,
                      const char *path)
{
    pg_run_spec spec;
    pg_settings settings;

    pg_run_spec_init(&spec);
    pg_settings_defaults(&settings);
    spec.problem_lib = j->problem_lib;
    spec.problem_name = b->problem;
    spec.lib[1] = lib;
    spec.symbol = b->symbol;
    spec.cases = j->c;
    spec.ncases = 1;
    spec.settings = &settings;
    spec.verify_only = 1;
    spec.gpu = j->ncu != NULL;
    spec.cold = j->cold;
    return pg_run_spec_write(&spec, path);
}

/* The profiler the child runs under: ncu, or callgrind writing `out`. */
static void profiler_argv(pg_strvec *a, const job *j, const char *out)
{
    if (j->ncu) {
        pg_ncu_argv(a, j->ncu, out);
        return;
    }
    pg_strvec_push(a, "valgrind");
    pg_strvec_push(a, "--tool=callgrind");
    pg_strvec_push(a, "-q");
    pg_strvec_pushf(a, "--callgrind-out-file=%s", out);
    pg_strvec_push(a, "--compress-strings=no");
    pg_strvec_push(a, "--compress-pos=no");
}

/*
 * What ncu wrote to `csv` of side `side`'s kernels: 0, or 1 with *why.
 * What ncu read is the profile, whatever the exit status (the measuring
 * child leaves what the process's end frees, which a leak checker
 * reports); ncu's own error (no permission for the GPU's counters, say)
 * is the cause before the exit status.
 */
static int ncu_result(pg_ncu_side *kernels, char **why, const char *side,
                      const char *csv, const pg_proc_result *res)
{
    char *said = NULL;
    int ran = res->exited && !res->exit_code;

    if (!pg_ncu_read(kernels, csv, &said)) {
        free(said);
        return 0;
    }
    pg_ncu_side_clear(kernels);
    if (said && (ran || !strncmp(said, "ncu: ", 5))) {
        *why = pg_strdupf("the %s side: %s", side, said);
    } else {
        /* What it said last, as a failed build says it. */
        pg_str tail = PG_STR_INIT;
        pg_str_put_tail_lines(&tail, pg_str_cstr(&res->output), 3);
        *why = pg_strdupf("the %s side's case did not run under ncu "
                          "(%s %d)%s%s",
                          side, res->exited ? "exit status" : "signal",
                          res->exited ? res->exit_code : res->signal,
                          tail.size ? ": " : "", pg_str_cstr(&tail));
        pg_str_clear(&tail);
    }
    free(said);
    return 1;
}

/*
 * Side s's costs: built again with line numbers into the work directory
 * (C: -g, which does not change the code gcc makes; CUDA: -lineinfo,
 * which does not change nvcc's), its case run once (checked as ever, not
 * timed) under callgrind into *out, or under ncu into *kernels.  0; or 1
 * with *why set when it cannot be profiled; negative when interrupted.
 */
static int profile_side(costs *out, pg_ncu_side *kernels, char **why,
                        const job *j, const char *side_dir, int s)
{
    const char *side = s ? "head" : "base";
    const char *flag = j->ncu ? "-lineinfo" : "-g";
    pg_bench_config b = *j->b;
    pg_build build;
    pg_proc_opts opts;
    pg_proc_result res;
    pg_strvec a = PG_STRVEC_INIT;
    char **flags;
    char *tag = pg_strdupf("profile-%s", side);
    char *spec_path = pg_strdupf("%s/%s.%s.run", j->work_dir, b.name, tag);
    /* Beside the side's build, in the one directory its run may write. */
    char *own = pg_path_join(j->work_dir, tag);
    char *cg = pg_strdupf("%s/%s.%s.%s", own, b.name, tag,
                          j->ncu ? "ncu.csv" : "callgrind");
    pg_box box = {{own}, {NULL}, {NULL}};
    int err;

    if (j->ncu) {
        flags = with_flag(b.nvcc_flags, b.nnvcc_flags, flag);
        b.nvcc_flags = flags;
        b.nnvcc_flags++;
    } else {
        flags = with_flag(b.cflags, b.ncflags, flag);
        b.cflags = flags;
        b.ncflags++;
    }
    err = pg_build_solution(&build, &b, side_dir, j->work_dir, tag, j->timeout);
    if (err >= 0 && !build.ok) {
        *why = pg_strdupf("the %s side did not build with %s: %s", side, flag,
                          build.message ? build.message : "?");
        err = 1;
    }
    if (err)
        goto done;
    if ((err = write_spec(j, &b, build.lib, spec_path)) < 0)
        goto done;
    profiler_argv(&a, j, cg);
    pg_strvec_push(&a, pg_run_program_path());
    pg_strvec_push(&a, spec_path);
    memset(&opts, 0, sizeof(opts));
    opts.cwd = own;
    opts.timeout = j->timeout;
    opts.box = &box;
    if ((err = pg_proc_run_argv(&res, a.v, &opts)) < 0)
        goto done;
    if (j->ncu)
        err = ncu_result(kernels, why, side, cg, &res);
    else if (!res.exited || res.exit_code) {
        *why = pg_strdupf("the %s side's case did not run under callgrind "
                          "(%s %d)",
                          side, res.exited ? "exit status" : "signal",
                          res.exited ? res.exit_code : res.signal);
        err = 1;
    } else if (read_callgrind(out, cg, build.lib, side_dir) < 0 || !out->n) {
        *why = pg_strdupf("callgrind saw nothing of the %s side's code", side);
        err = 1;
    } else {
        read_texts(out, side_dir);
        key_by_text(out);
    }
    pg_proc_result_clear(&res);
done:
    if (err == 0 || err == 1)
        ; /* said in *why */
    else if (err != PG_ERR_INTERRUPTED && !*why)
        *why = pg_strdupf("the %s side could not be profiled: %s", side,
                          pg_error_last());
    pg_build_clear(&build);
    pg_strvec_clear(&a);
    free(flags);
    free(tag);
    free(spec_path);
    free(cg);
    free(own);
    return err == PG_ERR_INTERRUPTED ? err : err ? 1 : 0;
}

static double bigger(const pg_profile_row *r)
{
    double a = isnan(r->cost[0]) ? 0 : r->cost[0];
    double b = isnan(r->cost[1]) ? 0 : r->cost[1];

    return a > b ? a : b;
}

static int costlier_first(const void *x, const void *y)
{
    double a = bigger(&((const crow *)x)->r), b = bigger(&((const crow *)y)->r);

    return a > b ? -1 : a < b ? 1 : 0;
}

/* A row is a function of the user's, one of its lines, a function it
 * called outside itself, or one of its lines calling the allocator. */
typedef enum row_kind { FUNCTIONS, LINES, OUTSIDE, ALLOCS } row_kind;

static row_kind kind_of(const pg_profile_row *r)
{
    return r->object && r->file ? ALLOCS
           : r->object          ? OUTSIDE
           : r->file            ? LINES
                                : FUNCTIONS;
}

static double calls_of(double v)
{
    return isnan(v) ? 0 : v;
}

static int most_added_first(const void *x, const void *y)
{
    const pg_profile_row *a = x, *b = y;
    double da = calls_of(a->cost[1]) - calls_of(a->cost[0]);
    double db = calls_of(b->cost[1]) - calls_of(b->cost[0]);

    if (da != db)
        return da > db ? -1 : 1;
    /* As many more: a site the base has not first, then by line. */
    if (isnan(a->cost[0]) != isnan(b->cost[0]))
        return isnan(a->cost[0]) ? -1 : 1;
    return (a->line > b->line) - (a->line < b->line);
}

/* The allocation sites whose calls differ between the sides, the head's
 * added ones first, into p (moved out of `all`). */
static void keep_alloc_sites(pg_profile *p, costs *all)
{
    size_t i;

    p->alloc_sites = pg_calloc(all->n + 1, sizeof(*p->alloc_sites));
    for (i = 0; i < all->n; i++) {
        pg_profile_row *r = &all->rows[i].r;
        if (calls_of(r->cost[0]) == calls_of(r->cost[1]))
            continue;
        p->alloc_sites[p->nalloc_sites++] = *r;
        memset(r, 0, sizeof(*r));
    }
    qsort(p->alloc_sites, p->nalloc_sites, sizeof(*p->alloc_sites),
          most_added_first);
    if (p->nalloc_sites > TOP_LINES) {
        for (i = TOP_LINES; i < p->nalloc_sites; i++)
            row_clear(&p->alloc_sites[i]);
        p->nalloc_sites = TOP_LINES;
    }
}

/* Both sides' rows of one kind into one list, costliest first: each
 * function (or line, or function called outside) once, with each side's
 * cost (NAN where it has none).  Lines meet by their keys (key_by_text):
 * the head's number is kept, and the base's beside it. */
static void side_by_side(costs *all, const costs sides[2], row_kind kind)
{
    int s;
    size_t i;

    for (s = 0; s < 2; s++)
        for (i = 0; i < sides[s].n; i++) {
            const crow *r = &sides[s].rows[i];
            row_key k = key_of(r);
            pg_profile_row *to;
            size_t before = all->n;
            if (kind_of(&r->r) != kind)
                continue;
            to = row_of(all, &k);
            if (all->n > before) {
                to->cost[0] = to->cost[1] = NAN;
                to->self[0] = to->self[1] = NAN;
                to->line = 0;
            }
            to->cost[s] = r->r.cost[0];
            to->self[s] = r->r.self[0];
            if (s == 0)
                to->base_line = r->r.line;
            else
                to->line = r->r.line;
        }
    for (i = 0; i < all->n; i++)
        if (!all->rows[i].r.line)
            all->rows[i].r.line = all->rows[i].r.base_line;
    if (all->n) /* rows is NULL when there are none */
        qsort(all->rows, all->n, sizeof(*all->rows), costlier_first);
    /* Sorted: the index points at other rows now. */
    free(all->index);
    all->index = NULL;
    all->nindex = 0;
}

/* Moves up to `most` rows of `from` (of `function` only, when it is not
 * NULL) into a new array of *n; what is taken is gone from `from`. */
static pg_profile_row *take_rows(costs *from, size_t most, size_t *n,
                                 const char *function)
{
    pg_profile_row *rows = pg_calloc(most + 1, sizeof(*rows));
    size_t i;

    *n = 0;
    for (i = 0; i < from->n && *n < most; i++) {
        pg_profile_row *r = &from->rows[i].r;
        if (!r->function || (function && strcmp(r->function, function)))
            continue;
        rows[(*n)++] = *r;
        memset(r, 0, sizeof(*r));
    }
    return rows;
}

/* The kept rows: the costliest functions, the costliest lines of the
 * first few of them, and the costliest functions called outside. */
static void keep_rows(pg_profile *p, costs *funcs, costs *lines, costs *outside)
{
    size_t i, n;

    p->functions = take_rows(funcs, TOP_FUNCTIONS, &p->nfunctions, NULL);
    p->lines = pg_calloc(LINED_FUNCTIONS * TOP_LINES + 1, sizeof(*p->lines));
    for (i = 0; i < p->nfunctions && i < LINED_FUNCTIONS; i++) {
        pg_profile_row *some =
            take_rows(lines, TOP_LINES, &n, p->functions[i].function);
        memcpy(&p->lines[p->nlines], some, n * sizeof(*some));
        p->nlines += n;
        free(some);
    }
    p->outside = take_rows(outside, TOP_OUTSIDE, &p->noutside, NULL);
}

/* Both sides' costs, paired, into p's rows: what is kept of them. */
static void pair_sides(pg_profile *p, const costs sides[2])
{
    costs funcs, lines, outside, allocs;
    int s;

    if (!sides[0].n && !sides[1].n)
        return;
    memset(&funcs, 0, sizeof(funcs));
    memset(&lines, 0, sizeof(lines));
    memset(&outside, 0, sizeof(outside));
    memset(&allocs, 0, sizeof(allocs));
    side_by_side(&funcs, sides, FUNCTIONS);
    side_by_side(&lines, sides, LINES);
    side_by_side(&outside, sides, OUTSIDE);
    side_by_side(&allocs, sides, ALLOCS);
    keep_rows(p, &funcs, &lines, &outside);
    keep_alloc_sites(p, &allocs);
    costs_clear(&allocs);
    for (s = 0; s < 2; s++)
        p->outside_total[s] = sides[s].n ? sides[s].outside : NAN;
    costs_clear(&funcs);
    costs_clear(&lines);
    costs_clear(&outside);
}

/* A CUDA kernel's profile: each side's case under ncu, paired by kernel. */
static int profile_kernels(pg_profile *p, const job *j,
                           const char *const side_dir[2])
{
    pg_ncu_side sides[2];
    costs unused;
    int s, err = 0;

    memset(sides, 0, sizeof(sides));
    memset(&unused, 0, sizeof(unused));
    p->tool = pg_strdup("ncu");
    p->unit = pg_strdup("ns");
    for (s = 1; s >= 0 && !err; s--)
        err = profile_side(&unused, &sides[s], &p->skipped, j, side_dir[s], s);
    if (err >= 0 && sides[0].nkernels + sides[1].nkernels)
        pg_ncu_pair(p, sides);
    for (s = 0; s < 2; s++)
        pg_ncu_side_clear(&sides[s]);
    return err < 0 ? err : 0;
}

int pg_profile_callgrind_ready(pg_profile *p)
{
    char *tool = pg_path_search("valgrind");

    if (!tool) {
        p->skipped = pg_strdup("no profiler on this machine: install "
                               "valgrind for callgrind's profile");
        return 0;
    }
    free(tool);
#ifdef PG_UNDER_ASAN
    p->skipped = pg_strdup("this perfgate is built with AddressSanitizer, "
                           "which does not run under valgrind");
    return 0;
#endif
    return 1;
}

int pg_profile_bench(pg_bench_result *out, const pg_bench_config *b,
                     const char *const side_dir[2], const char *problem_lib,
                     const pg_casespec *c, const char *work_dir, double timeout,
                     int gpu, int cold)
{
    job j = {b, problem_lib, work_dir, c, timeout, NULL, cold};
    costs sides[2];
    pg_profile *p = pg_calloc(1, sizeof(*p));
    char *tool;
    int s, err = 0;

    memset(sides, 0, sizeof(sides));
    p->case_name = pg_strdup(c->name);
    out->profile = p;
    if (gpu) {
        if (!(tool = pg_ncu_path())) {
            p->skipped = pg_strdup("no profiler on this machine: install "
                                   "NVIDIA Nsight Compute (ncu) for a CUDA "
                                   "kernel's profile");
            return 0;
        }
        j.ncu = tool;
        err = profile_kernels(p, &j, side_dir);
        free(tool);
        return err;
    }
    if (!pg_profile_callgrind_ready(p))
        return 0;
    p->tool = pg_strdup("callgrind");
    p->unit = pg_strdup("instructions");
    for (s = 1; s >= 0 && !err; s--)
        err = profile_side(&sides[s], NULL, &p->skipped, &j, side_dir[s], s);
    if (err >= 0)
        pair_sides(p, sides);
    for (s = 0; s < 2; s++)
        costs_clear(&sides[s]);
    return err < 0 ? err : 0;
}

int pg_profile_read(pg_profile *p, const char *const path[2],
                    const char *const lib[2], const char *const side_dir[2])
{
    costs sides[2];
    int s, err = 0;

    memset(sides, 0, sizeof(sides));
    for (s = 0; s < 2 && !err; s++) {
        err = read_callgrind(&sides[s], path[s], lib[s], side_dir[s]);
        read_texts(&sides[s], side_dir[s]);
        key_by_text(&sides[s]);
    }
    if (!err)
        pair_sides(p, sides);
    for (s = 0; s < 2; s++)
        costs_clear(&sides[s]);
    return err;
}

size_t pg_profile_rows(const char *path, const char *lib, const char *side_dir)
{
    costs c;
    size_t n;

    memset(&c, 0, sizeof(c));
    n = read_callgrind(&c, path, lib, side_dir) < 0 ? 0 : c.n;
    costs_clear(&c);
    return n;
}
