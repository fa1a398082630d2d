// A user kernel tuned without rebuilding cutune: out = a * x + y, ITEMS elements per thread, BLOCK threads.
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 1
#endif

// Each block covers BLOCK * ITEMS consecutive elements; thread t takes t, t + BLOCK, ... so that every load of
// the block stays coalesced whatever ITEMS is.
extern "C" __global__ void __launch_bounds__(BLOCK) saxpy(float* __restrict__ out, const float* __restrict__ x,
                                                          const float* __restrict__ y, float a, int n) {
  const long long first = static_cast<long long>(blockIdx.x) * BLOCK * ITEMS + threadIdx.x;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const long long j = first + static_cast<long long>(i) * BLOCK;
    if (j < n) out[j] = a * x[j] + y[j];
  }
}

// One element per thread, the obvious way: what every configuration is checked against.
extern "C" __global__ void saxpy_reference(float* out, const float* x, const float* y, float a, int n) {
  const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < n) out[j] = a * x[j] + y[j];
}
