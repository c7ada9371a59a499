/*
 * result.h - the outcome of a comparison, as plain data.
 *
 * The runs fill it in, the decision rule (stats.h) judges it, and the
 * renderers (report.h) print it.  This module only holds and serializes:
 * every figure that is decided is decided in stats.c.  It round-trips through
 * JSON, so that a report can be rendered again from a saved result.
 */
#ifndef PG_RESULT_H
#define PG_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "machine.h"
#include "str.h"
#include "settings.h"

typedef enum {
    PG_STATUS_UNCHANGED,
    PG_STATUS_REGRESSION,
    PG_STATUS_IMPROVEMENT,
    PG_STATUS_INCORRECT,
    PG_STATUS_CRASHED,
    PG_STATUS_TIMEOUT,
    PG_STATUS_BUILD_FAILED,
    PG_STATUS_NEW,
    PG_STATUS_SKIPPED,
    /* The interval straddles the floor when the budget ran out (or every
     * placement was not seen twice): no label is earned (stats.h). */
    PG_STATUS_INCONCLUSIVE,
    /* Made only of cases below what this machine resolves: no label. */
    PG_STATUS_UNRESOLVED
} pg_status;

/* The number of statuses, for tables indexed by one. */
#define PG_STATUS_COUNT (PG_STATUS_UNRESOLVED + 1)

/* Which side a failure belongs to. */
typedef enum { PG_SIDE_NONE = -1, PG_SIDE_BASE = 0, PG_SIDE_HEAD = 1 } pg_side;

/* What one side's calls asked of the allocator, per call, counted in a
 * pass of its own (src/gate/run/mempass.c; memory.h judges it). */
typedef struct pg_memory_use {
    int counted;   /* 1: counted; else every figure is 0 */
    double allocs; /* blocks allocated (a realloc is one) */
    double bytes;  /* bytes asked for */
    double peak;   /* the most live bytes above a call's start */
    double leaked; /* bytes left allocated (negative: it freed more) */
    double mapped; /* bytes mapped outside malloc, which the rest omits */
    double unknown_frees; /* frees of blocks never seen allocated */
} pg_memory_use;

/* A benchmark's memory: its figures, and what they say. */
typedef struct pg_memory {
    int gate;         /* memory: gate; 0: report (pg_settings.memory) */
    double floor;     /* the floor of the peak (memory_floor); 0: none kept */
    char *skipped;    /* why it was not counted, or NULL */
    pg_status status; /* unchanged, regression or improvement: decided by
                         pg_memory_judge (memory.h) from the cases */
    long worst_case;  /* the case whose change decided it, or the first
                         that differs at all; -1: none differs */
    int leak_added;   /* in some case the head leaves more allocated per
                         call than the base: always said */
    pg_memory_use total[2]; /* base, head: the cases' sums (peak: the
                               largest) */
    double seconds;         /* the pass's wall time, both sides */
} pg_memory;

typedef struct pg_result_case {
    char *name;
    double base_ns, head_ns; /* minimum per call; NAN when not measured */
    double change;           /* NAN when not measured */
    double change_lo;        /* its 95% interval; NAN */
    double change_hi;
    pg_status status;    /* unchanged, regression, improvement or
                            inconclusive by its own interval (stats.h),
                            unresolved below the machine's resolution;
                            unchanged when not measured */
    double flops, bytes; /* per call; 0 when the problem does not say */
    double items;        /* per call: a suite's items (SetItemsProcessed);
                            0 when it does not say */
    uint64_t inner;      /* calls per sample */
    double overhead_ns;  /* harness cost per call, discounted */
    /* Below what this machine resolves (pg_stats_decide): on both sides a
     * call takes less than the harness's own cost around it, which is
     * discounted, so what is left is mostly the discount's error and where
     * the code lies.  Such a case gets no label. */
    int unresolved;
    double quantum_ns; /* one sample's timer error over its calls: what no
                          figure per call is known better than (not kept
                          in the JSON) */
    /* Every sample of each side (base, head), in round order: the raw
     * time per call, for pictures; NULL when not kept. */
    double *samples[2];
    size_t nsamples[2];
    pg_memory_use mem[2]; /* the heap per call, base and head */
} pg_result_case;

/* The most samples a case keeps per side (the first rounds'): enough for
 * a picture, and a JSON report of hundreds of benchmarks stays small. */
#define PG_MAX_SAMPLES 2000

/* The most one measuring process's samples perfgate reads per case and
 * side, to pool the processes' rounds (draws.h); what is kept of them is
 * PG_MAX_SAMPLES. */
#define PG_MAX_POOLED_SAMPLES (1 << 18)

