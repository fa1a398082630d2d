// FP8 tensor-core GEMM for sm_90a: D = alpha * scale_a * scale_b * (A B) + beta * C + bias, with A (M x K, row-major)
// in e4m3 or e5m2 (TYPE 3 or 4), B stored N x K (K contiguous: column-major K x N, cuBLASLt's "TN") in e4m3 or e5m2
// (B_TYPE), FP32 accumulation, C and D one M x N row-major array of OUT (0 float, 1 __nv_bfloat16, 2 __half); scale_a
// and scale_b are device scalars (per-tensor scales, read once by each thread), bias one value per column of D or a
// null pointer for none. beta == 0 follows BLAS: C is then not read.
//
// The specs compile it after gemm_tc_shared.cu, gemm_sm90_ptx.cu, gemm_sm90.cu (the warp-specialized TMA + wgmma
// pipeline of the 16-bit kernels, described there), gemm_sm90_streamk.cu, gemm_sm90_transposed.cu, gemm_sm90_store.cu,
// gemm_fp8_promote.cu (two buffers of promoted sums) and gemm_fp8_ops.cu (the instructions).
//
// wgmma reads 8-bit operands from shared memory K-major only, as both A and B are here: a slab is BK = 128 elements
// deep, one 128-byte swizzled row per row of A and per column of the product, four k32 steps of 32 bytes each. The
// producer loads A's BM x 128 box and B's BN x 128 rows (two boxes of BN / 2 rows with multicast).
// SWAP=0: the WG consumer warpgroups each own BM / WG rows of the tile. SWAP=1, for skinny M: C^T = B^T A^T (free with
// both operands K-major), wgmma's A a 64-row chunk of B's tile and its B A's BM rows; the slices of C^T are staged
// through the ring (gemm_sm90_transposed.cu) before 16-byte stores. Stores of D (SWAP=0): EPI=0 from the registers;
// EPI=1 (16-bit D) through shared memory and TMA stores that run on under the next tile's main loop.
//
// PROMOTE=P adds the products of every P slabs to FP32 accumulators in registers instead of letting the tensor cores
// carry the sum across K: Hopper's FP8 wgmma keeps about 14 bits of its running sum (as reported for DeepSeek-V3's
// training, which promotes every 128 products, P = 1). PROMOTE=0 is cuBLASLt's "fast accumulation"; verification
// keeps a P only where its error passes.
//
// BLOCK_SCALE=1 (gemm_fp8_blockscaled): A scaled per row and 128-element block of K (scale_a: ceil(K / 128) x M
// floats), B per 128 x 128 block (scale_b: ceil(N / 128) x ceil(K / 128) floats, row-major by block of N); PROMOTE=1
// applies each slab's scales as it adds the slab's sums, the scales read while the slab's wgmmas run. SWAP=0, BN 64,
// 128 or 256.
// Verification: gemm_fp8_reference (compiled after this file) multiplies the same FP8 inputs exactly, sums in double,
// applies the same scales, beta and bias and rounds once to the output type.
#ifndef B_TYPE
#define B_TYPE 3
#endif
#ifndef OUT
#define OUT 1
#endif
#ifndef SWAP
#define SWAP 0
#endif
#ifndef PROMOTE
#define PROMOTE 1
#endif
#ifndef EPI
#define EPI 0
#endif
#ifndef BLOCK_SCALE
#define BLOCK_SCALE 0
#endif

#if B_TYPE == 3
typedef __nv_fp8_e4m3 b_elem_t;
#else
typedef __nv_fp8_e5m2 b_elem_t;
#endif
#if OUT == 1
#include <cuda_bf16.h>
typedef __nv_bfloat16 out_t;
#elif OUT == 2
#include <cuda_fp16.h>
typedef __half out_t;
#else
typedef float out_t;
#endif

