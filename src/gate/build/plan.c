/*
 * plan.c - what a side's build runs, planned once (plan.h).
 */
#include "plan.h"
#include "fs.h"
#include "function.h"
#include "sources.h"
#include "str.h"
#include "toolchain.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* cflags' i-th flag names a library to link (-lop, or -l op with the
 * next): 1 for -lop, 2 for the pair; 0 for any other flag. */
static int library_flag(const pg_bench_config *b, size_t i)
{
    const char *f = b->cflags[i];

    if (strncmp(f, "-l", 2))
        return 0;
    return f[2] ? 1 : i + 1 < b->ncflags ? 2 : 1;
}

/* The compiler and cflags, but the libraries they name, which a link
 * needs after the code that calls into them (link_libraries()). */
void pg_plan_compiler(pg_strvec *a, const pg_bench_config *b,
                      const pg_strvec *includes)
{
    size_t i;

    if (!strcmp(b->language, "cuda")) {
        pg_sources_cuda_args(a, b);
    } else {
        pg_strvec_push(a, strcmp(b->language, "c++") ? pg_toolchain_cc()
                                                     : pg_toolchain_cxx());
        pg_strvec_push(a, "-fPIC");
        if (!b->interposable)
            pg_strvec_push(a, "-fno-semantic-interposition");
    }
    for (i = 0; i < b->ncflags; i++) {
        int lib = library_flag(b, i);
        if (lib)
            i += (size_t)lib - 1;
        else
            pg_strvec_push(a, b->cflags[i]);
    }
    for (i = 0; i < includes->n; i++)
        pg_strvec_pushf(a, "-I%s", includes->v[i]);
}

/* The libraries cflags name (-lop), in their order, after the code: a
 * static archive before the objects that need it would give nothing. */
static void link_libraries(pg_strvec *a, const pg_bench_config *b)
{
    size_t i;
    int k;

    for (i = 0; i < b->ncflags; i++) {
        int lib = library_flag(b, i);
        for (k = 0; k < lib; k++)
            pg_strvec_push(a, b->cflags[i + (size_t)k]);
        if (lib)
            i += (size_t)lib - 1;
    }
}

/* Appends to `out` the files under `dir` (`rel` below the tree) that could
 * be a library: archives and shared libraries, at most *left of them. */
static void libraries_in(pg_str *out, const char *dir, const char *rel,
                         int depth, int *left)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return;
    while (*left > 0 && (e = readdir(d))) {
        const char *n = e->d_name;
        size_t len = strlen(n);
        char *path, *sub;
        if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, ".git"))
            continue;
        path = pg_path_join(dir, n);
        sub = *rel ? pg_strdupf("%s/%s", rel, n) : pg_strdup(n);
        if (e->d_type == DT_DIR && depth < 6)
            libraries_in(out, path, sub, depth + 1, left);
        else if (e->d_type == DT_REG &&
                 ((len > 2 && !strcmp(n + len - 2, ".a")) ||
                  strstr(n, ".so"))) {
            pg_str_printf(out, "%s%s", out->size ? ", " : "", sub);
            (*left)--;
        }
        free(path);
        free(sub);
    }
    closedir(d);
}

/* Why no library was found: what was asked for, and what the build made. */
static char *no_library(const pg_bench_config *b, const char *side_dir)
{
    pg_str asked = PG_STR_INIT, made = PG_STR_INIT;
    size_t i;
    int left = 8;
    char *msg;

    for (i = 0; i < b->nlibraries; i++)
        pg_str_printf(&asked, "%s'%s'",
                      i ? (i + 1 == b->nlibraries ? " or " : ", ") : "",
                      b->libraries[i]);
    libraries_in(&made, side_dir, "", 0, &left);
    msg = pg_strdupf("the build command did not make %s; %s%s%s",
                     pg_str_cstr(&asked),
                     made.size ? "it made "
                               : "it made no archive (.a) or "
                                 "shared library (.so) at all",
                     pg_str_cstr(&made),
                     made.size ? " (name the one to use in 'library', or "
                                 "list the names it had across history)"
                               : "");
    pg_str_clear(&asked);
    pg_str_clear(&made);
    return msg;
}

/*
 * The project's library, when its build made one: a shared library is
 * taken as it is (p->shared), an archive or object is linked in (to
 * p->after).  0, or 1 with p->message.
 */
