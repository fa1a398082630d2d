// Tensor-core GEMM C = alpha * A * B + beta * C, row-major (A M x K, B K x N, C M x N), FP32 accumulation, any
// M, N, K >= 1: the kernels gemm_tf32 (float in and out, TF32 products), gemm_bf16 and gemm_f16 (16-bit in and out).
//
// TYPE (from the spec's compile options) picks the element: 0 float through TF32, 1 __nv_bfloat16, 2 __half.
// PATH picks the instruction path. 0 (gemm_tc.cu) is mma.sync (m16n8k8 TF32, m16n8k16 BF16/F16) with fragments
// read by ldmatrix from shared memory filled by a cp.async pipeline (sm_80 and later). 1, on sm_90a, is wgmma fed by
// TMA (gemm_sm90.cu with gemm_wgmma.cu for BF16/F16, gemm_wgmma_tf32.cu for TF32, and their instructions). The specs
// compile this file first, then the paths' files (their "source" lists); this file holds what both paths and the
// reference use (gemm_tc_shared): the element type, the kernel's parameters, the rasterization, split-K's workspace
// and the stores of C. The kernels take two TMA tensor maps over A and B after the workspace, which PATH 0 never
// reads (the specs pass zeros in their place).
//
// On PATH 0 a block computes a BM x BN tile of C with WARPS_M x WARPS_N warps, each owning a (BM / WARPS_M) x (BN / WARPS_N)
// warp tile of 16 x 8 mma tiles. K is walked in BK-deep slabs, STAGES of them in shared memory at once: while the
// tensor cores work on one, cp.async fills the next STAGES - 1. Parameters (#defines from the tuner):
//   BM, BN, BK         block tile; BK in elements
//   WARPS_M, WARPS_N   warp arrangement
//   STAGES             slabs in shared memory (2 to 5)
//   SWIZZLE            1: 16-byte chunks XOR-permuted within each 128-byte line; 0: rows padded (both avoid the
//                      bank conflicts of ldmatrix and of the TF32 B-fragment loads)
//   SPLITK             slices of K on separate blocks (grid.z); the last slice to finish a tile adds the partial
//                      tiles from the workspace in slice order (deterministic) and writes C
//   GROUP_M            rows of tiles rasterized together, for L2 reuse
//   RASTER             tile order: 0 the groups of GROUP_M rows walked column by column, each from its left; 1 the
//                      same groups as a serpentine path (consecutive tiles are always neighbours, below)
//   EPI_VEC            elements per store of C: 1 or 2 straight from the accumulators, 16 bytes (4 or 8 elements)
//                      through shared memory so that a warp writes whole rows
//   PREFETCH           1: fragments double-buffered across k-steps and slabs; 0: loaded just before use (fewer
//                      registers, more blocks per SM)
//   ALIGNED            1: 16-byte cp.async (K and N multiples of 16 bytes, A and B 16-byte aligned, as cudaMalloc
//                      gives); 0: element by element, for any K and N
// beta == 0 follows BLAS: C is then not read, so NaNs in it do not propagate.
//
// TF32: the float bits go to the tensor cores as they are, and mma.sync or wgmma reads their top 19 bits (truncation).
// Rounding to nearest in the kernel (cvt.rna.tf32.f32) costs two instructions per element in the inner loop, about
// as many as the mma instructions themselves, and cuBLAS's TF32 mode does not promise it either.
//
// Verification (the spec's tolerance): the reference gemm_tc_reference sees exactly the inputs the tensor cores see
// (TF32: A and B truncated to 19 bits; BF16/F16: the generated 16-bit values), multiplies them exactly and sums in
// double. What is left is the FP32 accumulation of the tensor cores, which round towards zero inside each mma: about
// one unit in the last place of the running sum per mma (2^-23 relative), with the same sign, so the error grows like
// (K / 8) * 2^-23 * |partial sum|, with |partial sum| ~ sqrt(k / 9) after k products of uniform inputs in [-1, 1):
// about 1.5e-8 * K^1.5 on average and below 3e-8 * K^1.5 with partial sums up to 4 standard deviations. The spec allows
// 1e-7 * K^1.5 (0.026 at K = 4096, 0.115 at 11008: room for alpha = 1.5 and for coarser accumulation than assumed).
// A 16-bit output adds its own rounding, done once on each side: the two differ by at most one unit in the last place
// of the reference, 2^-7 (BF16) or 2^-10 (F16) relative. One missing k-slab (BK >= 16 products) moves an element by
// N(0, BK / 9), a standard deviation >= 1.33: far outside either bound for nearly every element, so verification
// fails (the GPU test checks it with a test-only define, CUTUNE_TEST_SKIP_SLAB).
#ifndef TYPE
#define TYPE 0
#endif
#ifndef PATH
#define PATH 0
#endif
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 32
#endif
#ifndef WARPS_M
#define WARPS_M 2
#endif
#ifndef WARPS_N
#define WARPS_N 2
#endif
#ifndef STAGES
#define STAGES 3
#endif
#ifndef SWIZZLE
#define SWIZZLE 1
#endif
#ifndef SPLITK
#define SPLITK 1
#endif
#ifndef GROUP_M
#define GROUP_M 1
#endif
#ifndef RASTER
#define RASTER 0
#endif
#ifndef EPI_VEC
#define EPI_VEC 2
#endif
#ifndef ALIGNED
#define ALIGNED 1
#endif
#ifndef PREFETCH
#define PREFETCH 1
#endif