/* How the device behaved while a CUDA benchmark was measured. */
typedef struct pg_gpu_run {
    int measured;            /* 1: timed on the GPU */
    int runtime_version;     /* the CUDA runtime the solutions used */
    uint64_t samples;        /* samples timed */
    uint64_t throttled;      /* taken again because the clock had dropped */
    uint64_t kept_throttled; /* throttled on every try, and kept */
    double clock_mhz;        /* the median SM clock during the samples */
    int gated;               /* 1: launches queued behind a gate throughout */
} pg_gpu_run;

/* A function's, or a source line's, cost on each side (profile.h). */
typedef struct pg_profile_row {
    char *function;
    char *file;     /* lines only; NULL for a function */
    int line;       /* lines only: the head's line (the base's when the
                       head has none) */
    int base_line;  /* lines only: the base's line; 0 where it has none */
    char *text;     /* lines only: the source text, by which the sides'
                       lines pair; NULL when it could not be read */
    char *object;   /* outside the user's code: the object called into
                       ("libc.so.6"); NULL for the user's own code */
    double cost[2]; /* inclusive: itself and all it called; base, head;
                       NAN where the side has none */
    double self[2]; /* itself only */
} pg_profile_row;

/* A CUDA kernel's hardware metric on each side (Nsight Compute's, ncu.h). */
typedef struct pg_profile_metric {
    char *kernel;    /* the kernel's name, as in the profile's functions */
    char *name;      /* "achieved occupancy", "stall: long scoreboard" */
    char *unit;      /* "%", "bytes", "warps" (per issue cycle), "" */
    double value[2]; /* base, head; NAN where the side has none */
} pg_profile_metric;

/* Where the time went in a regression's worst case. */
typedef struct pg_profile {
    char *tool;      /* "callgrind", "ncu"; NULL when none was run */
    char *unit;      /* "instructions"; ncu: "ns" (of GPU time) */
    char *case_name; /* the case profiled */
    char *skipped;   /* why there is no profile (or one side's), or NULL */
    pg_profile_row *functions; /* the user's, costliest (inclusive) first;
                                  ncu: kernels, longest first */
    size_t nfunctions;
    pg_profile_row *lines; /* of the costliest functions */
    size_t nlines;
    /* What the user's code called outside itself (libc's strchr, memcpy,
     * malloc; the loader), each function inclusive, costliest first; and
     * the sum over every such call, each side. */
    pg_profile_row *outside;
    size_t noutside;
    double outside_total[2];
    /* ncu: the costliest kernels' metrics, kernel by kernel. */
    pg_profile_metric *metrics;
    size_t nmetrics;
    /* callgrind: the lines of the user's code whose calls into the
     * allocator (object: "malloc", "strdup", ...) differ between the
     * sides, the head's new ones first; cost[] is the calls from that
     * line in the case's one call (NAN: none). */
    pg_profile_row *alloc_sites;
    size_t nalloc_sites;
} pg_profile;

