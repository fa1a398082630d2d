// The wgmma + TMA instruction path (PATH=1) of the 16-bit tensor-core GEMMs gemm_bf16 and gemm_f16, for sm_90a: the
// specs compile it after gemm_tc_shared.cu, gemm_tc.cu, gemm_sm90.cu (the pipeline both wgmma kernels share, described
// there) and gemm_wgmma_ops.cu (the instructions).
//
// A block of 1 + WG warpgroups computes a BM x BN tile of C. The producer loads each slab of BK = 64 elements: A's
// BM x 64 box through a_map, B's 64 x BN rows as BN / 64 boxes of 64 x 64 through b_map. The WG consumer warpgroups
// each own BM / WG rows of the tile (BM / WG / 64 wgmma tiles of m64 x BN) and, per slab, issue four k16 steps of
// wgmma.mma_async reading A and B straight from shared memory through matrix descriptors; once a slab's wgmmas are
// done (wait_group 1, one slab later) they release its stage. The accumulators then go to C with alpha, beta and
// bounds checks: EPI_VEC 2 stores each thread's pairs of columns as they are; EPI_VEC 8 first gathers 8 columns per
// thread within each quad of threads (shuffles), so that each store writes a 16-byte chunk of a row.
//
// Shared-memory layouts, agreed between the tensor maps (128-byte swizzle) and the descriptors:
//   A, K-major: row m of the box at byte 128 m, its 16-byte chunk c at chunk c ^ (m % 8). A wgmma's 64 x 16 piece
//     starts at row 64 i (a multiple of 1024 bytes) plus 32 bytes per k16 step (gemm_sm90::kmajor_descriptor).
//   B, N-major (row-major B, the transpose bit): box j (columns 64 j..64 j + 63) at byte 8192 j, k-row r of it at
//     128 r, chunk c at c ^ (r % 8). A k16 step starts 16 rows (2048 bytes) further; LBO is the distance between
//     64-column boxes (8192), SBO between 8-row groups (1024).
// Every stage starts on a 1024-byte boundary, where the swizzle pattern repeats, so descriptors' base offset is 0.
//
// Shapes: TMA needs 16-byte row strides (K and N multiples of 8) and reads zeros outside A and B, so any M, N, K that
// meet that work; the specs leave the others to PATH 0. SWAP=1 computes the swapped product instead
// (gemm_wgmma_swap.cu, compiled after this file). With PERSIST=1 a block computes tile after tile (gemm_sm90.cu): the
// consumers store one tile's C while the producer already loads the next tile's slabs; with MC=1 the two blocks of a
// cluster share B's loads (TMA multicast).
#ifndef SWAP
#define SWAP 0
#endif
#if PATH == 1 && SWAP == 0

namespace gemm_wgmma_detail {
using namespace gemm_sm90;
using gemm_wgmma_ops::Mma;

constexpr int kMR = BM / (64 * WG);               // m64 wgmma tiles per consumer warpgroup
constexpr int kAccs = BN / 2;                     // accumulator registers per m64 tile and thread
constexpr unsigned kStageA = BM * kRow, kStageB = BN * kRow, kStage = kStageA + kStageB;  // bytes per stage
constexpr unsigned kBoxB = 64 * kRow;             // one 64 x 64 box of B
static_assert(TYPE == 1 || TYPE == 2, "PATH 1 multiplies 16-bit elements (BF16 or FP16)");
static_assert(BK == 64, "a slab is one 128-byte swizzle row of 16-bit elements deep");
static_assert(kMR >= 1 && BM % (64 * WG) == 0, "each consumer warpgroup owns whole m64 tiles");
static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "wgmma n64, n128, n192 or n256");
static_assert(kMR * kAccs <= 128, "at most 128 accumulator registers per thread");

// The k16 step `ks` of a stage's A rows for m64 tile `tile` (K-major: 32 bytes along the swizzled row) and of its B
// (N-major: 16 k-rows, two 8-row groups).
__host__ __device__ constexpr u64 a_descriptor(unsigned stage, int tile, int ks) {
  return kmajor_descriptor(stage + tile * 64 * kRow, ks);
}
__host__ __device__ constexpr u64 b_descriptor(unsigned stage, int ks) {
  return mnmajor_descriptor(stage + kStageA, ks);
}
static_assert(b_descriptor(0x10000 - kStageA, 1) == descriptor(0x10800, 8192, 1024), "B's k16 steps are 16 rows apart");
static_assert(accumulators_cover_tile<BN>(), "the accumulator layout must cover the tile once");