// The kernels' parameters (the specs' arguments): D's tensor map (EPI=1's TMA stores) for 16-bit D only.
#if OUT == 0
#define GEMM_FP8_D_MAP(QUALIFIER)
#else
#define GEMM_FP8_D_MAP(QUALIFIER) , const QUALIFIER CUtensorMap c_map
#endif
#define GEMM_FP8_PARAMETERS(QUALIFIER)                                                                          \
  int M, int N, int K, float alpha, const elem_t* __restrict__ A, const b_elem_t* __restrict__ B,              \
      const float* __restrict__ scale_a, const float* __restrict__ scale_b, const out_t* __restrict__ bias,      \
      float beta, out_t* __restrict__ C, unsigned* __restrict__ counters, float* __restrict__ workspace,        \
      const QUALIFIER CUtensorMap a_map, const QUALIFIER CUtensorMap b_map GEMM_FP8_D_MAP(QUALIFIER)

namespace gemm_fp8_detail {

__device__ __forceinline__ float to_float(out_t x) { return static_cast<float>(x); }
__device__ __forceinline__ out_t to_out(float x) {
#if OUT == 1
  return __float2bfloat16_rn(x);
#elif OUT == 2
  return __float2half_rn(x);
#else
  return x;
#endif
}

// What becomes of the accumulators: scaled, C and the bias added, rounded to the output type, stored.
struct Output {
  out_t* C;
  const out_t* bias;
  float scale, beta;
  int N;
  // V consecutive elements of row m from column n (V = 8: a 16-byte aligned chunk of 16-bit elements, two of floats).
  template <int V>
  __device__ __forceinline__ void store(int m, int n, const float* v) const {
    out_t* c = C + (unsigned long long)m * N + n;
    float out[V];
#pragma unroll
    for (int e = 0; e < V; ++e) out[e] = scale * v[e];
    if (beta != 0.0f) {
#pragma unroll
      for (int e = 0; e < V; ++e) out[e] += beta * to_float(c[e]);
    }
    if (bias != nullptr) {
#pragma unroll
      for (int e = 0; e < V; ++e) out[e] += to_float(bias[n + e]);
    }
    if constexpr (V == 1) {
      c[0] = to_out(out[0]);
    } else if constexpr (OUT == 0) {
#pragma unroll
      for (int e = 0; e < V; e += 4)
        *reinterpret_cast<float4*>(c + e) = make_float4(out[e], out[e + 1], out[e + 2], out[e + 3]);
    } else {
      static_assert(V == 8, "16 bytes of 16-bit elements");
      union { out_t e[8]; uint4 v; } p;
#pragma unroll
      for (int e = 0; e < 8; ++e) p.e[e] = to_out(out[e]);
      *reinterpret_cast<uint4*>(c) = p.v;
    }
  }
  // 8 columns of row m from n, inside C or not: one vector store where N allows (rows 16-byte aligned), else each
  // element that is inside.
  __device__ __forceinline__ void store8(int m, int M, int n, const float (&v)[8]) const {
    if (m >= M || n >= N) return;
    if (N % 8 == 0) {
      store<8>(m, n, v);
      return;
    }
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (n + e < N) store<1>(m, n + e, v + e);
  }
};

}  // namespace gemm_fp8_detail

