// The 16-bit wgmma kernel's TMA-store epilogue (EPI_VEC 64, gemm_wgmma.cu): each consumer warpgroup stages its rows of
// C in shared memory and one of its threads writes them with TMA stores, which run on while the warpgroup goes on to
// the next tile. The specs compile it after gemm_sm90.cu.
//
// A warpgroup owns MR m64 tiles: MR * 64 rows of the BM x BN tile. They are staged as boxes of W = kBoxColumns columns
// (2 W bytes, the swizzle span: 128 bytes for W = 64, 64 or 32 for the tile widths that are not multiples of 64) by
// MR * 64 rows, each box on a 1024-byte boundary with the swizzle that c_map's stores undo (row r's 16-byte chunk c at
// chunk c ^ (r / (64 / W)) % (W / 8)); a warp's 4-byte writes of one n8 block then hit 32 different banks (its 8 rows
// put the same chunk in distinct places, its 4 quad lanes fill the chunk). EPI_SLICE 0 stages all BN / W boxes at
// once (MR * 64 * BN * 2 bytes per warpgroup); EPI_SLICE 1 (W = 64) stages one box at a time in two alternating
// buffers (4 boxes of shared memory fewer for BN = 256: room for another stage of the ring), the store of one box
// overlapping the writes of the next; EPI_SLICE 2 one box at a time in a single buffer, each box's writes waiting
// until the store of the last one has read it (what lets 256 x 128 tiles keep a ring of four stages).
#ifndef EPI_SLICE
#define EPI_SLICE 0
#endif
#if PATH == 1 && TYPE != 0

namespace gemm_sm90_store {
using namespace gemm_sm90;

template <int MR>
struct StagedC {
  static constexpr int kColumns = kBoxColumns;              // columns per box
  static constexpr unsigned kSpan = 2 * kColumns;            // bytes of a box row: the swizzle span
  static constexpr unsigned kBox = MR * 64 * kSpan;          // one box: kColumns columns of the warpgroup's rows
  static constexpr int kBoxes = BN / kColumns;               // boxes of a tile row
  static constexpr int kBlocks = kColumns / 8;               // n8 blocks of a box
  static constexpr int kPerRound = EPI_SLICE ? 1 : kBoxes;   // boxes staged, then stored, together
  static constexpr int kSets = EPI_SLICE == 1 ? 2 : 1;       // alternating buffers of kPerRound boxes
  static constexpr unsigned kBytes = kSets * kPerRound * kBox;  // per warpgroup
  static_assert(kBox % 1024 == 0, "the boxes start where the swizzle pattern does");
  static_assert(EPI_SLICE != 1 || kBoxes % 2 == 0, "alternating single boxes need an even number per tile row");
  static_assert(EPI_SLICE == 0 || kColumns == 64, "slices of 64 columns");

  // Byte offset of column `col` (within the round's boxes) of row `row` (within the warpgroup's rows): the 16-byte
  // chunk's index XOR the row's bits that select a 128-byte line of the swizzle pattern.
  __host__ __device__ static constexpr unsigned at(int row, int col) {
    const unsigned line = row * kSpan / 128 % (kSpan / 16);
    return (col / kColumns) * kBox + row * kSpan + (((col % kColumns) / 8) ^ line) * 16 + (col % 8) * 2;
  }
  __host__ __device__ static constexpr bool writes_are_conflict_free() {
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < kBlocks * kPerRound; ++j) {  // one store instruction: an n8 block of one warp
        unsigned banks = 0;
        for (int lane = 0; lane < 32; ++lane) banks |= 1u << (at(acc_row(lane, 2 * h), acc_col(lane, 4 * j)) / 4 % 32);
        if (banks != 0xffffffffu) return false;
      }
    return true;
  }
};

// Stages this warpgroup's rows of the tile, MR * 64 of them from row `row0` of C, round by round at `staging` and has
// thread 0 store each round with TMA (one bulk group per round, clipped at M and N). `pair(m, n, v0, v1)` gives the
// 32 bits staged for C's elements (m, n) and (m, n + 1) from their accumulators (the 16-bit kernel: alpha * acc +
// beta * C; the FP8 kernels add their scales and bias), for any m and n, inside C or not. Before a round's buffer is
// written again, the store that last read it must be done reading: at most kSets - 1 younger groups may still be
// reading, across tiles too.
template <int MR, int ACCS, typename Acc, typename Pair>
__device__ __forceinline__ void store_tile(const Acc& acc, const Tile& tile, int consumer, int row0, unsigned staging,
                                           const CUtensorMap* c_map, Pair&& pair) {
  using S = StagedC<MR>;
  static_assert(S::writes_are_conflict_free(), "the staged writes of C are free of bank conflicts");
  const int t = threadIdx.x % 128;
#pragma unroll
  for (int r = 0; r < S::kBoxes / S::kPerRound; ++r) {
    const unsigned set = staging + (r % S::kSets) * S::kPerRound * S::kBox;
    if (t == 0) bulk_wait_read<S::kSets - 1>();
    warpgroup_sync(consumer);
#pragma unroll
    for (int mr = 0; mr < MR; ++mr)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = mr * 64 + acc_row(t, 2 * h);
#pragma unroll
        for (int jr = 0; jr < S::kBlocks * S::kPerRound; ++jr) {  // the round's n8 blocks
          const int j = S::kBlocks * S::kPerRound * r + jr, col = acc_col(t, 4 * j);
          const unsigned bits = pair(row0 + row, tile.n0 + col, acc[mr][4 * j + 2 * h], acc[mr][4 * j + 2 * h + 1]);
          asm volatile("st.shared.u32 [%0], %1;" ::"r"(set + S::at(row, acc_col(t, 4 * jr))), "r"(bits) : "memory");
        }
      }
    fence_proxy_async();  // the writes above reach the TMA unit
    warpgroup_sync(consumer);
    if (t == 0) {
#pragma unroll
      for (int b = 0; b < S::kPerRound; ++b)
        tma_store(c_map, set + b * S::kBox, tile.n0 + S::kColumns * (S::kPerRound * r + b), row0);
      bulk_commit();
    }
  }
  static_assert(ACCS == BN / 2, "the accumulators of an m64 x BN tile");
}

// The 16-bit kernel's pair: alpha * acc + beta * C (C read inside C only; N is even, so a pair is inside or not).
struct ScaledPair {
  int M, N;
  const elem_t* C;
  float alpha, beta;
  __device__ __forceinline__ unsigned operator()(int m, int n, float a0, float a1) const {
    float v0 = alpha * a0, v1 = alpha * a1;
    if (beta != 0.0f && m < M && n < N) {
      const elem_t* c = C + (u64)m * N + n;
      v0 += beta * to_float(c[0]), v1 += beta * to_float(c[1]);
    }
    union { elem_t e[2]; unsigned u; } bits;
    bits.e[0] = from_float(v0), bits.e[1] = from_float(v1);
    return bits.u;
  }
};

}  // namespace gemm_sm90_store
#endif  // PATH == 1 && TYPE != 0