// EPI_VEC 8: the four threads of a quad (t % 4 = q) hold one row's columns 2q, 2q + 1 of every n8 block. In four
// shuffle rounds r, thread q sends its pair of block (q + r) % 4 of a group of four and receives the pair that thread
// (q - r) % 4 holds of block q: then it has all 8 columns of block q, one 16-byte chunk of the row, and a quad stores
// 64 contiguous bytes instead of 4 bytes in each of four blocks. `pairs` points at the group's first pair (this
// thread's registers 4 b + 2 h, b = 0..3, are pairs[4 b], pairs[4 b + 1]); every lane of the warp must take part.
__host__ __device__ constexpr int quad_send(int q, int r) { return (q + r) & 3; }
__host__ __device__ constexpr int quad_from(int q, int r) { return (q - r) & 3; }
__host__ __device__ constexpr bool quad_exchange_is_complete() {
  for (int q = 0; q < 4; ++q) {
    int got = 0;
    for (int r = 0; r < 4; ++r) {
      if (quad_send(quad_from(q, r), r) != q) return false;  // the sender sends the block the receiver wants
      got |= 1 << quad_from(q, r);
    }
    if (got != 15) return false;  // every lane of the quad heard once
  }
  return true;
}
static_assert(quad_exchange_is_complete(), "the quad exchange gathers each block from all four lanes");
__device__ __forceinline__ void quad_gather(float (&out)[8], const float* pairs, int q) {
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int r = 0; r < 4; ++r) {
    const int send = quad_send(q, r), from = quad_from(q, r);
    // Selects, not an index: registers cannot be addressed.
    float s0 = pairs[0], s1 = pairs[1];
#pragma unroll
    for (int b = 1; b < 4; ++b) {
      if (send == b) s0 = pairs[4 * b], s1 = pairs[4 * b + 1];
    }
    const float x0 = __shfl_sync(0xffffffffu, s0, (lane & ~3) | from);
    const float x1 = __shfl_sync(0xffffffffu, s1, (lane & ~3) | from);
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      if (from == e) out[2 * e] = x0, out[2 * e + 1] = x1;
    }
  }
}

// Two consumer warpgroups of 128 accumulators each reallocate registers (gemm_sm90.cu says why and how).
constexpr bool kReallocate = WG == 2 && kMR * kAccs == 128;

// EPI_VEC 64: each consumer warpgroup's kMR * 64 rows of the tile go through shared memory after the ring's stages, as
// BN / 64 boxes of kMR * 64 rows x 128 bytes with the 128-byte swizzle that c_map's TMA stores undo (row r's 16-byte
// chunk c at chunk c ^ (r % 8); every box starts on a 1024-byte boundary). A warp's 4-byte writes of one n8 block then
// hit 32 different banks: its 8 rows put the same chunk in 8 different places, its 4 quad lanes fill the chunk.
constexpr unsigned kStageC = EPI_VEC == 64 ? kMR * 64 * BN * 2 : 0;  // bytes per consumer warpgroup
constexpr unsigned kBoxC = kMR * 64 * kRow;                          // 64 columns of its rows
static_assert(kStage % 1024 == 0 && kBoxC % 1024 == 0, "the boxes start where the swizzle pattern does");
__host__ __device__ constexpr unsigned staged_at(int row, int col) {
  return (col / 64) * kBoxC + row * kRow + (((col % 64) / 8) ^ (row % 8)) * 16 + (col % 8) * 2;
}
__host__ __device__ constexpr bool staged_writes_are_conflict_free() {
  for (int h = 0; h < 2; ++h)
    for (int j = 0; j < BN / 8; ++j) {  // one store instruction: an n8 block of one warp
      unsigned banks = 0;
      for (int lane = 0; lane < 32; ++lane) banks |= 1u << (staged_at(acc_row(lane, 2 * h), acc_col(lane, 4 * j)) / 4 % 32);
      if (banks != 0xffffffffu) return false;
    }
  return true;
}
static_assert(EPI_VEC != 64 || staged_writes_are_conflict_free(), "the staged writes of C are free of bank conflicts");

