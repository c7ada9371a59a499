#include <stddef.h>

/* i-p-j order: the inner loop walks rows of b and c, so it vectorizes. */
void solution(const float *a, const float *b, float *c, size_t m, size_t n,
              size_t k)
{
    for (size_t i = 0; i < m * n; i++)
        c[i] = 0;
    for (size_t i = 0; i < m; i++)
        for (size_t p = 0; p < k; p++) {
            float x = a[i * k + p];
            for (size_t j = 0; j < n; j++)
                c[i * n + j] += x * b[p * n + j];
        }
}
