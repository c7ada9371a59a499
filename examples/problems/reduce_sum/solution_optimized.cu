// reduce_sum in CUDA, optimized: a grid-stride loop sums many elements per
// thread in registers, warp shuffles reduce each warp, shared memory the
// block, and one atomic per block adds it to the result.
#include <cstddef>

__global__ static void sum_blocks(const float *in, float *out, size_t n)
{
    __shared__ float warp_sums[32];
    float v = 0;

    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        v += in[i];
    for (int off = 16; off > 0; off /= 2)
        v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0)
        warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0;
        for (int off = 16; off > 0; off /= 2)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0)
            atomicAdd(out, v);
    }
}

extern "C" void solution(const float *in, float *out, size_t n)
{
    size_t blocks = (n + 1023) / 1024;
    cudaMemsetAsync(out, 0, sizeof(float));
    sum_blocks<<<(unsigned)(blocks < 1024 ? blocks : 1024), 256>>>(in, out, n);
}
