/*
 * perfgate/problem.h - the ABI that a perfgate problem implements.
 *
 * A problem describes one kind of function: its input cases, how to call a
 * solution, how to check a solution's output against a reference, and how
 * much work one call does.  It is a single C file that perfgate compiles into
 * a plugin and loads into the measuring process.
 *
 * A problem never allocates the memory that a solution reads or writes
 * itself: it asks perfgate for it with pg_alloc() and moves data in and out
 * with pg_upload() and pg_download().  That keeps problems backend-neutral:
 * the same problem serves a C solution (host memory) and a CUDA solution
 * (device memory).
 *
 * A minimal problem:
 *
 *     #include <perfgate/problem.h>
 *
 *     typedef void (*scale_fn)(float *x, size_t n);
 *     struct state { float *x, *host; size_t n; };
 *
 *     static void *setup(pg_case *c)
 *     {
 *         struct state *s = pg_host_alloc(c, sizeof(*s));
 *         s->n = (size_t)pg_param(c, "n", 1024);
 *         ...fill s->host with pg_random_float(), pg_upload() it to s->x...
 *         return s;
 *     }
 *
 *     static void run(void *state, pg_fn fn)
 *     {
 *         struct state *s = state;
 *         ((scale_fn)fn)(s->x, s->n);
 *     }
 *
 *     static int verify(void *state, pg_case *c) { ... return 0; }
 *
 *     static const pg_problem problem = {
 *         .abi = PG_PROBLEM_ABI, .name = "scale",
 *         .signature = "void solution(float *x, size_t n)",
 *         .default_cases = "n=1024; n=1048576",
 *         .setup = setup, .run = run, .verify = verify,
 *     };
 *     PG_EXPORT_PROBLEM(problem)
 *
 * The calls perfgate makes into a problem, in order, in its measuring
 * process (`perfgate compare -v` shows each):
 *   1. setup() for each case and side, the head's first: each side's own
 *      set-up, which it is checked on;
 *   2. run() with that side's solution, then verify(), per case and side;
 *      then compare() of the head's state with the base's, per case;
 *   3. setup() once more per case: the set-up both sides are timed on
 *      (none with side_setup: each side is timed on its own);
 *   4. the timing: run() many times per case, with either side's solution,
 *      and with an empty stand-in for the solution, which does nothing and
 *      returns 0 (NULL, 0, 0.0), to time the harness's own cost;
 *   5. run() and verify() again on each side's own set-up;
 *   6. flops() and bytes() per case;
 *   7. teardown() for every state setup() returned, the last first.
 * A crash or hang in any of them is named by the function and the case;
 * one in setup(), flops(), bytes(), teardown() or in run() with the
 * stand-in is the problem's (with side_setup, setup() is the side's).
 */
#ifndef PERFGATE_PROBLEM_H
#define PERFGATE_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bumped whenever pg_problem or the functions below change.  perfgate
 * loads problems built for any ABI from PG_PROBLEM_ABI_OLDEST on: 4 is 5
 * without between(), 3 is 4 without compare(), and 2 is 3 without
 * side_setup and pg_lookup().
 *
 * Each function below says the ABI that added it.  Five came late in ABI
 * 2, without a bump (pg_random_grid, pg_alloc_copy, pg_alloc_output,
 * pg_check_floats, pg_check_ints): a perfgate of early ABI 2 lacks them,
 * and refuses a problem that calls them as a library it cannot load (an
 * undefined symbol), not as a wrong ABI.  Every perfgate of ABI 3 on has
 * them.  From now on, a function added is a bump (tests/abi compiles the
 * header; lint.py checks that each function says its ABI).
 */
#define PG_PROBLEM_ABI 5
#define PG_PROBLEM_ABI_OLDEST 2

/* One input case: its parameters, its random stream and its memory. */
typedef struct pg_case pg_case;

/* A solution, as loaded from the user's library; run() casts it. */
typedef void (*pg_fn)(void);

