// The swapped-operand wgmma + TMA path (PATH=1, SWAP=1) of the 16-bit tensor-core GEMMs gemm_bf16 and gemm_f16, for
// skinny M (decode GEMMs): the specs compile it after gemm_wgmma.cu (SWAP=0, whose pipeline and maps it shares).
//
// With M of 16 or 64, C = A B wastes most of wgmma's m64 tile on rows that do not exist, while the GEMM's cost is
// reading B. So this kernel computes C^T = B^T A^T, with the small M as wgmma's N (BM = 16, 32, 64 or 128, a multiple
// of 8): wgmma's A operand (64 x 16) is a 64-column box of B as TMA leaves it, N-major, which is M-major for wgmma's A
// and read through A's transpose bit (16-bit types allow it; TF32 does not, and loads it into registers instead);
// wgmma's B operand (16 x BM) is A's tile, K-major, as SWAP=0 reads A. Nothing goes through registers but the
// accumulators, which hold slices of C^T: wgmma row R of chunk j is column n0 + 64 j + R of C, wgmma column c is row
// m0 + c. The epilogue is the transposed one TF32's PATH 1 uses (gemm_sm90_transposed.cu), with EPI_VEC 8 staged and
// EPI_VEC 2 storing each element where it is.
//
// A block of 1 + WG warpgroups computes a BM x BN tile: the producer loads each slab exactly as for SWAP=0 (A's
// BM x 64 box, B's BN / 64 boxes of 64 x 64); each consumer warpgroup owns kNR = BN / (64 WG) chunks of 64 columns and
// all BM rows, and per slab and k16 step issues one wgmma.mma_async.m64n{BM}k16 per chunk. Stages are small
// ((BM + BN) x 128 bytes), so the specs allow up to 8 of them, to keep more of B in flight.
#if PATH == 1 && SWAP == 1

namespace gemm_wgmma_swap_detail {
using namespace gemm_sm90;
using gemm_wgmma_ops::MmaT;

constexpr int kNR = BN / (64 * WG);   // 64-column chunks of the tile per consumer warpgroup
constexpr int kAccs = BM / 2;         // accumulator registers per chunk and thread (wgmma's N is BM)
constexpr unsigned kStageA = BM * kRow, kBoxB = 64 * kRow, kStage = kStageA + BN * kRow;  // bytes
constexpr bool kStaged = EPI_VEC == 8;
constexpr unsigned kRing = STAGES * kStage > transposed_staging_bytes<kStaged>() ? STAGES * kStage
                                                                               : transposed_staging_bytes<kStaged>();
static_assert(TYPE == 1 || TYPE == 2, "SWAP=1 multiplies 16-bit elements (BF16 or FP16)");
static_assert(BK == 64, "a slab is one 128-byte swizzle row of 16-bit elements deep");
static_assert(BM == 16 || BM == 32 || BM == 64 || BM == 128, "wgmma n16, n32, n64 or n128");
static_assert(kStageA % kGroup == 0, "B's boxes start on a swizzle repeat (1024 bytes)");
static_assert(kNR >= 1 && BN % (64 * WG) == 0, "each consumer warpgroup owns whole 64-column chunks");
static_assert(kNR * kAccs <= 128, "at most 128 accumulator registers per thread");
static_assert(EPI_VEC == 2 || EPI_VEC == 8, "EPI_VEC 2 (in place) or 8 (staged rows)");

// The k16 step `ks` of chunk `chunk` of a stage's B boxes, read as wgmma's A (M-major, transposed), and of its A rows,
// read as wgmma's B (K-major, BM rows).
__host__ __device__ constexpr u64 bt_descriptor(unsigned stage, int chunk, int ks) {
  return mnmajor_descriptor(stage + kStageA + chunk * kBoxB, ks);
}
__host__ __device__ constexpr u64 at_descriptor(unsigned stage, int ks) { return kmajor_descriptor(stage, ks); }
static_assert(bt_descriptor(0x10000, 1, 2) == descriptor(0x10000 + kStageA + 8192 + 4096, 8192, 1024),
              "chunks are 64-column boxes 8192 bytes apart, k16 steps 16 rows (2048 bytes)");
static_assert(at_descriptor(0x10000, 3) == descriptor(0x10000 + 96, 16, 1024), "k16 steps are 32 bytes along A's rows");

// Two consumer warpgroups of 128 accumulators each reallocate registers (gemm_sm90.cu says why and how).
constexpr bool kReallocate = WG == 2 && kNR * kAccs == 128;

}  // namespace gemm_wgmma_swap_detail

extern "C" __global__ void __launch_bounds__(gemm_wgmma_swap_detail::kThreads)
    gemm_tc(GEMM_TC_PARAMETERS) {
  GEMM_SHAPE_CONSTANTS();
  using namespace gemm_wgmma_swap_detail;
  (void)A, (void)B;  // read through the tensor maps
  extern __shared__ unsigned char smem_raw[];
  Block block;
  if (!start_block<kRing, kStageA, BN / 64, kBoxB, 64, kReallocate>(M, N, K, &a_map, &b_map, smem_raw, block)) return;
  const int consumer = consumer_warpgroup();
  float acc[kNR][kAccs];
#pragma unroll
  for (int nr = 0; nr < kNR; ++nr)
#pragma unroll
    for (int r = 0; r < kAccs; ++r) acc[nr][r] = 0.0f;

  consume_slabs<kStage>(block, [&](unsigned stage) {
#pragma unroll
    for (int ks = 0; ks < BK / 16; ++ks) {
      const u64 b = at_descriptor(stage, ks);
#pragma unroll
      for (int nr = 0; nr < kNR; ++nr) MmaT<BM>::run(acc[nr], bt_descriptor(stage, consumer * kNR + nr, ks), b, 1);
    }
  }, [] {});
#pragma unroll
  for (int nr = 0; nr < kNR; ++nr) pin(acc[nr]);  // every accumulator read below comes after the wait

  if (SPLITK > 1 && !splitk_finish<kNR * kAccs>(&acc[0][0], workspace, counters, block)) return;
  store_transposed<SameColumn, kStaged>(acc, block.tile, consumer, smem_raw, block.ring.base, M, N, C, alpha, beta);
}
#endif  // PATH == 1 && SWAP == 1
