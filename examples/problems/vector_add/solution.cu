// vector_add in CUDA: one thread per element.  a, b and c are device
// memory (perfgate's pg_alloc with a CUDA solution).
#include <cstddef>

__global__ static void add(const float *a, const float *b, float *c, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

extern "C" void solution(const float *a, const float *b, float *c, size_t n)
{
    add<<<(unsigned)((n + 255) / 256), 256>>>(a, b, c, n);
}