typedef struct pg_problem {
    /* PG_PROBLEM_ABI, so that perfgate refuses a plugin built for another. */
    int abi;

    /* Short identifier: letters, digits and underscores. */
    const char *name;

    /* The C prototype a solution must have, shown to users. */
    const char *signature;

    /*
     * The cases used when perfgate.yml gives none: "key=value,key=value"
     * per case, cases separated by ';', e.g. "m=64,n=64,k=64; m=256,n=256,k=256".
     * Every key a problem reads with pg_param() must appear here: perfgate
     * uses these keys to check the cases in perfgate.yml.
     */
    const char *default_cases;

    /*
     * Allocates and fills the inputs of case `c` and returns the problem's
     * state for it, or NULL after pg_fail() when that is impossible.  Called
     * once per case and side, with the same random stream on both sides.
     */
    void *(*setup)(pg_case *c);

    /*
     * Calls the solution once.  This is what perfgate times, so it must not
     * allocate, copy or print: only the call.  `fn` is also an empty
     * stand-in that returns 0 (to time run() itself): keep what fn returns,
     * or free the one kept before, but do not read it here.
     */
    void (*run)(void *state, pg_fn fn);

    /*
     * Checks the output of the last run() against the reference.  Returns 0
     * when it is right, or pg_fail(c, "why") when it is not.
     */
    int (*verify)(void *state, pg_case *c);

    /* Optional: floating-point operations and bytes moved by one call. */
    double (*flops)(const pg_case *c);
    double (*bytes)(const pg_case *c);

    /* Optional: releases what setup() took outside pg_alloc/pg_host_alloc;
     * called once for every state setup() returned. */
    void (*teardown)(void *state);

    /*
     * Optional: the cases for a CUDA solution when perfgate.yml gives none,
     * in the form of default_cases and with none but its keys; NULL: the
     * default_cases.  A GPU needs far more work per call than a CPU core
     * before its time is the kernel's and not the launch's.
     */
    const char *device_cases;

    /* Optional: flops() and bytes() as formulas, for people ("2·m·n·k
     * FLOPs, 4·(m·k + k·n + m·n) bytes"); `perfgate problems` shows it. */
    const char *work;

    /*
     * ABI 3.  1: setup() calls the side's own functions through
     * pg_lookup() (to create a context, or to make the input with the
     * project's own encoder), so each side is set up, timed and checked on
     * its own set-up.  0: both sides are timed on one set-up of each case,
     * the same memory for both (each side's own set-up is still what it is
     * checked on), which keeps where the data lies out of the comparison.
     */
    int side_setup;

    /*
     * ABI 4.  Optional: checks the head's output against the base's.
     * Called once per case when both sides were run once on their own
     * set-ups (step 2 below) and verify() found both right: `head` and
     * `base` are their states, `c` the head's case.  Returns 0 when the
     * head's output agrees with the base's, or pg_fail(c, "why") when it
     * does not, and the head is then incorrect.  A problem generated from
     * a prototype (perfgate.yml's `function:`) checks with this alone.
     */
    int (*compare)(void *head, void *base, pg_case *c);

    /*
     * ABI 5.  Optional: called outside the clock before every timed batch
     * of run() calls (and its untimed warm-up call), on the state the
     * batch runs on.  For what run() kept that the timed calls should not
     * pay for: a function's results that the caller frees (perfgate.yml's
     * `returns:`) are freed here, all but the newest, which verify() and
     * compare() may still read.
     */
    void (*between)(void *state);
} pg_problem;

/* The value of parameter `key` of case `c`, or `fallback` when it has none.
 * Since ABI 1. */
long long pg_param(const pg_case *c, const char *key, long long fallback);

/*
 * Zeroed memory for `bytes` bytes that the solution reads or writes: host
 * memory for a C solution, device memory for a CUDA one, which the problem
 * must not touch but through pg_upload() and pg_download().  Owned by
 * perfgate, freed with the case.  Returns NULL (after recording why) when
 * it cannot be had; setup() then returns NULL.
 * Since ABI 1.
 */
