// The kernel of box_filter.json: out[i] = the sum of in[i] ... in[i + filter_width - 1], `tile` outputs per thread.
// filter_width says what is computed, block_size_x and tile how (Kernel Tuner's conventions, as in vector_scale.cu).
#ifndef block_size_x
#define block_size_x 128
#endif
#ifndef tile
#define tile 1
#endif
#ifndef filter_width
#define filter_width 3
#endif

extern "C" __global__ void box_filter(float* out, const float* in, int n) {
  const int first = blockIdx.x * block_size_x * tile + threadIdx.x;
#pragma unroll
  for (int t = 0; t < tile; ++t) {
    const int i = first + t * block_size_x;
    if (i >= n) return;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < filter_width; ++j) sum += in[i + j];
    out[i] = sum;
  }
}
