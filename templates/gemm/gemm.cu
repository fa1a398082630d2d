// SGEMM: C = alpha * A * B + beta * C for row-major float matrices, A M x K, B K x N, C M x N; any M, N, K >= 1.
//
// A block computes a BM x BN tile of C, stepping through K in BK-wide slabs staged in shared memory. Its
// BM*BN/(TM*TN) threads form warps of WARP_ROWS x (32 / WARP_ROWS) lanes; a thread owns TM x TN elements of C,
// held in registers as chunks of up to 4 x 4 spread over the warp's tile (so that shared-memory reads are 16-byte
// vectors that neighbouring lanes share). Parameters (from the tuner as #defines; defaults below):
//   BM, BN, BK    block tile           TM, TN     thread tile          WARP_ROWS  lanes of a warp along M
//   VEC           floats per global load (1, 2, 4); taken as scalars at run time when K or N or a pointer
//                 does not allow the vector
//   AT            A kept transposed in shared memory (As[k][m], read as vectors) or as loaded (As[m][k])
//   PAD           floats of padding per shared-memory row of A, against bank conflicts
//   ASYNC,STAGES  ASYNC=0: loads through registers, STAGES=1 (none) or 2 (the next slab is loaded while the
//                 current one is multiplied); ASYNC=1: cp.async into STAGES shared-memory buffers (AT=0 only)
//   OCC           1: registers capped at 128 per thread (launch bounds) so that 16 warps fit on an SM
//   SPLITK        slices of K computed by separate blocks (grid.z), each leaving its partial tile in a
//                 workspace; the last to finish a tile (per-tile counter) adds them in slice order (deterministic)
//   GROUP_M       block rasterization: GROUP_M rows of tiles are walked column by column, for L2 reuse
// beta == 0 follows BLAS: C is then not read, so NaNs in it do not propagate.
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 8
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 8
#endif
#ifndef WARP_ROWS
#define WARP_ROWS 4
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef AT
#define AT 1
#endif
#ifndef PAD
#define PAD 4
#endif
#ifndef ASYNC
#define ASYNC 0
#endif
#ifndef STAGES
#define STAGES 2
#endif
#ifndef OCC
#define OCC 0
#endif
#ifndef SPLITK
#define SPLITK 1
#endif
#ifndef GROUP_M
#define GROUP_M 1
#endif

typedef unsigned long long u64;

