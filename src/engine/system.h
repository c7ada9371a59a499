/*
 * system.h - the machine the measurement runs on.
 *
 * Before measuring, perfgate looks at the machine as pyperf and Google
 * Benchmark do: which CPU is quietest (the measuring child is pinned to
 * it), the frequency governor and turbo, the load average, other work on
 * that CPU, time stolen by a hypervisor.  What could skew a measurement
 * becomes a warning in the terminal, the comment and the JSON.  Interleaving
 * keeps the comparison fair on a noisy machine; the warnings say why a
 * verdict took longer or an A/A check shows more noise.
 */
#ifndef PG_SYSTEM_H
#define PG_SYSTEM_H

#include <stddef.h>

#include "machine.h"

/*
 * Checks the machine.  `root` prefixes /proc and /sys ("" for the real
 * ones; a directory laid out like them in tests); `sample_ms` is how long
 * /proc/stat is watched for other work (0: one reading, nothing seen).
 * The timer is selected (timer.h) when `root` is "".
 */
void pg_system_check(pg_system *out, const char *root, int sample_ms);

/*
 * The CPU's model as `root`/proc/cpuinfo names it (x86's "model name",
 * ARM boards' "Model"), a new string; NULL when it names none.
 */
char *pg_system_cpu_model(const char *root);

/* Adds a warning (printf-style). */
void pg_system_warn(pg_system *sys, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Pins the calling process to `cpu`; 0, or -1 when it cannot. */
int pg_system_pin(int cpu);

/*
 * From two readings of /proc/stat, the fraction of `cpu`'s time that was
 * busy, and of it stolen; -1 when `cpu` is missing.
 */
int pg_system_cpu_usage(double *busy, double *steal, const char *before,
                        const char *after, int cpu);

void pg_system_clear(pg_system *sys);

#endif
