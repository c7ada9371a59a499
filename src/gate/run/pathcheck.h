/*
 * pathcheck.h - whether a count was taken on the code the machine runs.
 *
 * Under callgrind the code sees a simulated CPU, which has fewer features
 * than most hosts (no AVX-512), and a library that dispatches on them runs
 * another implementation there than natively: its count is of code the
 * machine does not run.  perfgate-measure gives both pictures of each side
 * (codepath.h): where its calls spend their time natively, as a sample
 * profile, and what callgrind saw them execute, per function.  They
 * differ in proportions anyway (an instruction that waits on memory costs
 * more time than one that does not), so only what one side never ran is
 * taken for another path:
 *
 *   - a function with at least PG_PATH_NATIVE_SHARE of the native samples
 *     that callgrind never saw execute an instruction of; or
 *   - a function with at least PG_PATH_COUNTED_SHARE of the counted
 *     instructions, which the native code has (its symbol table names
 *     it), that not one of at least PG_PATH_MIN_SAMPLES samples fell in;
 *     or
 *   - a function callgrind saw run, with at least PG_PATH_NATIVE_SHARE of
 *     the native samples on instructions callgrind never saw executed
 *     (another branch of the same function: code that asks whether it is
 *     counted without asking valgrind, by its preloaded library).  A
 *     native sample is the instruction the thread was about to run, which
 *     callgrind, given the same path, runs too; its dump has every
 *     instruction's address (--dump-instr=yes).
 */
#ifndef PG_PATHCHECK_H
#define PG_PATHCHECK_H

#include "str.h"

#define PG_PATH_NATIVE_SHARE 0.10
#define PG_PATH_COUNTED_SHARE 0.20
#define PG_PATH_MIN_SAMPLES 200

/*
 * Compares the native samples at `samples` with callgrind's dumps
 * `dump_prefix`.path0 (the base's) and .path1 (the head's), for the sides
 * in `sides` (bit 0 the base, bit 1 the head).  Returns 1 when a side ran
 * another path, with `other` saying what differs ("the head: natively 61%
 * of its time is in adler32_avx512(), which callgrind never saw run");
 * 0 when both ran the same; -1 when they could not be compared,
 * with `other` saying why.  `native_cpu` and `simulated_cpu` are the
 * features each saw (may be NULL): those the simulator lacks are named.
 */
int pg_pathcheck(pg_str *other, const char *samples, const char *dump_prefix,
                 int sides, const char *native_cpu, const char *simulated_cpu);

/*
 * What a count cannot see, from the same native run: the share of each
 * side's time in system calls (the kernel's instructions are not counted)
 * and off the CPU by its own doing (sleeping, blocked on I/O or a lock),
 * said into `out` for each side where they are at least
 * PG_PATH_UNCOUNTED_SHARE: "the head spends 31% of its time natively in
 * system calls, which no count sees".  Waiting to run while runnable (a
 * busy machine) is not the code's and is not counted against it.  The
 * share in system calls is the smaller of two witnesses, the kernel's
 * accounting of the thread and the share of samples that stopped just
 * after a system call, with at least PG_PATH_MIN_SAMPLES / 4 samples
 * (the kernel's alone charged 58% to a loop that made no call).
 */
#define PG_PATH_UNCOUNTED_SHARE 0.05
void pg_pathcheck_uncounted(pg_str *out, const char *samples);

/* The words of `a` that are not in `b` (space-separated), into `out`. */
void pg_pathcheck_missing(pg_str *out, const char *a, const char *b);

#endif