// The candidates only: the reference compiles for the GPU's own architecture, without sm_90a's instructions.
#if PATH == 1 && !defined(CUTUNE_REFERENCE)
namespace gemm_fp8_detail {
using namespace gemm_sm90;
using gemm_fp8_ops::Mma;

constexpr bool kSwap = SWAP == 1;
// wgmma tiles (64 rows of its M) per consumer warpgroup: of A's rows (SWAP=0) or of B's (SWAP=1); ping-pong gives
// each warpgroup whole tiles.
constexpr int kTiles = kSwap ? BN / (64 * kReaders) : BM / (64 * kReaders);
constexpr int kWidth = kSwap ? BM : BN;  // wgmma's N
constexpr int kAccs = kWidth / 2;        // accumulator registers per wgmma tile and thread
constexpr int kShare = PINGPONG ? 0 : 1;  // 1: consumer warpgroup c owns wgmma tiles c * kTiles ... of the block's
constexpr unsigned kStageA = BM * kRow, kStage = (BM + BN) * kRow;  // bytes: A's rows, then B's
constexpr unsigned kStaged = kSwap ? transposed_staging_bytes<true>() : 0;
// EPI=1: each consumer warpgroup stages its rows of D for TMA stores after the ring (gemm_sm90_store.cu).
__host__ __device__ constexpr unsigned staged_d_bytes() {
  if constexpr (EPI == 1) {
    return gemm_sm90_store::StagedC<kTiles>::kBytes;
  } else {
    return 0;
  }
}
constexpr unsigned kStages = STAGES * kStage > kStaged ? STAGES * kStage : kStaged;
constexpr unsigned kRing = kStages + WG * staged_d_bytes();
static_assert(EPI == 0 || EPI == 1 && !kSwap && OUT != 0, "TMA stores of 16-bit rows (SWAP=0)");
static_assert(TYPE == 3 || TYPE == 4, "A in e4m3 (TYPE 3) or e5m2 (4)");
static_assert(BK == 128, "a slab is one 128-byte swizzle row of 8-bit elements deep");
static_assert(kTiles >= 1 && (kSwap ? BN : BM) % (64 * kReaders) == 0, "each consumer owns whole wgmma tiles");
static_assert(kSwap ? BM == 16 || BM == 32 || BM == 64 || BM == 128 : BN % 16 == 0 && 64 <= BN && BN <= 256,
              "a wgmma width");
static_assert(kSwap || EPI == 1 || BN % 32 == 0, "stores from the registers gather 32-column groups");
static_assert((PROMOTE ? 2 : 1) * kTiles * kAccs <= (PROMOTE ? 192 : 128), "accumulators and partial sums fit the registers");
static_assert(PROMOTE >= 0 && PROMOTE <= 4, "slabs between promotions (0: none)");
static_assert(!kSwap || PERSIST == 0 && PINGPONG == 0, "SWAP=1 stages its one tile in the ring");
static_assert(kStageA % kGroup == 0, "B's rows start on a swizzle repeat (1024 bytes)");
static_assert(accumulators_cover_tile<kWidth>(), "the accumulator layout must cover the tile once");
// PROMOTE's sums in two buffers (gemm_fp8_promote.cu) where the registers hold them: not with two blocks an SM, and
// fewer for FP32 D, whose epilogue needs more registers (a 128x128 tile with three sets of 64 spilled).
constexpr bool kOverlap = PROMOTE >= 1 && PERSIST != 2 && 3 * kTiles * kAccs <= (OUT == 0 ? 144 : 192);
constexpr int kSumRegisters = (kOverlap ? 3 : PROMOTE ? 2 : 1) * kTiles * kAccs;
// Two consumer warpgroups that hold 128 accumulators or more reallocate registers (gemm_sm90.cu says why and how).
constexpr bool kReallocate = WG == 2 && kSumRegisters >= 128;

// The k32 step `ks` of wgmma tile `i` of a stage (wgmma's A: A's rows 64 i.., or B's with SWAP=1) and of the operand
// all tiles share (wgmma's B: B's BN rows, or A's BM rows with SWAP=1).
__host__ __device__ constexpr u64 tile_descriptor(unsigned stage, int i, int ks) {
  return kmajor_descriptor(stage + (kSwap ? kStageA : 0) + i * 64 * kRow, ks);
}
__host__ __device__ constexpr u64 shared_descriptor(unsigned stage, int ks) {
  return kmajor_descriptor(stage + (kSwap ? 0 : kStageA), ks);
}
static_assert(tile_descriptor(0x10000, 1, 3) == descriptor(0x10000 + (kSwap ? kStageA : 0) + 8192 + 96, 16, 1024),
              "wgmma tiles are 64 rows (8192 bytes) apart, k32 steps 32 bytes along them");

// One slab's wgmmas into `d`: four k32 steps of every tile of this warpgroup (from tile `first`). `fresh`: the first
// step ignores d's old contents (the first slab of PROMOTE's partial sums). The descriptors are made once per slab and
// stepped by 32 bytes (2 in the address field, which holds bits 4-17 of shared-memory addresses below 256 KiB: a step
// never carries out of it), so that the wgmmas issue without the address arithmetic of each.
__device__ __forceinline__ void multiply(unsigned stage, float (&d)[kTiles][kAccs], int first, bool fresh) {
  const u64 b = shared_descriptor(stage, 0);
  u64 a[kTiles];
#pragma unroll
  for (int i = 0; i < kTiles; ++i) a[i] = tile_descriptor(stage, first + i, 0);
#pragma unroll
  for (int ks = 0; ks < BK / 32; ++ks)
#pragma unroll
    for (int i = 0; i < kTiles; ++i) Mma<kWidth>::run(d[i], a[i] + 2 * ks, b + 2 * ks, fresh && ks == 0 ? 0 : 1);
}
static_assert(tile_descriptor(0x37c00, 1, 0) + 2 * 3 == tile_descriptor(0x37c00, 1, 3) &&
                  shared_descriptor(0x37c00, 0) + 2 * 3 == shared_descriptor(0x37c00, 3),
              "a k32 step adds 2 to the descriptor (32 bytes in units of 16)");

// BLOCK_SCALE=1's scales of one slab for this thread's accumulators: A's of its two rows in each wgmma tile, B's of
// the tile's one or two 128-column blocks. Rows and blocks beyond D get 0.
struct BlockScales {
  const float* a;  // scale_a
  const float* b;  // scale_b
  int M, N, K;
};
struct SlabScales {
  static constexpr int kBlocksN = BN > 128 ? 2 : 1;
  float a[kTiles][2], b[kBlocksN];
  __device__ __forceinline__ void load(const BlockScales& s, const Tile& tile, int first, int kb) {
    const int t = threadIdx.x % 128, blocks_k = (s.K + 127) / 128;
#pragma unroll
    for (int i = 0; i < kTiles; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int m = tile.m0 + (first + i) * 64 + acc_row(t, 2 * h);
        a[i][h] = m < s.M ? __ldg(s.a + (u64)kb * s.M + m) : 0.0f;
      }
#pragma unroll
    for (int j = 0; j < kBlocksN; ++j) {
      const int nb = tile.n0 / 128 + j;
      b[j] = nb * 128 < s.N ? __ldg(s.b + (u64)nb * blocks_k + kb) : 0.0f;
    }
  }
  // Accumulator r of wgmma tile i: its row's scale times its column block's (column 8 (r / 4) + ...: block r / 64).
  __device__ __forceinline__ float factor(int i, int r) const { return a[i][r % 4 / 2] * b[kBlocksN == 2 ? r / 64 : 0]; }
};
static_assert(BLOCK_SCALE == 0 || PROMOTE == 1 && !kSwap && (BN == 64 || BN == 128 || BN == 256),
              "block scales: one slab per block of K, SWAP=0, tiles within one or two blocks of B's scales");

// PROMOTE's main loop with one buffer of partial sums (tiles whose registers cannot hold two; kOverlap): the wgmmas of
// PROMOTE slabs sum into it, then after a wait (every stage read so far released) it is added to `acc`; between
// promotions a stage is released one slab later. `issued()` runs once the last slab's wgmmas are issued.
template <typename Issued>
__device__ __forceinline__ void consume_promoted(const Block& block, float (&acc)[kTiles][kAccs], int first,
                                                 const BlockScales& scales, Issued&& issued) {
  float part[kTiles][kAccs];
  SlabScales slab;
  if (block.slabs > 0) stage_wait(block.ring, block.it);
#pragma unroll 1
  for (int i = 0; i < block.slabs; i += PROMOTE) {
    bool skip = false;  // a test build left out a slab of these partial sums
#pragma unroll
    for (int p = 0; p < PROMOTE; ++p) {  // unrolled: which wgmma starts the sums afresh is known when compiling
      if (i + p == block.slabs) break;
      const int it = block.it + i + p;
      if (p > 0) stage_wait(block.ring, it);  // the first slab's was waited for before the last promotion
      wgmma_fence();
      skip |= skipped(block, i + p);
      if (!skipped(block, i + p)) multiply(block.ring.base + (unsigned(it) % STAGES) * kStage, part, first, p == 0);
      wgmma_commit();
      if (i + p + 1 == block.slabs) issued();
      if (p > 0) {
        wgmma_wait<1>();
        stage_release(block.ring, it - 1);
      }
    }
    if (BLOCK_SCALE) slab.load(scales, block.tile, first, block.slab_begin + i);  // while the wgmmas run
    // The next promotion's first stage, also while they run: the wait for the wgmmas, the sums and the next slab's
    // wgmmas then follow each other without a wait for the loads between them.
    if (i + PROMOTE < block.slabs) stage_wait(block.ring, block.it + i + PROMOTE);
    wgmma_wait<0>();
#pragma unroll
    for (int t = 0; t < kTiles; ++t) pin(part[t]);
    stage_release(block.ring, block.it + min(i + PROMOTE, block.slabs) - 1);
    if (skip) continue;
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
#pragma unroll
      for (int r = 0; r < kAccs; ++r) acc[t][r] += BLOCK_SCALE ? slab.factor(t, r) * part[t][r] : part[t][r];
  }
}

// consume_promoted with two buffers of partial sums (kOverlap), walked by gemm_fp8_promote::consume_overlapped: what
// it issues into and adds from buffer B.
struct Partials {
  const Block& block;
  float (&acc)[kTiles][kAccs];
  int first;
  const BlockScales& scales;
  float part[2][kTiles][kAccs];
  SlabScales slab[2];
  bool skip[2];  // a test build left out a slab of the buffer's sums
  // The wgmmas of slab i of the unit (the ring's slab it) into buffer B; `fresh`: the buffer starts afresh.
  template <int B>
  __device__ __forceinline__ void multiply(unsigned it, int i, bool fresh) {
    if (fresh) skip[B] = false;
    skip[B] |= skipped(block, i);
    if (!skipped(block, i)) gemm_fp8_detail::multiply(block.ring.base + (it % STAGES) * kStage, part[B], first, fresh);
    if (BLOCK_SCALE && fresh) slab[B].load(scales, block.tile, first, block.slab_begin + i);  // while they run
  }
  // Buffer B added to the accumulators, once its wgmmas are done.
  template <int B>
  __device__ __forceinline__ void promote() {
#pragma unroll
    for (int t = 0; t < kTiles; ++t) pin(part[B][t]);
    if (skip[B]) return;
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
#pragma unroll
      for (int r = 0; r < kAccs; ++r) acc[t][r] += BLOCK_SCALE ? slab[B].factor(t, r) * part[B][t][r] : part[B][t][r];
  }
};

// The block's main loop for one unit: `acc` zeroed, then every slab of it.
template <typename Issued>
__device__ __forceinline__ void main_loop(const Block& block, float (&acc)[kTiles][kAccs], int first,
                                          const BlockScales& scales, Issued&& issued) {
#pragma unroll
  for (int i = 0; i < kTiles; ++i)
#pragma unroll
    for (int r = 0; r < kAccs; ++r) acc[i][r] = 0.0f;
  if constexpr (kOverlap) {
    Partials sums{block, acc, first, scales};
    // Every register of the sums defined before the first wgmma (the fresh wgmmas' registers are operands too), so
    // that no instruction defines them while wgmmas run: else ptxas serializes the wgmmas (zeros the compiler moved
    // under the first slab's wgmmas) or adds a wait for them (a buffer's first, undefined, contents).
#pragma unroll
    for (int i = 0; i < kTiles; ++i) {
#pragma unroll
      for (int r = 0; r < kAccs; ++r) sums.part[0][i][r] = sums.part[1][i][r] = 0.0f;
      pin(acc[i]), pin(sums.part[0][i]), pin(sums.part[1][i]);
    }
    gemm_fp8_promote::consume_overlapped<PROMOTE>(block, sums, issued);
  } else if constexpr (PROMOTE >= 1) {
    consume_promoted(block, acc, first, scales, issued);
  } else {
#pragma unroll
    for (int i = 0; i < kTiles; ++i) pin(acc[i]);  // zeroed before the first wgmma: ptxas then keeps them in flight
    consume_slabs<kStage>(block, [&](unsigned stage) { multiply(stage, acc, first, false); }, issued);
#pragma unroll
    for (int i = 0; i < kTiles; ++i) pin(acc[i]);  // every accumulator read below comes after the wait
  }
}

// SWAP=0, before either store of the tile: scale and bias applied to this thread's accumulators in place (the stores
// then only round and add beta * C). The bias is read 64 columns at a time, two values per lane in one coalesced load,
// and shuffled to the lanes that hold them: a load per value kept the texture pipeline busy (ncu, 8192x8192x256).
__device__ __forceinline__ void scale_and_bias(float (&acc)[kTiles][kAccs], int n0, int t, const Output& out) {
  static_assert(kSwap || kAccs == BN / 2,
                "64-column segments of 8 n8 blocks (the last one of BN % 64 columns), 4 accumulators per block");
  if constexpr (!kSwap) {  // SWAP=1 applies them as it stores (Output::store)
    const int lane = t % 32, q = t % 4;
    if (out.bias == nullptr) {  // the same for every thread
#pragma unroll
      for (int i = 0; i < kTiles; ++i)
#pragma unroll
        for (int r = 0; r < kAccs; ++r) acc[i][r] *= out.scale;
      return;
    }
#pragma unroll
    for (int s = 0; s < (BN + 63) / 64; ++s) {
      float mine[2];
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int n = n0 + 64 * s + 2 * lane + e;
        mine[e] = n < out.N ? to_float(out.bias[n]) : 0.0f;
      }
#pragma unroll
      for (int j = 0; j < 8 && 8 * (8 * s + j) < BN; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const float b = __shfl_sync(0xffffffffu, mine[e], 4 * j + q);
#pragma unroll
          for (int i = 0; i < kTiles; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              float& a = acc[i][4 * (8 * s + j) + 2 * h + e];
              a = out.scale * a + b;
            }
        }
    }
  }
}
static_assert(acc_col(5, 4 * 3 + 2 + 1) == 8 * 3 + 2 * (5 % 4) + 1,
              "accumulator 4 j + 2 h + e of thread t: column 8 j + 2 (t % 4) + e, lane 4 j + q's pair of the segment");

