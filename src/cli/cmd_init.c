/*
 * cmd_init.c - `perfgate init PROBLEM`: a starter solution and its
 * benchmark entry, ready for `perfgate compare`.
 */
#include "build.h"
#include "cleanup.h"
#include "cmd.h"
#include "config.h"
#include "error.h"
#include "catalog.h"
#include "fs.h"
#include "init.h"
#include "plugin.h"
#include "prototype.h"
#include "revision.h"
#include "str.h"
#include "strvec.h"
#include "suite.h"
#include "words.h"

#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static const char usage_text[] =
    "usage: perfgate init --function PROTOTYPE --sources FILE... [--name "
    "NAME]\n"
    "                     [--problem]\n"
    "   or: perfgate init --suite PROGRAM --build COMMAND [--name NAME]\n"
    "                     [--filter REGEX]\n"
    "   or: perfgate init PROBLEM [--name NAME] [--source PATH]\n"
    "                     [--language c|cuda]\n"
    "\n"
    "With --function, adds a benchmark for a function of yours to\n"
    "perfgate.yml (created when there is none): its C prototype, the files\n"
    "that define it, its arguments guessed from the prototype (a '# TODO'\n"
    "where they cannot be) and three sizes to measure at.  The head is\n"
    "checked against the base: no problem file, no reference to write.\n"
    "--problem writes a problem file for it instead, at perf/NAME.c, for\n"
    "when the function needs more than arguments can say.\n"
    "\n"
    "With --suite, adds the project's own Google Benchmark or nvbench\n"
    "suite: PROGRAM (built in the working tree, relative to the repository\n"
    "root) is the binary that COMMAND makes; perfgate lists its benchmarks\n"
    "(an nvbench state, each axis one value), each one a case, and measures\n"
    "both sides' builds of it interleaved.\n"
    "\n"
    "With a built-in PROBLEM (see `perfgate problems`), writes a starter\n"
    "solution: its signature and an empty body, at perf/NAME.c (.cu), and\n"
    "adds a benchmark NAME for it.  Nothing is overwritten.\n";

static const char epilogue[] =
    "examples:\n"
    "  perfgate init --function \"unsigned long crc32_z(unsigned long crc,\n"
    "      const unsigned char *buf, size_t len)\" --sources crc32.c\n"
    "  perfgate init --suite build/bench/core_bench \\\n"
    "      --build 'cmake -S . -B build && cmake --build build -t core_bench'\n"
    "  perfgate init reduce_sum && $EDITOR perf/reduce_sum.c\n";

static const pg_opt_usage usage = {"init", usage_text, epilogue};

/* The signature of the built-in `problem`, built and loaded here (it is
 * perfgate's own code); a new string, or NULL with an error set. */
static char *builtin_signature(const char *problem)
{
    const char *const *names = pg_catalog_builtin();
    const char *const *p;
    pg_bench_config b;
    pg_plugin plugin;
    char *tmp = NULL, *lib = NULL, *sig = NULL;

    for (p = names; *p && strcmp(*p, problem); p++)
        ;
    if (!*p) {
        char hint[128];
        pg_error_set(PG_ERR_USAGE,
                     "no built-in problem '%s'%s; `perfgate problems` "
                     "lists them",
                     problem,
                     pg_suggest_text(hint, sizeof(hint), problem, names));
        return NULL;
    }
    if (pg_tempdir_create(&tmp) < 0)
        return NULL;
    memset(&b, 0, sizeof(b));
    b.name = b.problem = (char *)problem;
    if (pg_build_problem(&lib, &b, tmp, NULL) == 0 &&
        pg_plugin_load(&plugin, lib, problem) == 0) {
        sig = pg_strdup(plugin.problem->signature ? plugin.problem->signature
                                                  : "");
        pg_plugin_close(&plugin);
    }
    free(lib);
    pg_tempdir_remove_all();
    free(tmp);
    return sig;
}

/* Prints the lines of `text`, indented. */
static void put_indented(const char *text)
{
    while (*text) {
        size_t len = strcspn(text, "\n");
        printf("    %.*s\n", (int)len, text);
        text += len + (text[len] == '\n');
    }
}

/* Writes `data` to `path` through a temporary file and a rename, so that a
 * failure leaves the old file whole. */
static int replace_file(const char *path, const pg_str *data)
{
    char *tmp = pg_strdupf("%s.perfgate-tmp", path);
    int err = 0;

    if (pg_write_file(tmp, data->ptr, data->size, 0) < 0 ||
        rename(tmp, path) < 0)
        err = pg_error_set(PG_ERR_GENERIC, "cannot write %s", path);
    if (err)
        remove(tmp);
    free(tmp);
    return err;
}

