// The epilogue of the wgmma kernels that compute the transposed product C^T = B^T A^T (TF32's PATH 1, and the 16-bit
// kernels' SWAP=1): the specs compile it after gemm_sm90.cu and before the kernel's file.
//
// Both kernels' consumer warpgroups each own kNR = BN / (64 WG) chunks of 64 columns of C and all BM rows (TF32's
// ping-pong: each warpgroup its whole tiles, kNR = BN / 64, from column 0): wgmma's M runs along N, its N (BM) along M.
// Accumulator r of chunk nr of thread t is C's element (m0 + acc_col(t, r), n0 + 64 (consumer kNR + nr) +
// COL(acc_row(t, r))), where COL maps a wgmma row to its column of the chunk: the
// identity where wgmma reads B^T from shared memory (16-bit), a permutation where the TF32 kernel loads it into
// registers in a bank-friendly order. Staged (EPI_VEC 16 bytes' worth of elements) the tile goes through shared
// memory, so that consecutive threads store consecutive 16-byte chunks of rows of C; otherwise each element is stored
// where it lies, a warp's store writing pieces of 4 rows.
#if PATH == 1

namespace gemm_sm90 {

// 1: consumer warpgroup c owns chunks c kNR ... of each tile; 0 (ping-pong): each owns its whole tiles, from column 0.
constexpr int kChunkShare = PINGPONG ? 0 : 1;
constexpr int kLdc = BN + 4;  // staged rows of C, floats (16-byte aligned rows)
// The ring's bytes needed for a staged BM x BN tile, which reuses the stages once every wgmma has read them.
template <bool STAGED>
__host__ __device__ constexpr unsigned transposed_staging_bytes() {
  return STAGED ? BM * kLdc * 4 : 0;
}

// Where C's element (m, n) of the tile is staged, in floats. A warp's store of one accumulator register writes rows
// m = 2 tig (+ const) and columns n = COL(g + const) for lanes (g, tig); with rows kLdc floats apart, rows 4 apart
// would meet columns 16 apart on one bank (TF32's permutation makes them), so rows with bit 2 set swap neighbouring
// 16-byte chunks (which keeps each chunk whole for the 16-byte reads).
__host__ __device__ constexpr int staged_at(int m, int n) { return m * kLdc + (n ^ (4 * ((m >> 2) & 1))); }
static_assert(staged_at(4, 8) == 4 * kLdc + 12 && staged_at(3, 8) == 3 * kLdc + 8, "chunks swap where bit 2 of m is set");

// Checked when a kernel compiles, for its COL: the accumulators stand for every element of BM rows x 64 columns once,
// and a warp's staged stores hit 32 different banks.
template <typename COL>
__host__ __device__ constexpr bool epilogue_covers_chunk() {
  unsigned char seen[BM * 64] = {};
  for (int t = 0; t < 128; ++t)
    for (int r = 0; r < BM / 2; ++r) {
      const int m = acc_col(t, r), n = COL{}(acc_row(t, r));
      if (m < 0 || m >= BM || n < 0 || n >= 64 || seen[m * 64 + n]++) return false;
    }
  return true;
}
template <typename COL>
__host__ __device__ constexpr bool staged_stores_are_conflict_free() {
  for (int q = 0; q < 4; ++q)
    for (int r = 0; r < BM / 2; ++r) {
      bool bank[32] = {};
      for (int lane = 0; lane < 32; ++lane) {
        const int t = 32 * q + lane, at = staged_at(acc_col(t, r), COL{}(acc_row(t, r)));
        if (bank[at % 32]) return false;
        bank[at % 32] = true;
      }
    }
  return true;
}
// The identity: wgmma row R of a chunk is its column R.
struct SameColumn {
  __host__ __device__ constexpr int operator()(int row) const { return row; }
};

// Stores this consumer warpgroup's kNR chunks (acc[nr][r], BM / 2 registers each) to C with alpha, beta and bounds
// checks; every consumer thread calls it. STAGED: through the ring (`smem_raw`, from `ring_base`), kVec elements
// (16 bytes of C) per store; N must then be a multiple of kVec, as TMA's row strides make it.
template <typename COL, bool STAGED, int NR, int ACCS>
__device__ __forceinline__ void store_transposed(const float (&acc)[NR][ACCS], const Tile& tile, int consumer,
                                                 unsigned char* smem_raw, unsigned ring_base, int M, int N,
                                                 elem_t* C, float alpha, float beta) {
  static_assert(ACCS == BM / 2 && NR * 64 * kReaders == BN, "kNR chunks of 64 columns by BM rows per warpgroup");
  static_assert(epilogue_covers_chunk<COL>(), "the accumulators stand for each element of a chunk of C once");
  const int t = threadIdx.x % 128, col0 = kChunkShare * consumer * NR * 64;
  if constexpr (STAGED) {
    static_assert(staged_stores_are_conflict_free<COL>(), "a warp's staged stores hit 32 banks");
    constexpr int kVec = 16 / sizeof(elem_t);
    // Every consumer's wgmmas have read their last stage (and TMA wrote the last one before they could): the ring
    // holds the BM x BN tile (staged_at), which the consumers then store a 16-byte chunk of C at a time.
    float* staged = reinterpret_cast<float*>(smem_raw + (ring_base - smem_u32(smem_raw)));
    consumer_sync();
#pragma unroll
    for (int nr = 0; nr < NR; ++nr)
#pragma unroll
      for (int r = 0; r < ACCS; ++r)
        staged[staged_at(acc_col(t, r), col0 + 64 * nr + COL{}(acc_row(t, r)))] = acc[nr][r];
    consumer_sync();
    for (int at = threadIdx.x - 128; at < BM * BN / kVec; at += kConsumerThreads) {
      const int row = at / (BN / kVec), col = kVec * (at % (BN / kVec));
      const int m = tile.m0 + row, n = tile.n0 + col;
      if (m >= M || n >= N) continue;
      float v[kVec];
#pragma unroll
      for (int h = 0; h < kVec / 4; ++h) {  // staged_at keeps 4-float chunks whole, not 8-float ones
        const float4 v4 = *reinterpret_cast<const float4*>(staged + staged_at(row, col + 4 * h));
        v[4 * h] = v4.x, v[4 * h + 1] = v4.y, v[4 * h + 2] = v4.z, v[4 * h + 3] = v4.w;
      }
      store_out<kVec>(C + (u64)m * N + n, v, alpha, beta);
    }
  } else {
#pragma unroll
    for (int nr = 0; nr < NR; ++nr)
#pragma unroll
      for (int r = 0; r < ACCS; ++r) {
        const int m = tile.m0 + acc_col(t, r), n = tile.n0 + col0 + 64 * nr + COL{}(acc_row(t, r));
        if (m < M && n < N) store_out<1>(C + (u64)m * N + n, &acc[nr][r], alpha, beta);
      }
  }
}

// EPI_VEC 64 (TF32): this warpgroup's chunks of C written with TMA stores that run on while it goes on to its next
// tile. A chunk (BM rows by 64 columns) is staged at `staging` as two boxes of 32 floats (128 bytes, the swizzle span)
// by BM rows with the 128-byte swizzle that c_map's stores undo (row m's 16-byte chunk c at chunk c ^ (m % 8)), then
// one thread stores both boxes (clipped at M and N) as one bulk group; before the staging is written again, the last
// group must have read it. COL keeps each warp's registers within one box (warps 0-1: the chunk's columns 0..31).
__device__ __forceinline__ void st_shared(unsigned at, float v) {
  asm volatile("st.shared.f32 [%0], %1;" ::"r"(at), "f"(v) : "memory");
}
constexpr unsigned kBoxT = BM * kRow;  // one staged box: 32 floats by BM rows
__host__ __device__ constexpr unsigned boxed_at(int m, int n) {
  return (n / 32) * kBoxT + m * kRow + (((n % 32) / 4) ^ (m % 8)) * 16 + (n % 4) * 4;
}
// Checked when the kernel compiles, for its COL: a warp's staged write of one register touches each bank at most twice
// (the swizzle is TMA's, not chosen for these writes: rows 2 tig + const meet columns 16 apart in pairs).
template <typename COL>
__host__ __device__ constexpr bool boxed_writes_at_most_two_way() {
  for (int q = 0; q < 4; ++q)
    for (int r = 0; r < BM / 2; ++r) {
      int bank[32] = {};
      for (int lane = 0; lane < 32; ++lane) {
        const int t = 32 * q + lane;
        if (++bank[boxed_at(acc_col(t, r), COL{}(acc_row(t, r))) / 4 % 32] > 2) return false;
      }
    }
  return true;
}
template <typename COL, int NR, int ACCS>
__device__ __forceinline__ void store_transposed_tma(const float (&acc)[NR][ACCS], const Tile& tile, int consumer,
                                                     unsigned staging, const CUtensorMap* c_map, int M, int N,
                                                     const elem_t* C, float alpha, float beta) {
  static_assert(ACCS == BM / 2 && NR * 64 * kReaders == BN, "kNR chunks of 64 columns by BM rows per warpgroup");
  static_assert(epilogue_covers_chunk<COL>(), "the accumulators stand for each element of a chunk of C once");
  static_assert(boxed_writes_at_most_two_way<COL>(), "a warp's staged writes meet at most two to a bank");
  const int t = threadIdx.x % 128, n0 = tile.n0 + kChunkShare * consumer * NR * 64;
  // Register r stands for row 8 (r / 4) + 2 (t % 4) + r % 2 of the tile and column COL(acc_row(t, r)) of the chunk:
  // two rows below 8 and two columns per thread, so four staged addresses, 8 rows further every 4 registers.
  unsigned at[2][2];
  int col[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    col[h] = COL{}(acc_row(t, 2 * h));
#pragma unroll
    for (int odd = 0; odd < 2; ++odd) at[odd][h] = staging + boxed_at(acc_col(t, odd), col[h]);
  }
#pragma unroll
  for (int nr = 0; nr < NR; ++nr) {
    if (t == 0) bulk_wait_read<0>();  // the last chunk's stores have read the staging
    warpgroup_sync(consumer);
    if (beta == 0.0f) {  // C is not read: the common case, kept apart so that it needs no more registers
#pragma unroll
      for (int r = 0; r < ACCS; ++r) st_shared(at[r % 2][r % 4 / 2] + (r / 4) * 8 * kRow, alpha * acc[nr][r]);
    } else {
#pragma unroll
      for (int r = 0; r < ACCS; ++r) {
        const int m = tile.m0 + acc_col(t, r), n = n0 + 64 * nr + col[r % 4 / 2];
        float v = alpha * acc[nr][r];
        if (m < M && n < N) v += beta * gemm_tc_shared::to_float(C[(u64)m * N + n]);
        st_shared(at[r % 2][r % 4 / 2] + (r / 4) * 8 * kRow, v);
      }
    }
    fence_proxy_async();  // the writes above reach the TMA unit
    warpgroup_sync(consumer);
    if (t == 0) {
      tma_store(c_map, staging, n0 + 64 * nr, tile.m0);
      tma_store(c_map, staging + kBoxT, n0 + 64 * nr + 32, tile.m0);
      bulk_commit();
    }
  }
}

}  // namespace gemm_sm90
#endif  // PATH == 1
