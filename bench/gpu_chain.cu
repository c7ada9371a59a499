// A kernel whose cost is known by construction, for bench/gpu.py and the
// GPU tests: vector_add (perfgate's built-in problem), after a dependent
// chain of STEPS integer multiply-adds per thread.  Compute-bound: a chain
// 10% longer costs 10% more.  The empty asm keeps the compiler from
// removing the chain, whose result is not used.
#include <cstddef>

#ifndef STEPS
#define STEPS 4000
#endif

__global__ static void add_after_chain(const float *a, const float *b,
                                       float *c, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned t = (unsigned)i;

    for (int s = 0; s < STEPS; s++) {
        t = t * 1664525u + 1013904223u;
        asm volatile("" : "+r"(t));
    }
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void solution(const float *a, const float *b, float *c, size_t n)
{
    add_after_chain<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