static int init(const char *problem, const char *name, const char *source,
                int cuda)
{
    pg_repo *repo = NULL;
    pg_str starter = PG_STR_INIT, config = PG_STR_INIT;
    char *sig = NULL, *src_path = NULL, *cfg_path = NULL, *old = NULL;
    char *src_dir = NULL;
    size_t old_len = 0;
    int err;

    if ((err = pg_repo_open(&repo, ".")) < 0)
        goto done;
    src_path = pg_path_join(pg_repo_workdir(repo), source);
    cfg_path = pg_path_join(pg_repo_workdir(repo), "perfgate.yml");
    if (pg_path_exists(src_path)) {
        err = pg_error_set(PG_ERR_USAGE,
                           "%s already exists: choose another --name or "
                           "--source",
                           source);
        goto done;
    }
    if (!(sig = builtin_signature(problem))) {
        err = PG_ERR_USAGE;
        goto done;
    }
    if ((cuda ? pg_init_starter_cuda(&starter, problem, sig)
              : pg_init_starter_c(&starter, problem, sig)) < 0) {
        err = pg_error_set(PG_ERR_GENERIC, "problem '%s' has no signature",
                           problem);
        goto done;
    }
    if (pg_path_exists(cfg_path) &&
        pg_read_file(&old, &old_len, cfg_path, 1 << 20) < 0) {
        err = pg_error_set(PG_ERR_USAGE, "cannot read perfgate.yml");
        goto done;
    }
    if ((err = pg_init_add_benchmark(
             &config, old, old_len, "perfgate.yml", pg_repo_workdir(repo),
             pg_catalog_builtin(), name, problem, source)) < 0)
        goto done;

    src_dir = pg_path_dirname(src_path);
    if (pg_mkdir_p(src_dir) < 0 ||
        pg_write_file(src_path, starter.ptr, starter.size, 0) < 0) {
        err = pg_error_set(PG_ERR_GENERIC, "cannot write %s", src_path);
        goto done;
    }
    if ((err = replace_file(cfg_path, &config)) < 0) {
        remove(src_path);
        goto done;
    }
    printf("created %s, a starter for problem '%s'\n", source, problem);
    if (old)
        printf("added benchmark '%s' to perfgate.yml\n", name);
    else
        printf("created perfgate.yml with benchmark '%s'\n", name);
    printf("\nnext: write the body of %s, commit, then change it and run\n"
           "  perfgate compare\n",
           source);
done:
    pg_str_clear(&starter);
    pg_str_clear(&config);
    free(sig);
    free(src_path);
    free(src_dir);
    free(cfg_path);
    free(old);
    pg_repo_free(repo);
    return err;
}

/* perfgate init --function: the entry, or the problem file and its
 * entry; `function` is the prototype's name (function_options()). */
static int init_function(const char *prototype, const char *function,
                         const char *const *sources, size_t nsources,
                         const char *name, const char *source, int problem)
{
    pg_repo *repo = NULL;
    pg_str body = PG_STR_INIT, config = PG_STR_INIT, file = PG_STR_INIT;
    char *cfg_path = NULL, *src_path = NULL, *src_dir = NULL, *old = NULL;
    size_t old_len = 0, i;
    int err;

    if ((err = pg_repo_open(&repo, ".")) < 0)
        goto done;
    cfg_path = pg_path_join(pg_repo_workdir(repo), "perfgate.yml");
    if (problem) {
        src_path = pg_path_join(pg_repo_workdir(repo), source);
        if (pg_path_exists(src_path)) {
            err = pg_error_set(PG_ERR_USAGE,
                               "%s already exists: choose another --name or "
                               "--source",
                               source);
            goto done;
        }
        if ((err = pg_init_function_problem(&file, prototype, source)) < 0)
            goto done;
        pg_str_printf(&body, "problem: %s\nsymbol: %s\nsources: [", source,
                      function);
        for (i = 0; i < nsources; i++)
            pg_str_printf(&body, "%s%s", i ? ", " : "", sources[i]);
        pg_str_puts(&body, "]\ncases: [{n: 64}, {n: 4096}, {n: 1048576}]\n");
    } else if ((err = pg_init_function_entry(&body, prototype, sources,
                                             nsources)) < 0) {
        goto done;
    }
    if (pg_path_exists(cfg_path) &&
        pg_read_file(&old, &old_len, cfg_path, 1 << 20) < 0) {
        err = pg_error_set(PG_ERR_USAGE, "cannot read perfgate.yml");
        goto done;
    }
    /* The problem file first: the new config names it, and must read. */
    if (problem) {
        src_dir = pg_path_dirname(src_path);
        if (pg_mkdir_p(src_dir) < 0 ||
            pg_write_file(src_path, file.ptr, file.size, 0) < 0) {
            err = pg_error_set(PG_ERR_GENERIC, "cannot write %s", src_path);
            goto done;
        }
    }
    if ((err = pg_init_add_entry(&config, old, old_len, "perfgate.yml",
                                 pg_repo_workdir(repo), pg_catalog_builtin(),
                                 name, pg_str_cstr(&body))) < 0 ||
        (err = replace_file(cfg_path, &config)) < 0) {
        if (problem)
            remove(src_path);
        goto done;
    }
    if (problem)
        printf("created %s, the problem of %s\n", source, name);
    printf("%s benchmark '%s' %s perfgate.yml:\n\n", old ? "added" : "created",
           name, old ? "to" : "in a new");
    put_indented(pg_str_cstr(&body));
    printf("\nnext: %sthen commit, change the function, and run\n"
           "  perfgate compare\n",
           problem ? "write the TODOs of the problem file (its verify() "
                     "fails until then), "
           : strstr(pg_str_cstr(&body), "TODO")
               ? "give the values marked TODO in perfgate.yml, "
               : "check the sizes in 'cases', ");
done:
    pg_str_clear(&body);
    pg_str_clear(&config);
    pg_str_clear(&file);
    free(cfg_path);
    free(src_path);
    free(src_dir);
    free(old);
    pg_repo_free(repo);
    return err;
}