typedef struct pg_bench_result {
    char *name;
    char *problem;
    pg_status status;
    pg_side side;     /* for failures: the side that failed */
    double change;    /* head_ns / base_ns - 1; NAN when not measured */
    double change_lo; /* its 95% interval from the paired rounds; NAN */
    double change_hi;
    char *stop;             /* why measuring stopped: "clear", "max_time",
                               "too_few_rounds" */
    int inconclusive_fails; /* inconclusive: fail (the gate fails on an
                               inconclusive verdict); 0: pass */
    int gate_cases;         /* gate: cases (any case beyond the floor fails);
                               0: gate: total, the sum of minimums */
    int identical;          /* both sides load the same code: unchanged, not
                               measured */
    int not_affected;       /* both sides build from the same files: unchanged,
                               neither built nor measured */
    int unchecked; /* a function benchmark whose head's output was checked
                      against nothing (message says why) */
    int cold;      /* measured with cold caches */
    /* How each side's library came to be, base then head: 0 not built
     * (not affected, missing, failed), 1 compiled in this run, 2 taken
     * from the build cache. */
    int built[2];
    /* How each side's project build (build:) came to be: 0 none, 1 run
     * in this run, 2 put back from the build cache. */
    int project[2];
    /* With compare --bisect, for a regression: the first commit after the
     * base at which it is slower (perfgate bisect), its subject and
     * author, and how many commits it may be (more than one when commits
     * before it could not be measured); NULL when not bisected. */
    char *culprit;
    char *culprit_subject;
    char *culprit_author;
    int culprit_candidates;
    /* How main moved before the base, from the history's records
     * (mainline.h): over its last main_pushes pushes (0: no history of
     * this benchmark), the paired changes chained, and the change points
     * and creeps found there. */
    int main_pushes;
    double main_change;
    int main_steps, main_creeps;
    int main_metric;     /* what main_change is of: a pg_metric (0: time) */
    pg_profile *profile; /* with compare --profile, a regression's; NULL */
    double base_ns;      /* sums of per-case minimums; NAN when not measured */
    double head_ns;
    /* function: batch: each timed call made this many calls of the
     * function; every time and count is per call of it.  0 or 1: one. */
    int batch;
    /* Its own floor for times (the config's noise_floor: for it); 0: the
     * run's.  pg_result_floor() says which applies. */
    double noise_floor;
    /* accept: in the config for it: a regression up to accept_up_to (a
     * fraction; 0: no entry) is accepted, for accept_why, until
     * accept_until ("" none), written in the config (accept_from ""), in
     * a Perf-Accepted: trailer of the pull request's commit accept_from
     * (12 hex digits), or by its label ("perf-accepted", config.h).  accepted:
     * this result is such a regression (set by pg_stats_judge), which passes.
     */
    double accept_up_to;
    char accept_why[256];
    char accept_until[11];
    char accept_from[16];
    int accepted;
    int rounds;        /* samples per case and side, all processes */
    int processes;     /* measuring processes pooled (draws.h); 0: none */
    int slots, shift;  /* one process's placements (pg_estimate_run): how
                          its samples pool; not kept in the JSON */
    uint64_t calls[2]; /* calls timed per side */
    double seconds;    /* measuring time */
    char *message;     /* why, for anything but a plain verdict */
    char *log;         /* compiler or program output, the last lines */
    pg_result_case *cases;
    size_t ncases;
    long slower_case; /* index of pg_stats_hidden_regression()'s case;
                         -1: none (set by pg_stats_judge) */
    int fails_gate;   /* this benchmark fails the gate (set by
                         pg_stats_judge; the JSON's "fails_gate") */
    /* Set by pg_stats_judge too, so that nothing after it asks the rule
     * again: whether a regression of this verdict may gate (not a count
     * taken on another code path: pathcheck.h); measure: all, whether the
     * count beside the time may gate (stats.h); and what the benchmark
     * counts as in a summary (a regression when that count gates as one,
     * whatever the time says). */
    int gates;
    int count_gates;
    pg_status counts_as;
    int shard; /* the shard that measured it (1-based); 0: none */
    pg_gpu_run gpu;
    /* What base_ns, head_ns and the cases' figures are (a pg_metric,
     * counter.h): PG_METRIC_TIME, nanoseconds per call; else a count per
     * call, judged against the result's count_floor. */
    int metric;
    char *counter; /* what counted: "hardware", "callgrind"; NULL: timed */
    /* measure: all: the same benchmark counted (instructions), decided at
     * the count floor, which gates too; NULL otherwise. */
    struct pg_bench_result *counted;
    /* When the time and the count disagree (one beyond its floor and the
     * other not, or opposite ways), what that likely means; else NULL. */
    char *disagreement;
    /* Counted under callgrind (pathcheck.h): the CPU features the code saw
     * natively and under the simulator (NULL: not checked), and, when it
     * ran another code path under callgrind than natively, what differs
     * (else NULL): such a count does not gate unless other_path_gates. */
    char *cpu_native, *cpu_simulated;
    char *other_path;
    int other_path_gates;
    /* What the count cannot see of the time natively (system calls,
     * waiting), when that is much; else NULL. */
    char *uncounted;
    pg_memory memory; /* the heap per call (memory.h) */
} pg_bench_result;

typedef struct pg_side_info {
    char *rev;    /* as given, or "working tree" */
    char *commit; /* full SHA, or "" */
    char *subject;
    int worktree;
    int dirty;
    /* What the reader should know about this side as a baseline, or NULL:
     * "main has 3 commits the head has not" (said as a warning). */
    char *note;
} pg_side_info;

/* One shard of a run split over machines (compare --shard K/N). */
typedef struct pg_shard_info {
    int index, count;  /* K of N */
    char *host;        /* the machine that measured it */
    double seconds;    /* its wall time */
    size_t benchmarks; /* how many it ran */
    /* How the benchmarks were dealt: "cases", or "timings ID" (the id of
     * the earlier result whose measuring times balanced them). */
    char *balance;
} pg_shard_info;

/* The verdict on a whole result, as pg_stats_judge() decided it. */
typedef struct pg_verdict {
    int passed;      /* the gate passes */
    int warned;      /* it passes, and a case got slower under the total */
    double aa_noise; /* self-check: the largest change any interval allows
                        (this machine's noise), of the benchmark nearest its
                        floor; NAN when none was measured */
    double aa_floor; /* the floor that noise is held to: the noise floor,
                        or the count floor for a count */
    int aa_trusted;  /* that noise is within half its floor */
    /* Self-check: the resolved case whose change on identical code is
     * furthest beyond the floor (it fails the self-check), as indices into
     * benchmarks and their cases; -1 when none. */
    long aa_bench, aa_case;
    /* A compare: the benchmark whose interval is widest for its floor
     * (-1: none measured), half that interval's width, and its floor.
     * Past half the floor, the run's own noise is more than a self-check
     * would trust the floor with, and said. */
    long noise_bench;
    double noise, noise_floor;
} pg_verdict;

