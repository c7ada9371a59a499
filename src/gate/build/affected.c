/*
 * affected.c - does a change reach a benchmark's build?  (affected.h)
 */
#include "affected.h"
#include "box.h"
#include "plan.h"
#include "toolchain.h"
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

/* A flag that may make the compiler, assembler or linker read a file
 * that -M does not report, or that perfgate does not model. */
static int opaque_flag(const char *f)
{
    static const char *const prefixes[] = {
        "@", "-fprofile", "-fauto-profile", "-specs", "-fplugin",
        "-fsanitize-blacklist", "-fsanitize-ignorelist", "-B", "--sysroot",
        "-isysroot", "-fcoverage", "-fcreate-profile",
        /* cflags reach the link: libraries, objects, scripts */
        "-l", "-L", "-Wl,", "-Xlinker", "-T", "-Xassembler", "-Wa,", "-Wp,",
        "-Xpreprocessor", "-x", "-iprefix", "-iwithprefix", "-imultilib",
        "-fdebug-prefix-map", "-ffile-prefix-map", "-fmacro-prefix-map",
        "-save-temps", "-M", NULL};
    const char *const *p;

    /* A word that is no flag is a file given to the compiler or the link
     * (an object, an archive): perfgate does not know what it holds. */
    if (f[0] != '-')
        return 1;
    for (p = prefixes; *p; p++)
        if (!strncmp(f, *p, strlen(*p)))
            return 1;
    return 0;
}

/* Flags whose argument may follow as the next word. */
static const char *const search_flags[] = {"-I", "-iquote", "-isystem",
                                           "-idirafter", NULL};
static const char *const other_arg_flags[] = {"-include", "-imacros", "-D",
                                              "-U", NULL};

/* `f` is one of `flags`, alone (its argument next) or joined to it; the
 * argument's place, or NULL. */
static const char *flag_arg(const char *f, const char *next,
                            const char *const *flags, int *takes_next)
{
    size_t i, n;

    *takes_next = 0;
    for (i = 0; flags[i]; i++) {
        n = strlen(flags[i]);
        if (strncmp(f, flags[i], n))
            continue;
        if (f[n]) /* "-Ivendor" (but not "-include" read as "-i...") */
            return flags == search_flags || !strcmp(flags[i], "-D") ||
                           !strcmp(flags[i], "-U")
                       ? f + n
                       : NULL;
        *takes_next = 1;
        return next;
    }
    return NULL;
}

/*
 * Reads a list of flags: the directories it adds to the include search
 * (to `search`, when not NULL), and 1 when any flag or word in it is one
 * perfgate does not model.
 */
static int read_flags(pg_strvec *search, char *const *flags, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        const char *next = i + 1 < n ? flags[i + 1] : NULL, *arg;
        int takes_next;
        if ((arg = flag_arg(flags[i], next, search_flags, &takes_next))) {
            if (search && !pg_strvec_has(search, arg))
                pg_strvec_push(search, arg);
            i += (size_t)takes_next;
            continue;
        }
        if (takes_next) /* "-I" last: the compiler will refuse it */
            return 1;
        if (flag_arg(flags[i], next, other_arg_flags, &takes_next) ||
            takes_next) {
            if (takes_next && !next)
                return 1;
            i += (size_t)takes_next;
            continue;
        }
        if (opaque_flag(flags[i]))
            return 1;
    }
    return 0;
}

/*
 * nvcc's flags that change how the code is compiled and read no file of
 * their own: any other in a CUDA build's flags makes it opaque (nvcc
 * hands words on to the host compiler, the assembler and the linker).
 * An entry ending in '=' or a letter followed by '*' is a prefix.
 */