/* 1 when `name` may name a benchmark; else 0, said. */
static int name_ok(const char *name)
{
    if (pg_valid_name(name))
        return 1;
    fprintf(stderr,
            "perfgate init: name '%s' may only hold letters, digits, '_', "
            "'.' and '-'\n",
            name);
    return 0;
}

/* 1 when `path` (given as `option`) lies inside the repository; else 0,
 * said. */
static int inside_ok(const char *option, const char *path)
{
    if (path[0] != '/' && strncmp(path, "../", 3) && !strstr(path, "/../"))
        return 1;
    fprintf(stderr,
            "perfgate init: %s '%s' must be a path inside the repository\n",
            option, path);
    return 0;
}

/* What `program` lists, checked to be a Google Benchmark or an nvbench
 * program (its kind then said), after the entry's lines in `body` (the
 * names as comments).  0, or PG_ERR_USAGE saying why
 * not. */
static int list_suite(pg_str *body, const char *root, const char *program,
                      const char *filter)
{
    pg_strvec names = PG_STRVEC_INIT;
    pg_suite s;
    char *why = NULL, *scratch = pg_strdup("/tmp/perfgate-init-XXXXXX");
    size_t i;
    int fixed, err;

    memset(&s, 0, sizeof(s));
    s.bin[0] = s.bin[1] = pg_path_join(root, program);
    s.dir[0] = s.dir[1] = root;
    if (!mkdtemp(scratch)) {
        err = pg_error_set(PG_ERR_GENERIC, "cannot create a directory in /tmp");
        goto done;
    }
    s.scratch = scratch;
    if (!pg_path_is_file(s.bin[0])) {
        err = pg_error_set(PG_ERR_USAGE,
                           "%s is not in the working tree: build it first "
                           "(perfgate lists its benchmarks from it)",
                           program);
        pg_rm_rf(scratch);
        goto done;
    }
    err = pg_suite_list(&names, &fixed, &why, &s, 0, filter, 60);
    if (err == 1) {
        /* Not a Google Benchmark program: perhaps an nvbench one. */
        char *nv_why = NULL;
        s.kind = PG_SUITE_NVBENCH;
        pg_strvec_clear(&names);
        if ((err = pg_suite_list(&names, &fixed, &nv_why, &s, 0, filter, 60)) ==
            0)
            pg_str_puts(body, "kind: nvbench\n");
        free(nv_why);
    }
    if (err == 1) {
        err = pg_error_set(PG_ERR_USAGE,
                           "%s: %s (build it first: perfgate lists its "
                           "benchmarks from the working tree's build)",
                           program, why);
    } else if (err == 0 && !names.n) {
        err = pg_error_set(PG_ERR_USAGE, "%s lists no benchmark%s%s%s", program,
                           filter ? " that '" : "", filter ? filter : "",
                           filter ? "' matches" : "");
    } else if (err == 0) {
        pg_str_printf(body, "# %zu benchmark%s, each a case:", names.n,
                      names.n == 1 ? "" : "s");
        for (i = 0; i < names.n && i < 8; i++)
            pg_str_printf(body, "%s %s", i ? "," : "", names.v[i]);
        pg_str_puts(body, names.n > 8 ? ", ...\n" : "\n");
    }
    pg_rm_rf(scratch);
done:
    free(why);
    free(scratch);
    free((char *)s.bin[0]);
    pg_strvec_clear(&names);
    return err;
}

