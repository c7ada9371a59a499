/*
 * build.c - running the compiler.
 */
#define _GNU_SOURCE
#include "build.h"
#include "cuda.h"
#include "error.h"
#include "problems.h"
#include "fs.h"
#include "proc.h"
#include "str.h"
#include "strvec.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

#ifndef PG_SOURCE_DIR
#define PG_SOURCE_DIR "."
#endif

#define PROBLEM_TIMEOUT 600.0
#define LOG_LINES 20

const char *pg_build_compiler(void)
{
    const char *cc = getenv("CC");
    return cc && *cc ? cc : "cc";
}

/* The command as a user could paste it into a shell, for the log. */
static void describe(pg_str *out, const pg_strvec *a)
{
    size_t i;

    for (i = 0; i < a->n; i++)
        pg_str_printf(out, "%s%s", i ? " " : "", a->v[i]);
}

/* Runs the compiler; fills ok/message/log/seconds of `out`. */
static int compile(pg_build *out, pg_strvec *a, const char *cwd,
                   const char *what, double timeout)
{
    pg_proc_opts opts;
    pg_proc_result res;
    pg_str log = PG_STR_INIT;
    int err;

    memset(&opts, 0, sizeof(opts));
    opts.cwd = cwd;
    opts.timeout = timeout;
    opts.memory_limit = pg_proc_memory_limit();
    if ((err = pg_proc_run_argv(&res, a->v, &opts)) < 0) {
        pg_proc_result_clear(&res);
        return err;
    }
    out->seconds = res.seconds;
    out->ok = res.exited && res.exit_code == 0;
    if (!out->ok) {
        pg_str_puts(&log, "$ ");
        describe(&log, a);
        pg_str_putc(&log, '\n');
        pg_str_put_tail_lines(&log, pg_str_cstr(&res.output), LOG_LINES);
        out->log = pg_str_detach(&log);
        if (res.exited && res.exit_code == 127 &&
            strstr(pg_str_cstr(&res.output), "cannot run"))
            out->message =
                strstr(a->v[0], "nvcc")
                    ? pg_strdupf("cannot run nvcc ('%s'); install the CUDA "
                                 "toolkit or set CUDACXX",
                                 a->v[0])
                    : pg_strdupf("cannot run the compiler '%s'; install it "
                                 "or set CC (CXX for c++)",
                                 a->v[0]);
        else if (res.timed_out)
            out->message = pg_strdupf("the compiler did not finish %s within "
                                      "%.0f s",
                                      what, timeout);
        else
            out->message = pg_strdupf("%s does not compile", what);
    }
    pg_proc_result_clear(&res);
    return 0;
}

/*
 * nvcc's part of a CUDA build: a shared library that uses the CUDA runtime
 * shared (one runtime, one context for perfgate and both sides), found
 * through an rpath, with code for each architecture asked for: the
 * config's cuda_arch, else the present GPU's, else a default list.
 */
static void cuda_args(pg_strvec *a, const pg_bench_config *b)
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

/* Why a file of the revision is not compiled: it leads out of it. */
static char *outside(const char *path, const char *what)
{
    return pg_strdupf("%s: the %s leads outside the revision's files (a "
                      "symbolic link, or an absolute or '..' path); perfgate "
                      "compiles only what the revision holds",
                      path, what);
}

int pg_build_solution(pg_build *out, const pg_bench_config *b,
                      const char *side_dir, const char *out_dir,
                      const char *tag, double timeout)
{
    pg_strvec a = PG_STRVEC_INIT;
    pg_str what = PG_STR_INIT;
    size_t i;
    int err = 0;

    memset(out, 0, sizeof(*out));
    for (i = 0; i < b->nsources; i++) {
        char *p = pg_path_join(side_dir, b->sources[i]);
        int there = pg_path_is_file(p);
        int inside = there ? pg_path_inside(side_dir, p) : -1;
        free(p);
        if (!there) {
            out->missing = 1;
            out->message = pg_strdupf("%s: no such file", b->sources[i]);
            return 0;
        }
        if (inside != 1) {
            out->message = outside(b->sources[i], "source");
            return 0;
        }
    }
    for (i = 0; i < b->ninclude; i++) {
        char *p = pg_path_join(side_dir, b->include[i]);
        int inside = pg_path_inside(side_dir, p);
        free(p);
        /* A missing directory is the compiler's to ignore. */
        if (inside == 0) {
            out->message = outside(b->include[i], "include directory");
            return 0;
        }
    }
    out->lib = pg_strdupf("%s/%s.%s.so", out_dir, b->name, tag);
    if (!strcmp(b->language, "cuda")) {
        cuda_args(&a, b);
    } else {
        const char *cxx = getenv("CXX");
        pg_strvec_push(&a, strcmp(b->language, "c++") ? pg_build_compiler()
                           : cxx && *cxx              ? cxx
                                                      : "c++");
        pg_strvec_push(&a, "-shared");
        pg_strvec_push(&a, "-fPIC");
        if (!b->interposable) {
            pg_strvec_push(&a, "-fno-semantic-interposition");
            pg_strvec_push(&a, "-Wl,-Bsymbolic");
        }
    }
    for (i = 0; i < b->ncflags; i++)
        pg_strvec_push(&a, b->cflags[i]);
    for (i = 0; i < b->ninclude; i++)
        pg_strvec_pushf(&a, "-I%s", b->include[i]);
    pg_strvec_push(&a, "-o");
    pg_strvec_push(&a, out->lib);
    for (i = 0; i < b->nsources; i++)
        pg_strvec_push(&a, b->sources[i]);
    pg_strvec_push(&a, "-lm");
    pg_str_printf(&what, "%s", b->sources[0]);
    if (b->nsources > 1)
        pg_str_printf(&what, " (and %zu more)", b->nsources - 1);
    err = compile(out, &a, side_dir, pg_str_cstr(&what),
                  timeout > 0 ? timeout : PROBLEM_TIMEOUT);
    pg_str_clear(&what);
    pg_strvec_clear(&a);
    return err;
}

int pg_build_problem(char **out_lib, const pg_bench_config *b,
                     const char *out_dir)
{
    pg_strvec a = PG_STRVEC_INIT;
    pg_build build;
    char *src = pg_problems_source(b);
    int err;

    memset(&build, 0, sizeof(build));
    *out_lib = pg_strdupf("%s/%s.problem.so", out_dir, b->name);
    pg_strvec_push(&a, pg_build_compiler());
    pg_strvec_push(&a, "-shared");
    pg_strvec_push(&a, "-fPIC");
    pg_strvec_push(&a, "-fno-semantic-interposition");
    pg_strvec_push(&a, "-Wl,-Bsymbolic");
    pg_strvec_push(&a, "-O2");
    pg_strvec_push(&a, "-std=c11");
    pg_strvec_pushf(&a, "-I%s/include", pg_problems_data_dir());
    pg_strvec_push(&a, "-o");
    pg_strvec_push(&a, *out_lib);
    pg_strvec_push(&a, src);
    pg_strvec_push(&a, "-lm");
    err = compile(&build, &a, NULL, src, PROBLEM_TIMEOUT);
    if (!err && !build.ok)
        err = pg_error_set(PG_ERR_USAGE, "problem '%s' (%s): %s\n%s",
                           b->problem, src, build.message, build.log);
    if (err < 0) {
        free(*out_lib);
        *out_lib = NULL;
    }
    pg_build_clear(&build);
    pg_strvec_clear(&a);
    free(src);
    return err;
}

void pg_build_clear(pg_build *build)
{
    free(build->lib);
    free(build->message);
    free(build->log);
    memset(build, 0, sizeof(*build));
}
