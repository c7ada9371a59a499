// A kernel whose cost is known by construction, for bench/gpu.py and the
// GPU tests: vector_add (perfgate's built-in problem), after a dependent
// chain of STEPS integer multiply-adds per thread.  Compute-bound: a chain
// 10% longer costs 10% more.  The chain's result decides a store to a
// sink (of every thread, so that none can skip it; harmless when it
// happens): an empty asm statement alone kept the chain in the PTX, and
// ptxas then removed it from the machine code, so that 4000 and 5000
// steps built the same kernel (perfgate said "identical code", rightly,
// on an H100).
#include <cstddef>

#ifndef STEPS
#define STEPS 4000
#endif

__device__ unsigned chain_sink;

__global__ static void add_after_chain(const float *a, const float *b,
                                       float *c, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned t = (unsigned)i;

    // Not unrolled, so that every length runs the same loop.
#pragma unroll 1
    for (int s = 0; s < STEPS; s++)
        t = t * 1664525u + 1013904223u;
    if (t == 0u)
        chain_sink = 1u;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void solution(const float *a, const float *b, float *c, size_t n)
{
    add_after_chain<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
