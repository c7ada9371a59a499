/*
 * cuda.h - what CUDA this machine has, without linking CUDA.
 *
 * perfgate builds and runs without the CUDA toolkit or driver: the driver
 * (libcuda.so.1) is loaded at run time when a CUDA benchmark asks, and the
 * compiler (nvcc) is found on disk.
 */
#ifndef PG_CUDA_H
#define PG_CUDA_H

#include <stddef.h>

/* The nvcc to run: $CUDACXX, else /usr/local/cuda/bin/nvcc, else "nvcc". */
const char *pg_nvcc(void);

/* The CUDA directory nvcc belongs to ("/usr/local/cuda"); a new string. */
char *pg_cuda_home(void);

/*
 * The number of CUDA devices, 0 when there is none; on 0, *why (static)
 * says why: no driver, no device, the driver's error.
 */
int pg_cuda_device_count(const char **why);

/*
 * The first device's architecture as "sm_XY" into `buf`; 0, or -1 when
 * there is no device.
 */
int pg_cuda_device_arch(char *buf, size_t size);

/* The architectures built for when there is no device to ask. */
extern const char *const pg_cuda_default_archs[];

#endif
