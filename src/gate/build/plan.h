/*
 * plan.h - one side's build of one benchmark, planned before anything
 * runs: each file it compiles with the command that compiles it, and the
 * link.  The key of the build (affected.h) is made from the plan and the
 * builder (build.h) runs it, so that what is keyed is exactly what is
 * built: a flag perfgate adds to a build changes both at once.
 */
#ifndef PG_PLAN_H
#define PG_PLAN_H

#include "config.h"
#include "strvec.h"

typedef enum pg_plan_kind {
    PG_PLAN_SOURCE,  /* compiled in the link */
    PG_PLAN_APART,   /* file_cflags gives it flags: compiled to an object */
    PG_PLAN_ADAPTER, /* the config's adapter, compiled in the link */
} pg_plan_kind;

typedef struct pg_plan_file {
    char *path; /* as the compiler is given it, from the side's tree */
    pg_plan_kind kind;
    pg_strvec argv; /* the compiler and flags: all but -c, -o and the file */
} pg_plan_file;

typedef struct pg_plan {
    pg_plan_file *files; /* the sources, then the adapters */
    size_t nfiles;
    pg_strvec includes; /* the include directories, as found on this side */
    pg_strvec compile;  /* the compiler and the flags every file gets */
    pg_strvec link;     /* compile, and how a shared library is linked */
    pg_strvec after;    /* linked after the code: libraries, ldflags, -lm */
    const char *batch;  /* batch:'s wrapper, compiled in too (NULL: none) */
    char *shared;       /* the project's shared library, taken as it is:
                           nothing to build (a path; NULL otherwise) */
    char *what;         /* how the build's messages name it */
    int missing;        /* 1: a source is not on this side */
    char *message;      /* why there is no plan */
} pg_plan;

/*
 * Plans the build of `b` from the tree at `side_dir`: its sources (globs
 * expanded there), its adapters, the library its project build made, and
 * its flags.  0 with `p` filled; 1 with p->message (and p->missing when
 * the benchmark is not on this side).  `p` is to be pg_plan_clear()ed
 * either way.
 */
int pg_plan_make(pg_plan *p, const pg_bench_config *b, const char *side_dir);

/*
 * Appends to `a` the compiler and the flags every file of `b` is compiled
 * with, `includes` the include directories on the side.
 */
void pg_plan_compiler(pg_strvec *a, const pg_bench_config *b,
                      const pg_strvec *includes);

void pg_plan_clear(pg_plan *p);

#endif
