// conv2d in CUDA: one thread per output pixel, the kernel centred, zero
// padding.
#include <cstddef>

__global__ static void conv2d(const float *a, const float *b, float *c,
                              size_t h, size_t w, size_t kh, size_t kw)
{
    size_t i = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
    size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t rh = (kh - 1) / 2, rw = (kw - 1) / 2;
    if (i >= h || j >= w)
        return;
    float sum = 0;
    for (size_t p = 0; p < kh; p++) {
        if (i + p < rh || i + p - rh >= h)
            continue;
        for (size_t q = 0; q < kw; q++)
            if (j + q >= rw && j + q - rw < w)
                sum += a[(i + p - rh) * w + (j + q - rw)] * b[p * kw + q];
    }
    c[i * w + j] = sum;
}

extern "C" void solution(const float *A, const float *B, float *C, size_t H,
                         size_t W, size_t Kh, size_t Kw)
{
    dim3 block(16, 16);
    dim3 grid((unsigned)((W + 15) / 16), (unsigned)((H + 15) / 16));
    conv2d<<<grid, block>>>(A, B, C, H, W, Kh, Kw);
}
