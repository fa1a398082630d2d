// The wgmma + TMA instruction path (PATH=1) of the TF32 tensor-core GEMM gemm_tf32, for sm_90a: the spec compiles it
// after gemm_tc_shared.cu, gemm_tc.cu, gemm_sm90.cu (the pipeline both wgmma kernels share, described there),
// gemm_sm90_streamk.cu (stream-K's fixup), gemm_sm90_transposed.cu (the transposed product's epilogues) and
// gemm_wgmma_tf32_ops.cu (the instructions).
//
// wgmma reads 32-bit operands from shared memory K-major only (no transpose bit). A (row-major M x K) is K-major, B
// (row-major K x N) is not, so the kernel computes the transposed product C^T = B^T A^T: wgmma's A operand (64 x 8)
// is a 64-column slice of B^T, which each thread loads from shared memory into registers (ld.shared, undoing TMA's
// swizzle); wgmma's B operand (8 x BM) is A^T, A's tile exactly as TMA leaves it, read through a K-major descriptor.
// The accumulators then hold a slice of C^T: wgmma row R of chunk j is column n0 + 64 j + chunk_col(R) of C, wgmma
// column c is row m0 + c.
//
// A block of 1 + WG warpgroups computes a BM x BN tile of C. The producer loads each slab of BK = 32 floats: A's
// 32 x BM box through a_map, B's 32 x BN rows as BN / 32 boxes of 32 x 32 through b_map. Each consumer warpgroup owns
// BN / WG columns of the tile, kNR chunks of 64, and all BM rows: per slab and k8 step, one
// wgmma.mma_async.m64n{BM}k8 per chunk. Once a slab's wgmmas are done (wait_group 1, one slab later) the consumers
// release its stage. The accumulators then go to C with alpha, beta and bounds checks: EPI_VEC 1 stores each element
// where it is (a warp's store writes 16-byte pieces of 4 rows), EPI_VEC 4 stages the tile in shared memory (the stages
// are free after the main loop) so that consecutive threads store consecutive 16-byte chunks of rows, and EPI_VEC 64
// stages a 64-column chunk at a time after the ring and writes it with TMA stores, which run on under the next tile.
// With PERSIST=1 a block computes tile after tile (gemm_sm90.cu), the producer loading the next tile's slabs while the
// consumers store C; with STREAMK the persistent blocks share the tiles' slabs of K (gemm_sm90_streamk.cu); with
// PINGPONG=1 the two consumer warpgroups take whole tiles in turns (gemm_sm90.cu), one's epilogue under the other's
// main loop.
//
// Shared-memory layouts, agreed between the tensor maps (128-byte swizzle) and the loads:
//   A, K-major: as in the 16-bit kernel, row m of the box at byte 128 m, its 16-byte chunk c at chunk c ^ (m % 8);
//     a k8 step is 32 bytes along the rows (gemm_sm90::kmajor_descriptor), and wgmma's N extent is BM rows.
//   B, N-major: box j (columns 32 j..32 j + 31) at byte 4096 j after A, k-row r of it at 128 r, its 16-byte chunk c
//     (columns 4 c..4 c + 3) at chunk c ^ (r % 8) (b_offset).
// Registers: wgmma reads its A registers asynchronously, so a slab's fragments stay untouched until the wait that
// covers its wgmmas, one slab later: two fragment buffers, used in turn, each pinned after that wait.
//
// TF32: the float bits go to the tensor cores as they are, which read their top 19 bits, as on PATH 0.
// Shapes: TMA needs 16-byte row strides (K and N multiples of 4) and reads zeros outside A and B, so any M, N, K that
// meet that work; the spec leaves the others to PATH 0.
#if PATH == 1

