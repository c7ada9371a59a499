/*
 * config.h - perfgate.yml, schema version 1.
 *
 * The config is read from the working tree (never from the revisions being
 * compared), so one config applies to both sides.  Every error names the
 * file, line and column of the offending key or value.
 */
#ifndef PG_CONFIG_H
#define PG_CONFIG_H

#include <stddef.h>

#include "casespec.h"
#include "settings.h"
#include "str.h"

/* Compiler flags for the sources that `pattern` names (a path or a glob). */
typedef struct pg_file_flags {
    char *pattern;
    char **flags;
    size_t nflags;
} pg_file_flags;

typedef struct pg_bench_config {
    char *name;
    pg_mark mark;
    char *problem;      /* as written */
    char *problem_path; /* resolved path of a file problem; NULL: built-in */
    pg_mark problem_mark;
    char **sources; /* paths or globs (* ? [...]), relative to the
                       repository root, resolved in each side's tree */
    size_t nsources;
    char *symbol;
    char *language;
    char **cflags;
    size_t ncflags;
    char **include;
    size_t ninclude;
    pg_casespec *cases; /* ncases == 0: the problem's default cases */
    size_t ncases;
    int cold;         /* cache: cold, caches evicted before each sample (the
                         default for CUDA) */
    int gate;         /* gate: -1 as in settings, 0 total, 1 cases */
    int inconclusive; /* inconclusive: -1 as in settings, 0 pass, 1 fail */
    /* noise_floor: this benchmark's own floor for times (0: the run's); a
     * --noise-floor given to the command outranks it. */
    double noise_floor;
    int measure;      /* measure: -1 as in settings, else as there */
    int memory;       /* memory: -1 as in settings, else PG_MEMORY_* */
    int interposable; /* symbols: interposable, a plain -shared build whose
                         calls to its own exported functions go through
                         the PLT; 0 (local): bound within the library */
    char **cuda_arch; /* language cuda: "sm_80", ...; none: the default */
    size_t ncuda_arch;
    char **nvcc_flags; /* language cuda: more flags for nvcc */
    size_t nnvcc_flags;
    /* A project's own build: `build` runs in each side's tree (a private
     * copy) before anything is compiled, and makes `library` there: a
     * shared library loaded as it is, or a static archive or object file
     * linked with the sources and adapters.  NULL: none. */
    char *build;
    char *library;
    /* library: as given, the first that a side's build made is used: a
     * list of paths, each may be a glob (the name changed across history:
     * libcmark.a, libcmark_static.a).  `library` is the first of them. */
    char **libraries;
    size_t nlibraries;
    char **ldflags; /* link flags and libraries, after everything else */
    size_t nldflags;
    char **adapters; /* files beside the config (resolved paths), compiled
                        into both sides */
    size_t nadapters;
    pg_file_flags *file_cflags; /* more flags for the sources a pattern
                                   names */
    size_t nfile_cflags;
    /* A benchmark declared by its prototype: its problem is generated
     * (function.h), `problem` and `symbol` are the function's name.
     * NULL: a problem benchmark. */
    struct pg_function *function;
    /* A benchmark suite (suite:): the binary `build` makes in each side's
     * tree (a path relative to it), whose benchmarks (each argument set a
     * case) are run as the suite's harness runs them, both sides'
     * processes interleaved (docs/config.md, "A suite of your own").
     * NULL: not a suite; then neither is `filter`. */
    char *suite;
    int suite_kind; /* pg_suite_kind (settings.h) */
    char *filter;   /* the harness's own filter (a regex); NULL: all */
} pg_bench_config;

/*
 * accept: a regression of one benchmark accepted on purpose, reviewed like
 * code: up to `up_to` (a fraction), for `why`, until `until` ("YYYY-MM-DD",
 * the last day it holds; "" none).
 */
typedef struct pg_accept {
    char *benchmark;
    double up_to;
    char *why;
    char until[11];
    /* Where it is written: "" for the config; PG_ACCEPT_LABEL for the
     * pull request's label; else the commit of the pull request whose
     * Perf-Accepted: trailer it is (12 hex digits). */
    char from[16];
} pg_accept;

typedef struct pg_config {
    char *path;      /* as shown in messages */
    char digest[17]; /* of the text (FNV-1a, hex): shards of one run must
                        agree on it */
    pg_settings settings;
    /* pass_env: (settings) the environment variables the box lets
     * through beyond its own few (box.h), by name */
    char **pass_env;
    size_t npass_env;
    /* skip_paths: (settings) patterns of the paths no build reads, left
     * out of both sides' trees (revision.h's pg_rev_skips) */
    char **skip_paths;
    size_t nskip_paths;
    pg_bench_config *benchmarks;
    size_t nbenchmarks;
    pg_accept *accepts;
    size_t naccepts;
} pg_config;

/* The accept: entry for benchmark `name`, or NULL. */
const pg_accept *pg_config_accept(const pg_config *cfg, const char *name);

/* The trailer commits carry to accept a regression, as accept: does. */
#define PG_ACCEPT_TRAILER "Perf-Accepted"

/*
 * A Perf-Accepted: trailer of `commit` (a commit of the pull request),
 * "BENCHMARK UP_TO% WHY", added to the config's entries (in place of the
 * config's own for that benchmark).  PG_ERR_USAGE, naming the commit and
 * what to write, when it names no benchmark of the config or does not
 * read so.
 */
int pg_config_accept_trailer(pg_config *cfg, const char *commit,
                             const char *value);

/* The pull request label that accepts a regression: "perf-accepted"
 * for every benchmark, "perf-accepted: NAME" for one (case aside). */
#define PG_ACCEPT_LABEL "perf-accepted"

/*
 * A label of the pull request: when it is PG_ACCEPT_LABEL's, entries for
 * its benchmarks (any slowdown, up to 1000%) in place of the config's and
 * the trailers'; 0 either way.  PG_ERR_USAGE when it names no benchmark
 * of the config.
 */
int pg_config_accept_label(pg_config *cfg, const char *label);

/* 1 when `a` has expired: its last day is before today (UTC). */
int pg_accept_expired(const pg_accept *a);

/*
 * Parses the config in `text`.  `display` names the file in messages;
 * `dir` is the directory that file problems are relative to; `builtins`
 * (NULL-terminated) lists the built-in problems.  On error returns
 * PG_ERR_USAGE with a "FILE:LINE:COL: message" error set, and `out` may
 * hold part of the config.  pg_config_clear() it either way.
 */
int pg_config_parse(pg_config *out, const char *text, size_t len,
                    const char *display, const char *dir,
                    const char *const *builtins);

/* Reads and parses the file at `path`; as pg_config_parse(). */
int pg_config_load(pg_config *out, const char *path, const char *display,
                   const char *const *builtins);

void pg_config_clear(pg_config *cfg);

/* The language for a source file's extension: "c", "cuda" (.cu) or "c++"
 * (.cc, .cpp, .cxx); NULL if unknown. */
const char *pg_language_for(const char *source);

/*
 * Benchmark `b`'s function checked against its prototype and its problem
 * made (pg_function_check), its symbol and problem named after it: at
 * parse time, or for one with header: once it is declared (declare.h).
 * 0, or PG_ERR_USAGE with "`display`:LINE:COL: ...".
 */
int pg_config_function_ready(pg_bench_config *b, const char *display);

#endif