static int project_library(pg_plan *p, const pg_bench_config *b,
                           const char *side_dir)
{
    char *path, *lib;
    const char *base;

    if (!b->library)
        return 0;
    if (!(lib = pg_sources_library(b, side_dir))) {
        p->message = no_library(b, side_dir);
        return 1;
    }
    path = pg_path_join(side_dir, lib);
    base = strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib;
    if (pg_path_inside(side_dir, path) != 1)
        p->message = pg_sources_outside(lib, "library");
    else if (strstr(base, ".so") && (b->nsources || b->nadapters))
        p->message = pg_strdupf(
            "%s is a shared library, which perfgate loads as it is; to "
            "compile sources or adapters with the project, have its build "
            "make a static archive (.a) and name that",
            lib);
    else if (strstr(base, ".so")) {
        p->shared = path;
        path = NULL;
    } else {
        int archive =
            strlen(base) > 2 && !strcmp(base + strlen(base) - 2, ".a");
        /* All of it: the function timed may be one nothing else calls. */
        if (archive)
            pg_strvec_push(&p->after, "-Wl,--whole-archive");
        pg_strvec_push(&p->after, path);
        if (archive)
            pg_strvec_push(&p->after, "-Wl,--no-whole-archive");
    }
    free(path);
    free(lib);
    return p->message ? 1 : 0;
}

/* Adds a file to compile: `flags` (may be NULL) its own besides the
 * compiler's. */
static void add_file(pg_plan *p, const char *path, pg_plan_kind kind,
                     const pg_file_flags *flags)
{
    pg_plan_file *f = &p->files[p->nfiles++];
    size_t i;

    f->path = pg_strdup(path);
    f->kind = kind;
    pg_strvec_append(&f->argv, &p->compile);
    for (i = 0; flags && i < flags->nflags; i++)
        pg_strvec_push(&f->argv, flags->flags[i]);
}

/* The build as its messages name it: its first source, adapter or
 * library, and how many more sources. */
static char *build_name(const pg_bench_config *b, size_t nsources)
{
    pg_str what = PG_STR_INIT;

    if (nsources)
        pg_str_printf(&what, "%s", b->nsources ? b->sources[0] : "");
    else if (b->nadapters)
        pg_str_printf(&what, "adapter %s", b->adapters[0]);
    else
        pg_str_printf(&what, "%s", b->library ? b->library : b->name);
    if (b->nsources > 1)
        pg_str_printf(&what, " (and %zu more)", b->nsources - 1);
    return pg_str_detach(&what);
}

int pg_plan_make(pg_plan *p, const pg_bench_config *b, const char *side_dir)
{
    pg_strvec sources = PG_STRVEC_INIT;
    int c = !strcmp(b->language, "cuda") ? 0 : 1;
    size_t i;

    memset(p, 0, sizeof(*p));
    if (pg_sources_find(&sources, &p->missing, &p->message, b, side_dir) ||
        project_library(p, b, side_dir) || p->shared ||
        pg_sources_includes(&p->includes, &p->message, b, side_dir))
        goto done;
    pg_plan_compiler(&p->compile, b, &p->includes);
    p->files = pg_calloc(sources.n + b->nadapters + 1, sizeof(*p->files));
    for (i = 0; i < sources.n; i++) {
        const pg_file_flags *f = pg_sources_file_flags(b, sources.v[i]);
        add_file(p, sources.v[i], f ? PG_PLAN_APART : PG_PLAN_SOURCE, f);
    }
    for (i = 0; i < b->nadapters; i++)
        add_file(p, b->adapters[i], PG_PLAN_ADAPTER, NULL);
    pg_strvec_append(&p->link, &p->compile);
    pg_strvec_push(&p->link, "-shared");
    if (c && !b->interposable)
        pg_strvec_push(&p->link, "-Wl,-Bsymbolic");
    /* A function called and defined nowhere fails here, named, rather
     * than when the library is loaded (which would refuse it too). */
    if (c)
        pg_strvec_push(&p->link, "-Wl,--no-undefined");
    link_libraries(&p->after, b);
    for (i = 0; i < b->nldflags; i++)
        pg_strvec_push(&p->after, b->ldflags[i]);
    pg_strvec_push(&p->after, "-lm");
    if (b->function)
        p->batch = b->function->batch_source;
    p->what = build_name(b, sources.n);
done:
    pg_strvec_clear(&sources);
    return p->message ? 1 : 0;
}

void pg_plan_clear(pg_plan *p)
{
    size_t i;

    for (i = 0; i < p->nfiles; i++) {
        free(p->files[i].path);
        pg_strvec_clear(&p->files[i].argv);
    }
    free(p->files);
    pg_strvec_clear(&p->includes);
    pg_strvec_clear(&p->compile);
    pg_strvec_clear(&p->link);
    pg_strvec_clear(&p->after);
    free(p->shared);
    free(p->what);
    free(p->message);
    memset(p, 0, sizeof(*p));
}
