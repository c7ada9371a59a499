/*
 * affected.c - does a change reach a benchmark's build?  (affected.h)
 */
#define _GNU_SOURCE
#include "affected.h"
#include "build.h"
#include "cache.h"
#include "error.h"
#include "fs.h"
#include "proc.h"
#include "str.h"
#include "strvec.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

#ifndef PG_VERSION
#define PG_VERSION "0.0.0"
#endif

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
 * Who compiles: $CC (or cc) as PATH finds it, that file's size and time,
 * what it says of its version, and the environment variables that move
 * its search paths.  Asked once a process.
 */
static const char *compiler_id(double timeout)
{
    static char id[PG_CACHE_ID];
    static const char *const vars[] = {"CPATH",
                                       "C_INCLUDE_PATH",
                                       "LIBRARY_PATH",
                                       "COMPILER_PATH",
                                       "GCC_EXEC_PREFIX",
                                       "GCC_COMPARE_DEBUG",
                                       "SOURCE_DATE_EPOCH",
                                       NULL};
    const char *argv[3] = {pg_build_compiler(), "--version", NULL};
    const char *const *v;
    pg_str doc = PG_STR_INIT;
    pg_proc_opts opts;
    pg_proc_result res;
    char *file;
    struct stat st;

    if (*id)
        return id;
    file = pg_path_search(argv[0]);
    pg_str_printf(&doc, "compiler %s at %s", argv[0], file ? file : "?");
    if (file && stat(file, &st) == 0)
        pg_str_printf(&doc, " %lld %lld.%09ld", (long long)st.st_size,
                      (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    free(file);
    memset(&opts, 0, sizeof(opts));
    opts.timeout = timeout;
    if (pg_proc_run_argv(&res, (char *const *)argv, &opts) == 0) {
        if (res.exited && !res.exit_code)
            pg_str_printf(&doc, "\n%s", pg_str_cstr(&res.output));
        pg_proc_result_clear(&res);
    }
    for (v = vars; *v; v++)
        if (getenv(*v))
            pg_str_printf(&doc, "\n%s=%s", *v, getenv(*v));
    pg_cache_id(id, doc.ptr, doc.size);
    pg_str_clear(&doc);
    return id;
}

/*
 * Appends to `deps` the files that compiling `file` in `dir` with the
 * arguments `a` (the compiler and its flags) reads, as the compiler reports
 * them; -1 when it cannot say, PG_ERR_INTERRUPTED when interrupted.
 */
static int file_deps(pg_strvec *deps, const pg_strvec *a, const char *dir,
                     const char *file, double timeout)
{
    pg_strvec argv = PG_STRVEC_INIT;
    pg_proc_opts opts;
    pg_proc_result res;
    const char *p;
    size_t i;
    int err;

    for (i = 0; i < a->n; i++)
        pg_strvec_push(&argv, a->v[i]);
    pg_strvec_push(&argv, "-M");
    pg_strvec_push(&argv, file);
    memset(&opts, 0, sizeof(opts));
    opts.cwd = dir;
    opts.timeout = timeout;
    opts.memory_limit = pg_proc_memory_limit();
    opts.output_cap = 4 << 20;
    err = pg_proc_run_argv(&res, argv.v, &opts);
    pg_strvec_clear(&argv);
    if (err < 0)
        return err == PG_ERR_INTERRUPTED ? err : -1;
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

/* What one side's build reads, and how to ask the compiler. */
typedef struct inputs {
    pg_cache *cache;
    const char *dir; /* the side's tree; NULL: no tree (a problem) */
    double timeout;
    pg_str doc;      /* what names the manifest: flags, files, compiler */
    pg_strvec files; /* the files compiled, as the compiler is given them */
    pg_strvec args;  /* per file: the compiler and its flags, "\n"-joined */
} inputs;

static void add_file(inputs *in, const char *file, const pg_strvec *a)
{
    pg_str joined = PG_STR_INIT;
    size_t i;

    for (i = 0; i < a->n; i++)
        pg_str_printf(&joined, "%s%s", i ? "\n" : "", a->v[i]);
    pg_strvec_push(&in->files, file);
    pg_strvec_push(&in->args, pg_str_cstr(&joined));
    pg_str_clear(&joined);
}

/*
 * Where a name the compiler reported is: a new string, and *stable when it
 * is outside the tree (the system's headers, adapters beside the config);
 * NULL when it cannot be trusted to be one file for the whole run (a file
 * of the tree named by its absolute path, or one that leads out of it).
 */
static char *locate(const inputs *in, const char *name, int *stable)
{
    char *p;

    *stable = 0;
    if (name[0] == '/') {
        if (in->dir && pg_path_inside(in->dir, name) != 0)
            return NULL;
        *stable = 1;
        return pg_strdup(name);
    }
    if (!in->dir)
        return pg_strdup(name);
    p = pg_path_join(in->dir, name);
    if (pg_path_inside(in->dir, p) != 1) {
        free(p);
        return NULL;
    }
    return p;
}

static int name_order(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The id of the names in directory `dir` of the tree ("absent": none). */
static int listing_id(const inputs *in, char out[PG_CACHE_ID], const char *dir)
{
    char *path = pg_path_join(in->dir, dir);
    pg_strvec names = PG_STRVEC_INIT;
    pg_str doc = PG_STR_INIT;
    struct dirent *e;
    DIR *d;
    size_t i;
    int err = 0;

    /* One that is not there (yet) is "absent": its coming is a change. */
    if (pg_path_inside(in->dir, path) == 0) {
        err = -1;
    } else if (!(d = opendir(path))) {
        snprintf(out, PG_CACHE_ID, "absent");
    } else {
        while ((e = readdir(d)))
            pg_strvec_push(&names, e->d_name);
        closedir(d);
        qsort(names.v, names.n, sizeof(char *), name_order);
        for (i = 0; i < names.n; i++)
            pg_str_printf(&doc, "%s\n", names.v[i]);
        pg_cache_id(out, doc.ptr ? doc.ptr : "", doc.size);
    }
    pg_strvec_clear(&names);
    pg_str_clear(&doc);
    free(path);
    return err;
}

/*
 * One line of the manifest for what the compiler read: "f ID NAME" for a
 * file, and "d ID DIR" for each directory of the tree it searched (where a
 * new header could shadow one it found).  -1 when it cannot be trusted.
 */
static int manifest_lines(inputs *in, pg_str *out, const pg_strvec *deps,
                          const pg_strvec *search)
{
    pg_strvec dirs = PG_STRVEC_INIT;
    char id[PG_CACHE_ID];
    size_t i;
    int err = 0;

    for (i = 0; i < search->n; i++)
        pg_strvec_push(&dirs, search->v[i]);
    for (i = 0; i < deps->n && !err; i++) {
        int stable;
        char *p = locate(in, deps->v[i], &stable);
        /* A name that is no file (one with a space, which -M escapes):
         * doubt. */
        if (!p || pg_cache_file_id(in->cache, id, p, stable) < 0 ||
            !strcmp(id, "absent"))
            err = -1;
        else
            pg_str_printf(out, "f %s %s\n", id, deps->v[i]);
        if (!err && in->dir && !stable) {
            char *d = pg_path_dirname(deps->v[i]);
            if (!pg_strvec_has(&dirs, d))
                pg_strvec_push(&dirs, d);
            free(d);
        }
        free(p);
    }
    for (i = 0; i < dirs.n && !err && in->dir; i++) {
        if ((err = listing_id(in, id, dirs.v[i])) == 0)
            pg_str_printf(out, "d %s %s\n", id, dirs.v[i]);
    }
    pg_strvec_clear(&dirs);
    return err;
}

/* 1 when every line of a kept manifest still holds in this tree. */
static int manifest_holds(inputs *in, const char *text)
{
    const char *line = text;

    while (*line) {
        const char *nl = strchr(line, '\n');
        char kind, want[PG_CACHE_ID], id[PG_CACHE_ID], *name, *p;
        int n = 0, stable, ok;
        if (!nl || sscanf(line, "%c %40s %n", &kind, want, &n) < 2 || !n)
            return 0;
        name = pg_strdupf("%.*s", (int)(nl - line - n), line + n);
        if (kind == 'f') {
            p = locate(in, name, &stable);
            ok = p && pg_cache_file_id(in->cache, id, p, stable) == 0;
            free(p);
        } else {
            ok = kind == 'd' && in->dir && listing_id(in, id, name) == 0;
        }
        free(name);
        if (!ok || strcmp(id, want))
            return 0;
        line = nl + 1;
    }
    return 1;
}

/*
 * The key of what the build described by `in` reads: its manifest (what the
 * compiler read when these files were last compiled with these flags) when
 * that still holds, else what the compiler says now, kept for next time.
 * 0 with `key` set; 1 when it cannot be told; PG_ERR_INTERRUPTED.
 */
static int inputs_key(char key[PG_CACHE_ID], inputs *in,
                      const pg_strvec *search)
{
    char mkey[PG_CACHE_ID], *kept = NULL;
    pg_str lines = PG_STR_INIT, all = PG_STR_INIT;
    size_t len, i;
    int err = 0;

    pg_cache_id(mkey, in->doc.ptr, in->doc.size);
    if (pg_cache_get(in->cache, mkey, "deps", &kept, &len) &&
        manifest_holds(in, kept)) {
        pg_str_puts(&lines, kept);
    } else {
        pg_strvec deps = PG_STRVEC_INIT;
        for (i = 0; i < in->files.n && !err; i++) {
            pg_strvec a = PG_STRVEC_INIT;
            const char *s = in->args.v[i], *nl;
            for (; (nl = strchr(s, '\n')); s = nl + 1)
                pg_strvec_pushf(&a, "%.*s", (int)(nl - s), s);
            pg_strvec_push(&a, s);
            err = file_deps(&deps, &a, in->dir, in->files.v[i], in->timeout);
            pg_strvec_clear(&a);
        }
        if (!err)
            err = manifest_lines(in, &lines, &deps, search);
        if (!err)
            pg_cache_put(in->cache, mkey, "deps", lines.ptr, lines.size);
        pg_strvec_clear(&deps);
    }
    free(kept);
    if (!err) {
        /* The files' names and contents; the directories' listings only
         * decide whether a manifest still holds. */
        const char *line;
        pg_str_printf(&all, "perfgate result 1\n%s\n", mkey);
        for (line = pg_str_cstr(&lines); *line;) {
            const char *nl = strchr(line, '\n');
            if (*line == 'f')
                pg_str_printf(&all, "%.*s\n", (int)(nl - line), line);
            line = nl + 1;
        }
        pg_cache_id(key, all.ptr, all.size);
    }
    pg_str_clear(&lines);
    pg_str_clear(&all);
    return err == PG_ERR_INTERRUPTED ? err : err ? 1 : 0;
}

static void inputs_init(inputs *in, pg_cache *cache, const char *dir,
                        double timeout, const char *what)
{
    memset(in, 0, sizeof(*in));
    in->cache = cache;
    in->dir = dir;
    in->timeout = timeout;
    pg_str_printf(&in->doc, "perfgate %s 1 %s\n%s\n", what, PG_VERSION,
                  compiler_id(timeout));
}

static void inputs_clear(inputs *in)
{
    pg_str_clear(&in->doc);
    pg_strvec_clear(&in->files);
    pg_strvec_clear(&in->args);
}

/* Adds a file the build compiles: its name and id, and how it is asked. */
static int add_compiled(inputs *in, const pg_bench_config *b, const char *file)
{
    const pg_file_flags *f = pg_build_file_flags(b, file);
    pg_strvec a = PG_STRVEC_INIT;
    char id[PG_CACHE_ID];
    size_t i;
    int stable;
    char *p = locate(in, file, &stable);

    if (!p || pg_cache_file_id(in->cache, id, p, stable) < 0) {
        free(p);
        return -1;
    }
    free(p);
    pg_strvec_push(&a, pg_build_compiler());
    for (i = 0; i < b->ncflags; i++)
        pg_strvec_push(&a, b->cflags[i]);
    if (f)
        for (i = 0; i < f->nflags; i++)
            pg_strvec_push(&a, f->flags[i]);
    for (i = 0; i < b->ninclude; i++)
        pg_strvec_pushf(&a, "-I%s", b->include[i]);
    pg_str_printf(&in->doc, "file %s %s\n", id, file);
    for (i = 0; i < a.n; i++)
        pg_str_printf(&in->doc, "  %s\n", a.v[i]);
    add_file(in, file, &a);
    pg_strvec_clear(&a);
    return 0;
}

int pg_build_key(char key[PG_CACHE_ID], pg_cache *cache,
                 const pg_bench_config *b, const char *side_dir, double timeout)
{
    pg_strvec files = PG_STRVEC_INIT, search = PG_STRVEC_INIT;
    pg_build found;
    inputs in;
    size_t i;
    int err;

    if (opaque(b))
        return 1;
    inputs_init(&in, cache, side_dir, timeout, "build");
    pg_str_printf(&in.doc, "language %s\ninterposable %d\n", b->language,
                  b->interposable);
    /* The files the build would compile, or doubt when it would not. */
    memset(&found, 0, sizeof(found));
    err = pg_build_sources(&found, &files, b, side_dir) ? 1 : 0;
    pg_build_clear(&found);
    for (i = 0; !err && i < b->ninclude; i++) {
        char *p = pg_path_join(side_dir, b->include[i]);
        /* One that leads out of the tree is the build's to refuse. */
        if (pg_path_inside(side_dir, p) == 0 || b->include[i][0] == '/')
            err = 1;
        pg_strvec_push(&search, b->include[i]);
        free(p);
    }
    for (i = 0; !err && i < files.n; i++)
        err = add_compiled(&in, b, files.v[i]) ? 1 : 0;
    for (i = 0; !err && i < b->nadapters; i++)
        err = add_compiled(&in, b, b->adapters[i]) ? 1 : 0;
    if (!err)
        err = inputs_key(key, &in, &search);
    inputs_clear(&in);
    pg_strvec_clear(&files);
    pg_strvec_clear(&search);
    return err;
}

int pg_problem_key(char key[PG_CACHE_ID], pg_cache *cache,
                   const pg_strvec *argv, const char *source, double timeout)
{
    char id[PG_CACHE_ID];
    pg_strvec none = PG_STRVEC_INIT;
    inputs in;
    size_t i;
    int err;

    inputs_init(&in, cache, NULL, timeout, "problem");
    if (pg_cache_file_id(cache, id, source, 1) < 0) {
        inputs_clear(&in);
        return 1;
    }
    pg_str_printf(&in.doc, "file %s %s\n", id, source);
    for (i = 0; i < argv->n; i++)
        pg_str_printf(&in.doc, "  %s\n", argv->v[i]);
    add_file(&in, source, argv);
    err = inputs_key(key, &in, &none);
    inputs_clear(&in);
    return err;
}