#if TYPE == 1
#include <cuda_bf16.h>
typedef __nv_bfloat16 elem_t;
#elif TYPE == 2
#include <cuda_fp16.h>
typedef __half elem_t;
#elif TYPE == 3 || TYPE == 4
// The FP8 GEMMs (templates/gemm_fp8/): A's element, e4m3 (3) or e5m2 (4); they name B's and C's types themselves.
#include <cuda_fp8.h>
#if TYPE == 3
typedef __nv_fp8_e4m3 elem_t;
#else
typedef __nv_fp8_e5m2 elem_t;
#endif
#else
typedef float elem_t;
#endif

typedef unsigned long long u64;

#ifdef __CUDACC_RTC__
// cuda.h does not compile under NVRTC; the map is an opaque 128-byte, 64-byte aligned value.
struct alignas(64) CUtensorMap {
  unsigned long long opaque[16];
};
#else
#include <cuda.h>
#endif
// The tensor maps of A and B (TMA loads) and of C (TMA stores, EPI_VEC 64), after the workspace; QUALIFIER is
// __grid_constant__ for the tuned kernel, whose TMA instructions read the maps where the launch put them.
#define GEMM_TC_MAPS(QUALIFIER) \
  , const QUALIFIER CUtensorMap a_map, const QUALIFIER CUtensorMap b_map, const QUALIFIER CUtensorMap c_map
// The tuned kernel's parameters, the same on both paths (the spec's arguments).
#define GEMM_TC_PARAMETERS                                                                                    \
  int M, int N, int K, float alpha, const elem_t* __restrict__ A, const elem_t* __restrict__ B, float beta, \
      elem_t* __restrict__ C, unsigned* __restrict__ counters,                                              \
      float* __restrict__ workspace GEMM_TC_MAPS(__grid_constant__)
// A configuration compiled for its shape (SHAPED=1: the spec's "defines") gets the shape's extents as SHAPE_M, SHAPE_N
// and SHAPE_K. A kernel's first statement, GEMM_SHAPE_CONSTANTS(), then sets its run-time M, N and K to them, so that
// tile counts, bounds checks and the K loop's trip count are constants the compiler folds; without them it does
// nothing. Such a binary is launched at its own shape only (the cubin cache and the runtime key it by the shape).
#if defined(SHAPE_M) && defined(SHAPE_N) && defined(SHAPE_K)
#define GEMM_SHAPE_CONSTANTS() (M = SHAPE_M, N = SHAPE_N, K = SHAPE_K)
#else
#define GEMM_SHAPE_CONSTANTS() ((void)0)
#endif

