// A 2-D convolution with a filter in constant memory, for cutune.tune_kernel (docs/examples/tune_kernel/
// convolution.py): each block loads its tile of the image and the filter's border into shared memory, each thread
// computes tile_size_x x tile_size_y outputs. The parameters arrive as defines; the defaults let it compile alone.
#ifndef block_size_x
#define block_size_x 16
#endif
#ifndef block_size_y
#define block_size_y 16
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif
#ifndef tile_size_y
#define tile_size_y 1
#endif
#ifndef filter_width
#define filter_width 17
#endif
#ifndef filter_height
#define filter_height 17
#endif
#ifndef use_padding
#define use_padding 0
#endif
#ifndef read_only
#define read_only 0
#endif
#ifndef image_width
#define image_width 4096
#endif
#ifndef image_height
#define image_height 4096
#endif

#define input_width (image_width + filter_width - 1)
#define input_height (image_height + filter_height - 1)
#define block_width (block_size_x * tile_size_x)
#define block_height (block_size_y * tile_size_y)
#define shared_width (block_width + filter_width - 1)
#define shared_height (block_height + filter_height - 1)

__constant__ float d_filter[filter_width * filter_height];

__device__ __forceinline__ float load(const float* p) {
#if read_only
  return __ldg(p);
#else
  return *p;
#endif
}

__global__ void convolution_kernel(float* output, const float* input, const float* filter) {
  // One column more per row (use_padding) moves each row's start by a bank.
  __shared__ float tile[shared_height][shared_width + use_padding];
  const int x0 = blockIdx.x * block_width, y0 = blockIdx.y * block_height;
  for (int i = threadIdx.y; i < shared_height; i += block_size_y) {
    for (int j = threadIdx.x; j < shared_width; j += block_size_x) {
      const int y = y0 + i, x = x0 + j;
      tile[i][j] = (y < input_height && x < input_width) ? load(&input[y * input_width + x]) : 0.0f;
    }
  }
  __syncthreads();
  float sum[tile_size_y][tile_size_x];
#pragma unroll
  for (int ty = 0; ty < tile_size_y; ++ty)
#pragma unroll
    for (int tx = 0; tx < tile_size_x; ++tx) sum[ty][tx] = 0.0f;
  for (int fy = 0; fy < filter_height; ++fy) {
    for (int fx = 0; fx < filter_width; ++fx) {
      const float w = d_filter[fy * filter_width + fx];
#pragma unroll
      for (int ty = 0; ty < tile_size_y; ++ty)
#pragma unroll
        for (int tx = 0; tx < tile_size_x; ++tx)
          sum[ty][tx] += w * tile[threadIdx.y + ty * block_size_y + fy][threadIdx.x + tx * block_size_x + fx];
    }
  }
#pragma unroll
  for (int ty = 0; ty < tile_size_y; ++ty) {
#pragma unroll
    for (int tx = 0; tx < tile_size_x; ++tx) {
      const int y = y0 + threadIdx.y + ty * block_size_y, x = x0 + threadIdx.x + tx * block_size_x;
      if (y < image_height && x < image_width) output[y * image_width + x] = sum[ty][tx];
    }
  }
}