namespace gemm_wgmma_tf32_detail {
using namespace gemm_sm90;
using gemm_wgmma_tf32_ops::MmaRs;

constexpr int kNR = BN / (64 * kReaders);      // 64-column chunks per consumer warpgroup (ping-pong: the whole tile)
constexpr int kAccs = BM / 2;                  // accumulator registers per chunk and thread (wgmma's N is BM)
constexpr int kSteps = BK / 8;                 // k8 steps per slab
constexpr int kFrags = kNR * kSteps * 4;       // fragment registers of one slab
constexpr unsigned kStageA = BM * kRow;
constexpr unsigned kBoxB = BK * kRow;          // one box of B: 32 columns (128 bytes) by BK k-rows
constexpr unsigned kStage = kStageA + BN / 32 * kBoxB;
constexpr unsigned kStaged = transposed_staging_bytes<EPI_VEC == 4>();
constexpr unsigned kStaging = STAGES * kStage > kStaged ? STAGES * kStage : kStaged;  // EPI_VEC 64's boxes from here
constexpr unsigned kRing = kStaging + (EPI_VEC == 64 ? WG * 2 * kBoxT : 0);
static_assert(TYPE == 0, "this PATH 1 multiplies TF32 (float) elements");
static_assert(BK == 32, "a slab is one 128-byte swizzle row of floats deep");
static_assert(BM % 16 == 0 && BM >= 64 && BM <= 256, "wgmma n64 to n256 in steps of 16");
static_assert(kNR >= 1 && BN % (64 * kReaders) == 0, "each consumer warpgroup owns whole 64-column chunks");
static_assert(kNR * kAccs <= 128, "at most 128 accumulator registers per thread");
static_assert(kNR * kAccs + 2 * kFrags <= 192, "accumulators and two fragment buffers fit the registers");
static_assert(EPI_VEC == 1 || EPI_VEC == 4 || EPI_VEC == 64, "EPI_VEC 1 (in place), 4 (staged rows) or 64 (TMA)");
static_assert(EPI_VEC != 4 || PERSIST == 0, "EPI_VEC 4 stages C in the ring, which the next tile's loads fill");
static_assert(PERSIST <= 1, "one persistent block per SM");

// The column (0..63) of a 64-column chunk of C that wgmma row R of the chunk stands for. Warp q's rows 16 q..16 q + 15
// are loaded by its lanes as rows g = lane / 4 and g + 8 (h = 1), and one load instruction reads 8 rows g at 4 k-rows
// tig = lane % 4 (a fragment register). In the identity order those 8 columns lie in two neighbouring 16-byte chunks,
// which the swizzle (chunk ^ k % 8) sends to the same 4 of the 8 chunk positions at the 4 k-rows: 2-way bank
// conflicts. Here rows g = 0..3 take chunk c and g = 4..7 chunk c + 4, so that the 4 k-rows spread them over all 8.
__host__ __device__ constexpr int chunk_col(int row) {
  const int q = row / 16, h = row % 16 / 8, g = row % 8;
  return 32 * (q / 2) + 4 * (2 * (q % 2) + h + 4 * (g / 4)) + g % 4;
}
// Where TMA leaves B's element (k-row k, column n of the tile) in a stage's B part, in bytes.
__host__ __device__ constexpr unsigned b_offset(int k, int n) {
  return (n / 32) * kBoxB + k * kRow + (((n % 32) / 4) ^ (k % 8)) * 16 + (n % 4) * 4;
}
// Fragment register e (a0..a3) of lane `lane` of warp q at k8 step ks, in a 64-column chunk of B (PTX ISA, wgmma's
// .tf32 A fragments): row lane / 4 (+ 8 for a1, a3) of the warp's 16, column lane % 4 (+ 4 for a2, a3).
__host__ __device__ constexpr unsigned fragment_offset(int q, int lane, int e, int ks) {
  return b_offset(8 * ks + lane % 4 + 4 * (e / 2), chunk_col(16 * q + lane / 4 + 8 * (e % 2)));
}
struct ChunkColumn {
  __host__ __device__ constexpr int operator()(int row) const { return chunk_col(row); }
};
// Checked when the kernel compiles: chunk_col is a permutation (so the epilogue, which uses it too, writes each
// column once), a fragment's k8 steps are 8 k-rows (1024 bytes) apart, and every fragment load of a warp hits 32
// different banks.
__host__ __device__ constexpr bool chunk_col_is_a_permutation() {
  bool seen[64] = {};
  for (int r = 0; r < 64; ++r) {
    const int c = chunk_col(r);
    if (c < 0 || c >= 64 || seen[c]) return false;
    seen[c] = true;
  }
  return true;
}
__host__ __device__ constexpr bool fragment_loads_are_conflict_free() {
  for (int q = 0; q < 4; ++q)
    for (int e = 0; e < 4; ++e)
      for (int ks = 0; ks < kSteps; ++ks) {
        bool bank[32] = {};
        for (int lane = 0; lane < 32; ++lane) {
          const unsigned at = fragment_offset(q, lane, e, ks);
          if (at != fragment_offset(q, lane, e, 0) + ks * 8 * kRow || at % 4 != 0 || at >= 2 * kBoxB) return false;
          if (bank[at / 4 % 32]) return false;
          bank[at / 4 % 32] = true;
        }
      }
  return true;
}
static_assert(chunk_col_is_a_permutation(), "each wgmma row stands for one column of the chunk");
static_assert(fragment_loads_are_conflict_free(), "fragment loads of a warp hit 32 banks, k8 steps 1024 bytes apart");
static_assert(b_offset(9, 37) == kBoxB + 9 * kRow + ((1 ^ 1) * 16) + 4, "B's swizzle: chunk c of k-row r at c ^ r % 8");


// One slab's fragments of this thread: chunk nr, step ks, register e at f[(nr * kSteps + ks) * 4 + e]. `chunks` is
// the stage's B part at this warpgroup's first chunk, `at` the thread's offsets of a0..a3 at step 0.
__device__ __forceinline__ void load_fragments(unsigned (&f)[kFrags], unsigned chunks, const unsigned (&at)[4]) {
#pragma unroll
  for (int nr = 0; nr < kNR; ++nr)
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        // volatile: stays after the wait for the stage to fill (an asm statement without it could move above it).
        asm volatile("ld.shared.b32 %0, [%1];"
                     : "=r"(f[(nr * kSteps + ks) * 4 + e])
                     : "r"(chunks + nr * 2 * kBoxB + ks * 8 * kRow + at[e]));
      }
}

