/*
 * counter.h - counting what a call executes, instead of timing it.
 *
 * A count is the same on any machine and under any load: instructions
 * retired in user space (the CPU's own counter through perf_event_open, or
 * callgrind's), or an estimate of cycles from callgrind's cache model with
 * cache sizes fixed here, so that it does not depend on the host:
 *
 *   cycles = L1 hits + 5 x LL hits + 35 x RAM accesses
 *
 * (iai-callgrind's weights).  A counter is a pg_device_clock whose "time"
 * is the count: the measuring engine (measure.h) calibrates, interleaves,
 * keeps minimums and discounts the harness's own count exactly as it does
 * for time, and everything downstream reads counts where it read
 * nanoseconds.
 *
 * Under callgrind, perfgate-measure runs inside valgrind (run.c starts it
 * so, with pg_counter_valgrind_args()): a sample turns collection on,
 * runs its calls, turns it off and asks callgrind to dump what it counted,
 * which it then reads back from the dump file.
 */
#ifndef PG_COUNTER_H
#define PG_COUNTER_H

#include <stdint.h>

#include "measure.h"
#include "str.h"
#include "strvec.h"

/* What a benchmark's figures are. */
typedef enum {
    PG_METRIC_TIME = 0,     /* nanoseconds per call */
    PG_METRIC_INSTRUCTIONS, /* instructions per call */
    PG_METRIC_CYCLES        /* estimated cycles per call (a cache model) */
} pg_metric;

/* How a count is taken. */
typedef enum {
    PG_COUNTER_NONE = 0, /* time: nothing is counted */
    PG_COUNTER_HARDWARE, /* the CPU's counter, user space only */
    PG_COUNTER_CALLGRIND /* valgrind's callgrind, a simulated CPU */
} pg_counter_kind;

/* "time", "instructions", "cycles"; and back, -1 for none of them. */
const char *pg_metric_name(pg_metric m);
int pg_metric_parse(const char *name);
/* The unit of a figure: "ns", "instructions", "cycles". */
const char *pg_metric_unit(pg_metric m);

/* "hardware", "callgrind" ("none" for NONE); and back, -1. */
const char *pg_counter_name(pg_counter_kind k);
int pg_counter_parse(const char *name);

/*
 * Whether this process may count its own instructions with the CPU's
 * counter (a PMU that the kernel exposes and perf_event_paranoid allows);
 * when not, `why` (may be NULL) says why.
 */
int pg_counter_hardware_works(pg_str *why);

/*
 * The valgrind command line that runs a counted measurement of `metric`:
 * "valgrind --tool=callgrind ..." with its dumps at `dump_path`.N, pushed
 * to `argv` (the program and its arguments are the caller's to add).
 */
void pg_counter_valgrind_args(pg_strvec *argv, pg_metric metric,
                              const char *dump_path);

/*
 * Only valgrind and callgrind's options for `metric` (its cache model for
 * cycles), dumps at `dump_path`.N, names undemangled: what counts a whole
 * program, whose caller says what starts and ends a count
 * (--dump-before=FN and the like).
 */
void pg_counter_valgrind_tool(pg_strvec *argv, pg_metric metric,
                              const char *dump_path);

/*
 * The counter to count `metric` with: `wanted` (PG_COUNTER_NONE: the CPU's
 * counter where it works, else callgrind), or -1 with `why` set when it
 * cannot be had here (cycles are callgrind's alone).
 */
int pg_counter_choose(pg_metric metric, pg_counter_kind wanted, pg_str *why);

/* An open counter. */
typedef struct pg_counter {
    pg_counter_kind kind;
    pg_metric metric;
    int fd;                /* hardware: the perf event */
    char *dump_path;       /* callgrind: dumps are PATH.1, PATH.2, ... */
    int dumps;             /* callgrind: how many there have been */
    pg_str error;          /* the first failure to count; empty while none */
    pg_device_clock clock; /* for pg_measure_opts.device */
} pg_counter;

/*
 * Opens a counter of `metric` by `kind` (callgrind: `dump_path` is the
 * --callgrind-out-file valgrind was given).  0; or -1 with `why` set:
 * no such counter here (not under valgrind, no PMU).
 */
int pg_counter_open(pg_counter *c, pg_counter_kind kind, pg_metric metric,
                    const char *dump_path, pg_str *why);
void pg_counter_close(pg_counter *c);

/*
 * Under callgrind: runs each of the `n` targets once more, counted
 * together, and moves what callgrind saw them execute (per function) to
 * `path`, for perfgate to compare with where the same calls spend their
 * time natively (codepath.h).  0, or -1 when not counting under callgrind
 * or the dump could not be moved.
 */
int pg_counter_trace(pg_counter *c, const pg_target *const *targets, size_t n,
                     const char *path);

/*
 * Reads a callgrind dump's counts of `metric` (its "summary:" line, by
 * its "events:" line): 0 with *out set, or -1 when the file has none.
 */
int pg_counter_read_dump(double *out, const char *path, pg_metric metric);

#endif
