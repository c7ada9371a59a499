#include <stddef.h>

void solution(const int *input_image, int *histogram_output, size_t height,
              size_t width, int num_bins)
{
    for (int b = 0; b < num_bins; b++)
        histogram_output[b] = 0;
    for (size_t i = 0; i < height * width; i++)
        histogram_output[input_image[i]]++;
}
