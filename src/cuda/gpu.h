/*
 * gpu.h - measuring CUDA solutions, inside the measuring child.
 *
 * perfgate does not link CUDA.  The child takes the runtime's functions
 * from the solution libraries themselves (built with the runtime shared,
 * so the runtime, and with it the context, is one for perfgate and both
 * sides: a device pointer from pg_alloc() is valid in either) and the
 * driver's from libcuda.so.1.  Its own two kernels, a clock probe and a
 * launch gate, are PTX that the driver compiles for the device at hand, so
 * perfgate needs no nvcc of its own.
 *
 * A sample, in stream order on the default stream:
 *
 *   [flush L2]  [gate]  [probe]  (start)  n calls  (stop)  [probe]
 *
 * - flush: cold caches (the default), a write larger than the L2;
 * - gate: a kernel that holds the stream until every launch of the sample
 *   is queued, so the calls run back to back and the sample times the
 *   device, not the host's launch rate (nvbench's blocking kernel); it
 *   gives up after a time limit, and gating is then turned off; a solution
 *   that waits for the device (cudaMemcpy, cudaDeviceSynchronize) is found
 *   out before measuring, and then no sample is gated;
 * - start, stop: CUDA events, whose difference is the sample;
 * - probe: SM 0's clock and the global timer, so the SM clock during the
 *   sample is known; a sample under 75% of the peak clock was throttled,
 *   and is taken again after a pause (nvbench's rule).
 */
#ifndef PG_GPU_H
#define PG_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "cuda.h"
#include "measure.h"
#include "plugin.h"
#include "str.h"

typedef struct pg_gpu pg_gpu;

/* What the measurement saw of the device. */
typedef struct pg_gpu_stats {
    uint64_t samples;        /* samples timed */
    uint64_t throttled;      /* of them, throttled and taken again */
    uint64_t kept_throttled; /* throttled every time, and kept */
    double clock_mhz;        /* the median SM clock over the samples; 0 */
    int gated;               /* 1: the launch gate held every sample */
    int runtime_version;
} pg_gpu_stats;

/*
 * Opens the device for solutions whose library is `solution` (a dlopen
 * handle).  `fail` is called, with `payload`, when the device reports an
 * error; it must not return.  NULL, with the reason in `why`, when the
 * runtime or the driver cannot be had.
 */
pg_gpu *pg_gpu_open(void *solution,
                    void (*fail)(void *payload, const char *message),
                    void *payload, pg_str *why);

/* Where pg_alloc() memory comes from for CUDA solutions. */
const pg_memory_ops *pg_gpu_memory(pg_gpu *g);

/* The clock that times samples (measure.h). */
const pg_device_clock *pg_gpu_clock(pg_gpu *g);

/* The device, as the driver describes it (runtime_version filled in). */
const pg_gpu_info *pg_gpu_device(pg_gpu *g);

/*
 * Waits for the device and reports (through `fail`) an error left by the
 * calls so far: a kernel that crashed, or a launch that was refused.
 */
void pg_gpu_check(pg_gpu *g);

/*
 * How many identical set-ups of a case whose solution memory is `bytes`
 * keep a cold batch cold, within the device memory free for `cases` cases
 * and both sides; 1 when one is enough.
 */
size_t pg_gpu_copies(pg_gpu *g, size_t bytes, size_t cases);

/*
 * Finds out whether every target can be queued behind the launch gate (a
 * solution that waits for the device cannot: then no sample is gated), and
 * runs the targets round-robin for `seconds`, so that the device is at its
 * working clocks before the first sample.  targets[c][k] is side sides[k],
 * which `watch` is charged with.
 */
void pg_gpu_warm_up(pg_gpu *g, pg_target (*targets)[2], size_t ncases,
                    const int *sides, int nsides, double seconds,
                    pg_watch *watch);

void pg_gpu_get_stats(pg_gpu_stats *out, pg_gpu *g);

/*
 * The copies a cold batch needs to stay cold, alone so that it can be
 * tested: enough that the copies together fill twice the L2, at most
 * `max`, and no more than fit in `budget` bytes; at least 1.
 */
size_t pg_gpu_copies_for(size_t bytes, size_t l2_bytes, size_t budget,
                         size_t max);

/* 1 when a sample at `clock_hz` on a device whose peak is `peak_hz` was
 * throttled (under 75% of the peak); 0 when either is unknown. */
int pg_gpu_throttled(double clock_hz, double peak_hz);

/* The PTX of perfgate's own kernels (for the tests, which assemble it). */
extern const char pg_gpu_ptx[];

#endif
