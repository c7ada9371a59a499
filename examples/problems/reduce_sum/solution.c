#include <stddef.h>

/* Eight accumulators: eight independent chains of additions. */
void solution(const float *in, float *out, size_t n)
{
    float acc[8] = {0};
    size_t i;

    for (i = 0; i + 8 <= n; i += 8)
        for (int l = 0; l < 8; l++)
            acc[l] += in[i + l];
    for (; i < n; i++)
        acc[0] += in[i];
    out[0] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) +
             ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}
