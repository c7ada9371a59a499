#include <math.h>
#include <stddef.h>

/* Softmax over the last dimension (dim == ndim - 1), row by row. */
void solution(const float *input, int dim, float *output, const size_t *shape,
              size_t ndim)
{
    size_t cols = shape[dim], rows = 1;

    for (size_t d = 0; d + 1 < ndim; d++)
        rows *= shape[d];
    for (size_t i = 0; i < rows; i++) {
        const float *x = input + i * cols;
        float *y = output + i * cols;
        float top = x[0], sum = 0;
        for (size_t j = 1; j < cols; j++)
            top = x[j] > top ? x[j] : top;
        for (size_t j = 0; j < cols; j++)
            sum += y[j] = expf(x[j] - top);
        for (size_t j = 0; j < cols; j++)
            y[j] /= sum;
    }
}