// Stages this warpgroup's rows of the tile (alpha * acc + beta * C) at `staging` and has thread 0 store them with TMA:
// the stores run on while the consumers go on to the next tile, whose staging waits for them to have read the rows.
template <typename Acc>
__device__ __forceinline__ void store_tile_tma(const Acc& acc, const Tile& tile, int consumer, unsigned staging,
                                               const CUtensorMap* c_map, int M, int N, const elem_t* C, float alpha,
                                               float beta) {
  const int t = threadIdx.x % 128, row0 = tile.m0 + consumer * kMR * 64;
  if (t == 0) bulk_wait_read<0>();  // the last tile's stores are done reading the staging rows
  warpgroup_sync(consumer);
#pragma unroll
  for (int mr = 0; mr < kMR; ++mr)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = mr * 64 + acc_row(t, 2 * h);
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int col = acc_col(t, 4 * j);
        float v0 = alpha * acc[mr][4 * j + 2 * h], v1 = alpha * acc[mr][4 * j + 2 * h + 1];
        if (beta != 0.0f && row0 + row < M && tile.n0 + col < N) {  // N is even: the pair is inside
          const elem_t* c = C + (u64)(row0 + row) * N + tile.n0 + col;
          v0 += beta * to_float(c[0]), v1 += beta * to_float(c[1]);
        }
        union { elem_t e[2]; unsigned u; } pair;
        pair.e[0] = from_float(v0), pair.e[1] = from_float(v1);
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(staging + staged_at(row, col)), "r"(pair.u) : "memory");
      }
    }
  fence_proxy_async();  // the writes above reach the TMA unit
  warpgroup_sync(consumer);
  if (t == 0) {
#pragma unroll
    for (int b = 0; b < BN / 64; ++b) tma_store(c_map, staging + b * kBoxC, tile.n0 + 64 * b, row0);  // clipped at M, N
    bulk_commit();
  }
}

}  // namespace gemm_wgmma_detail

extern "C" __global__ void __launch_bounds__(gemm_wgmma_detail::kThreads)
    gemm_tc(GEMM_TC_PARAMETERS) {
  using namespace gemm_wgmma_detail;
  (void)A, (void)B;  // read through the tensor maps
  extern __shared__ unsigned char smem_raw[];
  Block block;
  constexpr unsigned kRing = STAGES * kStage + WG * kStageC;
  if (!start_block<kRing, kStageA, BN / 64, kBoxB, 64, kReallocate>(M, N, K, &a_map, &b_map, smem_raw, block)) return;
  const Tile& tile = block.tile;
  const int consumer = threadIdx.x / 128 - 1, t = threadIdx.x % 128;
  float acc[kMR][kAccs];
#pragma unroll 1
  do {  // each of the block's tiles (one unless PERSIST=1)
#pragma unroll
    for (int mr = 0; mr < kMR; ++mr)
#pragma unroll
      for (int r = 0; r < kAccs; ++r) acc[mr][r] = 0.0f;

    consume_slabs<kStage>(block, [&](unsigned stage) {
#pragma unroll
      for (int ks = 0; ks < BK / 16; ++ks) {
        const u64 b = b_descriptor(stage, ks);
#pragma unroll
        for (int mr = 0; mr < kMR; ++mr) Mma<BN>::run(acc[mr], a_descriptor(stage, consumer * kMR + mr, ks), b, 1);
      }
    });
#pragma unroll
    for (int mr = 0; mr < kMR; ++mr) pin(acc[mr]);  // every accumulator read below comes after the wait

    if (SPLITK > 1 && !splitk_reduce<kMR * kAccs>(&acc[0][0], workspace, counters, tile, block.ring.last_slice)) return;

    if constexpr (EPI_VEC == 64) {
      store_tile_tma(acc, tile, consumer, block.ring.base + STAGES * kStage + consumer * kStageC, &c_map, M, N, C, alpha,
                     beta);
      continue;
    }
    // N is a multiple of 8 here (TMA's row strides): every pair inside C is stored as one, and every 8-column chunk.
    const int row0 = tile.m0 + consumer * kMR * 64;
#pragma unroll
    for (int mr = 0; mr < kMR; ++mr)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = row0 + mr * 64 + acc_row(t, 2 * h);
        elem_t* crow = C + (u64)row * N;
        if constexpr (EPI_VEC == 8) {
#pragma unroll
          for (int jj = 0; jj < BN / 32; ++jj) {
            float v[8];
            quad_gather(v, &acc[mr][16 * jj + 2 * h], t % 4);
            const int col = tile.n0 + 8 * (4 * jj + t % 4);
            if (row < M && col < N) store_out<8>(crow + col, v, alpha, beta);
          }
        } else {
          if (row >= M) continue;
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
            store_pair(crow, tile.n0 + acc_col(t, 4 * j), N, &acc[mr][4 * j + 2 * h], alpha, beta, true);
          }
        }
      }
  } while (next_tile(M, N, block));
  if (EPI_VEC == 64 && threadIdx.x % 128 == 0) bulk_wait_all<0>();  // the last stores are written before the block ends
  finish_block();
}
#endif  // PATH == 1 && SWAP == 0