// SWAP=0: this warpgroup's rows of the tile, from row `row0` of C, stored from the registers 8 columns at a time
// (gathered within each quad of threads).
__device__ __forceinline__ void store_rows(const float (&acc)[kTiles][kAccs], int row0, int n0, int t, int M,
                                           const Output& out) {
#pragma unroll
  for (int i = 0; i < kTiles; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + i * 64 + acc_row(t, 2 * h);
#pragma unroll
      for (int jj = 0; jj < BN / 32; ++jj) {
        float v[8];
        quad_gather(v, &acc[i][16 * jj + 2 * h], t % 4);
        out.store8(row, M, n0 + 8 * (4 * jj + t % 4), v);
      }
    }
}

// EPI=1: the 32 bits staged for D's elements (m, n) and (m, n + 1) (N is even: a pair is inside D or not).
struct OutputPair {
  const Output& out;
  int M;
  __device__ __forceinline__ unsigned operator()(int m, int n, float a0, float a1) const {
    float v[2] = {out.scale * a0, out.scale * a1};
    if (m < M && n < out.N) {
      const out_t* c = out.C + (u64)m * out.N + n;
      if (out.beta != 0.0f) v[0] += out.beta * to_float(c[0]), v[1] += out.beta * to_float(c[1]);
      if (out.bias != nullptr) v[0] += to_float(out.bias[n]), v[1] += to_float(out.bias[n + 1]);
    }
    union { out_t e[2]; unsigned u; } bits;
    bits.e[0] = to_out(v[0]), bits.e[1] = to_out(v[1]);
    return bits.u;
  }
};

