// The kernel of vector_scale.json: out = a * in, `tile` elements per thread, written for Kernel Tuner's conventions
// (block_size_x as a compile-time constant, one thread block per block_size_x * tile elements).
#ifndef block_size_x
#define block_size_x 256
#endif
#ifndef tile
#define tile 1
#endif

extern "C" __global__ void vector_scale(float* out, const float* in, float a, int n) {
  const int first = blockIdx.x * block_size_x * tile + threadIdx.x;
#pragma unroll
  for (int t = 0; t < tile; ++t) {
    const int i = first + t * block_size_x;
    if (i < n) out[i] = a * in[i];
  }
}
