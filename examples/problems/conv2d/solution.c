#include <stddef.h>

void solution(const float *A, const float *B, float *C, size_t H, size_t W,
              size_t Kh, size_t Kw)
{
    size_t rh = (Kh - 1) / 2, rw = (Kw - 1) / 2;

    for (size_t i = 0; i < H; i++)
        for (size_t j = 0; j < W; j++) {
            float sum = 0;
            for (size_t k = 0; k < Kh; k++) {
                if (i + k < rh || i + k - rh >= H)
                    continue;
                for (size_t l = 0; l < Kw; l++) {
                    if (j + l < rw || j + l - rw >= W)
                        continue;
                    sum += A[(i + k - rh) * W + (j + l - rw)] * B[k * Kw + l];
                }
            }
            C[i * W + j] = sum;
        }
}