namespace gemm_tc_shared {

__device__ __forceinline__ float to_float(elem_t x) { return static_cast<float>(x); }
__device__ __forceinline__ elem_t from_float(float x) {
#if TYPE == 1
  return __float2bfloat16_rn(x);
#elif TYPE == 2
  return __float2half_rn(x);
#elif TYPE >= 3
  return elem_t(x);
#else
  return x;
#endif
}

// One output element or N consecutive ones: alpha * acc + beta * C, C read only when beta != 0.
template <int N>
__device__ __forceinline__ void store_out(elem_t* c, const float* v, float alpha, float beta) {
  float out[N];
#pragma unroll
  for (int e = 0; e < N; ++e) out[e] = alpha * v[e];
  if (beta != 0.0f) {
#pragma unroll
    for (int e = 0; e < N; ++e) out[e] += beta * to_float(c[e]);
  }
  if constexpr (N == 1) {
    c[0] = from_float(out[0]);
  } else if constexpr (N == 2 && TYPE == 0) {
    *reinterpret_cast<float2*>(c) = make_float2(out[0], out[1]);
  } else if constexpr (N == 2) {
    union { elem_t e[2]; unsigned u; } p;
    p.e[0] = from_float(out[0]), p.e[1] = from_float(out[1]);
    *reinterpret_cast<unsigned*>(c) = p.u;
  } else {
    union { elem_t e[N]; uint4 v; } p;
#pragma unroll
    for (int e = 0; e < N; ++e) p.e[e] = from_float(out[e]);
    *reinterpret_cast<uint4*>(c) = p.v;
  }
}

// The accumulator pair of columns col and col + 1 of one row (both paths hold C in such pairs): one paired store
// where `paired` (N even) and both are inside, else each one that is inside.
__device__ __forceinline__ void store_pair(elem_t* crow, int col, int N, const float* v, float alpha, float beta,
                                           bool paired) {
  if (paired && col + 1 < N) {
    store_out<2>(crow + col, v, alpha, beta);
  } else {
    if (col < N) store_out<1>(crow + col, v, alpha, beta);
    if (col + 1 < N) store_out<1>(crow + col + 1, v + 1, alpha, beta);
  }
}

// Rasterization: tile `tile` of a tiles_m x tiles_n grid, GROUP_M rows of tiles at a time and column by column inside
// the group, so that the blocks running together share rows of A and columns of B in L2. RASTER 1 walks the same
// groups as a serpentine (boustrophedon) path: odd groups take their columns from the right, and odd columns of a
// group take their rows from the bottom, so that each tile is a neighbour of the one before it (the tiles at a wave's
// or a group's seam share a row of A or a column of B too). Both are bijections of 0 .. tiles_m * tiles_n - 1.
__device__ __forceinline__ void tile_coords(int tile, int tiles_m, int tiles_n, int& tm, int& tn) {
  const int group = tile / (GROUP_M * tiles_n), first_m = group * GROUP_M;
  const int group_rows = min(tiles_m - first_m, GROUP_M);
  const int in_group = tile - group * GROUP_M * tiles_n;
  const int row = in_group % group_rows, col = in_group / group_rows;
#if RASTER == 1
  tm = first_m + ((col & 1) ? group_rows - 1 - row : row), tn = (group & 1) ? tiles_n - 1 - col : col;
#else
  tm = first_m + row, tn = col;
#endif
}

// This slice's share of K in whole BK slabs (grid.z = SPLITK slices), so that slices meet on slab boundaries.
__device__ __forceinline__ void k_slice(int K, int& slab_begin, int& slabs) {
  const int slab_count = (K + BK - 1) / BK;
  const int per_slice = (slab_count + SPLITK - 1) / SPLITK;
  slab_begin = min(slab_count, (int)blockIdx.z * per_slice);
  slabs = min(slab_count, slab_begin + per_slice) - slab_begin;
}

// Split-K: every slice leaves its partial tile in the workspace, FRAGS float4s of accumulators per thread (of
// THREADS), at `ws` (the tile's SPLITK partials); the last slice to finish adds them in slice order.
template <int FRAGS, int THREADS>
__device__ __forceinline__ void splitk_store(float4* ws, const float* acc, int thread) {
#pragma unroll
  for (int f = 0; f < FRAGS; ++f) {
    __stcg(ws + ((u64)blockIdx.z * FRAGS + f) * THREADS + thread,
           make_float4(acc[4 * f], acc[4 * f + 1], acc[4 * f + 2], acc[4 * f + 3]));
  }
}
// Slice by slice, in slice order: the same sums every run. GROUP fragments are read at a time, so that the loads in
// flight and the sums fit in registers together: 16 or 8 where they divide the fragments, else the largest divisor
// below 16 (splitk_group).
__host__ __device__ constexpr int splitk_group(int frags) {
  if (frags % 16 == 0) return 16;
  if (frags % 8 == 0) return 8;
  int group = frags < 16 ? frags : 15;
  while (frags % group != 0) --group;
  return group;
}
static_assert(splitk_group(32) == 16 && splitk_group(24) == 8 && splitk_group(28) == 14 && splitk_group(4) == 4,
              "the largest divisor up to 16");
template <int FRAGS, int THREADS, int GROUP>
__device__ __forceinline__ void splitk_sum(const float4* ws, float* acc, int thread) {
  static_assert(FRAGS % GROUP == 0, "whole groups of fragments");
#pragma unroll
  for (int g = 0; g < FRAGS; g += GROUP) {
#pragma unroll 1
    for (int z = 0; z < SPLITK; ++z) {
      const float4* part = ws + (u64)z * FRAGS * THREADS + thread;
#pragma unroll
      for (int f = g; f < g + GROUP; ++f) {
        const float4 v = __ldcg(part + f * THREADS);
        float* a = acc + 4 * f;
        if (z == 0) {
          a[0] = v.x, a[1] = v.y, a[2] = v.z, a[3] = v.w;
        } else {
          a[0] += v.x, a[1] += v.y, a[2] += v.z, a[3] += v.w;
        }
      }
    }
  }
}

}  // namespace gemm_tc_shared

