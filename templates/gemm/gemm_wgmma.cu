// The wgmma + TMA instruction path (PATH=1) of the 16-bit tensor-core GEMMs gemm_bf16 and gemm_f16, for sm_90a: the
// specs compile it after gemm_tc_shared.cu, gemm_tc.cu, gemm_sm90.cu (the pipeline both wgmma kernels share, described
// there) and gemm_wgmma_ops.cu (the instructions).
//
// A block of 1 + WG warpgroups computes a BM x BN tile of C (BN 64 to 256 in steps of 16). The producer loads each
// slab of BK = 64 elements: A's BM x 64 box through a_map, B's 64 x BN rows as ceil(BN / 64) boxes of 64 x 64 through
// b_map (the last one read in part where BN is not a multiple of 64). The WG consumer warpgroups each own
// BM / WG rows of the tile (BM / WG / 64 wgmma tiles of m64 x BN) and, per slab, issue four k16 steps of
// wgmma.mma_async reading A and B straight from shared memory through matrix descriptors; once a slab's wgmmas are
// done (wait_group 1, one slab later) they release its stage. The accumulators then go to C with alpha, beta and
// bounds checks: EPI_VEC 2 stores each thread's pairs of columns as they are; EPI_VEC 8 first gathers 8 columns per
// thread within each quad of threads (shuffles), so that each store writes a 16-byte chunk of a row.
//
// Shared-memory layouts, agreed between the tensor maps and the descriptors:
//   A, K-major, 128-byte swizzle: row m of the box at byte 128 m, its 16-byte chunk c at chunk c ^ (m % 8). A wgmma's
//     64 x 16 piece starts at row 64 i (a multiple of 1024 bytes) plus 32 bytes per k16 step (kmajor_descriptor).
//   B, N-major (row-major B, the transpose bit): box j (columns 64 j..64 j + 63) at byte 8192 j, k-row r of it at
//     128 r, chunk c at c ^ (r % 8). A k16 step starts 16 rows (2048 bytes) further; LBO is the distance between
//     64-column boxes (8192), SBO between 8-row groups (1024). A wgmma of N = BN reads the first BN columns.
// Every stage starts on a 1024-byte boundary, where every swizzle pattern repeats, so descriptors' base offset is 0.
//
// Shapes: TMA needs 16-byte row strides (K and N multiples of 8) and reads zeros outside A and B, so any M, N, K that
// meet that work; the specs leave the others to PATH 0. SWAP=1 computes the swapped product instead
// (gemm_wgmma_swap.cu, compiled after this file). With PERSIST=1 a block computes tile after tile (gemm_sm90.cu): the
// consumers store one tile's C while the producer already loads the next tile's slabs; with MC=1 the two blocks of a
// cluster share B's loads (TMA multicast); with STREAMK the persistent blocks share the tiles' iterations
// (gemm_sm90_streamk.cu); with PINGPONG=1 the two consumer warpgroups take whole tiles in turns, one's epilogue under
// the other's main loop.
#ifndef SWAP
#define SWAP 0
#endif
#if PATH == 1 && SWAP == 0

namespace gemm_wgmma_detail {
using namespace gemm_sm90;
using gemm_wgmma_ops::Mma;

constexpr int kMR = BM / (64 * kReaders);         // m64 wgmma tiles per consumer warpgroup (ping-pong: the whole tile)
constexpr int kRowShare = PINGPONG ? 0 : 1;       // 1: consumer warpgroup c owns rows c * kMR * 64 ... of the tile
constexpr int kAccs = BN / 2;                     // accumulator registers per m64 tile and thread
// B's boxes: 64 columns by BK k-rows (one 128-byte swizzle row per k-row); where BN is not a multiple of 64 the last
// box is loaded whole and its first BN % 64 columns read (the narrower swizzles of 32- or 16-column boxes made the
// wgmmas' reads of B up to 1.5x slower on an H200: bench/RESULTS.md, "Tile widths").
constexpr int kBoxesB = (BN + 63) / 64;
constexpr unsigned kBoxB = 64 * kRow;
constexpr unsigned kStageA = BM * kRow, kStageB = kBoxesB * kBoxB, kStage = kStageA + kStageB;  // bytes per stage
static_assert(TYPE == 1 || TYPE == 2, "PATH 1 multiplies 16-bit elements (BF16 or FP16)");
static_assert(BK == 64, "a slab is one 128-byte swizzle row of 16-bit elements deep");
static_assert(kMR >= 1 && BM % (64 * kReaders) == 0, "each consumer warpgroup owns whole m64 tiles");
static_assert(BN % 16 == 0 && 64 <= BN && BN <= 256, "wgmma n64 to n256 in steps of 16");
static_assert(EPI_VEC != 8 || BN % 32 == 0, "the quad gather stores 32-column groups");
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

// Two consumer warpgroups of 128 accumulators each reallocate registers (gemm_sm90.cu says why and how).
constexpr bool kReallocate = WG == 2 && kMR * kAccs == 128;

// EPI_VEC 64: the rows of each consumer warpgroup staged for TMA stores after the ring's stages (gemm_sm90_store.cu).
using StagedC = gemm_sm90_store::StagedC<kMR>;
constexpr unsigned kStageC = EPI_VEC == 64 ? StagedC::kBytes : 0;  // bytes per consumer warpgroup
static_assert(kStage % 1024 == 0, "the staged boxes start where the swizzle pattern does");

// EPI_VEC 2 or 8: this warpgroup's rows of the tile, from row `row0` and column `n0` of C, stored from the registers.
// N is a multiple of 8 here (TMA's row strides): every pair inside C is stored as one, and every 8-column chunk.
__device__ __forceinline__ void store_from_registers(const float (&acc)[kMR][kAccs], int row0, int n0, int t, int M,
                                                     int N, elem_t* C, float alpha, float beta) {
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
          const int col = n0 + 8 * (4 * jj + t % 4);
          if (row < M && col < N) store_out<8>(crow + col, v, alpha, beta);
        }
      } else {
        if (row >= M) continue;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j)
          store_pair(crow, n0 + acc_col(t, 4 * j), N, &acc[mr][4 * j + 2 * h], alpha, beta, true);
      }
    }
}

}  // namespace gemm_wgmma_detail

