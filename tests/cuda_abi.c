/*
 * cuda_abi.c - checks src/cuda/cuda_abi.h against the CUDA toolkit's headers
 * (at compile time: it does not build if a number is wrong), and prints
 * perfgate's own PTX, which the test suite assembles with ptxas.
 */
#include <stdio.h>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "cuda_abi.h"
#include "gpu.h"

#define SAME(ours, theirs) _Static_assert((ours) == (theirs), #ours)

SAME(PG_CU_ATTR_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
SAME(PG_CU_ATTR_SM_COUNT, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME(PG_CU_ATTR_MEMORY_CLOCK_RATE, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
SAME(PG_CU_ATTR_BUS_WIDTH, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
SAME(PG_CU_ATTR_L2_SIZE, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
SAME(PG_CU_ATTR_MAJOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME(PG_CU_ATTR_MINOR, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME(PG_CU_ERROR_NO_DEVICE, CUDA_ERROR_NO_DEVICE);
SAME(PG_CU_ERROR_NO_DEVICE, cudaErrorNoDevice);
SAME(PG_CUDA_MEMCPY_HOST_TO_DEVICE, cudaMemcpyHostToDevice);
SAME(PG_CUDA_MEMCPY_DEVICE_TO_HOST, cudaMemcpyDeviceToHost);
SAME(PG_CUDA_HOST_ALLOC_MAPPED, cudaHostAllocMapped);

int main(void)
{
    fputs(pg_gpu_ptx, stdout);
    return 0;
}
