/*
 * codepath.h - which code a side runs, natively and under callgrind.
 *
 * A library that dispatches on the CPU's features (zlib-ng, simdjson,
 * xxHash, glibc's string functions) runs one implementation natively and
 * another under valgrind, whose simulated CPU has fewer features (no
 * AVX-512): a count taken there is of code the machine does not run.  To
 * tell, perfgate-measure says which features the code sees (the CPU's, or
 * the simulator's), samples where each side's calls spend their time
 * natively, and under callgrind dumps what each side executed; perfgate
 * compares the two (src/gate/run/pathcheck.c).
 */
#ifndef PG_CODEPATH_H
#define PG_CODEPATH_H

#include <stddef.h>
#include <stdio.h>

#include "measure.h"
#include "str.h"

/*
 * The CPU features that libraries dispatch on, those this process sees
 * (under valgrind, the simulated CPU's), space-separated: "sse4.2 avx
 * avx2 ...".  Empty where perfgate does not know how to ask.
 */
void pg_cpu_features(pg_str *out);

/*
 * A sample profile of this process: every `interval_us` of wall time
 * while it runs, where the code was.  One at a time.  0, or -1 with `why`
 * set where it cannot (an architecture perfgate cannot read the program
 * counter of).
 */
int pg_sampler_start(long interval_us, pg_str *why);
/* Stops sampling; the samples stay until written. */
void pg_sampler_stop(void);
/*
 * Writes the samples taken since the last write to `f`, one line per
 * place: "SIDE COUNT OFFSET OBJECT", OFFSET (hex) from the start of the
 * object (a path) that holds the code; code in no object is "? -", and
 * a sample taken in a system call (in the kernel, or blocked there) is
 * "kernel -", wherever it was called from.  The
 * number of samples, or -1 when some were lost for want of room.
 */
long pg_sampler_write(FILE *f, int side);

/* Where this thread's time went, from a point on (pg_thread_time_start),
 * in seconds: the wall clock, on the CPU (as the scheduler counts it), in
 * the kernel (system calls), and waiting to run while runnable. */
typedef struct pg_thread_time {
    double wall, on_cpu, system, runnable;
} pg_thread_time;

void pg_thread_time_start(pg_thread_time *t);
/* Turns `t` from a start into the time since. */
void pg_thread_time_since(pg_thread_time *t);
/* "L SIDE WALL ON_CPU SYSTEM RUNNABLE", a line of a sample file. */
void pg_thread_time_write(FILE *f, int side, const pg_thread_time *t);

#endif