// Two consumer warpgroups whose accumulators and fragments need more than the 168 registers of the launch reallocate
// (gemm_sm90.cu says why and how); with persistent blocks, whose walk across tiles (and stream-K's fixup) stays live,
// those of 112 (BM 160) and more too, and with ping-pong, whose warpgroups keep fewer values of the walk, those of 120
// (BM 176) and more. The compile tests check where this rule leaves the 168 that it relies on (with fewer needed,
// ptxas allocates fewer, ignores setmaxnreg and serializes the wgmmas).
constexpr int kReallocateFrom = PERSIST == 0 ? 129 : PINGPONG == 0 ? 112 : 120;
constexpr bool kReallocate = WG == 2 && kNR * kAccs + 2 * kFrags >= kReallocateFrom;

// One unit of work's main loop (a tile, or with stream-K a run of its slabs), for this consumer warpgroup: the
// accumulators start at zero; per slab, wait for its stage, load the fragments of B^T into the buffer not in use, hand
// them and the accumulators to the wgmmas, and once the previous slab's wgmmas are done (wait_group 1) release its
// stage and its fragment buffer. Slab i of the unit is slab block.it + i of the ring. `issued()` runs once the last
// slab's wgmmas are issued (ping-pong hands the turn over there). Returns after every wgmma; with persistent blocks the
// unit's last stage is released then, for the next unit's loads.
template <typename Issued>
__device__ __forceinline__ void multiply_unit(const Block& block, float (&acc)[kNR][kAccs], unsigned chunks,
                                              const unsigned (&at)[4], Issued&& issued) {
  const Ring& ring = block.ring;
  unsigned fa[kFrags], fb[kFrags];  // live in the main loop only, not under the epilogue
#pragma unroll
  for (int e = 0; e < kFrags; ++e) fa[e] = fb[e] = 0u;  // pinned as "the previous slab's" by slab 0 (or no slab)
#pragma unroll
  for (int nr = 0; nr < kNR; ++nr)
#pragma unroll
    for (int r = 0; r < kAccs; ++r) acc[nr][r] = 0.0f;
#pragma unroll
  for (int nr = 0; nr < kNR; ++nr) pin(acc[nr]);  // zeroed before the first wgmma: ptxas then keeps them in flight
  // Slab i with fragment buffer `cur`; `prev` holds the slab before's, which the wait below releases.
  auto slab = [&](int i, unsigned (&cur)[kFrags], unsigned (&prev)[kFrags]) {
    const int it = block.it + i;
    stage_wait(ring, it);
    const unsigned stage = ring.base + (unsigned(it) % STAGES) * kStage;
    load_fragments(cur, stage + chunks, at);
    wgmma_fence();  // the fragments' and accumulators' registers are handed to the wgmmas
    if (!skipped(block, i)) {
#pragma unroll
      for (int ks = 0; ks < kSteps; ++ks) {
        const u64 b = kmajor_descriptor(stage, ks);
#pragma unroll
        for (int nr = 0; nr < kNR; ++nr) MmaRs<BM>::run(acc[nr], &cur[(nr * kSteps + ks) * 4], b, 1);
      }
    }
    wgmma_commit();
    // The previous slab's wgmmas are done (this one's keep the tensor cores busy): its stage can be refilled, and
    // its fragment registers reused from here on, not before.
    wgmma_wait<1>();
    pin(prev);
    if (i > 0) stage_release(ring, it - 1);
  };
  int i = 0;
#pragma unroll 1
  for (; i + 1 < block.slabs; i += 2) {
    slab(i, fa, fb);
    slab(i + 1, fb, fa);
  }
  if (i < block.slabs) slab(i, fa, fb);
  issued();
  wgmma_wait<0>();
  pin(fa);
  pin(fb);
#pragma unroll
  for (int nr = 0; nr < kNR; ++nr) pin(acc[nr]);  // every accumulator read after this comes after the wait
  if (PERSIST) stage_release(ring, block.it + block.slabs - 1);
}

}  // namespace gemm_wgmma_tf32_detail

