// prefix_sum (inclusive scan) in CUDA, in three steps: each block scans
// its 1024 elements in shared memory and writes its total; one thread
// scans the totals; every block adds the totals before it.
#include <cstddef>

#define CHUNK 1024

__global__ static void scan_blocks(const float *in, float *out, float *sums,
                                   size_t n)
{
    __shared__ float s[CHUNK];
    size_t i = blockIdx.x * (size_t)CHUNK + threadIdx.x;

    s[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned off = 1; off < CHUNK; off *= 2) {
        float add = threadIdx.x >= off ? s[threadIdx.x - off] : 0;
        __syncthreads();
        s[threadIdx.x] += add;
        __syncthreads();
    }
    if (i < n)
        out[i] = s[threadIdx.x];
    if (threadIdx.x == CHUNK - 1)
        sums[blockIdx.x] = s[threadIdx.x];
}

__global__ static void scan_sums(float *sums, size_t blocks)
{
    float run = 0;
    for (size_t b = 0; b < blocks; b++) {
        float v = sums[b];
        sums[b] = run; /* what comes before block b */
        run += v;
    }
}

__global__ static void add_offsets(float *out, const float *sums, size_t n)
{
    size_t i = blockIdx.x * (size_t)CHUNK + threadIdx.x;
    if (i < n)
        out[i] += sums[blockIdx.x];
}

extern "C" void solution(const float *input, float *output, size_t n)
{
    static float *sums;
    static size_t cap;
    size_t blocks = (n + CHUNK - 1) / CHUNK;

    if (blocks > cap) {
        cudaFree(sums);
        cudaMalloc(&sums, blocks * sizeof(float));
        cap = blocks;
    }
    scan_blocks<<<(unsigned)blocks, CHUNK>>>(input, output, sums, n);
    scan_sums<<<1, 1>>>(sums, blocks);
    add_offsets<<<(unsigned)blocks, CHUNK>>>(output, sums, n);
}
