#include <stddef.h>

void solution(const float *input, float *output, size_t n)
{
    float sum = 0;

    for (size_t i = 0; i < n; i++)
        output[i] = sum += input[i];
}
