// conv1d in CUDA: one thread per output, the kernel centred, zero padding.
#include <cstddef>

__global__ static void conv1d(const float *a, const float *b, float *c,
                              size_t n, size_t k)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, r = (k - 1) / 2;
    if (i >= n)
        return;
    float sum = 0;
    for (size_t j = 0; j < k; j++)
        if (i + j >= r && i + j - r < n)
            sum += a[i + j - r] * b[j];
    c[i] = sum;
}

extern "C" void solution(const float *A, const float *B, float *C, size_t N,
                         size_t K)
{
    conv1d<<<(unsigned)((N + 255) / 256), 256>>>(A, B, C, N, K);
}