static int nvcc_flag_known(const char *f)
{
    static const char *const known[] = {"-D*",
                                        "-U*",
                                        "-I*",
                                        "-isystem",
                                        "-O*",
                                        "-std=",
                                        "--std=",
                                        "-g",
                                        "-G",
                                        "-lineinfo",
                                        "--generate-line-info",
                                        "-use_fast_math",
                                        "--use_fast_math",
                                        "-expt-relaxed-constexpr",
                                        "--expt-relaxed-constexpr",
                                        "-expt-extended-lambda",
                                        "--expt-extended-lambda",
                                        "--extended-lambda",
                                        "-ftz=",
                                        "--ftz=",
                                        "-prec-div=",
                                        "--prec-div=",
                                        "-prec-sqrt=",
                                        "--prec-sqrt=",
                                        "-fmad=",
                                        "--fmad=",
                                        "-maxrregcount=",
                                        "--maxrregcount=",
                                        "-restrict",
                                        "--restrict",
                                        "--extra-device-vectorization",
                                        "-w",
                                        "-Wno-deprecated-gpu-targets",
                                        "-gencode=",
                                        NULL};
    const char *const *k;

    for (k = known; *k; k++) {
        size_t n = strlen(*k);
        if ((*k)[n - 1] == '*'   ? !strncmp(f, *k, n - 1)
            : (*k)[n - 1] == '=' ? !strncmp(f, *k, n)
                                 : !strcmp(f, *k))
            return 1;
    }
    return 0;
}

/* 1 when a CUDA build's list of flags holds one nvcc_flag_known() does
 * not know (the argument of "-I DIR" or "-D NAME" taken with its flag). */
static int nvcc_flags_opaque(char *const *flags, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (!nvcc_flag_known(flags[i]))
            return 1;
        if (!strcmp(flags[i], "-D") || !strcmp(flags[i], "-U") ||
            !strcmp(flags[i], "-I") || !strcmp(flags[i], "-isystem"))
            i++;
    }
    return 0;
}

