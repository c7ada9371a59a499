// relu in CUDA: one thread per element, grid-stride.
#include <cstddef>

__global__ static void relu(const float *in, float *out, size_t count)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = fmaxf(in[i], 0.0f);
}

extern "C" void solution(const float *input, float *output, size_t n, size_t m)
{
    size_t count = n * m, blocks = (count + 255) / 256;
    relu<<<(unsigned)(blocks < 65535 ? blocks : 65535), 256>>>(input, output,
                                                               count);
}