typedef struct pg_result {
    char *version; /* perfgate's */
    double noise_floor;
    pg_floor_source floor_source;
    double count_floor; /* the floor of counted benchmarks (their metric) */
    pg_side_info base, head;
    pg_bench_result *benchmarks;
    size_t nbenchmarks;
    double seconds;       /* the whole compare, wall time */
    double build_seconds; /* of it, building and checking what a change
                             reaches (keys, project builds, problems) */
    int aa;               /* a self-check: the same revision on both sides */
    pg_system system;
    pg_gpu_info gpu; /* present: a CUDA benchmark was measured on it */
    pg_verdict verdict;
    char *config_digest; /* the config's (pg_config.digest); NULL: unknown */
    char *main_machine;  /* whose records main_* are; NULL: no history */
    char *unboxed;       /* why the revisions' code ran outside the box (box.h);
                            NULL when it ran inside, or the result does not say */
    char *held_env;      /* pass_env: names the change's own config added,
                            held out of the box ("A, B"); NULL: none */
    /* How the box's processes were capped (boxcap.h: "rlimit", "cgroup")
     * and at how many, or why they were not; NULL and 0 when unboxed or
     * not said. */
    char *capped_by, *uncapped;
    int max_processes;
    /* The supplementary groups the box kept (boxcap.h), or NULL. */
    char *groups_kept;
    pg_shard_info *shards; /* one for a shard's own result, all of them for
                              a merged one; none when not sharded */
    size_t nshards;
} pg_result;

/* "unchanged", "regression", ...; and back (-1 when unknown). */
const char *pg_status_name(pg_status status);
int pg_status_parse(const char *name);
/* 1 when `status` is a failure of the code (incorrect, crashed, timeout,
 * build_failed), rather than a verdict on its speed. */
int pg_status_failed(pg_status status);

const char *pg_side_name(pg_side side); /* "base", "head", or NULL */
const char *pg_floor_source_name(pg_floor_source src);

/* The case b->slower_case names, or NULL. */
const pg_result_case *pg_result_slower_case(const pg_bench_result *b);

/* How many benchmarks have `status`. */
size_t pg_result_count(const pg_result *r, pg_status status);

/* A benchmark not yet measured, named (copies of `name` and `problem`;
 * NULL: ""): figures NAN, no side, no slower case.  The one place these
 * defaults are written. */
void pg_bench_result_init(pg_bench_result *b, const char *name,
                          const char *problem);

/* Adds a benchmark to `r` (pg_bench_result_init) and returns it. */
pg_bench_result *pg_result_add(pg_result *r, const char *name,
                               const char *problem);

/*
 * Serializes `r`, judged (pg_stats_judge), as the JSON report: a new
 * string to free() (never NULL).  Parses one back into
 * `out`, unjudged: PG_ERR_USAGE with a message when malformed, and `out`
 * then empty (nothing to free).  The text may come from anyone.
 */
char *pg_result_to_json(const pg_result *r);

/* How a side's build came to be, as the JSON names it (built[]: 0 not
 * built, 1 compiled, 2 from the cache), and its project build's (project[]:
 * 1 ran, 2 from the cache). */
extern const char *const pg_built_names[3];
extern const char *const pg_project_names[3];
int pg_result_from_json(pg_result *out, const char *text, const char *display);

/*
 * Makes every text in `r` safe to write (pg_text_clean): compiler output,
 * messages from user code, commit subjects in any encoding.  Called before
 * a result is written or shown.
 */
void pg_result_clean_text(pg_result *r);

void pg_profile_clean_text(pg_profile *p);
void pg_profile_free(pg_profile *p);
void pg_bench_result_clear(pg_bench_result *b);
void pg_result_clear(pg_result *r);

/*
 * A figure of `b` for people, in its metric's unit: "32.8 µs" for time,
 * "84,492 instr" or "91,230 cycles" for counts; "–" when not finite.
 */
void pg_result_format_figure(pg_str *out, const pg_bench_result *b, double v);

/* The same for a figure of `metric` (a pg_metric). */
void pg_result_format_metric(pg_str *out, int metric, double v);

/* The floor `b` is judged against in `r`: the count floor for a counted
 * benchmark, else the noise floor. */
double pg_result_floor(const pg_result *r, const pg_bench_result *b);

#endif
