/*
 * build.c - running the compiler.
 */
#include "build.h"
#include "affected.h"
#include "error.h"
#include "function.h"
#include "catalog.h"
#include "fs.h"
#include "proc.h"
#include "sources.h"
#include "str.h"
#include "strvec.h"
#include "clock.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

#define PROBLEM_TIMEOUT 600.0
#define LOG_LINES 20

/* The command as a user could paste it into a shell, for the log. */
static void describe(pg_str *out, const pg_strvec *a)
{
    size_t i;

    for (i = 0; i < a->n; i++)
        pg_str_printf(out, "%s%s", i ? " " : "", a->v[i]);
}

/*
 * Runs a build tool (`a`, in `cwd`) as perfgate runs anything it does not
 * trust: in `box`, time and memory limited, output capped.  Sets ok and
 * seconds of `out`, and its log (the command and the last lines) when it
 * failed; `res` says how it ended.
 */
static int run_tool(pg_build *out, pg_proc_result *res, const pg_strvec *a,
                    const char *cwd, const pg_box *box, double timeout)
{
    pg_proc_opts opts;
    pg_str log = PG_STR_INIT;
    int err;

    memset(&opts, 0, sizeof(opts));
    opts.cwd = cwd;
    opts.timeout = timeout;
    opts.memory_limit = pg_proc_memory_limit();
    opts.box = box;
    if ((err = pg_proc_run_argv(res, a->v, &opts)) < 0)
        return err;
    out->seconds += res->seconds;
    out->ok = res->exited && res->exit_code == 0;
    if (!out->ok) {
        pg_str_puts(&log, "$ ");
        describe(&log, a);
        pg_str_putc(&log, '\n');
        pg_str_put_tail_lines(&log, pg_str_cstr(&res->output), LOG_LINES);
        free(out->log);
        out->log = pg_str_detach(&log);
    }
    return 0;
}

/*
 * The first name the linker quotes after `key` in `text` ("`name'" or
 * "'name'"), a new string; NULL when there is none.
 */
static char *quoted_after(const char *text, const char *key)
{
    const char *p = strstr(text, key), *end;

    if (!p)
        return NULL;
    p += strlen(key);
    if (*p != '`' && *p != '\'')
        return NULL;
    p++;
    end = strchr(p, '\'');
    if (!end || end == p || end - p > 200 || memchr(p, '\n', (size_t)(end - p)))
        return NULL;
    return pg_strdupf("%.*s", (int)(end - p), p);
}

#define UNDEFINED_FIX                                                          \
    "add the file that defines it to 'sources' (a glob such as src/*.c "       \
    "takes a whole directory), or the library that has it to 'ldflags'"

/*
 * A function the sources call that none of them defines (the linker's
 * "undefined reference"): what calls what, and what to do.  NULL when the
 * output says no such thing.
 */
static char *undefined_message(const char *output, const char *what)
{
    const char *ref = strstr(output, "undefined reference to ");
    char *missing = ref ? quoted_after(ref, "undefined reference to ") : NULL;
    char *caller = NULL, *msg;
    const char *p, *last = NULL;

    if (!missing)
        return NULL;
    /* The caller: the last "in function" the linker named before it. */
    for (p = output; (p = strstr(p, "in function ")) && p < ref; p++)
        last = p;
    if (last)
        caller = quoted_after(last, "in function ");
    if (caller)
        msg = pg_strdupf("%s does not link: '%s' calls '%s', which none of "
                         "the sources defines: %s",
                         what, caller, missing, UNDEFINED_FIX);
    else
        msg = pg_strdupf("%s does not link: it calls '%s', which none of the "
                         "sources defines: %s",
                         what, missing, UNDEFINED_FIX);
    free(caller);
    free(missing);
    return msg;
}

/*
 * Runs the compiler, boxed with `out_dir` the one place it writes; fills
 * ok/message/log/seconds of `out`.
 */