namespace gemm_detail {

constexpr int kThreads = (BM / TM) * (BN / TN);
constexpr int kMinBlocks = OCC ? 512 / kThreads : 1;  // OCC: at most 128 registers, 16 warps per SM
constexpr int kLaneRows = WARP_ROWS, kLaneCols = 32 / WARP_ROWS;
constexpr int kRM = TM < 4 ? TM : 4, kRN = TN < 4 ? TN : 4;  // contiguous rows / columns of a chunk
constexpr int kMI = TM / kRM, kNI = TN / kRN;               // chunks per thread along M / N
constexpr int kWarpM = TM * kLaneRows, kWarpN = TN * kLaneCols;
constexpr int kWarpsN = BN / kWarpN;
constexpr int kLda = AT ? BM + PAD : BK + PAD;  // shared-memory row length of A
constexpr int kATile = AT ? BK * kLda : BM * kLda;
constexpr int kBTile = BK * BN;
constexpr int kAVecs = BM * BK / VEC / kThreads;  // global vectors per thread and slab
constexpr int kBVecs = BK * BN / VEC / kThreads;
static_assert(kLaneRows * kLaneCols == 32, "WARP_ROWS must divide 32");
static_assert(BM % kWarpM == 0 && BN % kWarpN == 0, "the warps must tile the block");
static_assert(kAVecs * VEC * kThreads == BM * BK && kBVecs * VEC * kThreads == BK * BN, "loads must tile the slab");
static_assert(!ASYNC || !AT, "cp.async cannot transpose A");
static_assert(AT == 0 || PAD % 4 == 0, "vector reads of transposed A need 16-byte rows");
static_assert(AT == 1 || PAD % VEC == 0, "vector stores into A need VEC-aligned rows");

template <int N>
struct Vec;
template <>
struct Vec<1> {
  typedef float type;
};
template <>
struct Vec<2> {
  typedef float2 type;
};
template <>
struct Vec<4> {
  typedef float4 type;
};
typedef Vec<VEC>::type VecT;

union Pack {
  VecT v;
  float f[VEC];
};

template <int N>
__device__ __forceinline__ void load_frag(float* dst, const float* src) {
  if constexpr (N == 4) {
    const float4 t = *reinterpret_cast<const float4*>(src);
    dst[0] = t.x, dst[1] = t.y, dst[2] = t.z, dst[3] = t.w;
  } else if constexpr (N == 2) {
    const float2 t = *reinterpret_cast<const float2*>(src);
    dst[0] = t.x, dst[1] = t.y;
  } else {
    dst[0] = src[0];
  }
}

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// cp.async of BYTES (4, 8 or 16) bytes, zero-filled when !valid.
template <int BYTES>
__device__ __forceinline__ void copy_async(float* dst, const float* src, bool valid) {
  const int size = valid ? BYTES : 0;
  if constexpr (BYTES == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(size));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_addr(dst)), "l"(src), "n"(BYTES),
                 "r"(size));
  }
}
__device__ __forceinline__ void async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Where this thread's global loads of a slab land: A vectors run along K, B vectors along N.
struct Loader {
  const float* a;  // A at (row of the first A vector, this thread's k offset), at the current slab
  const float* b;  // B at (this thread's first k row, column), at the current slab
  int a_row, a_k;  // first A vector: tile-relative row, k offset
  int b_k, b_col;  // first B vector (the others follow at fixed strides)
  bool a_vec, b_vec;
};

constexpr int kAPerRow = BK / VEC;  // A vectors per tile row
constexpr int kARowStep = kThreads / kAPerRow;
constexpr int kBPerRow = BN / VEC;
// B vector i of a thread sits kBk(i) rows and kBc(i) columns after its first one (both are powers of two).
__host__ __device__ constexpr int kBk(int i) { return kThreads >= kBPerRow ? i * (kThreads / kBPerRow) : i * kThreads / kBPerRow; }
__host__ __device__ constexpr int kBc(int i) { return kThreads >= kBPerRow ? 0 : (i * kThreads) % kBPerRow * VEC; }

// Reads slab `k0` (global k index) into registers; elements outside A or B read as zero.
__device__ __forceinline__ void load_slab(const Loader& l, int m0, int n0, int k0, int M, int N, int K,
                                          Pack (&ra)[kAVecs], Pack (&rb)[kBVecs]) {
#pragma unroll
  for (int i = 0; i < kAVecs; ++i) {
    const int row = l.a_row + i * kARowStep, k = k0 + l.a_k;
    const float* p = l.a + (u64)(i * kARowStep) * K;
    if (l.a_vec) {
      ra[i].v = (m0 + row < M && k < K) ? *reinterpret_cast<const VecT*>(p) : VecT{};
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e) ra[i].f[e] = (m0 + row < M && k + e < K) ? p[e] : 0.0f;
    }
  }
#pragma unroll
  for (int i = 0; i < kBVecs; ++i) {
    const int k = l.b_k + kBk(i), col = l.b_col + kBc(i);
    const float* p = l.b + (u64)kBk(i) * N + kBc(i);
    if (l.b_vec) {
      rb[i].v = (k0 + k < K && n0 + col < N) ? *reinterpret_cast<const VecT*>(p) : VecT{};
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e) rb[i].f[e] = (k0 + k < K && n0 + col + e < N) ? p[e] : 0.0f;
    }
  }
}

