// histogram in CUDA: zero the bins, then one atomic increment per pixel.
#include <cstddef>

__global__ static void count(const int *image, int *hist, size_t pixels)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < pixels;
         i += (size_t)gridDim.x * blockDim.x)
        atomicAdd(&hist[image[i]], 1);
}

extern "C" void solution(const int *input_image, int *histogram_output,
                         size_t height, size_t width, int num_bins)
{
    size_t pixels = height * width, blocks = (pixels + 255) / 256;
    cudaMemsetAsync(histogram_output, 0, (size_t)num_bins * sizeof(int));
    count<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256>>>(
        input_image, histogram_output, pixels);
}
