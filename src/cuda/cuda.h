/*
 * cuda.h - what CUDA this machine has, without linking CUDA.
 *
 * perfgate builds and runs without the CUDA toolkit or driver: the driver
 * (libcuda.so.1) is loaded at run time when a CUDA benchmark asks, and the
 * compiler (nvcc) is found on disk.
 *
 * The perfgate process itself never initializes CUDA: a CUDA context does
 * not survive fork(), and every measuring child is a fork.  The device is
 * asked about in a short-lived child of its own (pg_cuda_probe).
 */
#ifndef PG_CUDA_H
#define PG_CUDA_H

#include <stddef.h>

#include "machine.h"

/* The nvcc to run: $CUDACXX, else /usr/local/cuda/bin/nvcc, else "nvcc". */
const char *pg_cuda_nvcc(void);

/* The CUDA directory nvcc belongs to ("/usr/local/cuda"); a new string. */
char *pg_cuda_home(void);

/*
 * Asks the driver about the first device, in a child process, once per
 * perfgate process (later calls return the first answer).  Returns a
 * pointer to static storage; never NULL.
 */
const pg_gpu_info *pg_cuda_probe(void);

/*
 * Fills `out` in the calling process, which then has CUDA initialized:
 * only for children that are about to use the device anyway.  0, or -1
 * with out->why set.
 */
int pg_cuda_query(pg_gpu_info *out);

/*
 * The device's peak memory bandwidth (bytes/s) and FP32 rate (FLOP/s),
 * from its clocks, bus width, SM count and architecture; 0 when a figure
 * is unknown.
 */
double pg_cuda_peak_bandwidth(const pg_gpu_info *g);
double pg_cuda_peak_flops(const pg_gpu_info *g);

/* FP32 lanes per SM for architecture `major`.`minor`; 0 when unknown. */
int pg_cuda_fp32_lanes(int major, int minor);

/* The architectures built for when there is no device to ask. */
extern const char *const pg_cuda_default_archs[];

/*
 * The architectures to build for when the config names none: the present
 * device's (asked through pg_cuda_probe), else pg_cuda_default_archs.
 * NULL-terminated; static storage.
 */
const char *const *pg_cuda_archs(void);

#endif