// SWAP=1: the consumers' slices of C^T staged as the BM x BN tile in the ring (gemm_sm90_transposed.cu's layout: every
// wgmma has read its stage, and no load is pending), then stored 8 columns at a time.
__device__ __forceinline__ void store_swapped(const float (&acc)[kTiles][kAccs], const Tile& tile, int first,
                                              unsigned char* smem_raw, unsigned ring_base, int M,
                                              const Output& out) {
  static_assert(epilogue_covers_chunk<SameColumn>() && staged_stores_are_conflict_free<SameColumn>(),
                "the staged layout holds each element once, without bank conflicts");
  const int t = threadIdx.x % 128;
  float* staged = reinterpret_cast<float*>(smem_raw + (ring_base - smem_u32(smem_raw)));
  consumer_sync();
#pragma unroll
  for (int i = 0; i < kTiles; ++i)
#pragma unroll
    for (int r = 0; r < kAccs; ++r) staged[staged_at(acc_col(t, r), 64 * (first + i) + acc_row(t, r))] = acc[i][r];
  consumer_sync();
  for (int at = threadIdx.x - 128; at < BM * BN / 8; at += kConsumerThreads) {
    const int row = at / (BN / 8), col = 8 * (at % (BN / 8));
    float v[8];
#pragma unroll
    for (int h = 0; h < 2; ++h) {  // staged_at keeps 4-float chunks whole
      const float4 v4 = *reinterpret_cast<const float4*>(staged + staged_at(row, col + 4 * h));
      v[4 * h] = v4.x, v[4 * h + 1] = v4.y, v[4 * h + 2] = v4.z, v[4 * h + 3] = v4.w;
    }
    out.store8(tile.m0 + row, M, tile.n0 + col, v);
  }
}

}  // namespace gemm_fp8_detail

