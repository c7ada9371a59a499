/*
 * nvbench.h - an nvbench program's command line and output, as its
 * documentation (docs/cli_help.md, docs/cli_help_axis.md) and printers
 * (markdown_printer's --list, json_printer's --json) give them.
 *
 * A case is one state of one benchmark: its name and each axis fixed to
 * one value, written as nvbench's --axis takes it,
 * "copy/Elements[pow2]=24/T=F32" (a benchmark without axes is its name
 * alone).  A sample is one process restricted to that state (-b NAME, an
 * -a per axis) on device 0, taking exactly the given number of samples
 * (--min-samples N --min-time 0 --max-noise 1e9, each value its own
 * argument as nvbench's parser takes them: its own stopping rule met as
 * soon as the count is), its JSON read back for the mean time of a sample: the
 * cold GPU time (each launch with the L2 flushed, as nvbench measures),
 * or the CPU time of a CPU-only benchmark (exec_tag::no_gpu).
 */
#ifndef PG_NVBENCH_H
#define PG_NVBENCH_H

#include "strvec.h"

#include <stddef.h>
#include <stdint.h>

/*
 * The cases of an nvbench program's --list output `text` (every
 * combination of its benchmarks' axis values, in its order) into `names`:
 * 0; -1 when `text` is not such a listing (no "# Benchmarks" section, or a
 * line of it that does not read as the markdown printer writes).
 */
int pg_nvbench_take_list(pg_strvec *names, const char *text);

/*
 * The arguments of a run of case `name`: exactly `samples` samples, its
 * JSON to `json`.  -1 when `name` is empty.
 */
int pg_nvbench_args(pg_strvec *args, const char *name, uint64_t samples,
                    const char *json);

/* What a run's JSON says of its one state. */
typedef struct pg_nvbench_state {
    double ns;      /* mean time of a sample, ns; NAN when none */
    double samples; /* how many it took; 0 when not said */
    double bytes;   /* global memory bytes per sample; 0 when not said */
    double items;   /* elements per sample; 0 when not said */
    char *skipped;  /* the benchmark's own reason to skip it, or NULL */
    char *error;    /* what is wrong with the output, or NULL */
} pg_nvbench_state;

/*
 * The state of benchmark `name` (its name before the axes) in nvbench's
 * JSON output `text`, into *st (its strings new; pg_nvbench_state_clear
 * frees them): 0 with its time, or its skip reason; -1 with st->error.
 */
int pg_nvbench_read(pg_nvbench_state *st, const char *text, size_t len,
                    const char *name);

void pg_nvbench_state_clear(pg_nvbench_state *st);

/* The benchmark's name of case `name` (before its axes): a new string. */
char *pg_nvbench_bench_name(const char *name);

/* Of `names`, those that extended regex `filter` matches (a suite's
 * filter: nvbench has none of its own): 0; 1 with *why (a new string) when
 * `filter` is not a regex. */
int pg_nvbench_keep(pg_strvec *names, char **why, const char *filter);

/* The most an nvbench program's JSON output may take. */
#define PG_NVBENCH_MAX_OUTPUT ((size_t)16 << 20)

/* The reason the JSON output at path `json` gives for skipping case
 * `name` (the benchmark's own state.skip(), as one for a GPU it cannot
 * run on): a new string; NULL when it ran, or there is no such output. */
char *pg_nvbench_skipped(const char *json, const char *name);

#endif
