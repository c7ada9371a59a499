/*
 * cuda_abi.h - the numbers perfgate uses from CUDA's headers, which it
 * does not include (the toolkit is optional when perfgate is built).
 * tests/cuda_abi.c checks every one against the headers where they exist.
 */
#ifndef PG_CUDA_ABI_H
#define PG_CUDA_ABI_H

/* CUdevice_attribute (cuda.h); cudaDeviceAttr has the same values. */
#define PG_CU_ATTR_CLOCK_RATE 13
#define PG_CU_ATTR_SM_COUNT 16
#define PG_CU_ATTR_MEMORY_CLOCK_RATE 36
#define PG_CU_ATTR_BUS_WIDTH 37
#define PG_CU_ATTR_L2_SIZE 38
#define PG_CU_ATTR_MAJOR 75
#define PG_CU_ATTR_MINOR 76

/* CUresult / cudaError_t */
#define PG_CU_ERROR_NO_DEVICE 100

/* cudaMemcpyKind */
#define PG_CUDA_MEMCPY_HOST_TO_DEVICE 1
#define PG_CUDA_MEMCPY_DEVICE_TO_HOST 2

/* cudaHostAlloc flags */
#define PG_CUDA_HOST_ALLOC_MAPPED 2

#endif
