/*
 * result.h - the outcome of a comparison, as plain data.
 *
 * The runs fill it in, the decision rule (stats.h) judges it, and the
 * renderers (report.h) print it.  It round-trips through JSON, so that a
 * report can be rendered again from a saved result.
 */
#ifndef PG_RESULT_H
#define PG_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "cuda.h"
#include "system.h"

typedef enum {
    PG_STATUS_UNCHANGED,
    PG_STATUS_REGRESSION,
    PG_STATUS_IMPROVEMENT,
    PG_STATUS_INCORRECT,
    PG_STATUS_CRASHED,
    PG_STATUS_TIMEOUT,
    PG_STATUS_BUILD_FAILED,
    PG_STATUS_NEW,
    PG_STATUS_SKIPPED
} pg_status;

/* Which side a failure belongs to. */
typedef enum { PG_SIDE_NONE = -1, PG_SIDE_BASE = 0, PG_SIDE_HEAD = 1 } pg_side;

typedef struct pg_case_result {
    char *name;
    double base_ns, head_ns; /* minimum per call; NAN when not measured */
    double change;           /* NAN when not measured */
    double change_lo;        /* its 95% interval; NAN */
    double change_hi;
    pg_status status;        /* unchanged, regression or improvement by its
                                own change; unchanged when not measured */
    double flops, bytes;     /* per call; 0 when the problem does not say */
    uint64_t inner;          /* calls per sample */
    double overhead_ns;      /* harness cost per call, discounted */
} pg_case_result;

/* How the device behaved while a CUDA benchmark was measured. */
typedef struct pg_gpu_run {
    int measured;          /* 1: timed on the GPU */
    int runtime_version;   /* the CUDA runtime the solutions used */
    uint64_t samples;      /* samples timed */
    uint64_t throttled;    /* taken again because the clock had dropped */
    uint64_t kept_throttled; /* throttled on every try, and kept */
    double clock_mhz;      /* the median SM clock during the samples */
    int gated;             /* 1: launches queued behind a gate throughout */
} pg_gpu_run;

typedef struct pg_bench_result {
    char *name;
    char *problem;
    pg_status status;
    pg_side side;        /* for failures: the side that failed */
    double change;       /* head_ns / base_ns - 1; NAN when not measured */
    double change_lo;    /* its 95% interval from the paired rounds; NAN */
    double change_hi;
    char *stop;          /* why measuring stopped: "clear", "max_time" */
    int gate_cases;      /* gate: cases (any case beyond the floor fails);
                            0: gate: total, the sum of minimums */
    int identical;       /* both sides load the same code: unchanged, not
                            measured */
    int cold;            /* measured with cold caches */
    double base_ns;      /* sums of per-case minimums; NAN when not measured */
    double head_ns;
    int rounds;          /* samples per case and side ("best of N") */
    uint64_t calls[2];   /* calls timed per side */
    double seconds;      /* measuring time */
    char *message;       /* why, for anything but a plain verdict */
    char *log;           /* compiler or program output, the last lines */
    pg_case_result *cases;
    size_t ncases;
    pg_gpu_run gpu;
} pg_bench_result;

typedef struct pg_side_info {
    char *rev;    /* as given, or "working tree" */
    char *commit; /* full SHA, or "" */
    char *subject;
    int worktree;
    int dirty;
} pg_side_info;

typedef struct pg_result {
    char *version; /* perfgate's */
    double noise_floor;
    pg_floor_source floor_source;
    pg_side_info base, head;
    pg_bench_result *benchmarks;
    size_t nbenchmarks;
    double seconds; /* the whole compare, wall time */
    int aa;         /* a self-check: the same revision on both sides */
    pg_system system;
    pg_gpu_info gpu; /* present: a CUDA benchmark was measured on it */
} pg_result;

/* "unchanged", "regression", ...; and back (-1 when unknown). */
const char *pg_status_name(pg_status status);
int pg_status_parse(const char *name);

const char *pg_side_name(pg_side side); /* "base", "head", or NULL */
const char *pg_floor_source_name(pg_floor_source src);

/*
 * For a self-check (A/A): the largest change any benchmark's interval
 * allows, which is this machine's noise; NAN when none was measured.
 */
double pg_result_aa_noise(const pg_result *r);

/* 1 when that noise is within half the floor, so the floor can be trusted. */
int pg_result_aa_trusted(const pg_result *r);

/* Adds a zeroed benchmark to `r` (measured figures NAN) and returns it. */
pg_bench_result *pg_result_add(pg_result *r, const char *name,
                               const char *problem);

/*
 * Serializes `r` as the JSON report (a new string; free() it), and parses
 * one back into `out` (PG_ERR_USAGE with a message when malformed, and
 * `out` then empty: nothing to free).  The text may come from anyone.
 */
char *pg_result_to_json(const pg_result *r);
int pg_result_from_json(pg_result *out, const char *text, const char *display);

/*
 * Makes every text in `r` safe to write (pg_text_clean): compiler output,
 * messages from user code, commit subjects in any encoding.  Called before
 * a result is written or shown.
 */
void pg_result_clean_text(pg_result *r);

void pg_bench_result_clear(pg_bench_result *b);
void pg_result_free(pg_result *r);

#endif
