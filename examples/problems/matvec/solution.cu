// matvec in CUDA: one thread per row of A.
#include <cstddef>

__global__ static void matvec(const float *a, const float *b, float *c,
                              size_t m, size_t k)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    float sum = 0;
    for (size_t j = 0; j < k; j++)
        sum += a[i * k + j] * b[j];
    c[i] = sum;
}

extern "C" void solution(const float *input_a, const float *input_b,
                         float *output_c, size_t m, size_t k)
{
    matvec<<<(unsigned)((m + 127) / 128), 128>>>(input_a, input_b, output_c, m,
                                                  k);
}
