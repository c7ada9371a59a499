/*
 * run.h - running one benchmark, in a child process.
 *
 * The child loads the problem plugin and each side's library, sets up every
 * case on each side, runs each side once and verifies it, then measures
 * both interleaved (measure.h) and verifies again.  Whatever the user's code
 * does (crash, hang, exit, flood its output, exhaust memory) ends in a
 * status for the benchmark, charged to the side that was running, and
 * perfgate goes on with the next benchmark.
 *
 * With spec->gpu, memory from pg_alloc() is the device's and the device
 * times the samples (gpu.h); the rest is the same.
 */
#ifndef PG_RUN_H
#define PG_RUN_H

#include <stddef.h>

#include "config.h"
#include "result.h"

typedef struct pg_run_spec {
    const char *problem_lib;
    const char *problem_name;
    const char *lib[2];  /* per side; NULL: the side is absent (new) */
    const char *symbol;
    const pg_case_spec *cases;
    size_t ncases;
    const pg_settings *settings;
    int cpu;            /* pin the measuring child to it; -1: do not */
    size_t evict_bytes; /* cache: cold; 0: warm (CPU solutions) */
    int gpu;            /* CUDA solutions: measured on the device */
    int cold;           /* cache: cold (the device flushes its own) */
    /* Progress while measuring; may be NULL. */
    void (*on_progress)(void *payload, const char *stage, int round,
                        double elapsed);
    void *payload;
} pg_run_spec;

/* Zeroes `spec`, with no CPU to pin to (cpu -1). */
void pg_run_spec_init(pg_run_spec *spec);

/*
 * Runs the benchmark and fills `out`: on success its cases, rounds and
 * calls (status still to be decided by pg_decide()); on failure its status,
 * side, message and log.  Returns negative only when perfgate itself
 * failed or was interrupted.
 */
int pg_run_bench(pg_bench_result *out, const pg_run_spec *spec);

#endif
