/*
 * build.c - running the compiler.
 */
#include "build.h"
#include "boxcap.h"
#include "affected.h"
#include "error.h"
#include "function.h"
#include "catalog.h"
#include "fs.h"
#include "proc.h"
#include "plan.h"
#include "sources.h"
#include "toolchain.h"
#include "str.h"
#include "strvec.h"
#include "clock.h"

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
        else if (res.disk_low)
            out->message =
                pg_strdupf("the compiler of %s was %s", what, PG_BOX_DISK_SAID);
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
    pg_strvec_pushf(&a, "PERFGATE_CC=%s", pg_toolchain_cc());
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
    else if (!out->ok && res.disk_low)
        out->message = pg_strdupf("the build command was %s: %s",
                                  PG_BOX_DISK_SAID, command);
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

/*
 * Compiles the files of plan `p` that have flags of their own, each to
 * an object in `dir` (their names into `objects`).  0, or negative when
 * perfgate failed; a file that does not compile leaves out->ok 0.
 */
static int compile_apart(pg_build *out, pg_strvec *objects, const pg_plan *p,
                         const char *side_dir, const char *dir,
                         const char *name, double timeout)
{
    size_t i;
    int err = 0;

    out->ok = 1;
    for (i = 0; i < p->nfiles && out->ok && !err; i++) {
        const pg_plan_file *f = &p->files[i];
        pg_strvec a = PG_STRVEC_INIT;
        if (f->kind != PG_PLAN_APART)
            continue;
        pg_strvec_append(&a, &f->argv);
        pg_strvec_push(&a, "-c");
        pg_strvec_push(&a, "-o");
        pg_strvec_pushf(&a, "%s/%s.%zu.o", dir, name, i);
        pg_strvec_push(objects, a.v[a.n - 1]);
        pg_strvec_push(&a, f->path);
        err = compile(out, &a, side_dir, dir, f->path, timeout);
        pg_strvec_clear(&a);
    }
    return err;
}

/* Appends to `a` the plan's files of `kind`. */
static void files_of(pg_strvec *a, const pg_plan *p, pg_plan_kind kind)
{
    size_t i;

    for (i = 0; i < p->nfiles; i++)
        if (p->files[i].kind == kind)
            pg_strvec_push(a, p->files[i].path);
}

int pg_build_solution(pg_build *out, const pg_bench_config *b,
                      const char *side_dir, const char *out_dir,
                      const char *tag, double timeout)
{
    pg_strvec a = PG_STRVEC_INIT, objects = PG_STRVEC_INIT;
    char *own = side_out_dir(out_dir, tag);
    char *name = pg_strdupf("%s.%s", b->name, tag);
    pg_plan p;
    int err = 0;

    memset(out, 0, sizeof(*out));
    timeout = timeout > 0 ? timeout : PROBLEM_TIMEOUT;
    if (pg_plan_make(&p, b, side_dir)) {
        out->missing = p.missing;
        out->message = pg_strdup(p.message);
        goto done;
    }
    if (p.shared) {
        out->lib = pg_strdup(p.shared);
        out->ok = 1;
        goto done;
    }
    err = compile_apart(out, &objects, &p, side_dir, own, name, timeout);
    if (err < 0 || !out->ok)
        goto done;
    out->ok = 0;
    out->lib = pg_strdupf("%s/%s.so", own, name);
    pg_strvec_append(&a, &p.link);
    pg_strvec_push(&a, "-o");
    pg_strvec_push(&a, out->lib);
    files_of(&a, &p, PG_PLAN_SOURCE);
    pg_strvec_append(&a, &objects);
    files_of(&a, &p, PG_PLAN_ADAPTER);
    if (p.batch) {
        /* batch:'s wrapper, beside the side's own code. */
        char *w = pg_strdupf("%s/%s.batch.c", own, b->name);
        if (pg_write_file(w, p.batch, strlen(p.batch), 0) < 0) {
            err = pg_error_set(PG_ERR_GENERIC, "cannot write %s", w);
            free(w);
            goto done;
        }
        pg_strvec_push(&a, w);
        free(w);
    }
    pg_strvec_append(&a, &p.after);
    err = compile(out, &a, side_dir, own, p.what, timeout);
done:
    pg_plan_clear(&p);
    free(own);
    free(name);
    pg_strvec_clear(&a);
    pg_strvec_clear(&objects);
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
    pg_plan_compiler(&a, b, &includes);
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

/*
 * The source of `b`'s problem (*src, a new string; a function's problem is
 * generated, and written into `out_dir`) and the compiler and flags it is
 * compiled with, into `a`.  0, or negative when it cannot be written.
 */
static int problem_plan(char **src, pg_strvec *a, const pg_bench_config *b,
                        const char *out_dir)
{
    int err = 0;

    *src = pg_catalog_source(b);
    if (b->function) {
        free(*src);
        *src = pg_strdupf("%s/%s.problem.c", out_dir, b->name);
        err = pg_write_file(*src, b->function->source,
                            strlen(b->function->source), 0);
    }
    pg_strvec_push(a, pg_toolchain_cc());
    pg_strvec_push(a, "-O2");
    pg_strvec_push(a, "-std=c11");
    pg_strvec_pushf(a, "-I%s/include", pg_catalog_data_dir());
    return err;
}

int pg_build_problem_kept(const pg_bench_config *b, const char *out_dir,
                          pg_cache *cache)
{
    pg_strvec a = PG_STRVEC_INIT;
    char *src = NULL, key[PG_CACHE_ID];
    int kept = problem_plan(&src, &a, b, out_dir) == 0 &&
               pg_affected_problem_key_kept(key, cache, &a, src) == 0 &&
               pg_cache_has(cache, key, "problem.so");

    pg_strvec_clear(&a);
    free(src);
    return kept;
}

int pg_build_problem(char **out_lib, const pg_bench_config *b,
                     const char *out_dir, pg_cache *cache)
{
    pg_strvec a = PG_STRVEC_INIT;
    pg_build build;
    char *src = NULL, key[PG_CACHE_ID];
    int err, keyed = 0;

    memset(&build, 0, sizeof(build));
    *out_lib = pg_strdupf("%s/%s.problem.so", out_dir, b->name);
    if ((err = problem_plan(&src, &a, b, out_dir)) < 0)
        goto done;
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
