// Fault injection: MODE picks what a configuration does wrong, so that tuning must survive and record each.
//   0 right   1 writes far out of bounds   2 misaligned access   3 __trap()   4 spins forever
//   5 asks for more shared memory than a block may have   6 computes a wrong result
#ifndef MODE
#define MODE 0
#endif
#ifndef B
#define B 128
#endif

extern "C" __global__ void __launch_bounds__(B) fault(float* out, const float* in, const int* flag, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = 2.0f * in[i];
#if MODE == 1
  if (i == 0) out[i + (1ll << 38)] = v;
#elif MODE == 2
  if (i == 0) *reinterpret_cast<float*>(reinterpret_cast<char*>(out) + 2) = v;
#elif MODE == 3
  if (i == 0) __trap();
#elif MODE == 4
  while (*static_cast<const volatile int*>(flag) == 0) {
  }
#elif MODE == 5
  __shared__ float big[10000];  // 40 KB static, with 200 KB dynamic: over the 227 KB a block may use
  big[threadIdx.x] = v;
  __syncthreads();
  v = big[threadIdx.x];
#elif MODE == 6
  if (i == n / 3) v += 1.0f;
#endif
  out[i] = v;
}

extern "C" __global__ void fault_reference(float* out, const float* in, const int*, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
