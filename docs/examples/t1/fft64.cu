// Batched 64-point complex FFTs, eight threads per transform (two radix-8 passes with a transpose through shared
// memory between them): a T1 example whose source is written as C-era CUDA sources are, including <math.h> for M_PI
// and defining M_SQRT1_2 itself, with its functions' inlining and its loops' unrolling as tuning parameters.
#include <math.h>
#include <stdint.h>
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <assert.h>
#define M_SQRT1_2 0.70710678118654752440

#if PRECISION == 64
#define T double
#define T2 double2
#define make_T2 make_double2
#else
#define T float
#define T2 float2
#define make_T2 make_float2
#endif

// A function's inlining: 0 never, 1 as the compiler decides, 2 always.
#define INLINING(choice) INLINING_EXPANDED(choice)
#define INLINING_EXPANDED(choice) INLINING_##choice
#define INLINING_0 __noinline__
#define INLINING_1
#define INLINING_2 __forceinline__

extern "C" {

__device__ __forceinline__ T2 cadd(T2 a, T2 b) { return make_T2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ T2 csub(T2 a, T2 b) { return make_T2(a.x - b.x, a.y - b.y); }
__device__ __forceinline__ T2 cmul(T2 a, T2 b) { return make_T2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

// exp(i phi) in the SFU's precision.
__device__ __forceinline__ T2 expi(T phi) { return make_T2(__cosf(phi), __sinf(phi)); }

// One 8-point transform in place, natural order in and out: three radix-2 decimation-in-frequency stages, then the
// bit-reversed results put back in order.
INLINING(FFT8_INLINE) __device__ void fft8(T2* a) {
  const T c = (T)M_SQRT1_2;
  const T2 w[4] = {make_T2(1, 0), make_T2(c, -c), make_T2(0, -1), make_T2(-c, -c)};
  for (int j = 0; j < 4; ++j) {
    const T2 u = a[j], v = a[j + 4];
    a[j] = cadd(u, v);
    a[j + 4] = cmul(csub(u, v), w[j]);
  }
  for (int base = 0; base < 8; base += 4) {
    for (int j = 0; j < 2; ++j) {
      const T2 u = a[base + j], v = a[base + j + 2];
      a[base + j] = cadd(u, v);
      a[base + j + 2] = cmul(csub(u, v), w[2 * j]);
    }
  }
  for (int base = 0; base < 8; base += 2) {
    const T2 u = a[base], v = a[base + 1];
    a[base] = cadd(u, v);
    a[base + 1] = csub(u, v);
  }
  T2 swap = a[1];
  a[1] = a[4];
  a[4] = swap;
  swap = a[3];
  a[3] = a[6];
  a[6] = swap;
}

// a[k] *= exp(-2 pi i t k / 64).
INLINING(TWIDDLE_INLINE) __device__ void twiddle(T2* a, int t) {
#pragma unroll(LOOP_UNROLL_TWIDDLE)
  for (int k = 1; k < 8; ++k) a[k] = cmul(a[k], expi((T)(-2 * M_PI / 64) * (t * k)));
}

// work holds 64 * (number of blocks * blockDim.x / 8) complex values; each group of 8 threads transforms 64 of them.
__global__ void fft64(T2* work) {
  assert(blockDim.x % 8 == 0 && blockDim.x <= 512);
  __shared__ T2 stage[64][8][9];  // a transpose per group; rows padded against bank conflicts
  const int group = threadIdx.x / 8, t = threadIdx.x % 8;
  T2* x = work + (static_cast<int64_t>(blockIdx.x) * (blockDim.x / 8) + group) * 64;
  T2 a[8];
#pragma unroll(LOOP_UNROLL_LOAD)
  for (int n = 0; n < 8; ++n) a[n] = x[8 * n + t];
  fft8(a);
  twiddle(a, t);
  for (int k = 0; k < 8; ++k) stage[group][k][t] = a[k];
  __syncthreads();
  for (int n = 0; n < 8; ++n) a[n] = stage[group][t][n];
  fft8(a);
#pragma unroll(LOOP_UNROLL_STORE)
  for (int k = 0; k < 8; ++k) x[t + 8 * k] = a[k];
#ifdef FFT64_TRACE
  if (blockIdx.x == 0 && threadIdx.x == 0) printf("fft64: X[0] = %f%+fi\n", (double)a[0].x, (double)a[0].y);
#endif
}

}  // extern "C"
