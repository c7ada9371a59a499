/*
 * sources.c - what a benchmark's build reads (sources.h).
 */
#include "sources.h"
#include "cuda.h"
#include "str.h"
#include "fs.h"

#include <fnmatch.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void pg_sources_cuda_args(pg_strvec *a, const pg_bench_config *b)
{
    char *home = pg_cuda_home();
    const char *const *archs =
        b->ncuda_arch ? (const char *const *)b->cuda_arch : pg_cuda_archs();
    size_t i;

    pg_strvec_push(a, pg_cuda_nvcc());
    pg_strvec_push(a, "-shared");
    pg_strvec_push(a, "-Xcompiler");
    pg_strvec_push(a, "-fPIC");
    pg_strvec_push(a, "--cudart");
    pg_strvec_push(a, "shared");
    pg_strvec_pushf(a, "-Xlinker=-rpath=%s/lib64", home);
    if (!b->interposable) {
        pg_strvec_push(a, "-Xcompiler=-fno-semantic-interposition");
        pg_strvec_push(a, "-Xlinker=-Bsymbolic");
    }
    for (i = 0; b->ncuda_arch ? i < b->ncuda_arch : archs[i] != NULL; i++)
        pg_strvec_pushf(a, "-gencode=arch=compute_%s,code=%s", archs[i] + 3,
                        archs[i]);
    for (i = 0; i < b->nnvcc_flags; i++)
        pg_strvec_push(a, b->nvcc_flags[i]);
    free(home);
}

char *pg_sources_outside(const char *path, const char *what)
{
    return pg_strdupf("%s: the %s leads outside the revision's files (a "
                      "symbolic link, or an absolute or '..' path); perfgate "
                      "compiles only what the revision holds",
                      path, what);
}

static int has_magic(const char *pattern)
{
    return strpbrk(pattern, "*?[") != NULL;
}

/*
 * The paths, relative to `dir`, that `pattern` (relative to `dir`) names
 * there, as glob(3) with `flags` finds them; -1 when it finds none.
 */
static int glob_in(pg_strvec *out, const char *dir, const char *pattern,
                   int flags)
{
    char *full = pg_path_join(dir, pattern), *probe = pg_path_join(dir, "x");
    size_t i, root = strlen(probe) - 1; /* where relative paths start */
    glob_t g;
    int rc = glob(full, flags, NULL, &g);

    for (i = 0; rc == 0 && i < g.gl_pathc; i++)
        pg_strvec_push(out, g.gl_pathv[i] + root);
    if (rc == 0)
        globfree(&g);
    free(full);
    free(probe);
    return rc == 0 ? 0 : -1;
}

int pg_sources_find(pg_strvec *files, int *missing, char **message,
                    const pg_bench_config *b, const char *side_dir)
{
    size_t i, j;

    for (i = 0; i < b->nsources && !*message; i++) {
        pg_strvec found = PG_STRVEC_INIT;
        int magic = has_magic(b->sources[i]);
        glob_in(&found, side_dir, b->sources[i], magic ? 0 : GLOB_NOCHECK);
        for (j = 0; j < found.n && !*message; j++) {
            char *path = pg_path_join(side_dir, found.v[j]);
            if (!pg_path_is_file(path)) {
                /* A directory a glob also matched is not a source. */
                if (!magic) {
                    *missing = 1;
                    *message = pg_strdupf("%s: no such file", b->sources[i]);
                }
            } else if (pg_path_inside(side_dir, path) != 1) {
                *message = pg_sources_outside(found.v[j], "source");
            } else if (!pg_strvec_has(files, found.v[j])) {
                pg_strvec_push(files, found.v[j]);
            }
            free(path);
        }
        pg_strvec_clear(&found);
    }
    if (!*message && b->nsources && !files->n) {
        *missing = 1;
        *message = pg_strdupf("%s: no file matches here", b->sources[0]);
    }
    return *message ? 1 : 0;
}

const pg_file_flags *pg_sources_file_flags(const pg_bench_config *b,
                                           const char *file)
{
    size_t i;

    for (i = 0; i < b->nfile_cflags; i++)
        if (!fnmatch(b->file_cflags[i].pattern, file, FNM_PATHNAME))
            return &b->file_cflags[i];
    return NULL;
}

char *pg_sources_library(const pg_bench_config *b, const char *side_dir)
{
    pg_strvec found = PG_STRVEC_INIT;
    char *lib = NULL;
    size_t i, j;

    for (i = 0; i < b->nlibraries && !lib; i++) {
        glob_in(&found, side_dir, b->libraries[i], 0);
        for (j = 0; j < found.n && !lib; j++) {
            char *path = pg_path_join(side_dir, found.v[j]);
            if (pg_path_is_file(path))
                lib = pg_strdup(found.v[j]);
            free(path);
        }
        pg_strvec_clear(&found);
    }
    return lib;
}

int pg_sources_includes(pg_strvec *dirs, char **message,
                        const pg_bench_config *b, const char *side_dir)
{
    size_t i, j;

    for (i = 0; i < b->ninclude && !*message; i++) {
        pg_strvec found = PG_STRVEC_INIT;
        glob_in(&found, side_dir, b->include[i], GLOB_NOCHECK | GLOB_ONLYDIR);
        for (j = 0; j < found.n && !*message; j++) {
            char *path = pg_path_join(side_dir, found.v[j]);
            /* A missing directory is the compiler's to ignore. */
            if (pg_path_inside(side_dir, path) == 0)
                *message = pg_sources_outside(found.v[j], "include directory");
            else if (!pg_strvec_has(dirs, found.v[j]))
                pg_strvec_push(dirs, found.v[j]);
            free(path);
        }
        pg_strvec_clear(&found);
    }
    return *message ? 1 : 0;
}