__device__ __forceinline__ void store_slab(float* as, float* bs, const Loader& l, const Pack (&ra)[kAVecs],
                                           const Pack (&rb)[kBVecs]) {
#pragma unroll
  for (int i = 0; i < kAVecs; ++i) {
    const int row = l.a_row + i * kARowStep;
    if constexpr (AT) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) as[(l.a_k + e) * kLda + row] = ra[i].f[e];
    } else {
      *reinterpret_cast<VecT*>(&as[row * kLda + l.a_k]) = ra[i].v;
    }
  }
#pragma unroll
  for (int i = 0; i < kBVecs; ++i) {
    *reinterpret_cast<VecT*>(&bs[(l.b_k + kBk(i)) * BN + l.b_col + kBc(i)]) = rb[i].v;
  }
}

// cp.async of slab `k0` straight into shared memory (A as loaded), zero-filling outside A or B.
__device__ __forceinline__ void copy_slab(float* as, float* bs, const Loader& l, int m0, int n0, int k0, int M, int N,
                                          int K) {
#pragma unroll
  for (int i = 0; i < kAVecs; ++i) {
    const int row = l.a_row + i * kARowStep, k = k0 + l.a_k;
    const float* p = l.a + (u64)(i * kARowStep) * K;
    float* d = &as[row * kLda + l.a_k];
    const bool in_m = m0 + row < M;
    if (l.a_vec) {
      copy_async<4 * VEC>(d, in_m && k < K ? p : l.a, in_m && k < K);
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e) copy_async<4>(d + e, in_m && k + e < K ? p + e : l.a, in_m && k + e < K);
    }
  }
#pragma unroll
  for (int i = 0; i < kBVecs; ++i) {
    const int k = l.b_k + kBk(i), col = l.b_col + kBc(i);
    const float* p = l.b + (u64)kBk(i) * N + kBc(i);
    float* d = &bs[k * BN + col];
    const bool in_k = k0 + k < K;
    if (l.b_vec) {
      copy_async<4 * VEC>(d, in_k && n0 + col < N ? p : l.b, in_k && n0 + col < N);
    } else {
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        const bool ok = in_k && n0 + col + e < N;
        copy_async<4>(d + e, ok ? p + e : l.b, ok);
      }
    }
  }
}