extern "C" __global__ void __launch_bounds__(gemm_fp8_detail::kThreads, PERSIST == 2 ? 2 : 1)
    gemm_fp8(GEMM_FP8_PARAMETERS(__grid_constant__)) {
  GEMM_SHAPE_CONSTANTS();
  using namespace gemm_fp8_detail;
  (void)A, (void)B;  // read through the tensor maps
  extern __shared__ unsigned char smem_raw[];
  Block block;
  constexpr int kBoxes = 1 + MC;  // with multicast each block of the cluster loads half of B's rows for both
  if (!start_block<kRing, kStageA, kBoxes, BN / kBoxes * kRow, BN / kBoxes, kReallocate>(M, N, K, &a_map, &b_map,
                                                                                        smem_raw, block))
    return;
  const int consumer = consumer_warpgroup(), t = threadIdx.x % 128;
  const int first = kShare * consumer * kTiles;  // this warpgroup's first wgmma tile of the block's
  const Output out{C, bias, BLOCK_SCALE ? alpha : alpha * *scale_a * *scale_b, beta, N};
  const BlockScales scales{scale_a, scale_b, M, N, K};
  float acc[kTiles][kAccs];
  int unit = 0;  // the block's units so far (ping-pong: consumer warpgroup unit % 2 computes the unit)
#pragma unroll 1
  do {
    if (PINGPONG && unit % 2 != consumer) continue;  // the other warpgroup's tile
    if (PINGPONG && unit > 0) turn_wait(consumer);
    main_loop(block, acc, first, scales, [&] {  // the other warpgroup's main loop follows, under this one's epilogue
      if (PINGPONG && has_next_tile(M, N, K, block)) turn_pass(consumer);
    });
    if (SPLITK > 1 && !splitk_finish<kTiles * kAccs>(&acc[0][0], workspace, counters, block)) return;
    if (!streamk_reduce<kTiles * kAccs>(&acc[0][0], workspace, counters, block, M, N, K)) continue;
    if constexpr (kSwap) {
      store_swapped(acc, block.tile, first, smem_raw, block.ring.base, M, out);
      continue;
    }
    scale_and_bias(acc, block.tile.n0, t, out);
    const Output plain{C, nullptr, 1.0f, beta, N};
#if OUT != 0
    if constexpr (EPI == 1) {
      gemm_sm90_store::store_tile<kTiles, kAccs>(acc, block.tile, consumer, block.tile.m0 + first * 64,
                                                 block.ring.base + kStages + consumer * staged_d_bytes(), &c_map,
                                                 OutputPair{plain, M});
      continue;
    }
#endif
    store_rows(acc, block.tile.m0 + first * 64, block.tile.n0, t, M, plain);
  } while (++unit, next_tile(M, N, K, block));
  if (EPI == 1 && threadIdx.x % 128 == 0) bulk_wait_all<0>();  // the last stores are written before the block ends
  finish_block();
}
#endif  // PATH == 1 && !defined(CUTUNE_REFERENCE)
