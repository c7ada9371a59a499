/*
 * toolchain.c - who compiles, asked once (toolchain.h).
 */
#include "toolchain.h"
#include "cuda.h"
#include "env.h"
#include "fs.h"
#include "proc.h"
#include "strvec.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "banned.h"

/* How long a compiler may take to say its version. */
#define VERSION_TIMEOUT 60.0

const char *pg_toolchain_cc(void)
{
    const char *cc = pg_env_nonempty("CC");
    return cc ? cc : "cc";
}

const char *pg_toolchain_cxx(void)
{
    const char *cxx = pg_env_nonempty("CXX");
    return cxx ? cxx : "c++";
}

/* A program's file as PATH finds it, with its size and time, into `doc`
 * ("?" when PATH has none); 1 when there is a file. */
static int file_doc(pg_str *doc, const char *name)
{
    char *file = pg_path_search(name);
    struct stat st;
    int found = file && stat(file, &st) == 0;

    pg_str_printf(doc, "%s at %s", name, file ? file : "?");
    if (found)
        pg_str_printf(doc, " %lld %lld.%09ld", (long long)st.st_size,
                      (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    free(file);
    return found;
}

/* A compiler's identity into `doc`: its file, and what it says of its
 * version (*version: its first line, a new string, when asked for). */
static void compiler_doc(pg_str *doc, const char *name, char **version)
{
    const char *argv[3] = {name, "--version", NULL};
    pg_proc_opts opts;
    pg_proc_result res;

    pg_str_puts(doc, "compiler ");
    file_doc(doc, name);
    memset(&opts, 0, sizeof(opts));
    opts.timeout = VERSION_TIMEOUT;
    if (pg_proc_run_argv(&res, (char *const *)argv, &opts) == 0) {
        if (res.exited && !res.exit_code) {
            const char *out = pg_str_cstr(&res.output);
            pg_str_printf(doc, "\n%s", out);
            if (version && !*version)
                *version = pg_strdupf("%.*s", (int)strcspn(out, "\n"), out);
        }
        pg_proc_result_clear(&res);
    }
    pg_str_puts(doc, "\n");
}

/* The environment variables in `vars` that are set, into `doc`. */
static void env_doc(pg_str *doc, const char *const *vars)
{
    for (; *vars; vars++)
        if (pg_env(*vars))
            pg_str_printf(doc, "%s=%s\n", *vars, pg_env(*vars));
}

/* The C compiler: its id and its version's first line, asked together. */
static struct {
    char id[PG_CACHE_ID];
    char *version;
} cc;

static void ask_cc(void)
{
    static const char *const vars[] = {"CPATH",
                                       "C_INCLUDE_PATH",
                                       "LIBRARY_PATH",
                                       "COMPILER_PATH",
                                       "GCC_EXEC_PREFIX",
                                       "GCC_COMPARE_DEBUG",
                                       "SOURCE_DATE_EPOCH",
                                       NULL};
    pg_str doc = PG_STR_INIT;

    if (*cc.id)
        return;
    compiler_doc(&doc, pg_toolchain_cc(), &cc.version);
    env_doc(&doc, vars);
    pg_cache_id(cc.id, doc.ptr, doc.size);
    pg_str_clear(&doc);
    if (!cc.version)
        cc.version = pg_strdup("unknown");
}

const char *pg_toolchain_cc_id(void)
{
    ask_cc();
    return cc.id;
}

const char *pg_toolchain_cc_version(void)
{
    ask_cc();
    return cc.version;
}

const char *pg_toolchain_nvcc_id(void)
{
    static char id[PG_CACHE_ID];
    static const char *const vars[] = {"NVCC_PREPEND_FLAGS",
                                       "NVCC_APPEND_FLAGS",
                                       "NVCC_CCBIN",
                                       "CPATH",
                                       "CPLUS_INCLUDE_PATH",
                                       "C_INCLUDE_PATH",
                                       "LIBRARY_PATH",
                                       "COMPILER_PATH",
                                       "GCC_EXEC_PREFIX",
                                       "SOURCE_DATE_EPOCH",
                                       NULL};
    const char *ccbin = pg_env_nonempty("NVCC_CCBIN");
    pg_str doc = PG_STR_INIT;

    if (*id)
        return id;
    compiler_doc(&doc, pg_cuda_nvcc(), NULL);
    if (ccbin) {
        compiler_doc(&doc, ccbin, NULL);
    } else {
        compiler_doc(&doc, "gcc", NULL);
        compiler_doc(&doc, "g++", NULL);
    }
    env_doc(&doc, vars);
    pg_cache_id(id, doc.ptr, doc.size);
    pg_str_clear(&doc);
    return id;
}

const char *pg_toolchain_project_id(void)
{
    static char id[PG_CACHE_ID];
    static const char *const tools[] = {"cc", "c++", "gcc", "g++",
                                        "ld", "ar",  NULL};
    pg_str doc = PG_STR_INIT;
    size_t i;

    if (*id)
        return id;
    for (i = 0; tools[i]; i++)
        compiler_doc(&doc, tools[i], NULL);
    pg_cache_id(id, doc.ptr, doc.size);
    pg_str_clear(&doc);
    return id;
}

/* A word of a command into `doc` when PATH finds it: the rest of its
 * words are not programs. */
static void tool_doc(pg_str *doc, const char *word)
{
    pg_str one = PG_STR_INIT;

    pg_str_puts(&one, "tool ");
    if (file_doc(&one, word))
        pg_str_printf(doc, "%s\n", pg_str_cstr(&one));
    pg_str_clear(&one);
}

void pg_toolchain_tools_doc(pg_str *doc, const char *command)
{
    static const char name_chars[] = "abcdefghijklmnopqrstuvwxyz"
                                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789_.+-";
    pg_strvec seen = PG_STRVEC_INIT;
    const char *p = command;

    while (*p && seen.n < 64) {
        size_t n = strspn(p, name_chars);
        char *word;

        if (!n) {
            p++;
            continue;
        }
        word = pg_strdupf("%.*s", (int)n, p);
        p += n;
        if (word[0] == '-' || pg_strvec_has(&seen, word)) {
            free(word);
            continue;
        }
        pg_strvec_push(&seen, word);
        tool_doc(doc, word);
        free(word);
    }
    pg_strvec_clear(&seen);
}

void pg_toolchain_probe(int cuda)
{
    ask_cc();
    if (cuda)
        pg_toolchain_nvcc_id();
}
