#include <stddef.h>

void solution(const float *input_a, const float *input_b, float *output_c,
              size_t m, size_t k)
{
    for (size_t i = 0; i < m; i++) {
        float sum = 0;
        for (size_t j = 0; j < k; j++)
            sum += input_a[i * k + j] * input_b[j];
        output_c[i] = sum;
    }
}
