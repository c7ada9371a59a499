// matmul in CUDA, the naive way: one thread per element of C, reading its
// row of A and column of B straight from global memory.
#include <cstddef>

__global__ static void matmul(const float *a, const float *b, float *c,
                              size_t m, size_t n, size_t k)
{
    size_t row = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    size_t col = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (row >= m || col >= n)
        return;
    float sum = 0;
    for (size_t p = 0; p < k; p++)
        sum += a[row * k + p] * b[p * n + col];
    c[row * n + col] = sum;
}

extern "C" void solution(const float *a, const float *b, float *c, size_t m,
                         size_t n, size_t k)
{
    dim3 block(16, 16);
    dim3 grid((unsigned)((n + 15) / 16), (unsigned)((m + 15) / 16));
    matmul<<<grid, block>>>(a, b, c, m, n, k);
}
