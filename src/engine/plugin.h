/*
 * plugin.h - the host side of the problem ABI (include/perfgate/problem.h):
 * input cases, the memory and random streams they hand out, and loading a
 * problem plugin.  Used inside the measuring child process.
 */
#ifndef PG_PLUGIN_H
#define PG_PLUGIN_H

#include <stdint.h>

#include "casespec.h"
#include "perfgate/problem.h"
#include "str.h"

/*
 * Where the memory a solution reads and writes lives, when not in the host's
 * (a CUDA solution's device).  The operations report their own failures and
 * end the process: an error on the device leaves nothing to go on with.
 */
typedef struct pg_memory_ops {
    void *(*alloc)(void *ctx, size_t bytes); /* zeroed; NULL when out */
    void (*upload)(void *ctx, void *dst, const void *src, size_t bytes);
    void (*download)(void *ctx, void *dst, const void *src, size_t bytes);
    void *ctx;
} pg_memory_ops;

struct pg_case {
    const pg_casespec *spec;
    const pg_memory_ops *memory; /* NULL: host memory */
    size_t solution_bytes;       /* what pg_alloc() gave out */
    uint64_t rng[4];             /* xoshiro256** state */
    void **allocs; /* everything pg_alloc/pg_host_alloc gave out */
    size_t nallocs;
    pg_str message;   /* the last pg_fail() message */
    void *lib;        /* the side's library, for pg_lookup(); NULL: none */
    const char *side; /* "base" or "head", for messages; NULL: both */
};

/*
 * Prepares `c` for `spec`; the random stream is seeded from both names.
 * `memory` is where pg_alloc() memory lives (NULL: the host).
 */
void pg_plugin_case_init(pg_case *c, const char *problem,
                         const pg_casespec *spec, const pg_memory_ops *memory);

/* Frees the case's memory. */
void pg_plugin_case_clear(pg_case *c);

/* The last pg_fail() message, or "" */
const char *pg_plugin_case_message(const pg_case *c);

/* A loaded problem plugin. */
typedef struct pg_plugin {
    void *handle;
    const pg_problem *problem; /* &own: the plugin's, in this ABI's shape */
    pg_problem own;
} pg_plugin;

/*
 * dlopen()s the plugin at `path` and checks its ABI and required fields.
 * `display` names it in messages.  On error, PG_ERR_USAGE with the reason,
 * and `out` empty (the library is already closed).
 */
int pg_plugin_load(pg_plugin *out, const char *path, const char *display);
void pg_plugin_close(pg_plugin *plugin);

/*
 * 0 when every parameter of `spec` is one that `problem` knows (a key of
 * its `default_cases`); else -1, with the reason appended to `why`.
 */
int pg_plugin_check_case(const char *problem, const char *default_cases,
                         const pg_casespec *spec, pg_str *why);

#endif
