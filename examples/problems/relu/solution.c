#include <stddef.h>

void solution(const float *input, float *output, size_t n, size_t m)
{
    for (size_t i = 0; i < n * m; i++)
        output[i] = input[i] > 0 ? input[i] : 0.0f;
}