extern "C" __global__ void __launch_bounds__(gemm_wgmma_tf32_detail::kThreads)
    gemm_tc(GEMM_TC_PARAMETERS) {
  GEMM_SHAPE_CONSTANTS();
  using namespace gemm_wgmma_tf32_detail;
  (void)A, (void)B;  // read through the tensor maps
  extern __shared__ unsigned char smem_raw[];
  Block block;
  if (!start_block<kRing, kStageA, BN / 32, kBoxB, 32, kReallocate>(M, N, K, &a_map, &b_map, smem_raw, block)) return;
  const Tile& tile = block.tile;
  const int consumer = consumer_warpgroup(), t = threadIdx.x % 128;
  unsigned at[4];
#pragma unroll
  for (int e = 0; e < 4; ++e) at[e] = fragment_offset(t / 32, t % 32, e, 0);
  const unsigned chunks = kStageA + kChunkShare * consumer * kNR * 2 * kBoxB;  // this warpgroup's columns in a stage
  float acc[kNR][kAccs];
  int unit = 0;  // the block's units so far (ping-pong: consumer warpgroup unit % 2 computes the unit)
#pragma unroll 1
  do {  // each of the block's units of work (one unless PERSIST = 1)
    if (PINGPONG && unit % 2 != consumer) continue;  // the other warpgroup's tile
    if (PINGPONG && unit > 0) turn_wait(consumer);
    multiply_unit(block, acc, chunks, at, [&] {  // the other warpgroup's main loop follows, under this one's epilogue
      if (PINGPONG && has_next_tile(M, N, K, block)) turn_pass(consumer);
    });
    if (SPLITK > 1 && !splitk_finish<kNR * kAccs>(&acc[0][0], workspace, counters, block)) return;
    if (!streamk_reduce<kNR * kAccs>(&acc[0][0], workspace, counters, block, M, N, K)) continue;  // another block stores it
    // Accumulator r of chunk nr is C's element (m0 + acc_col, n of the chunk's column chunk_col(acc_row)).
    if constexpr (EPI_VEC == 64) {
      store_transposed_tma<ChunkColumn>(acc, tile, consumer, block.ring.base + kStaging + consumer * 2 * kBoxT, &c_map,
                                        M, N, C, alpha, beta);
    } else {
      store_transposed<ChunkColumn, EPI_VEC == 4>(acc, tile, consumer, smem_raw, block.ring.base, M, N, C, alpha, beta);
    }
  } while (++unit, next_tile(M, N, K, block));
  if (EPI_VEC == 64 && t == 0) bulk_wait_all<0>();  // the last stores are written before the block ends
}
#endif  // PATH == 1