/* What perfgate cannot see into: built and measured, whatever changed. */
static int opaque(const pg_bench_config *b)
{
    int cuda = !strcmp(b->language, "cuda");
    size_t i;

    if (b->build || b->library || b->nldflags ||
        (strcmp(b->language, "c") && !cuda))
        return 1;
    /* CUDA: its sources, flags nvcc_flag_known() knows, nothing more. */
    if (cuda && (b->nadapters || b->nfile_cflags ||
                 nvcc_flags_opaque(b->cflags, b->ncflags) ||
                 nvcc_flags_opaque(b->nvcc_flags, b->nnvcc_flags)))
        return 1;
    for (i = 0; i < b->ninclude; i++)
        if (strpbrk(b->include[i], "*?["))
            return 1;
    for (i = 0; i < b->nsources; i++) {
        const char *dot = strrchr(b->sources[i], '.');
        /* assembly, or anything else */
        if (!dot || strcmp(dot, cuda ? ".cu" : ".c"))
            return 1;
    }
    if (read_flags(NULL, b->cflags, b->ncflags))
        return 1;
    for (i = 0; i < b->nfile_cflags; i++)
        if (read_flags(NULL, b->file_cflags[i].flags, b->file_cflags[i].nflags))
            return 1;
    return 0;
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
    pg_box box = {{NULL}, {NULL}, {NULL}};
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
    /* The compiler on the revision's sources, boxed; it writes nothing. */
    opts.box = &box;
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
    double timeout;  /* for the compiler; negative: it is not to be asked */
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
 * `path` (relative to the tree) with "." and ".." taken out; NULL when it
 * leads out of the tree.
 */
static char *tidy_path(const char *path)
{
    pg_strvec parts = PG_STRVEC_INIT;
    pg_str out = PG_STR_INIT;
    const char *p = path;
    size_t i;
    int out_of_tree = 0;

    while (*p && !out_of_tree) {
        size_t n = strcspn(p, "/");
        if (n == 2 && !strncmp(p, "..", 2)) {
            if (!parts.n)
                out_of_tree = 1;
            else
                free(parts.v[--parts.n]);
        } else if (n && !(n == 1 && *p == '.')) {
            pg_strvec_pushf(&parts, "%.*s", (int)n, p);
        }
        p += n + (p[n] == '/');
    }
    for (i = 0; i < parts.n; i++)
        pg_str_printf(&out, "%s%s", i ? "/" : "", parts.v[i]);
    pg_strvec_clear(&parts);
    if (out_of_tree) {
        pg_str_clear(&out);
        return NULL;
    }
    return out.size ? pg_str_detach(&out) : pg_strdup(".");
}

/* The nearest directory of `dir` (tidy, in the tree) that exists: a file
 * or directory that comes into being below it changes its listing. */
static char *existing(const inputs *in, const char *dir)
{
    char *d = pg_strdup(dir);

    for (;;) {
        char *full = pg_path_join(in->dir, d), *up;
        int here = pg_path_exists(full);
        free(full);
        if (here || !strcmp(d, "."))
            return d;
        up = pg_path_dirname(d);
        free(d);
        d = up;
    }
}

/*
 * Every directory of the tree where a new file could shadow one the
 * compiler read.  A header is found as DIR/NAME, DIR the first directory
 * of the search that has NAME: the includer's own directory for a quoted
 * include, then each -iquote, -I (and include:), -isystem and -idirafter
 * directory, then the system's.  perfgate sees only what the compiler
 * found, not the NAME it was asked for, so it takes every NAME the path
 * could be (each of its trailing parts: "op.h", "sub/op.h", ...) against
 * every directory the search could pass through (`search`, and the
 * directory of every file of the tree that was read: an includer).  Where
 * such a directory does not exist, the nearest one above it that does
 * stands for it: whatever comes into being below changes its listing.
 * More directories than the compiler searched: a change in one is asked
 * about, never missed.
 */
static void shadow_dirs(const inputs *in, pg_strvec *out, const pg_strvec *deps,
                        const pg_strvec *tree_deps, const pg_strvec *search)
{
    pg_strvec roots = PG_STRVEC_INIT, subs = PG_STRVEC_INIT;
    size_t i, j, k;

    for (i = 0; i < search->n; i++)
        pg_strvec_push(&roots, search->v[i]);
    for (i = 0; i < tree_deps->n; i++) {
        char *d = pg_path_dirname(tree_deps->v[i]);
        if (!pg_strvec_has(&roots, d))
            pg_strvec_push(&roots, d);
        free(d);
    }
    /* The directory part of each NAME a file could have been asked by. */
    for (i = 0; i < deps->n; i++) {
        const char *path = deps->v[i], *p;
        for (p = path + strlen(path); p > path; p--) {
            char *sub;
            if (p[-1] != '/' && p != path + 1)
                continue;
            sub = pg_path_dirname(p == path + 1 && path[0] != '/' ? path : p);
            if (!pg_strvec_has(&subs, sub))
                pg_strvec_push(&subs, sub);
            free(sub);
        }
    }
    for (j = 0; j < roots.n; j++)
        for (k = 0; k < subs.n; k++) {
            char *joined = pg_path_join(roots.v[j], subs.v[k]);
            char *tidy = joined[0] == '/' ? NULL : tidy_path(joined);
            if (tidy) {
                char *here = existing(in, tidy);
                pg_strvec_push(out, here);
                free(here);
            }
            free(tidy);
            free(joined);
        }
    /* Sorted, each once. */
    qsort(out->v, out->n, sizeof(char *), name_order);
    for (i = 0, j = 0; i < out->n; i++) {
        if (j && !strcmp(out->v[j - 1], out->v[i]))
            free(out->v[i]);
        else
            out->v[j++] = out->v[i];
    }
    out->n = j;
    pg_strvec_clear(&roots);
    pg_strvec_clear(&subs);
}

/*
 * 1 when the file at `path` can pull in data the compiler does not report
 * (an assembler .incbin or .include in a top-level asm, C23's #embed):
 * perfgate cannot say what such a build reads.
 */
static int reads_unreported(const char *path)
{
    static const char *const words[] = {".incbin", ".include", "embed", NULL};
    char *text = NULL;
    size_t len = 0, i;
    int found = 0;

    if (pg_read_file(&text, &len, path, 64 << 20) < 0)
        return 1;
    for (i = 0; words[i] && !found; i++) {
        const char *p = text;
        while (!found && (p = memmem(p, len - (size_t)(p - text), words[i],
                                     strlen(words[i])))) {
            const char *q = p;
            if (words[i][0] == '.') {
                /* ".include" as the assembler's directive, not a field of
                 * a struct: a name character must not precede it, unless
                 * it ends an escape of a C string ("...\n.incbin ..."),
                 * as each line of a top-level asm does (issue 49). */
                found = p == text ||
                        !(p[-1] == '_' || (p[-1] >= 'a' && p[-1] <= 'z') ||
                          (p[-1] >= 'A' && p[-1] <= 'Z') ||
                          (p[-1] >= '0' && p[-1] <= '9')) ||
                        (p - text >= 2 && p[-2] == '\\');
            } else {
                /* "#embed" or "# embed", and __has_embed */
                while (q > text && (q[-1] == ' ' || q[-1] == '\t'))
                    q--;
                found = (q > text && q[-1] == '#') ||
                        (p - text >= 6 && !memcmp(p - 6, "__has_", 6));
            }
            p += strlen(words[i]);
        }
    }
    free(text);
    return found;
}

/*
 * The manifest of what the compiler read: "f ID NAME" for each file, and
 * "d ID DIR" for each directory of the tree where a new file could shadow
 * one of them (shadow_dirs).  -1 when it cannot be trusted.
 */
static int manifest_lines(inputs *in, pg_str *out, const pg_strvec *deps,
                          const pg_strvec *search)
{
    pg_strvec dirs = PG_STRVEC_INIT, tree = PG_STRVEC_INIT;
    char id[PG_CACHE_ID];
    size_t i;
    int err = 0;

    for (i = 0; i < deps->n && !err; i++) {
        int stable;
        char *p = locate(in, deps->v[i], &stable);
        /* A name that is no file (one with a space, which -M escapes):
         * doubt. */
        if (!p || pg_cache_file_id(in->cache, id, p, stable) < 0 ||
            !strcmp(id, "absent"))
            err = -1;
        else if (!stable && reads_unreported(p))
            err = -1;
        else
            pg_str_printf(out, "f %s %s\n", id, deps->v[i]);
        if (!err && in->dir && !stable)
            pg_strvec_push(&tree, deps->v[i]);
        free(p);
    }
    if (!err && in->dir)
        shadow_dirs(in, &dirs, deps, &tree, search);
    for (i = 0; i < dirs.n && !err; i++) {
        if ((err = listing_id(in, id, dirs.v[i])) == 0)
            pg_str_printf(out, "d %s %s\n", id, dirs.v[i]);
    }
    pg_strvec_clear(&dirs);
    pg_strvec_clear(&tree);
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
    } else if (in->timeout < 0) {
        err = PG_AFFECTED_ASK;
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
    return err == PG_ERR_INTERRUPTED || err == PG_AFFECTED_ASK ? err
           : err                                               ? 1
                                                               : 0;
}

static void inputs_init(inputs *in, pg_cache *cache, const char *dir,
                        double timeout, const char *what)
{
    memset(in, 0, sizeof(*in));
    in->cache = cache;
    in->dir = dir;
    in->timeout = timeout;
    /* What perfgate adds to a build is in the plan the key is made of;
     * the number is the manifest's form (2: it lists every directory
     * where a header could shadow one read). */
    pg_str_printf(&in->doc, "perfgate %s 2 %s\n%s\n", what, PG_VERSION,
                  pg_toolchain_cc_id());
    /* What pass_env: lets into the box reaches the compiler too. */
    pg_box_describe_env(&in->doc);
}

static void inputs_clear(inputs *in)
{
    pg_str_clear(&in->doc);
    pg_strvec_clear(&in->files);
    pg_strvec_clear(&in->args);
}

/* Adds a file the plan compiles: its name and id, and how it is asked. */
static int add_compiled(inputs *in, const pg_plan_file *f)
{
    char id[PG_CACHE_ID];
    size_t i;
    int stable;
    char *p = locate(in, f->path, &stable);

    if (!p || pg_cache_file_id(in->cache, id, p, stable) < 0) {
        free(p);
        return -1;
    }
    free(p);
    pg_str_printf(&in->doc, "file %s %s\n", id, f->path);
    for (i = 0; i < f->argv.n; i++)
        pg_str_printf(&in->doc, "  %s\n", f->argv.v[i]);
    add_file(in, f->path, &f->argv);
    return 0;
}

/* The rest of the plan into `doc`: the link, what follows the code, and
 * batch:'s wrapper. */
static void link_doc(pg_str *doc, const pg_plan *p)
{
    size_t i;

    pg_str_puts(doc, "link\n");
    for (i = 0; i < p->link.n; i++)
        pg_str_printf(doc, "  %s\n", p->link.v[i]);
    pg_str_puts(doc, "after\n");
    for (i = 0; i < p->after.n; i++)
        pg_str_printf(doc, "  %s\n", p->after.v[i]);
    if (p->batch)
        pg_str_printf(doc, "batch\n%s\n", p->batch);
}

/*
 * 1 when a directory of the include search cannot be watched: one that
 * leads out of the tree (the build's to refuse, for include:), or names
 * one in it by its absolute path.  An absolute one outside the tree (the
 * system's) is the same for both sides.
 */
static int search_dir_doubt(const char *side_dir, const char *dir,
                            int configured)
{
    char *p, *tidy;
    int doubt;

    if (dir[0] == '/')
        return configured || pg_path_inside(side_dir, dir) != 0;
    p = pg_path_join(side_dir, dir);
    tidy = tidy_path(dir);
    doubt = !tidy || pg_path_inside(side_dir, p) == 0;
    free(tidy);
    free(p);
    return doubt;
}

/* pg_affected_key, or pg_affected_key_kept when `timeout` is negative. */
static int build_key(char key[PG_CACHE_ID], pg_cache *cache,
                     const pg_bench_config *b, const char *side_dir,
                     double timeout)
{
    pg_strvec search = PG_STRVEC_INIT;
    pg_plan p;
    inputs in;
    size_t i;
    int err;

    if (opaque(b))
        return 1;
    inputs_init(&in, cache, side_dir, timeout, "build");
    if (!strcmp(b->language, "cuda"))
        pg_str_printf(&in.doc, "%s\n", pg_toolchain_nvcc_id());
    /* What the build would run, or doubt when it would not. */
    err = pg_plan_make(&p, b, side_dir);
    for (i = 0; i < b->ninclude; i++)
        pg_strvec_push(&search, b->include[i]);
    /* And every directory an include flag adds, in any list of flags. */
    read_flags(&search, b->cflags, b->ncflags);
    for (i = 0; i < b->nfile_cflags; i++)
        read_flags(&search, b->file_cflags[i].flags, b->file_cflags[i].nflags);
    for (i = 0; !err && i < search.n; i++)
        err = search_dir_doubt(side_dir, search.v[i], i < b->ninclude);
    for (i = 0; !err && i < p.nfiles; i++)
        err = add_compiled(&in, &p.files[i]) ? 1 : 0;
    if (!err) {
        link_doc(&in.doc, &p);
        err = inputs_key(key, &in, &search);
    }
    pg_plan_clear(&p);
    inputs_clear(&in);
    pg_strvec_clear(&search);
    return err;
}

int pg_affected_key(char key[PG_CACHE_ID], pg_cache *cache,
                    const pg_bench_config *b, const char *side_dir,
                    double timeout)
{
    return build_key(key, cache, b, side_dir, timeout < 0 ? 0 : timeout);
}

int pg_affected_key_kept(char key[PG_CACHE_ID], pg_cache *cache,
                         const pg_bench_config *b, const char *side_dir)
{
    return build_key(key, cache, b, side_dir, -1);
}

/* pg_affected_problem_key, or pg_affected_problem_key_kept when `timeout`
 * is negative. */
static int problem_key(char key[PG_CACHE_ID], pg_cache *cache,
                       const pg_strvec *argv, const char *source,
                       double timeout)
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

int pg_affected_problem_key(char key[PG_CACHE_ID], pg_cache *cache,
                            const pg_strvec *argv, const char *source,
                            double timeout)
{
    return problem_key(key, cache, argv, source, timeout < 0 ? 0 : timeout);
}

int pg_affected_problem_key_kept(char key[PG_CACHE_ID], pg_cache *cache,
                                 const pg_strvec *argv, const char *source)
{
    return problem_key(key, cache, argv, source, -1);
}

int pg_affected_project_key(char key[PG_CACHE_ID], const char *tree,
                            const pg_strvec *earlier, const char *command)
{
    pg_str doc = PG_STR_INIT;
    const char *why;
    size_t i;

    if (!tree || !*tree)
        return 1;
    pg_str_printf(&doc, "perfgate project 1 %s\ntree %s\n", PG_VERSION, tree);
    for (i = 0; earlier && i < earlier->n; i++)
        pg_str_printf(&doc, "after %s\n", earlier->v[i]);
    pg_str_printf(&doc, "command %s\n", command);
    pg_str_printf(&doc, "boxed %d\n%s\n%s\n", pg_box_ready(&why),
                  pg_toolchain_cc_id(), pg_toolchain_project_id());
    pg_toolchain_tools_doc(&doc, command);
    pg_box_describe_kept_env(&doc);
    pg_cache_id(key, doc.ptr, doc.size);
    pg_str_clear(&doc);
    return 0;
}
