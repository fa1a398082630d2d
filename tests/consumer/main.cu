// The same check from a CUDA translation unit compiled by nvcc as C++17, as a CUDA application that launches tuned
// kernels includes cutune's headers beside its own kernels.
#include <cutune/runtime_pipeline.hpp>

#include "check.hpp"

// A kernel of the application's own, beside the runtime API's declarations (never launched: the test needs no GPU).
__global__ void scale(float* x, float a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main(int argc, char** argv) {
  const cutune::RuntimeOptions options{};  // the runtime's types, as an application would hold them
  (void)options;
  (void)&scale;
  return run_consumer(argc, argv);
}