/* perfgate init --suite: the entry of a project's benchmark suite. */
static int init_suite(const char *program, const char *build, const char *name,
                      const char *filter)
{
    pg_repo *repo = NULL;
    pg_str body = PG_STR_INIT, config = PG_STR_INIT;
    char *cfg_path = NULL, *old = NULL;
    size_t old_len = 0;
    int err;

    if ((err = pg_repo_open(&repo, ".")) < 0)
        goto done;
    cfg_path = pg_path_join(pg_repo_workdir(repo), "perfgate.yml");
    pg_str_printf(&body, "suite: %s\nbuild: '", program);
    for (; *build; build++)
        pg_str_printf(&body, *build == '\'' ? "''" : "%c", *build);
    pg_str_puts(&body, "'\n");
    if (filter)
        pg_str_printf(&body, "filter: '%s'\n", filter);
    if ((err = list_suite(&body, pg_repo_workdir(repo), program, filter)) < 0)
        goto done;
    if (pg_path_exists(cfg_path) &&
        pg_read_file(&old, &old_len, cfg_path, 1 << 20) < 0) {
        err = pg_error_set(PG_ERR_USAGE, "cannot read perfgate.yml");
        goto done;
    }
    if ((err = pg_init_add_entry(&config, old, old_len, "perfgate.yml",
                                 pg_repo_workdir(repo), pg_catalog_builtin(),
                                 name, pg_str_cstr(&body))) < 0 ||
        (err = replace_file(cfg_path, &config)) < 0)
        goto done;
    printf("%s benchmark '%s' %s perfgate.yml:\n\n", old ? "added" : "created",
           name, old ? "to" : "in a new");
    put_indented(pg_str_cstr(&body));
    printf("\nnext: commit, and run\n  perfgate compare\n");
done:
    pg_str_clear(&body);
    pg_str_clear(&config);
    free(cfg_path);
    free(old);
    pg_repo_free(repo);
    return err;
}

/* The options of init --suite checked, its name defaulted; 0, or
 * PG_EXIT_USAGE after saying why. */
static int suite_options(const char *program, const char *build, int positional,
                         const char **name, char **own_name)
{
    const char *base = pg_path_basename(program);
    char *p;

    if (positional || !build) {
        fprintf(stderr,
                positional ? "perfgate init: --suite takes no "
                             "PROBLEM\n"
                           : "perfgate init: name the command that "
                             "makes %s: --build COMMAND\n",
                program);
        return PG_EXIT_USAGE;
    }
    if (!inside_ok("--suite", program))
        return PG_EXIT_USAGE;
    if (!*name) {
        *own_name = pg_strdup(*base ? base : "suite");
        for (p = *own_name; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789_.-",
                        *p))
                *p = '_';
        *name = *own_name;
    }
    if (!name_ok(*name))
        return PG_EXIT_USAGE;
    return 0;
}

/* perfgate init --suite, from its options to its exit status. */
static int suite_command(const char *suite, const char *build,
                         const char *filter, const char *name, int positional)
{
    char *own_name = NULL;
    int err;

    if (!suite) {
        fprintf(stderr, "perfgate init: --build and --filter go with "
                        "--suite PROGRAM\n");
        return PG_EXIT_USAGE;
    }
    err = suite_options(suite, build, positional, &name, &own_name);
    if (!err)
        err = init_suite(suite, build, name, filter);
    free(own_name);
    if (err == PG_EXIT_USAGE)
        return PG_EXIT_USAGE;
    return err < 0 ? pg_cmd_fail(err) : PG_EXIT_PASS;
}

/*
 * The options of init --function checked, and the name and the problem
 * file's path defaulted; 0, or PG_EXIT_USAGE after saying why.
 */
