#include <stddef.h>

void solution(const float *A, const float *B, float *C, size_t N, size_t K)
{
    size_t r = (K - 1) / 2;

    for (size_t i = 0; i < N; i++) {
        float sum = 0;
        for (size_t j = 0; j < K; j++)
            if (i + j >= r && i + j - r < N)
                sum += A[i + j - r] * B[j];
        C[i] = sum;
    }
}