extern "C" __global__ void __launch_bounds__(gemm_wgmma_detail::kThreads, PERSIST == 2 ? 2 : 1)
    gemm_tc(GEMM_TC_PARAMETERS) {
  GEMM_SHAPE_CONSTANTS();
  using namespace gemm_wgmma_detail;
  (void)A, (void)B;  // read through the tensor maps
  extern __shared__ unsigned char smem_raw[];
  Block block;
  constexpr unsigned kRing = STAGES * kStage + WG * kStageC;
  if (!start_block<kRing, kStageA, kBoxesB, kBoxB, 64, kReallocate>(M, N, K, &a_map, &b_map,
                                                                                      smem_raw, block))
    return;
  const Tile& tile = block.tile;
  const int consumer = consumer_warpgroup(), t = threadIdx.x % 128;
  const int row0_of_consumer = kRowShare * consumer * kMR * 64;  // within the tile
  float acc[kMR][kAccs];
  int unit = 0;  // the block's units so far (ping-pong: consumer warpgroup unit % 2 computes the unit)
#pragma unroll 1
  do {  // each of the block's tiles (one unless PERSIST >= 1)
    if (PINGPONG && unit % 2 != consumer) continue;  // the other warpgroup's tile
    if (PINGPONG && unit > 0) turn_wait(consumer);
#pragma unroll
    for (int mr = 0; mr < kMR; ++mr)
#pragma unroll
      for (int r = 0; r < kAccs; ++r) acc[mr][r] = 0.0f;
#pragma unroll
    for (int mr = 0; mr < kMR; ++mr) pin(acc[mr]);  // zeroed before the first wgmma: ptxas then keeps them in flight

    consume_slabs<kStage>(block, [&](unsigned stage) {
#pragma unroll
      for (int ks = 0; ks < BK / 16; ++ks) {
        const u64 b = b_descriptor(stage, ks);
#pragma unroll
        for (int mr = 0; mr < kMR; ++mr)
          Mma<BN>::run(acc[mr], a_descriptor(stage, kRowShare * consumer * kMR + mr, ks), b, 1);
      }
    }, [&] {  // the other warpgroup's main loop follows, and runs under this one's epilogue
      if (PINGPONG && has_next_tile(M, N, K, block)) turn_pass(consumer);
    });
#pragma unroll
    for (int mr = 0; mr < kMR; ++mr) pin(acc[mr]);  // every accumulator read below comes after the wait

    if (SPLITK > 1 && !splitk_finish<kMR * kAccs>(&acc[0][0], workspace, counters, block)) return;
    if (!streamk_reduce<kMR * kAccs>(&acc[0][0], workspace, counters, block, M, N, K)) continue;  // another block stores it

    if constexpr (EPI_VEC == 64) {
      gemm_sm90_store::store_tile<kMR, kAccs>(acc, tile, consumer, tile.m0 + row0_of_consumer,
                                              block.ring.base + STAGES * kStage + consumer * kStageC, &c_map,
                                              gemm_sm90_store::ScaledPair{M, N, C, alpha, beta});
      continue;
    }
    store_from_registers(acc, tile.m0 + row0_of_consumer, tile.n0, t, M, N, C, alpha, beta);
  } while (++unit, next_tile(M, N, K, block));
  if (EPI_VEC == 64 && threadIdx.x % 128 == 0) bulk_wait_all<0>();  // the last stores are written before the block ends
  finish_block();
}
#endif  // PATH == 1 && SWAP == 0