static int compile(pg_build *out, pg_strvec *a, const char *cwd,
                   const char *out_dir, const char *what, double timeout)
{
    pg_box box = {{out_dir}, {NULL}, {NULL}};
    pg_proc_result res;
    int err;

    memset(&res, 0, sizeof(res));
    if ((err = run_tool(out, &res, a, cwd, &box, timeout)) < 0) {
        pg_proc_result_clear(&res);
        return err;
    }
    if (!out->ok) {
        char *undefined =
            res.timed_out ? NULL
                          : undefined_message(pg_str_cstr(&res.output), what);
        if (undefined)
            out->message = undefined;
        else if (strstr(pg_str_cstr(&res.output), "recompile with -fPIC"))
            out->message = pg_strdupf(
                "%s does not link: the library was not built as "
                "position-independent code; have the build add -fPIC "
                "(CFLAGS=-fPIC, or CMAKE_POSITION_INDEPENDENT_CODE=ON)",
                what);
        else if (res.not_run)
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

/* What a failed build command is told of the box it ran in, if any: a
 * build that needed a variable of the machine's can say so. */
static const char *box_hint(void)
{
    const char *why;

    return pg_box_ready(&why)
               ? " (it ran in the box: no environment variables but PATH, "
                 "the locale's and the compilers', and an empty HOME; "
                 "pass_env: in settings lets others through; homes, /tmp "
                 "and /run hidden but for the directories PATH and the "
                 "compilers' variables name; no unix sockets)"
               : "";
}

int pg_build_project(pg_build *out, const char *command, const char *side_dir,
                     const char *other_dir, const char *side, double timeout)
{
    /* Its own tree to write; the other side's out of sight. */
    pg_box box = {{side_dir}, {NULL}, {NULL}};
    pg_strvec a = PG_STRVEC_INIT;
    pg_proc_result res;
    int err;

    if (other_dir && strcmp(other_dir, side_dir) &&
        pg_path_inside(other_dir, side_dir) != 1)
        box.hide[0] = other_dir;
    memset(out, 0, sizeof(*out));
    memset(&res, 0, sizeof(res));
    /* What perfgate adds to its own builds, offered to the project's
     * (which alone knows how it takes flags); and which side it is. */
    pg_strvec_push(&a, "env");
    pg_strvec_pushf(&a, "PERFGATE_SIDE=%s", side);
    pg_strvec_pushf(&a, "PERFGATE_CC=%s", pg_sources_compiler());
    pg_strvec_push(&a, "PERFGATE_CFLAGS=-fPIC -fno-semantic-interposition");
    pg_strvec_push(&a, "PERFGATE_LDFLAGS=-Wl,-Bsymbolic");
    pg_strvec_push(&a, "sh");
    pg_strvec_push(&a, "-c");
    pg_strvec_push(&a, command);
    if ((err = run_tool(out, &res, &a, side_dir, &box, timeout)) < 0)
        goto done;
    if (!out->ok && res.timed_out)
        out->message = pg_strdupf("the build command did not finish within "
                                  "%.0f s: %s",
                                  timeout, command);
    else if (!out->ok && res.signal)
        out->message = pg_strdupf("the build command was killed by %s: %s",
                                  pg_signal_describe(res.signal), command);
    else if (!out->ok)
        out->message = pg_strdupf("the build command failed (exit status "
                                  "%d): %s%s",
                                  res.exit_code, command, box_hint());
done:
    pg_proc_result_clear(&res);
    pg_strvec_clear(&a);
    return err;
}

/* The compiler and the flags every file of `b` is compiled with. */
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
static void compiler_args(pg_strvec *a, const pg_bench_config *b,
                          const pg_strvec *includes)
{
    size_t i;

    if (!strcmp(b->language, "cuda")) {
        pg_sources_cuda_args(a, b);
    } else {
        const char *cxx = getenv("CXX");
        pg_strvec_push(a, strcmp(b->language, "c++") ? pg_sources_compiler()
                          : cxx && *cxx              ? cxx
                                                     : "c++");
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

/*
 * Compiles the files that file_cflags gives flags of their own, each to an
 * object in `out_dir`, and takes them out of `files` (their objects are
 * added to `objects`).  0, or negative when perfgate failed; a file that
 * does not compile leaves out->ok 0.
 */
/* One side's build of one benchmark. */
typedef struct job {
    const pg_bench_config *b;
    const char *side_dir, *out_dir, *tag;
    double timeout;
    pg_strvec includes; /* resolved in the side's tree */
} job;

static int compile_apart(pg_build *out, pg_strvec *files, pg_strvec *objects,
                         const job *j)
{
    const pg_bench_config *b = j->b;
    pg_strvec rest = PG_STRVEC_INIT;
    size_t i, k;
    int err = 0;

    out->ok = 1;
    for (i = 0; i < files->n && out->ok && !err; i++) {
        const pg_file_flags *f = pg_sources_file_flags(b, files->v[i]);
        pg_strvec a = PG_STRVEC_INIT;
        if (!f) {
            pg_strvec_push(&rest, files->v[i]);
            continue;
        }
        compiler_args(&a, b, &j->includes);
        for (k = 0; k < f->nflags; k++)
            pg_strvec_push(&a, f->flags[k]);
        pg_strvec_push(&a, "-c");
        pg_strvec_push(&a, "-o");
        pg_strvec_pushf(&a, "%s/%s.%s.%zu.o", j->out_dir, b->name, j->tag, i);
        pg_strvec_push(objects, a.v[a.n - 1]);
        pg_strvec_push(&a, files->v[i]);
        err =
            compile(out, &a, j->side_dir, j->out_dir, files->v[i], j->timeout);
        pg_strvec_clear(&a);
    }
    pg_strvec_clear(files);
    *files = rest;
    return err;
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
 * used as it is (*use_as_is), an archive or object is linked in.  0, or 1
 * with out->message.
 */
static int project_library(pg_build *out, pg_strvec *link, int *use_as_is,
                           const pg_bench_config *b, const char *side_dir)
{
    char *path, *lib;
    const char *base;

    *use_as_is = 0;
    if (!b->library)
        return 0;
    if (!(lib = pg_sources_library(b, side_dir))) {
        out->message = no_library(b, side_dir);
        return 1;
    }
    path = pg_path_join(side_dir, lib);
    base = strrchr(lib, '/') ? strrchr(lib, '/') + 1 : lib;
    if (pg_path_inside(side_dir, path) != 1)
        out->message = pg_sources_outside(lib, "library");
    else if (strstr(base, ".so") && (b->nsources || b->nadapters))
        out->message = pg_strdupf(
            "%s is a shared library, which perfgate loads as it is; to "
            "compile sources or adapters with the project, have its build "
            "make a static archive (.a) and name that",
            lib);
    else if (strstr(base, ".so")) {
        *use_as_is = 1;
        out->lib = path;
        out->ok = 1;
        free(lib);
        return 0;
    } else {
        int archive =
            strlen(base) > 2 && !strcmp(base + strlen(base) - 2, ".a");
        /* All of it: the function timed may be one nothing else calls. */
        if (archive)
            pg_strvec_push(link, "-Wl,--whole-archive");
        pg_strvec_push(link, path);
        if (archive)
            pg_strvec_push(link, "-Wl,--no-whole-archive");
    }
    free(path);
    free(lib);
    return out->message ? 1 : 0;
}

/*
 * Where a side's builds go: a directory of its own under `out_dir`, so
 * that one side's boxed compiler cannot write the other's library.
 */
static char *side_out_dir(const char *out_dir, const char *tag)
{
    char *dir = pg_path_join(out_dir, tag);

    pg_mkdir_p(dir);
    return dir;
}

int pg_build_solution(pg_build *out, const pg_bench_config *b,
                      const char *side_dir, const char *out_dir,
                      const char *tag, double timeout)
{
    pg_strvec a = PG_STRVEC_INIT, files = PG_STRVEC_INIT;
    pg_strvec objects = PG_STRVEC_INIT, library = PG_STRVEC_INIT;
    pg_str what = PG_STR_INIT;
    char *own = side_out_dir(out_dir, tag);
    job j = {b, side_dir, own, tag, timeout, PG_STRVEC_INIT};
    size_t i;
    int err = 0, as_is;

    memset(out, 0, sizeof(*out));
    j.timeout = timeout > 0 ? timeout : PROBLEM_TIMEOUT;
    if (pg_sources_find(&files, &out->missing, &out->message, b, side_dir) ||
        project_library(out, &library, &as_is, b, side_dir) || as_is ||
        pg_sources_includes(&j.includes, &out->message, b, side_dir))
        goto done;
    if ((err = compile_apart(out, &files, &objects, &j)) < 0 || !out->ok)
        goto done;
    out->ok = 0;
    out->lib = pg_strdupf("%s/%s.%s.so", own, b->name, tag);
    compiler_args(&a, b, &j.includes);
    pg_strvec_push(&a, "-shared");
    if (strcmp(b->language, "cuda") && !b->interposable)
        pg_strvec_push(&a, "-Wl,-Bsymbolic");
    /* A function called and defined nowhere fails here, named, rather
     * than when the library is loaded (which would refuse it too). */
    if (strcmp(b->language, "cuda"))
        pg_strvec_push(&a, "-Wl,--no-undefined");
    pg_strvec_push(&a, "-o");
    pg_strvec_push(&a, out->lib);
    for (i = 0; i < files.n; i++)
        pg_strvec_push(&a, files.v[i]);
    for (i = 0; i < objects.n; i++)
        pg_strvec_push(&a, objects.v[i]);
    for (i = 0; i < b->nadapters; i++)
        pg_strvec_push(&a, b->adapters[i]);
    if (b->function && b->function->batch_source) {
        /* batch:'s wrapper, beside the side's own code. */
        char *w = pg_strdupf("%s/%s.batch.c", own, b->name);
        if (pg_write_file(w, b->function->batch_source,
                          strlen(b->function->batch_source), 0) < 0) {
            err = pg_error_set(PG_ERR_GENERIC, "cannot write %s", w);
            free(w);
            goto done;
        }
        pg_strvec_push(&a, w);
        free(w);
    }
    for (i = 0; i < library.n; i++)
        pg_strvec_push(&a, library.v[i]);
    link_libraries(&a, b);
    for (i = 0; i < b->nldflags; i++)
        pg_strvec_push(&a, b->ldflags[i]);
    pg_strvec_push(&a, "-lm");
    if (files.n + objects.n)
        pg_str_printf(&what, "%s", b->nsources ? b->sources[0] : "");
    else if (b->nadapters)
        pg_str_printf(&what, "adapter %s", b->adapters[0]);
    else
        pg_str_printf(&what, "%s", b->library ? b->library : b->name);
    if (b->nsources > 1)
        pg_str_printf(&what, " (and %zu more)", b->nsources - 1);
    err = compile(out, &a, side_dir, j.out_dir, pg_str_cstr(&what), j.timeout);
done:
    free(own);
    pg_strvec_clear(&j.includes);
    pg_str_clear(&what);
    pg_strvec_clear(&a);
    pg_strvec_clear(&files);
    pg_strvec_clear(&objects);
    pg_strvec_clear(&library);
    return err;
}

int pg_build_preprocess(pg_build *out, char **text, const pg_bench_config *b,
                        const char *side_dir, const char *out_dir,
                        const char *source, double timeout)
{
    pg_strvec a = PG_STRVEC_INIT, includes = PG_STRVEC_INIT;
    char *in = pg_path_join(out_dir, "declare.c");
    char *pre = pg_path_join(out_dir, "declare.i");
    size_t len;
    int err = 0;

    memset(out, 0, sizeof(*out));
    *text = NULL;
    if (pg_mkdir_p(out_dir) < 0 ||
        pg_write_file(in, source, strlen(source), 0) < 0) {
        err = pg_error_set(PG_ERR_GENERIC, "cannot write %s", in);
        goto done;
    }
    if (pg_sources_includes(&includes, &out->message, b, side_dir))
        goto done;
    compiler_args(&a, b, &includes);
    pg_strvec_push(&a, "-E");
    pg_strvec_push(&a, "-P");
    pg_strvec_push(&a, "-w");
    pg_strvec_push(&a, "-o");
    pg_strvec_push(&a, pre);
    pg_strvec_push(&a, in);
    if ((err = compile(out, &a, side_dir, out_dir, "the header",
                       timeout > 0 ? timeout : PROBLEM_TIMEOUT)) < 0 ||
        !out->ok)
        goto done;
    if (pg_read_file(text, &len, pre, (size_t)64 << 20) < 0) {
        out->ok = 0;
        out->message = pg_strdup("the preprocessed header could not be read "
                                 "(over 64 MiB?)");
    }
done:
    pg_strvec_clear(&a);
    pg_strvec_clear(&includes);
    free(in);
    free(pre);
    return err;
}

int pg_build_from_cache(pg_build *out, pg_cache *cache, const char *key,
                        const pg_bench_config *b, const char *out_dir,
                        const char *tag)
{
    int64_t start = pg_now_ns();
    char *own = side_out_dir(out_dir, tag);

    memset(out, 0, sizeof(*out));
    out->lib = pg_strdupf("%s/%s.%s.so", own, b->name, tag);
    free(own);
    if (!cache || !pg_cache_get_file(cache, key, "so", out->lib)) {
        pg_build_clear(out);
        return 0;
    }
    out->ok = out->cached = 1;
    out->seconds = (double)(pg_now_ns() - start) / 1e9;
    return 1;
}

void pg_build_keep(pg_cache *cache, const char *key, const pg_build *build)
{
    if (cache && build->ok && !build->cached && build->lib)
        pg_cache_put_file(cache, key, "so", build->lib);
}

int pg_build_problem(char **out_lib, const pg_bench_config *b,
                     const char *out_dir, pg_cache *cache)
{
    pg_strvec a = PG_STRVEC_INIT;
    pg_build build;
    char *src = pg_catalog_source(b), key[PG_CACHE_ID];
    int err, keyed = 0;

    memset(&build, 0, sizeof(build));
    *out_lib = pg_strdupf("%s/%s.problem.so", out_dir, b->name);
    /* A function's problem is generated: written beside its library. */
    if (b->function) {
        free(src);
        src = pg_strdupf("%s/%s.problem.c", out_dir, b->name);
        if ((err = pg_write_file(src, b->function->source,
                                 strlen(b->function->source), 0)) < 0)
            goto done;
    }
    pg_strvec_push(&a, pg_sources_compiler());
    pg_strvec_push(&a, "-O2");
    pg_strvec_push(&a, "-std=c11");
    pg_strvec_pushf(&a, "-I%s/include", pg_catalog_data_dir());
    if (cache) {
        if ((err = pg_affected_problem_key(key, cache, &a, src,
                                           PROBLEM_TIMEOUT)) < 0)
            goto done;
        keyed = !err;
        err = 0;
        if (keyed && pg_cache_get_file(cache, key, "problem.so", *out_lib))
            goto done;
    }
    pg_strvec_push(&a, "-shared");
    pg_strvec_push(&a, "-fPIC");
    pg_strvec_push(&a, "-fno-semantic-interposition");
    pg_strvec_push(&a, "-Wl,-Bsymbolic");
    pg_strvec_push(&a, "-o");
    pg_strvec_push(&a, *out_lib);
    pg_strvec_push(&a, src);
    pg_strvec_push(&a, "-lm");
    err = compile(&build, &a, NULL, out_dir, src, PROBLEM_TIMEOUT);
    if (!err && !build.ok)
        err = pg_error_set(PG_ERR_USAGE, "problem '%s' (%s): %s\n%s",
                           b->problem, src, build.message, build.log);
    if (!err && keyed)
        pg_cache_put_file(cache, key, "problem.so", *out_lib);
done:
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

double pg_build_limit(const pg_settings *settings)
{
    return 10 * settings->timeout;
}
