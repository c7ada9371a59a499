/*
 * settings.h - how a comparison is measured and judged: the part of the
 * config (config.h) that the measuring child needs too, as plain data.
 */
#ifndef PG_SETTINGS_H
#define PG_SETTINGS_H

/* Where the noise floor in effect came from; shown in every report. */
typedef enum {
    PG_FLOOR_DEFAULT,
    PG_FLOOR_GITHUB_ACTIONS,
    PG_FLOOR_CONFIG,
    PG_FLOOR_FLAG
} pg_floor_source;

typedef struct pg_settings {
    double noise_floor; /* a fraction: 0.05 is 5% */
    pg_floor_source floor_source;
    double max_time; /* seconds of measuring per benchmark, both sides */
    int min_rounds;
    double timeout; /* seconds per benchmark and side */
    int gate_cases; /* gate: cases, any case beyond the floor fails; 0:
                       gate: total, the sum of minimums (the default) */
    /* What is measured (measure:): a pg_metric (counter.h), or
     * PG_MEASURE_ALL, time and instructions side by side. */
    int measure;
    double count_floor; /* the noise floor of counts: 0.01 is 1% */
    int counter;        /* pg_counter_kind; 0 (none): the hardware counter where
                           the CPU has one, else callgrind */
    /* A count under callgrind on another code path than the machine runs
     * (path_check:, pathcheck.h): PG_PATH_WARN, said and not gating (the
     * default); PG_PATH_GATE, said and gating; PG_PATH_OFF, not checked. */
    int path_check;
    /* inconclusive: fail: an inconclusive verdict (its interval on both
     * sides of the floor when the budget ran out) fails the gate; 0
     * (pass, the default): it passes, with a warning above the fold. */
    int inconclusive_fails;
    /* The heap per call (memory:): PG_MEMORY_REPORT, counted and said (the
     * default); PG_MEMORY_GATE, and a change beyond memory_floor fails;
     * PG_MEMORY_OFF, not counted. */
    int memory;
    /* The floor of the heap's peak per call: 0.05 is 5%.  Allocations per
     * call have none: one more is beyond it. */
    double memory_floor;
} pg_settings;

enum { PG_PATH_WARN = 0, PG_PATH_GATE, PG_PATH_OFF };
enum { PG_MEMORY_REPORT = 0, PG_MEMORY_GATE, PG_MEMORY_OFF };

/* "report", "gate", "off"; and back, -1 for none of them. */
const char *pg_memory_mode_name(int mode);
int pg_memory_mode_parse(const char *name);

/* "warn", "gate", "off"; and back, -1 for none of them. */
const char *pg_path_check_name(int mode);
int pg_path_check_parse(const char *name);

#define PG_MEASURE_ALL 3

/* The harness of a benchmark suite (suite:, kind:): the binary the
 * project's build makes, whose benchmarks it lists and runs. */
typedef enum {
    PG_SUITE_GBENCH = 0, /* Google Benchmark */
    PG_SUITE_NVBENCH     /* NVIDIA's nvbench */
} pg_suite_kind;

/* "google-benchmark", "nvbench"; and back, -1 for none of them. */
const char *pg_suite_kind_name(pg_suite_kind kind);
int pg_suite_kind_parse(const char *name);

/*
 * Fills `out` with the defaults: a 5% floor, or 10% when the environment
 * variable GITHUB_ACTIONS is "true"; 10 s; 5 rounds; 60 s; time is
 * measured, counts have a floor of 1%, and the heap is counted and said
 * with a floor of 5% on its peak.
 */
void pg_settings_defaults(pg_settings *out);

#endif
