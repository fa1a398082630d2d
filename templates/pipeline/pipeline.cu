// Element-wise map over a large array, for the host pipeline templates: y = f(x), where f applies y = a * y + b
// STEPS times starting from y = x (saxpy_pipeline: STEPS = 1, y = a * x + b; poly_pipeline: STEPS = 2048, compute
// heavy enough to stand beside the transfers). One source serves both; the spec sets STEPS in its compile options.
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 4
#endif
#ifndef STEPS
#define STEPS 1
#endif

// Each block covers BLOCK * ITEMS consecutive elements, thread t taking t, t + BLOCK, ...: loads stay coalesced, and
// a thread's ITEMS independent chains of FMAs hide each other's latency when STEPS is large. With |a| < 1 the
// iteration contracts towards b / (1 - a), so rounding errors die out instead of growing with STEPS.
extern "C" __global__ void __launch_bounds__(BLOCK) pipeline_map(float* __restrict__ y, const float* __restrict__ x,
                                                                 float a, float b, long long n) {
  const long long first = static_cast<long long>(blockIdx.x) * (BLOCK * ITEMS) + threadIdx.x;
  float v[ITEMS];
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const long long j = first + static_cast<long long>(i) * BLOCK;
    v[i] = j < n ? x[j] : 0.0f;
  }
#pragma unroll 4
  for (int s = 0; s < STEPS; ++s) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) v[i] = fmaf(a, v[i], b);
  }
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    const long long j = first + static_cast<long long>(i) * BLOCK;
    if (j < n) y[j] = v[i];
  }
}

#if !defined(CUTUNE) || defined(CUTUNE_REFERENCE)
// One element per thread in double: what every configuration is checked against.
extern "C" __global__ void pipeline_reference(float* y, const float* x, float a, float b, long long n) {
  const long long j = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= n) return;
  double v = x[j];
  for (int s = 0; s < STEPS; ++s) v = fma(static_cast<double>(a), v, static_cast<double>(b));
  y[j] = static_cast<float>(v);
}
#endif
