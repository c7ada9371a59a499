// matmul in CUDA, tiled: each block loads 32x32 tiles of A and B into
// shared memory once and every thread of the block reuses them, so global
// memory is read k/32 times less.
#include <cstddef>

#define TILE 32

__global__ static void matmul_tiled(const float *a, const float *b, float *c,
                                    size_t m, size_t n, size_t k)
{
    __shared__ float ta[TILE][TILE], tb[TILE][TILE + 1];
    size_t row = blockIdx.y * (size_t)TILE + threadIdx.y;
    size_t col = blockIdx.x * (size_t)TILE + threadIdx.x;
    float sum = 0;

    for (size_t t = 0; t < k; t += TILE) {
        ta[threadIdx.y][threadIdx.x] =
            row < m && t + threadIdx.x < k ? a[row * k + t + threadIdx.x] : 0;
        tb[threadIdx.y][threadIdx.x] =
            t + threadIdx.y < k && col < n ? b[(t + threadIdx.y) * n + col] : 0;
        __syncthreads();
        for (int p = 0; p < TILE; p++)
            sum += ta[threadIdx.y][p] * tb[p][threadIdx.x];
        __syncthreads();
    }
    if (row < m && col < n)
        c[row * n + col] = sum;
}

extern "C" void solution(const float *a, const float *b, float *c, size_t m,
                         size_t n, size_t k)
{
    dim3 block(TILE, TILE);
    dim3 grid((unsigned)((n + TILE - 1) / TILE),
              (unsigned)((m + TILE - 1) / TILE));
    matmul_tiled<<<grid, block>>>(a, b, c, m, n, k);
}
