/*
 * profile.c - where the time went (profile.h).
 */
#define _GNU_SOURCE
#include "profile.h"
#include "build.h"
#include "error.h"
#include "fs.h"
#include "proc.h"
#include "run.h"
#include "runspec.h"
#include "sanitize.h"
#include "str.h"
#include "strvec.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define TOP_FUNCTIONS 20  /* kept in the result */
#define LINED_FUNCTIONS 3 /* whose lines are kept */
#define TOP_LINES 10      /* per function */

/* A side's costs, as callgrind counted them: a row per function of the
 * side's library, and per line of those functions. */
typedef struct costs {
    pg_profile_row *rows;
    size_t n, cap;
    /* Rows by function, file and line: open addressing, each slot a row's
     * index + 1 (0: empty), so that a profile of many functions is read in
     * linear time.  NULL once the rows are sorted. */
    size_t *index;
    size_t nindex; /* a power of two, at least twice n */
} costs;

static size_t row_hash(const char *function, const char *file, int line)
{
    uint64_t h = 1469598103934665603ULL;
    const char *p;

    for (p = function; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    h = (h ^ 0xff) * 1099511628211ULL;
    for (p = file ? file : ""; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    h = (h ^ (uint64_t)(unsigned)line) * 1099511628211ULL;
    return (size_t)h;
}

static int row_is(const pg_profile_row *r, const char *function,
                  const char *file, int line)
{
    return r->line == line && !strcmp(r->function, function) &&
           (file ? r->file && !strcmp(r->file, file) : !r->file);
}

/* The slot where the row for (function, file, line) is, or would go. */
static size_t *slot_of(const costs *c, const char *function, const char *file,
                       int line)
{
    size_t i = row_hash(function, file, line) & (c->nindex - 1);

    while (c->index[i] &&
           !row_is(&c->rows[c->index[i] - 1], function, file, line))
        i = (i + 1) & (c->nindex - 1);
    return &c->index[i];
}

static void reindex(costs *c)
{
    size_t i;

    free(c->index);
    c->nindex = c->nindex ? 2 * c->nindex : 256;
    c->index = pg_calloc(c->nindex, sizeof(*c->index));
    for (i = 0; i < c->n; i++) {
        const pg_profile_row *r = &c->rows[i];
        *slot_of(c, r->function, r->file, r->line) = i + 1;
    }
}

static pg_profile_row *row_of(costs *c, const char *function, const char *file,
                              int line)
{
    size_t *slot;

    if (!c->index || 2 * (c->n + 1) > c->nindex)
        reindex(c);
    slot = slot_of(c, function, file, line);
    if (*slot)
        return &c->rows[*slot - 1];
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->rows = pg_realloc(c->rows, c->cap * sizeof(*c->rows));
    }
    c->rows[c->n].function = pg_strdup(function);
    c->rows[c->n].file = file ? pg_strdup(file) : NULL;
    c->rows[c->n].line = line;
    c->rows[c->n].cost[0] = c->rows[c->n].cost[1] = 0;
    *slot = ++c->n;
    return &c->rows[c->n - 1];
}

static void costs_clear(costs *c)
{
    size_t i;

    for (i = 0; i < c->n; i++) {
        free(c->rows[i].function);
        free(c->rows[i].file);
    }
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

/*
 * Reads callgrind's output (written with --compress-strings=no and
 * --compress-pos=no): the self cost of every function whose object is
 * `lib`, into out->rows (line 0), and of each of their lines (with file).
 * The cost line after a "calls=" line is the call's, inclusive: not self.
 */
static int read_callgrind(costs *out, const char *path, const char *lib,
                          const char *side_dir)
{
    size_t root = strlen(side_dir);
    char *text = NULL, *line, *next;
    char *ob = NULL, *fl = NULL, *fi = NULL, *fn = NULL;
    int after_call = 0;

    while (root > 1 && side_dir[root - 1] == '/')
        root--;
    if (pg_read_file(&text, NULL, path, (size_t)256 << 20) < 0)
        return -1;
    for (line = text; line && *line; line = next) {
        const char *v;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if ((v = value_of(line, "ob"))) {
            free(ob), ob = pg_strdup(v);
        } else if ((v = value_of(line, "fl"))) {
            free(fl), fl = pg_strdup(v);
            free(fi), fi = NULL;
        } else if ((v = value_of(line, "fi")) || (v = value_of(line, "fe"))) {
            free(fi), fi = pg_strdup(v);
        } else if ((v = value_of(line, "fn"))) {
            free(fn), fn = pg_strdup(v);
            free(fi), fi = NULL;
        } else if (!strncmp(line, "calls=", 6)) {
            after_call = 1;
        } else if (*line >= '0' && *line <= '9') {
            char *end;
            long pos = strtol(line, &end, 10);
            double cost = strtod(end, NULL);
            /* A function with a name (not a stub's address), of the
             * side's library; its files named as in the tree, so that
             * both sides' lines meet. */
            if (!after_call && fn && ob && !strcmp(ob, lib) &&
                strncmp(fn, "0x", 2)) {
                const char *file = fi ? fi : fl;
                row_of(out, fn, NULL, 0)->cost[0] += cost;
                if (file && !strncmp(file, side_dir, root) && file[root] == '/')
                    file += root + 1;
                if (pos > 0 && file)
                    row_of(out, fn, file, (int)pos)->cost[0] += cost;
            }
            after_call = 0;
        }
    }
    free(ob);
    free(fl);
    free(fi);
    free(fn);
    free(text);
    return 0;
}

typedef struct job {
    const pg_bench_config *b;
    const char *problem_lib, *work_dir;
    const pg_case_spec *c;
    double timeout;
} job;

/*
 * Side s's costs: built again with -g into the work directory, its case
 * run once under callgrind (checked as ever, not timed).  0; or 1 with
 * *why set when it cannot be profiled; negative when interrupted.
 */
static int profile_side(costs *out, char **why, const job *j,
                        const char *side_dir, int s)
{
    const char *side = s ? "head" : "base";
    pg_bench_config b = *j->b;
    pg_build build;
    pg_run_spec spec;
    pg_settings settings;
    pg_proc_opts opts;
    pg_proc_result res;
    pg_strvec a = PG_STRVEC_INIT;
    const char **cflags = pg_calloc(b.ncflags + 2, sizeof(*cflags));
    char *tag = pg_strdupf("profile-%s", side);
    char *spec_path = pg_strdupf("%s/%s.%s.run", j->work_dir, b.name, tag);
    /* Beside the side's build, in the one directory its run may write. */
    char *own = pg_path_join(j->work_dir, tag);
    char *cg = pg_strdupf("%s/%s.%s.callgrind", own, b.name, tag);
    pg_box box = {{own}, {NULL}};
    size_t i;
    int err;

    /* Line numbers: -g, which does not change the code gcc makes. */
    for (i = 0; i < b.ncflags; i++)
        cflags[i] = b.cflags[i];
    cflags[b.ncflags] = "-g";
    b.cflags = (char **)cflags;
    b.ncflags++;
    err = pg_build_solution(&build, &b, side_dir, j->work_dir, tag, j->timeout);
    if (err >= 0 && !build.ok) {
        *why = pg_strdupf("the %s side did not build with -g: %s", side,
                          build.message ? build.message : "?");
        err = 1;
    }
    if (err)
        goto done;
    pg_run_spec_init(&spec);
    pg_settings_defaults(&settings);
    spec.problem_lib = j->problem_lib;
    spec.problem_name = b.problem;
    spec.lib[1] = build.lib;
    spec.symbol = b.symbol;
    spec.cases = j->c;
    spec.ncases = 1;
    spec.settings = &settings;
    spec.verify_only = 1;
    if ((err = pg_run_spec_write(&spec, spec_path)) < 0)
        goto done;
    pg_strvec_push(&a, "valgrind");
    pg_strvec_push(&a, "--tool=callgrind");
    pg_strvec_push(&a, "-q");
    pg_strvec_pushf(&a, "--callgrind-out-file=%s", cg);
    pg_strvec_push(&a, "--compress-strings=no");
    pg_strvec_push(&a, "--compress-pos=no");
    pg_strvec_push(&a, pg_run_program_path());
    pg_strvec_push(&a, spec_path);
    memset(&opts, 0, sizeof(opts));
    opts.cwd = own;
    opts.timeout = j->timeout;
    opts.box = &box;
    if ((err = pg_proc_run_argv(&res, a.v, &opts)) < 0)
        goto done;
    if (!res.exited || res.exit_code) {
        *why = pg_strdupf("the %s side's case did not run under callgrind "
                          "(%s %d)",
                          side, res.exited ? "exit status" : "signal",
                          res.exited ? res.exit_code : res.signal);
        err = 1;
    } else if (read_callgrind(out, cg, build.lib, side_dir) < 0 || !out->n) {
        *why = pg_strdupf("callgrind saw nothing of the %s side's code", side);
        err = 1;
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
    free(cflags);
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
    double a = bigger(x), b = bigger(y);

    return a > b ? -1 : a < b ? 1 : 0;
}

/* Both sides' rows into one list: each function (or line) once, with
 * each side's cost (NAN where it has none). */
static void side_by_side(costs *all, const costs sides[2], int lines)
{
    int s;
    size_t i;

    for (s = 0; s < 2; s++)
        for (i = 0; i < sides[s].n; i++) {
            const pg_profile_row *r = &sides[s].rows[i];
            pg_profile_row *to;
            size_t before = all->n;
            if ((r->file != NULL) != lines)
                continue;
            to = row_of(all, r->function, r->file, r->line);
            if (all->n > before)
                to->cost[0] = to->cost[1] = NAN;
            to->cost[s] = r->cost[0];
        }
    qsort(all->rows, all->n, sizeof(*all->rows), costlier_first);
    /* Sorted: the index points at other rows now. */
    free(all->index);
    all->index = NULL;
    all->nindex = 0;
}

/* The kept rows: the costliest functions, and the costliest lines of the
 * first few of them. */
static void keep_rows(pg_profile *p, costs *funcs, costs *lines)
{
    size_t i, j, k;

    p->nfunctions = funcs->n < TOP_FUNCTIONS ? funcs->n : TOP_FUNCTIONS;
    p->functions = pg_calloc(p->nfunctions + 1, sizeof(*p->functions));
    for (i = 0; i < p->nfunctions; i++) {
        p->functions[i] = funcs->rows[i];
        funcs->rows[i].function = NULL;
    }
    p->lines = pg_calloc(LINED_FUNCTIONS * TOP_LINES + 1, sizeof(*p->lines));
    for (i = 0; i < p->nfunctions && i < LINED_FUNCTIONS; i++)
        for (j = 0, k = 0; j < lines->n && k < TOP_LINES; j++) {
            pg_profile_row *r = &lines->rows[j];
            if (!r->function || strcmp(r->function, p->functions[i].function))
                continue;
            p->lines[p->nlines++] = *r;
            r->function = NULL;
            r->file = NULL;
            k++;
        }
}

int pg_profile_bench(pg_bench_result *out, const pg_bench_config *b,
                     const char *const side_dir[2], const char *problem_lib,
                     const pg_case_spec *c, const char *work_dir,
                     double timeout)
{
    job j = {b, problem_lib, work_dir, c, timeout};
    costs sides[2], funcs, lines;
    pg_profile *p = pg_calloc(1, sizeof(*p));
    char *valgrind = pg_path_search("valgrind");
    int s, err = 0;

    memset(sides, 0, sizeof(sides));
    memset(&funcs, 0, sizeof(funcs));
    memset(&lines, 0, sizeof(lines));
    p->case_name = pg_strdup(c->name);
    out->profile = p;
    if (!valgrind) {
        p->skipped = pg_strdup("no profiler on this machine: install "
                               "valgrind for callgrind's profile");
        return 0;
    }
#ifdef PG_UNDER_ASAN
    free(valgrind);
    p->skipped = pg_strdup("this perfgate is built with AddressSanitizer, "
                           "which does not run under valgrind");
    return 0;
#endif
    free(valgrind);
    p->tool = pg_strdup("callgrind");
    p->unit = pg_strdup("instructions");
    for (s = 1; s >= 0 && !err; s--)
        err = profile_side(&sides[s], &p->skipped, &j, side_dir[s], s);
    if (err >= 0 && (sides[0].n || sides[1].n)) {
        side_by_side(&funcs, sides, 0);
        side_by_side(&lines, sides, 1);
        keep_rows(p, &funcs, &lines);
    }
    for (s = 0; s < 2; s++)
        costs_clear(&sides[s]);
    costs_clear(&funcs);
    costs_clear(&lines);
    return err < 0 ? err : 0;
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
