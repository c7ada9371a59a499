/*
 * affected.c - does a change reach a benchmark's build?  (affected.h)
 */
#define _GNU_SOURCE
#include "affected.h"
#include "build.h"
#include "error.h"
#include "fs.h"
#include "proc.h"
#include "str.h"
#include "strvec.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* A flag that may make the compiler read a file -M does not report. */
static int opaque_flag(const char *f)
{
    static const char *const prefixes[] = {"@",
                                           "-fprofile",
                                           "-fauto-profile",
                                           "-specs",
                                           "-fplugin",
                                           "-fsanitize-blacklist",
                                           "-fsanitize-ignorelist",
                                           "-B",
                                           "--sysroot",
                                           "-isysroot",
                                           "-fcoverage",
                                           "-fcreate-profile",
                                           NULL};
    const char *const *p;

    for (p = prefixes; *p; p++)
        if (!strncmp(f, *p, strlen(*p)))
            return 1;
    return 0;
}

/* What perfgate cannot see into: built and measured, whatever changed. */
static int opaque(const pg_bench_config *b)
{
    size_t i, j;

    if (b->build || b->library || b->nldflags || strcmp(b->language, "c"))
        return 1;
    for (i = 0; i < b->ninclude; i++)
        if (strpbrk(b->include[i], "*?["))
            return 1;
    for (i = 0; i < b->nsources; i++) {
        const char *dot = strrchr(b->sources[i], '.');
        if (!dot || strcmp(dot, ".c")) /* assembly, or anything else */
            return 1;
    }
    for (i = 0; i < b->ncflags; i++)
        if (opaque_flag(b->cflags[i]))
            return 1;
    for (i = 0; i < b->nfile_cflags; i++)
        for (j = 0; j < b->file_cflags[i].nflags; j++)
            if (opaque_flag(b->file_cflags[i].flags[j]))
                return 1;
    return 0;
}

/*
 * Appends to `deps` the files compiling `file` in `dir` reads, as the
 * compiler reports them; -1 when it cannot say.
 */
static int file_deps(pg_strvec *deps, const pg_bench_config *b, const char *dir,
                     const char *file, double timeout)
{
    pg_strvec a = PG_STRVEC_INIT;
    const pg_file_flags *f;
    pg_proc_opts opts;
    pg_proc_result res;
    const char *p;
    size_t i;
    int err;

    pg_strvec_push(&a, pg_build_compiler());
    pg_strvec_push(&a, "-M");
    for (i = 0; i < b->ncflags; i++)
        pg_strvec_push(&a, b->cflags[i]);
    if ((f = pg_build_file_flags(b, file)))
        for (i = 0; i < f->nflags; i++)
            pg_strvec_push(&a, f->flags[i]);
    for (i = 0; i < b->ninclude; i++)
        pg_strvec_pushf(&a, "-I%s", b->include[i]);
    pg_strvec_push(&a, file);
    memset(&opts, 0, sizeof(opts));
    opts.cwd = dir;
    opts.timeout = timeout;
    opts.memory_limit = pg_proc_memory_limit();
    opts.output_cap = 4 << 20;
    err = pg_proc_run_argv(&res, a.v, &opts);
    pg_strvec_clear(&a);
    if (err < 0)
        return err;
    if (!res.exited || res.exit_code || res.output.truncated) {
        pg_proc_result_clear(&res);
        return -1;
    }
    /* "file.o: dep dep \\\n dep": every word after the colon. */
    p = strchr(pg_str_cstr(&res.output), ':');
    while (p && *++p) {
        size_t n;
        p += strspn(p, " \t\n\\");
        n = strcspn(p, " \t\n");
        if (!n)
            break;
        if (!(n == 1 && *p == '\\')) {
            char *word = pg_strdupf("%.*s", (int)n, p);
            if (!pg_strvec_has(deps, word))
                pg_strvec_push(deps, word);
            free(word);
        }
        p += n - 1;
    }
    pg_proc_result_clear(&res);
    return 0;
}

/* Every file the side's build reads; -1 when that cannot be told. */
static int side_deps(pg_strvec *deps, const pg_bench_config *b, const char *dir,
                     double timeout)
{
    pg_strvec files = PG_STRVEC_INIT;
    pg_build found;
    size_t i;
    int err;

    /* The files the build would compile, or doubt when it would not. */
    memset(&found, 0, sizeof(found));
    err = pg_build_sources(&found, &files, b, dir) ? -1 : 0;
    pg_build_clear(&found);

    /* An include directory that leads out of the tree is the build's to
     * refuse. */
    for (i = 0; !err && i < b->ninclude; i++) {
        char *p = pg_path_join(dir, b->include[i]);
        if (pg_path_inside(dir, p) == 0)
            err = -1;
        free(p);
    }
    for (i = 0; !err && i < files.n; i++)
        err = file_deps(deps, b, dir, files.v[i], timeout);
    for (i = 0; !err && i < b->nadapters; i++)
        err = file_deps(deps, b, dir, b->adapters[i], timeout);
    pg_strvec_clear(&files);
    return err;
}

/* 1 when the files at a and b hold the same bytes. */
static int same_bytes(const char *a, const char *b)
{
    char *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    int same = pg_read_file(&x, &nx, a, (size_t)1 << 30) == 0 &&
               pg_read_file(&y, &ny, b, (size_t)1 << 30) == 0 && nx == ny &&
               !memcmp(x, y, nx);

    free(x);
    free(y);
    return same;
}

int pg_affected(const pg_bench_config *b, const char *const side_dir[2],
                double timeout)
{
    pg_strvec deps[2] = {PG_STRVEC_INIT, PG_STRVEC_INIT};
    size_t i;
    int err = 0, s, affected = 0;

    if (opaque(b))
        return 1;
    for (s = 0; s < 2 && !err; s++)
        err = side_deps(&deps[s], b, side_dir[s], timeout);
    if (err == PG_ERR_INTERRUPTED) {
        affected = err;
    } else if (err < 0 || deps[0].n != deps[1].n) {
        affected = 1;
    } else {
        for (i = 0; i < deps[0].n && !affected; i++) {
            const char *d = deps[0].v[i];
            char *p0, *p1;
            /* The same names, in the same order: the same include graph. */
            if (strcmp(d, deps[1].v[i])) {
                affected = 1;
                break;
            }
            /* Outside both trees (the system's headers, the adapters
             * beside the config): one file for both sides. */
            if (d[0] == '/' && pg_path_inside(side_dir[0], d) != 1 &&
                pg_path_inside(side_dir[1], d) != 1)
                continue;
            p0 = d[0] == '/' ? pg_strdup(d) : pg_path_join(side_dir[0], d);
            p1 = d[0] == '/' ? pg_strdup(d) : pg_path_join(side_dir[1], d);
            /* A file of a tree, named by its absolute path: doubt. */
            if (d[0] == '/' || pg_path_inside(side_dir[0], p0) != 1 ||
                pg_path_inside(side_dir[1], p1) != 1 || !same_bytes(p0, p1))
                affected = 1;
            free(p0);
            free(p1);
        }
    }
    for (s = 0; s < 2; s++)
        pg_strvec_clear(&deps[s]);
    return affected;
}
