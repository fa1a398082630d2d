// A kernel whose time grows with the sum of its 24 parameters (extra dependent arithmetic per element), so that the
// best configuration of a 10^12-configuration space is known: every parameter at 1. Its output is 1 whatever they are.
#ifndef P0
#define P0 1
#endif
#ifndef P1
#define P1 1
#endif
#ifndef P2
#define P2 1
#endif
#ifndef P3
#define P3 1
#endif
#ifndef P4
#define P4 1
#endif
#ifndef P5
#define P5 1
#endif
#ifndef P6
#define P6 1
#endif
#ifndef P7
#define P7 1
#endif
#ifndef P8
#define P8 1
#endif
#ifndef P9
#define P9 1
#endif
#ifndef P10
#define P10 1
#endif
#ifndef P11
#define P11 1
#endif
#ifndef P12
#define P12 1
#endif
#ifndef P13
#define P13 1
#endif
#ifndef P14
#define P14 1
#endif
#ifndef P15
#define P15 1
#endif
#ifndef P16
#define P16 1
#endif
#ifndef P17
#define P17 1
#endif
#ifndef P18
#define P18 1
#endif
#ifndef P19
#define P19 1
#endif
#ifndef P20
#define P20 1
#endif
#ifndef P21
#define P21 1
#endif
#ifndef P22
#define P22 1
#endif
#ifndef P23
#define P23 1
#endif

#define WORK (P0 + P1 + P2 + P3 + P4 + P5 + P6 + P7 + P8 + P9 + P10 + P11 + P12 + P13 + P14 + P15 + P16 + P17 + P18 + \
              P19 + P20 + P21 + P22 + P23)

extern "C" __global__ void huge_space(float* __restrict__ out, int n) {
  const int i = blockIdx.x * 128 + threadIdx.x;
  if (i >= n) return;
  float x = static_cast<float>(i % 7);
#pragma unroll 1
  for (int k = 0; k < 16 * WORK; ++k) x = x * 0.5f + 1.0f;  // tends to 2, never reaches a value below 1
  out[i] = x >= 1.0f ? 1.0f : 0.0f;
}

extern "C" __global__ void huge_space_reference(float* __restrict__ out, int n) {
  const int i = blockIdx.x * 128 + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