// acc += As * Bs over one slab.
__device__ __forceinline__ void multiply_slab(const float* as, const float* bs, int wm, int wn, int lr, int lc,
                                              float (&acc)[TM][TN]) {
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    float a[TM], b[TN];
#pragma unroll
    for (int i = 0; i < kMI; ++i) {
      const int row = wm * kWarpM + i * (kLaneRows * kRM) + lr * kRM;
      if constexpr (AT) {
        load_frag<kRM>(&a[i * kRM], &as[k * kLda + row]);
      } else {
#pragma unroll
        for (int r = 0; r < kRM; ++r) a[i * kRM + r] = as[(row + r) * kLda + k];
      }
    }
#pragma unroll
    for (int j = 0; j < kNI; ++j) {
      const int col = wn * kWarpN + j * (kLaneCols * kRN) + lc * kRN;
      load_frag<kRN>(&b[j * kRN], &bs[k * BN + col]);
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

}  // namespace gemm_detail

extern "C" __global__ void __launch_bounds__(gemm_detail::kThreads, gemm_detail::kMinBlocks)
    gemm(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B, float beta,
         float* __restrict__ C, unsigned* __restrict__ counters, float* __restrict__ workspace) {
  using namespace gemm_detail;
  extern __shared__ __align__(16) float smem[];

  // Rasterization: GROUP_M rows of tiles at a time, column by column inside the group.
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int tile = blockIdx.x;
  const int group = tile / (GROUP_M * tiles_n), first_m = group * GROUP_M;
  const int group_rows = min(tiles_m - first_m, GROUP_M);
  const int in_group = tile - group * GROUP_M * tiles_n;
  const int m0 = (first_m + in_group % group_rows) * BM, n0 = (in_group / group_rows) * BN;

  // This block's slice of K: whole slabs, so that slices meet on slab boundaries.
  const int slab_count = (K + BK - 1) / BK;
  const int slabs_per_slice = (slab_count + SPLITK - 1) / SPLITK;
  const int slab_begin = min(slab_count, (int)blockIdx.z * slabs_per_slice);
  const int slab_end = min(slab_count, slab_begin + slabs_per_slice);
  const int k_begin = slab_begin * BK;

  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int wm = warp / kWarpsN, wn = warp % kWarpsN, lr = lane / kLaneCols, lc = lane % kLaneCols;

  Loader l;
  l.a_row = tid / kAPerRow;
  l.a_k = (tid % kAPerRow) * VEC;
  l.b_k = tid / kBPerRow;
  l.b_col = (tid % kBPerRow) * VEC;
  // Out-of-range rows and columns are never dereferenced (the loads are predicated), so these may point past A, B.
  l.a = A + (u64)(m0 + l.a_row) * K + k_begin + l.a_k;
  l.b = B + (u64)(k_begin + l.b_k) * N + n0 + l.b_col;
  l.a_vec = VEC == 1 || (K % VEC == 0 && ((u64)A % (4 * VEC)) == 0);
  l.b_vec = VEC == 1 || (N % VEC == 0 && ((u64)B % (4 * VEC)) == 0);

  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  const int slabs = slab_end - slab_begin;
  float* as_base = smem;
  float* bs_base = smem + STAGES * kATile;
  const u64 a_step = BK, b_step = (u64)BK * N;

#if ASYNC
  // cp.async pipeline: STAGES - 1 slabs in flight while one is multiplied.
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < slabs) copy_slab(as_base + s * kATile, bs_base + s * kBTile, l, m0, n0, k_begin + s * BK, M, N, K);
    async_commit();
    l.a += a_step, l.b += b_step;
  }
  for (int s = 0; s < slabs; ++s) {
    async_wait<STAGES - 2>();
    __syncthreads();
    const int next = s + STAGES - 1, nb = next % STAGES;
    if (next < slabs) copy_slab(as_base + nb * kATile, bs_base + nb * kBTile, l, m0, n0, k_begin + next * BK, M, N, K);
    async_commit();
    l.a += a_step, l.b += b_step;
    const int cb = s % STAGES;
    multiply_slab(as_base + cb * kATile, bs_base + cb * kBTile, wm, wn, lr, lc, acc);
  }
  async_wait<0>();
#else
  Pack ra[kAVecs], rb[kBVecs];
#if STAGES == 1
  for (int s = 0; s < slabs; ++s) {
    load_slab(l, m0, n0, k_begin + s * BK, M, N, K, ra, rb);
    l.a += a_step, l.b += b_step;
    store_slab(as_base, bs_base, l, ra, rb);
    __syncthreads();
    multiply_slab(as_base, bs_base, wm, wn, lr, lc, acc);
    __syncthreads();
  }
#else
  // Register double buffering: the next slab's global loads are in flight while this slab is multiplied.
  // Tried on an H100 and dropped: loading the next slab's first fragments during this slab's last step (barrier
  // moved before it; 6% slower, more registers), and letting a warp load 32 rows of A so that its transposed
  // stores hit 32 banks (no bank conflicts, but 3 to 14% slower with A transposed: uncoalesced loads).
  if (slabs > 0) {
    load_slab(l, m0, n0, k_begin, M, N, K, ra, rb);
    l.a += a_step, l.b += b_step;
    store_slab(as_base, bs_base, l, ra, rb);
    __syncthreads();
  }
  for (int s = 0; s < slabs; ++s) {
    const int cb = s & 1;
    if (s + 1 < slabs) {
      load_slab(l, m0, n0, k_begin + (s + 1) * BK, M, N, K, ra, rb);
      l.a += a_step, l.b += b_step;
    }
    multiply_slab(as_base + cb * kATile, bs_base + cb * kBTile, wm, wn, lr, lc, acc);
    if (s + 1 < slabs) store_slab(as_base + (cb ^ 1) * kATile, bs_base + (cb ^ 1) * kBTile, l, ra, rb);
    __syncthreads();
  }
