/*
 * cmd_init.c - `perfgate init PROBLEM`: a starter solution and its
 * benchmark entry, ready for `perfgate compare`.
 */
#define _GNU_SOURCE
#include "build.h"
#include "cleanup.h"
#include "cmd.h"
#include "config.h"
#include "error.h"
#include "problems.h"
#include "fs.h"
#include "init.h"
#include "problem.h"
#include "revision.h"
#include "str.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static const char usage_text[] =
    "usage: perfgate init PROBLEM [--name NAME] [--source PATH]\n"
    "                     [--language c|cuda]\n"
    "\n"
    "Writes a starter solution for the built-in PROBLEM (see `perfgate\n"
    "problems`): its signature and an empty body, at perf/NAME.c (.cu) in the\n"
    "repository, and adds a benchmark NAME for it to perfgate.yml (created\n"
    "when there is none).  Nothing is overwritten.\n"
    "\n"
    "options:\n"
    "  -n, --name NAME        the benchmark's name (default: PROBLEM)\n"
    "  -s, --source PATH      where the starter goes, relative to the\n"
    "                         repository root (default: perf/NAME.c, or\n"
    "                         perf/NAME.cu)\n"
    "  -l, --language LANG    c (default) or cuda: an empty kernel and the\n"
    "                         solution that launches it\n"
    "  -h, --help             show this help\n"
    "\n"
    "example:\n"
    "  perfgate init reduce_sum && $EDITOR perf/reduce_sum.c\n";

/* The signature of the built-in `problem`, built and loaded here (it is
 * perfgate's own code); a new string, or NULL with an error set. */
static char *builtin_signature(const char *problem)
{
    const char *const *names = pg_problems_builtin();
    const char *const *p;
    pg_bench_config b;
    pg_plugin plugin;
    char *tmp = NULL, *lib = NULL, *sig = NULL;

    for (p = names; *p && strcmp(*p, problem); p++)
        ;
    if (!*p) {
        const char *hint = pg_suggest(problem, names);
        pg_error_set(PG_ERR_USAGE,
                     "no built-in problem '%s'%s%s%s; `perfgate problems` "
                     "lists them",
                     problem, hint ? " (did you mean '" : "", hint ? hint : "",
                     hint ? "'?)" : "");
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
             pg_problems_builtin(), name, problem, source)) < 0)
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

int pg_cmd_init(int argc, char **argv)
{
    static const struct option long_opts[] = {
        {"name", required_argument, NULL, 'n'},
        {"source", required_argument, NULL, 's'},
        {"language", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0}};
    const char *name = NULL, *source = NULL, *language = "c";
    char *default_source = NULL;
    int c, err;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "n:s:l:h", long_opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            name = optarg;
            break;
        case 's':
            source = optarg;
            break;
        case 'l':
            language = optarg;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return PG_EXIT_PASS;
        default:
            return pg_cmd_bad_option("init", argv[optind - 1], usage_text);
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "perfgate init: name one problem\n\n%s", usage_text);
        return PG_EXIT_USAGE;
    }
    if (strcmp(language, "c") && strcmp(language, "cuda")) {
        fprintf(stderr, "perfgate init: language '%s': want c or cuda\n",
                language);
        return PG_EXIT_USAGE;
    }
    if (!name)
        name = argv[optind];
    if (!pg_valid_name(name)) {
        fprintf(stderr,
                "perfgate init: name '%s' may only hold letters, "
                "digits, '_', '.' and '-'\n",
                name);
        return PG_EXIT_USAGE;
    }
    if (!source)
        source = default_source = pg_strdupf(
            "perf/%s.%s", name, strcmp(language, "cuda") ? "c" : "cu");
    if (source[0] == '/' || !strncmp(source, "../", 3) ||
        strstr(source, "/../")) {
        fprintf(stderr,
                "perfgate init: --source '%s' must be a path inside "
                "the repository\n",
                source);
        free(default_source);
        return PG_EXIT_USAGE;
    }
    err = init(argv[optind], name, source, !strcmp(language, "cuda"));
    free(default_source);
    return err < 0 ? pg_cmd_fail(err) : PG_EXIT_PASS;
}
