/*
 * ncu.h - a CUDA kernel's hardware metrics, as NVIDIA Nsight Compute
 * (ncu) reads them: what --profile shows for a CUDA regression.
 *
 * ncu runs the case once (perfgate-measure checking it, as callgrind does
 * for C), replays each kernel launch of the side's code until it has read
 * every counter asked for, and writes one CSV row per launch.  perfgate
 * asks for the metrics that explain a slowdown: the kernel's duration,
 * the share of the GPU's compute and DRAM peaks it reached, the bytes it
 * moved, its L2 hit rate, its achieved and theoretical occupancy, its
 * registers, its instructions, and why its warps waited (the stall
 * reasons ncu's warp state section shows).  ncu locks the clocks to the
 * base clock while it profiles, so its durations are longer than the
 * measured times, and steadier.
 */
#ifndef PG_NCU_H
#define PG_NCU_H

#include "result.h"
#include "strvec.h"

#include <stddef.h>

/* A metric of a kernel, summed or averaged over its launches. */
typedef struct pg_ncu_value {
    const char *label; /* "achieved occupancy"; static */
    const char *unit;  /* "%", "bytes", "warps" ...; static */
    double value;
} pg_ncu_value;

#define PG_NCU_VALUES 32

/* One kernel of a side: every launch of the same name together. */
typedef struct pg_ncu_kernel {
    char *name; /* the function's name, without its parameters */
    int launches;
    double duration_ns; /* all launches */
    pg_ncu_value values[PG_NCU_VALUES];
    size_t nvalues;
} pg_ncu_kernel;

typedef struct pg_ncu_side {
    pg_ncu_kernel *kernels; /* longest first */
    size_t nkernels;
} pg_ncu_side;

/* Where ncu is: on PATH, else in the CUDA toolkit beside nvcc; NULL when
 * neither has it.  The caller frees it. */
char *pg_ncu_path(void);

/*
 * The arguments that make ncu at `ncu` write its CSV report of every
 * launch to `log`: pushed onto `a`, the command to profile to follow.
 */
void pg_ncu_argv(pg_strvec *a, const char *ncu, const char *log);

/*
 * Reads the report at `path` into `out`: 0; or 1 with *why set (ncu's
 * own error, or "no kernel was launched") when it holds no launch of the
 * side's kernels; PG_ERR_USAGE when it is malformed, said in *why.
 */
int pg_ncu_read(pg_ncu_side *out, const char *path, char **why);

void pg_ncu_side_clear(pg_ncu_side *s);

/*
 * Both sides' kernels into p: a row per kernel (p->functions, its
 * duration base and head, the longest first), and each metric of the
 * kernels that cost most side by side (p->metrics).
 */
void pg_ncu_pair(pg_profile *p, const pg_ncu_side sides[2]);

#endif