static int function_options(const char *function, const pg_strvec *sources,
                            int problem, int positional, const char **name,
                            char **fname, const char **source,
                            char **default_source)
{
    pg_prototype p;
    size_t col = 1;

    if (!function) {
        fprintf(stderr, "perfgate init: --sources and --problem go with "
                        "--function \"PROTOTYPE\"\n");
        return PG_EXIT_USAGE;
    }
    if (positional) {
        fprintf(stderr, "perfgate init: --function takes no PROBLEM\n");
        return PG_EXIT_USAGE;
    }
    if (pg_prototype_parse(&p, function, &col) < 0) {
        fprintf(stderr, "perfgate init: --function, at column %zu: %s\n", col,
                pg_error_last());
        return PG_EXIT_USAGE;
    }
    *fname = pg_strdup(p.name);
    pg_prototype_clear(&p);
    if (!sources->n) {
        fprintf(stderr,
                "perfgate init: name the files that define %s: --sources "
                "FILE... (relative to the repository root)\n",
                *fname);
        return PG_EXIT_USAGE;
    }
    if (!*name)
        *name = *fname;
    if (!name_ok(*name))
        return PG_EXIT_USAGE;
    if (!*source)
        *source = *default_source = pg_strdupf("perf/%s.c", *name);
    if (problem && !inside_ok("--source", *source))
        return PG_EXIT_USAGE;
    return 0;
}

/* perfgate init --function, from its options to its exit status. */
static int function_command(const char *function, const pg_strvec *sources,
                            int problem, int positional, const char *name,
                            const char *source)
{
    char *default_source = NULL, *fname = NULL;
    int err = function_options(function, sources, problem, positional, &name,
                               &fname, &source, &default_source);

    if (!err)
        err = init_function(function, fname, pg_strvec_list(sources),
                            sources->n, name, source, problem);
    free(fname);
    free(default_source);
    if (err == PG_EXIT_USAGE)
        return PG_EXIT_USAGE;
    return err < 0 ? pg_cmd_fail(err) : PG_EXIT_PASS;
}

int pg_cmd_init(int argc, char **argv)
{
    const char *name = NULL, *source = NULL, *language = "c";
    const char *function = NULL, *suite = NULL, *build = NULL;
    const char *filter = NULL;
    char *default_source = NULL;
    pg_strvec sources = PG_STRVEC_INIT;
    int err, problem = 0;
    const pg_opt opts[] = {
        PG_OPT_STR("function", 'f', &function, "PROTO",
                   "the function's C prototype, quoted"),
        {PG_OPT_WORDS, "sources", 'S', &sources, "FILE...",
         "the files that define it and what it calls\n"
         "(relative to the repository root; globs as\n"
         "in perfgate.yml); every word up to the next\n"
         "option",
         NULL, 0, 0, NULL, NULL},
        PG_OPT_SET("problem", 'p', &problem,
                   "with --function: a problem file, not args"),
        PG_OPT_STR("name", 'n', &name, "NAME",
                   "the benchmark's name (default: the function's\n"
                   "or the PROBLEM's)"),
        PG_OPT_STR("source", 's', &source, "PATH",
                   "where the starter or problem file goes,\n"
                   "relative to the repository root (default:\n"
                   "perf/NAME.c, or perf/NAME.cu)"),
        PG_OPT_STR("suite", 0, &suite, "PROGRAM",
                   "the project's Google Benchmark binary"),
        PG_OPT_STR("build", 0, &build, "COMMAND",
                   "with --suite: the command that makes it"),
        PG_OPT_STR("filter", 0, &filter, "REGEX",
                   "with --suite: the benchmarks to gate"),
        {PG_OPT_CHOICE, "language", 'l', &language, "LANG",
         "c (default) or cuda: an empty kernel and the\n"
         "solution that launches it",
         "c|cuda", 0, 0, NULL, NULL},
        PG_OPT_END};
    int code = pg_opt_parse(opts, argc, argv, &usage);

    if (code >= 0) {
        pg_strvec_clear(&sources);
        return code;
    }
    if (suite || build || filter) {
        pg_strvec_clear(&sources);
        return suite_command(suite, build, filter, name, optind < argc);
    }
    if (function || sources.n || problem) {
        code = function_command(function, &sources, problem, optind < argc,
                                name, source);
        pg_strvec_clear(&sources);
        return code;
    }
    if (!name)
        name = argv[optind];
    if (!name_ok(name))
        return PG_EXIT_USAGE;
    if (!source)
        source = default_source = pg_strdupf(
            "perf/%s.%s", name, strcmp(language, "cuda") ? "c" : "cu");
    if (!inside_ok("--source", source)) {
        free(default_source);
        return PG_EXIT_USAGE;
    }
    err = init(argv[optind], name, source, !strcmp(language, "cuda"));
    free(default_source);
    return err < 0 ? pg_cmd_fail(err) : PG_EXIT_PASS;
}