void *pg_alloc(pg_case *c, size_t bytes);

/* Zeroed host memory for the problem's own use, freed with the case.
 * Since ABI 1. */
void *pg_host_alloc(pg_case *c, size_t bytes);

/* Copies host memory into memory from pg_alloc(), and back.  Since ABI 1. */
void pg_upload(pg_case *c, void *dst, const void *host_src, size_t bytes);
void pg_download(pg_case *c, void *host_dst, const void *src, size_t bytes);

/*
 * A deterministic random stream, seeded from the problem and the case's
 * parameters: both sides of a comparison see identical inputs, on every run.
 * Since ABI 1.
 */
uint64_t pg_random(pg_case *c);

/* A uniform float in [lo, hi), drawn from pg_random().  Since ABI 1. */
float pg_random_float(pg_case *c, float lo, float hi);

/* A uniform integer in [lo, hi], drawn from pg_random().  Since ABI 1. */
long long pg_random_int(pg_case *c, long long lo, long long hi);

/*
 * k * step for a uniform integer k in [lo, hi] (pg_random_int): with a
 * step that is a power of two, products and sums of such values stay exact
 * in a float for a long way, so that any order of summation gives the
 * same answer and verify() can be strict.  pg_random_grid(c, -4, 4, 0.25f)
 * is a multiple of 1/4 in [-1, 1].
 * Since ABI 2 (late).
 */
float pg_random_grid(pg_case *c, long long lo, long long hi, float step);

/*
 * Records why a setup or verification failed (printf format) and returns
 * -1, so that verify() can end with `return pg_fail(c, "...", ...)`.
 * Since ABI 1.
 */
int pg_fail(pg_case *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * The function `name` of the side being set up: its sources, adapters or
 * the library its build made.  For setup() to call untimed, in a problem
 * with .side_setup = 1.  NULL after pg_fail() when the side has no such
 * function (setup() then returns NULL, and the side is charged with it).
 * Since ABI 3.
 */
pg_fn pg_lookup(pg_case *c, const char *name);

/*
 * Helpers for the set-up and checking every problem does (problems/ uses
 * them; so can yours).
 */

/*
 * Memory from pg_alloc() holding a copy of `bytes` of host memory `src`:
 * an input.  NULL when out of memory (the case then fails by itself).
 * Since ABI 2 (late).
 */
void *pg_alloc_copy(pg_case *c, const void *src, size_t bytes);

/*
 * Memory from pg_alloc() for `n` floats, each set to NaN: an output, so
 * that a solution that leaves part of it unwritten is caught by
 * pg_check_floats().  NULL when out of memory.
 * Since ABI 2 (late).
 */
float *pg_alloc_output(pg_case *c, size_t n);

/*
 * Checks the `n` floats the solution wrote at `out` (memory from
 * pg_alloc()) against `want`: each within abs_tol + rel_tol * |want[i]|
 * (a NaN never is).  0, or the pg_fail() of the first wrong one, which
 * names it as NAME[i], or NAME[i / cols][i % cols] when `cols` is above 0:
 *     output[3][7] = 0.51, expected 0.5 (within 0.001)
 * Since ABI 2 (late).
 */
int pg_check_floats(pg_case *c, const char *name, const float *out,
                    const double *want, size_t n, double abs_tol,
                    double rel_tol, size_t cols);

/* The same for `n` ints, which must be equal.  Since ABI 2 (late). */
int pg_check_ints(pg_case *c, const char *name, const int *out, const int *want,
                  size_t n);

/* Declares the problem that this plugin provides. */
#define PG_EXPORT_PROBLEM(p)                                                   \
    const pg_problem *perfgate_problem(void);                                  \
    const pg_problem *perfgate_problem(void)                                   \
    {                                                                          \
        return &(p);                                                           \
    }

#ifdef __cplusplus
}
#endif

#endif
