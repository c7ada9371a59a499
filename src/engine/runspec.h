/*
 * runspec.h - what the measuring executable is asked to do.
 *
 * perfgate never loads the user's code itself: it writes a run spec to a
 * file and starts perfgate-measure on it (run.c).  The spec is plain text,
 * one "key value" per line, so that a measurement can be repeated by hand:
 *
 *   perfgate-measure 1
 *   problem_lib /tmp/perfgate-x/build/sum.problem.so
 *   problem_name reduce_sum
 *   lib0 /tmp/perfgate-x/build/sum.base.so     (absent: no base side)
 *   lib1 /tmp/perfgate-x/build/sum.head.so
 *   symbol solution
 *   settings MIN_ROUNDS MAX_TIME NOISE_FLOOR TIMEOUT
 *   cpu 1
 *   evict_bytes 0
 *   gpu 0
 *   cold 0
 *   verify_only 0                                     (1: check, not time)
 *   gate_cases 0                                      (1: gate: cases)
 *   verbose 0                          (1: say each step as "trace" events)
 *   clock ID TICKS_PER_NS OVERHEAD_NS RESOLUTION_NS   (absent: choose one)
 *   count instructions callgrind DUMP_PATH        (absent: time; counter.h)
 *   code_path 1       (counted: dump each side's path too, DUMP_PATH.pathN)
 *   sample PATH      (absent: time; else sample where the calls run, into
 *                     PATH, instead of timing them: codepath.h)
 *   memory 8         (absent: time; else count the heap over 8 calls of
 *                     each case instead, with libperfgate-memory.so
 *                     preloaded: src/gate/run/mempass.c)
 *   case n=1000                                       (one per case)
 *   token 3f9c...                                     (absent: none)
 *
 * The token starts every line perfgate-measure writes to perfgate: user
 * code, in the same process, cannot write a line perfgate takes for a
 * result by accident.  (It can read the spec: on purpose, it can speak for
 * its own side's process, and no further; docs/security.md.)
 */
#ifndef PG_RUNSPEC_H
#define PG_RUNSPEC_H

#include <stddef.h>

#include "casespec.h"
#include "estimate.h"
#include "settings.h"
#include "timer.h"

enum { PG_CHECK_BEFORE = 1, PG_CHECK_AFTER = 2 };

typedef struct pg_run_spec {
    const char *problem_lib;
    const char *problem_name;
    const char *lib[2]; /* per side; NULL: the side is absent (new) */
    const char *symbol;
    const pg_casespec *cases;
    size_t ncases;
    const pg_settings *settings;
    int cpu;            /* pin the measuring child to it; -1: do not */
    size_t evict_bytes; /* cache: cold; 0: warm (CPU solutions) */
    int gpu;            /* CUDA solutions: measured on the device */
    int cold;           /* cache: cold (the device flushes its own) */
    int verify_only;    /* check the sides, do not time them */
    /* Checks another process of this measurement makes on the same
     * inputs (draws.h), PG_CHECK_* or'ed: the first checks before timing,
     * the later ones after.  0: both, here. */
    int skip_checks;
    int self_check; /* compare --aa (pg_estimate_rule) */
    /* perfgate record: the total's interval no wider than this fraction
     * of the floor either side of its change for a stop (0: any). */
    double precision;
    /* Seconds measured at least (0: the rule's own, from max_time): each
     * of several processes measures its share of the whole's. */
    double min_time;
    int gate_cases;             /* gate: cases, each case clear of the floor */
    int verbose;                /* say what is called, as "trace" events */
    const pg_clock_info *clock; /* the clock to time with; NULL: choose */
    /* Count instead of time (counter.h): the metric (0: time, and the
     * rest is unused), the counter, and callgrind's dump file. */
    int metric;
    int counter;
    const char *count_dump;
    /* Under callgrind, once counted: what each side executed, per
     * function, dumped to count_dump.path0 and .path1 (codepath.h). */
    int code_path;
    /* Natively: where each side's calls spend their time, sampled into
     * this file instead of timing them; NULL: time them. */
    const char *sample;
    /* Not timed: the allocator's use over this many calls of each case
     * and side, counted by the preloaded libperfgate-memory.so and sent as
     * "memory" events (protocol.h); 0: time them. */
    int memory;
    const char *token; /* starts each report line; NULL: none */
    /* Progress while measuring; may be NULL (the parent's only). */
    void (*on_progress)(void *payload, const char *stage, int round,
                        double elapsed);
    void *payload;
} pg_run_spec;

/* Zeroes `spec`, with no CPU to pin to (cpu -1). */
void pg_run_spec_init(pg_run_spec *spec);

/* `spec` as a pass of its own that runs natively what was counted or
 * timed: no counter, no code path dumped, no samples, no progress. */
void pg_run_spec_native(pg_run_spec *spec);

/* The rule that stops a measurement of `spec` (its settings, least time,
 * gate: cases, self-check and precision), into `out`. */
void pg_run_spec_rule(const pg_run_spec *spec, pg_estimate_rule *out);

/* Writes `spec` to `path` (mode 0600); 0, or negative with an error. */
int pg_run_spec_write(const pg_run_spec *spec, const char *path);

/* A spec read back, owning everything its pg_run_spec points to. */
typedef struct pg_run_file {
    pg_run_spec spec;
    pg_settings settings;
    pg_clock_info clock;
    char *strings[8]; /* problem_lib, problem_name, lib0, lib1, symbol,
                         token, count_dump, sample */
    pg_casespec *cases;
} pg_run_file;

/*
 * Reads the spec at `path` into `out`; 0, or negative with an error that
 * names the file and line.  pg_run_file_clear() frees it either way.
 */
int pg_run_file_read(pg_run_file *out, const char *path);
void pg_run_file_clear(pg_run_file *file);

#endif