#endif
#endif

  // Split-K: every slice leaves its partial tile in the workspace; the last slice to finish a tile adds the
  // partials in slice order (deterministic) and writes C, then rearms the tile's counter for the next launch.
  if (SPLITK > 1) {
    constexpr int kQuads = TM * TN / 4;  // the partial tile as float4s: quad q is acc[q / (TN/4)][4 * (q % (TN/4)) ...]
    float4* ws = reinterpret_cast<float4*>(workspace) + (u64)tile * SPLITK * kQuads * kThreads;
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; j += 4) {
        __stcg(ws + ((u64)blockIdx.z * kQuads + i * (TN / 4) + j / 4) * kThreads + tid,
               make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]));
      }
    __threadfence();
    __syncthreads();
    __shared__ bool last;
    if (tid == 0) last = atomicAdd(counters + tile, 1u) == SPLITK - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    // Slice by slice (all of a slice's loads in flight at once), in slice order: the same sums every run.
#pragma unroll 1
    for (int z = 0; z < SPLITK; ++z) {
      const float4* part = ws + (u64)z * kQuads * kThreads + tid;
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const float4 v = __ldcg(part + (i * (TN / 4) + j / 4) * kThreads);
          if (z == 0) {
            acc[i][j] = v.x, acc[i][j + 1] = v.y, acc[i][j + 2] = v.z, acc[i][j + 3] = v.w;
          } else {
            acc[i][j] += v.x, acc[i][j + 1] += v.y, acc[i][j + 2] += v.z, acc[i][j + 3] += v.w;
          }
        }
    }
    if (tid == 0) counters[tile] = 0;  // rearmed for the next launch
  }

  // C = alpha * acc + beta * C; with beta == 0, C is not read.
  const bool c_vec = kRN == 4 && N % 4 == 0 && ((u64)C % 16) == 0;
#pragma unroll
  for (int i = 0; i < kMI; ++i) {
#pragma unroll
    for (int r = 0; r < kRM; ++r) {
      const int row = m0 + wm * kWarpM + i * (kLaneRows * kRM) + lr * kRM + r;
      if (row >= M) continue;
      float* crow = C + (u64)row * N;
#pragma unroll
      for (int j = 0; j < kNI; ++j) {
        const int col = n0 + wn * kWarpN + j * (kLaneCols * kRN) + lc * kRN;
        const float* v = &acc[i * kRM + r][j * kRN];
        if (kRN == 4 && c_vec && col + 3 < N) {
          float4 out = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
          if (beta != 0.0f) {
            const float4 old = *reinterpret_cast<const float4*>(crow + col);
            out.x += beta * old.x, out.y += beta * old.y, out.z += beta * old.z, out.w += beta * old.w;
          }
          *reinterpret_cast<float4*>(crow + col) = out;
        } else {
#pragma unroll
          for (int c = 0; c < kRN; ++c) {
            if (col + c >= N) continue;
            float out = alpha * v[c];
            if (beta != 0.0f) out += beta * crow[col + c];
            crow[col + c] = out;
          }
        }
      }
    }
  }
}

// The reference: 16 x 16 tiles, one element per thread, accumulated in double. Left out of the candidates' compiles.
#if !defined(CUTUNE) || defined(CUTUNE_REFERENCE)
extern "C" __global__ void gemm_reference(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                          float* C, unsigned*, float*) {
  __shared__ float as[16][17], bs[16][17];
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  double sum = 0.0;
  for (int k0 = 0; k0 < K; k0 += 16) {
    const int ka = k0 + threadIdx.x, kb = k0 + threadIdx.y;
    as[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[(u64)row * K + ka] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[(u64)kb * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += (double)as[threadIdx.y][k] * (double)bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) {
    double out = (double)alpha * sum;
    if (beta != 0.0f) out += (double)beta * (double)C[(u64)row * N + col];
    C[(u64)row * N + col] = (float)out;
  }
}
#endif