// The reference: 16 x 16 tiles, one element per thread, the tensor cores' inputs multiplied exactly and summed in
// double, rounded once to the output type. Left out of the candidates' compiles (and of the FP8 GEMMs, which have their
// own).
#if (!defined(CUTUNE) || defined(CUTUNE_REFERENCE)) && TYPE < 3
__device__ __forceinline__ double operand(elem_t x) {
#if TYPE == 0
  return (double)__uint_as_float(__float_as_uint(x) & 0xffffe000u);  // the 19 bits that the tensor cores read
#else
  return (double)gemm_tc_shared::to_float(x);
#endif
}

extern "C" __global__ void gemm_tc_reference(int M, int N, int K, float alpha, const elem_t* A, const elem_t* B,
                                             float beta, elem_t* C, unsigned*, float* GEMM_TC_MAPS()) {
  __shared__ double as[16][17], bs[16][17];
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  double sum = 0.0;
  for (int k0 = 0; k0 < K; k0 += 16) {
    const int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = row < M && ka < K ? operand(A[(u64)row * K + ka]) : 0.0;
    bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? operand(B[(u64)kb * N + col]) : 0.0;
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) {
    double out = (double)alpha * sum;
    if (beta != 0.0f) out += (double)beta * (double)gemm_tc_shared::to_float(C[(u64)row * N + col]);
#if TYPE == 1
    C[(u64)row * N + col] = __double2bfloat16(out);
#elif TYPE == 2
    C[(u64)row * N + col] = __double2half(out);
#else
    C[(u64)row * N + col] = (float)out;
#endif
  }
}
#endif
