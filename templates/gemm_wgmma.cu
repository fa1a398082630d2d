// The wgmma + TMA instruction path (PATH=1) of the 16-bit tensor-core GEMMs gemm_bf16 and gemm_f16, for sm_90a: the
// specs compile it after gemm_tc_shared.cu (whose helpers it uses), gemm_tc.cu and gemm_wgmma_ops.cu (the instructions).
//
// A block of 1 + WG warpgroups computes a BM x BN tile of C. Warpgroup 0 is the producer: one of its threads walks K
// in slabs of BK = 64 elements (128-byte rows, the span of the 128-byte swizzle) and loads each slab with TMA into the
// next of STAGES shared-memory stages: A's BM x 64 box through a_map, B's 64 x BN rows as BN / 64 boxes of 64 x 64
// through b_map, each completing on the stage's "full" mbarrier. The WG consumer warpgroups each own BM / WG rows of
// the tile (BM / WG / 64 wgmma tiles of m64 x BN) and, per slab, issue four k16 steps of wgmma.mma_async reading A and
// B straight from shared memory through matrix descriptors; once a slab's wgmmas are done (wait_group 1, one slab
// later) every consumer thread arrives on the stage's "empty" mbarrier, which the producer waits for before reusing
// the stage. The accumulators then go to C with alpha, beta and bounds checks: EPI_VEC 2 stores each thread's pairs
// of columns as they are; EPI_VEC 8 first gathers 8 columns per thread within each quad of threads (shuffles), so that
// each store writes a 16-byte chunk of a row.
//
// Shared-memory layouts, agreed between the tensor maps (128-byte swizzle) and the descriptors:
//   A, K-major: row m of the box at byte 128 m, its 16-byte chunk c at chunk c ^ (m % 8). A wgmma's 64 x 16 piece
//     starts at row 64 i (a multiple of 1024 bytes) plus 32 bytes per k16 step; 8-row groups are 1024 bytes apart
//     (SBO); LBO is unused for swizzled K-major layouts (1 by convention).
//   B, N-major (row-major B, the transpose bit): box j (columns 64 j..64 j + 63) at byte 8192 j, k-row r of it at
//     128 r, chunk c at c ^ (r % 8). A k16 step starts 16 rows (2048 bytes) further; LBO is the distance between
//     64-column boxes (8192), SBO between 8-row groups (1024).
// Every stage starts on a 1024-byte boundary, where the swizzle pattern repeats, so descriptors' base offset is 0.
//
// mbarrier phases: stage s is filled for slabs s, s + STAGES, ...: slab i waits for full[s]'s completion number
// i / STAGES, parity (i / STAGES) & 1. The producer reuses stage s for slab i >= STAGES after empty[s]'s completion
// number i / STAGES - 1 (parity (i / STAGES - 1) & 1); it never runs more than one phase ahead of the consumers, so
// parity alone tells the phases apart.
//
// Parameters beyond gemm_tc.cu's: WG (consumer warpgroups, 1 or 2), CM x CN (thread-block cluster: CM tiles along M
// by CN along N run as one cluster on one GPC; without TMA multicast they share only L2 traffic and scheduling).
// Shapes: TMA needs 16-byte row strides (K and N multiples of 8) and reads zeros outside A and B, so any M, N, K that
// meet that work; the specs leave the others to PATH 0.
#if PATH == 1
#ifndef WG
#define WG 1
#endif
#ifndef CM
#define CM 1
#endif
#ifndef CN
#define CN 1
#endif

namespace gemm_wgmma_detail {
using namespace gemm_tc_shared;
using gemm_wgmma_ops::Mma;

constexpr int kConsumerThreads = 128 * WG;
constexpr int kThreads = 128 + kConsumerThreads;  // the producer warpgroup first
constexpr int kMR = BM / (64 * WG);               // m64 wgmma tiles per consumer warpgroup
constexpr int kAccs = BN / 2;                     // accumulator registers per m64 tile and thread
constexpr unsigned kRow = 128;                    // bytes of a swizzled row: BK 16-bit elements
constexpr unsigned kStageA = BM * kRow, kStageB = BN * kRow, kStage = kStageA + kStageB;  // bytes per stage
constexpr unsigned kBoxB = 64 * kRow;             // one 64 x 64 box of B
constexpr unsigned kGroup = 8 * kRow;             // 8 rows: the swizzle pattern's repeat
static_assert(TYPE == 1 || TYPE == 2, "PATH 1 multiplies 16-bit elements (BF16 or FP16)");
static_assert(BK == 64, "a slab is one 128-byte swizzle row of 16-bit elements deep");
static_assert(WG == 1 || WG == 2, "one or two consumer warpgroups");
static_assert(kMR >= 1 && BM % (64 * WG) == 0, "each consumer warpgroup owns whole m64 tiles");
static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "wgmma n64, n128, n192 or n256");
static_assert(kMR * kAccs <= 128, "at most 128 accumulator registers per thread");
static_assert(STAGES >= 2, "the pipeline needs two stages at least");
static_assert(CM * CN <= 2, "clusters of one or two blocks");

// A shared-memory matrix descriptor (PTX ISA, "matrix descriptor format"): start address, leading and stride byte
// offsets, each as (x & 0x3FFFF) >> 4 in 14 bits at bits 0, 16 and 32; base offset 0 (stages are 1024-byte aligned);
// mode 1 (128-byte swizzle) at bits 62-63.
__host__ __device__ constexpr u64 descriptor(unsigned address, unsigned lbo, unsigned sbo) {
  return (u64)((address & 0x3FFFFu) >> 4) | (u64)((lbo & 0x3FFFFu) >> 4) << 16 |
         (u64)((sbo & 0x3FFFFu) >> 4) << 32 | 1ull << 62;
}
static_assert(descriptor(0x400, 16, 1024) == (0x40ull | 1ull << 16 | 64ull << 32 | 1ull << 62), "descriptor fields");
static_assert(descriptor(0x12020, kBoxB, kGroup) == (0x1202ull | 512ull << 16 | 64ull << 32 | 1ull << 62),
              "descriptor fields");
// The k16 step `ks` of a stage's A rows for m64 tile `tile` (K-major: 32 bytes along the swizzled row) and of its B
// (N-major: 16 k-rows, two 8-row groups).
__host__ __device__ constexpr u64 a_descriptor(unsigned stage, int tile, int ks) {
  return descriptor(stage + tile * 64 * kRow + ks * 32, 16, kGroup);
}
__host__ __device__ constexpr u64 b_descriptor(unsigned stage, int ks) {
  return descriptor(stage + kStageA + ks * 2 * kGroup, kBoxB, kGroup);
}

// Where accumulator register r of thread t (0..127) of a warpgroup lands in its 64 x BN tile (PTX ISA, wgmma's
// FP32 D fragments): warp t / 32 owns rows 16 (t / 32) ..+15; n8 block r / 4 holds rows (t % 32) / 4 and 8 below it
// (r % 4 >= 2), columns 2 (t % 4) and the next (r odd).
__host__ __device__ constexpr int acc_row(int t, int r) { return 16 * (t / 32) + (t % 32) / 4 + 8 * (r % 4 / 2); }
__host__ __device__ constexpr int acc_col(int t, int r) { return 8 * (r / 4) + 2 * (t % 4) + r % 2; }
// Checked when the kernel compiles: the 128 threads' registers cover the 64 x BN tile, each element once.
__host__ __device__ constexpr bool accumulators_cover_tile() {
  unsigned char seen[64 * BN] = {};
  for (int t = 0; t < 128; ++t)
    for (int r = 0; r < kAccs; ++r) {
      const int row = acc_row(t, r), col = acc_col(t, r);
      if (row < 0 || row >= 64 || col < 0 || col >= BN || seen[row * BN + col]++) return false;
    }
  return true;
}
static_assert(accumulators_cover_tile(), "the accumulator layout must cover the tile once");

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

__device__ __forceinline__ unsigned smem_u32(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void barrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// The producer's arrival: the stage's loads will deliver `bytes` more bytes before the phase can complete.
__device__ __forceinline__ void barrier_expect(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void barrier_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Spins until the barrier's phase of parity `parity` has completed.
__device__ __forceinline__ void barrier_wait(unsigned bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n.reg .pred ready;\nmbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\nselp.u32 %0, 1, 0, ready;\n}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
}
// A TMA load of the box at coordinates (x innermost, y) of `map` into shared memory, completing on `bar`.
__device__ __forceinline__ void tma_load(unsigned dst, const CUtensorMap* map, int x, int y, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      ::"r"(dst), "l"(reinterpret_cast<u64>(map)), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Register reallocation between warpgroups (setmaxnreg, sm_90a). Two consumer warpgroups with 128 accumulators each
// need more than the 168 registers that 384 threads get at launch (65536 / 384, rounded down to 8); the producer
// needs few. Then, and only then, the producer gives up registers (down to 40) and the consumers take them (up to
// 232): (40 + 2 x 232) x 128 = 64512 fit the 64K register file. This relies on the kernel being allocated exactly
// 168 registers per thread at launch (an .inc that asks for more than the producer frees waits forever), which
// ptxas does for these tiles because their consumers need more; the host compile test checks it. Smaller tiles fit
// in their allocation and do not reallocate.
constexpr bool kReallocate = WG == 2 && kMR * kAccs == 128;
constexpr int kLaunchRegisters = 168, kProducerRegisters = 40, kConsumerRegisters = 232;
static_assert((kProducerRegisters + WG * kConsumerRegisters) * 128 <= 65536, "the register file");
static_assert(128 * (kLaunchRegisters - kProducerRegisters) >= 256 * (kConsumerRegisters - kLaunchRegisters),
              "the consumers take no more than the producer gives up");
template <int REGISTERS, bool MORE>
__device__ __forceinline__ void give_registers() {
  if constexpr (MORE) {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGISTERS));
  } else {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGISTERS));
  }
}
// The consumer warpgroups only (the producer has left): named barrier 1.
__device__ __forceinline__ void consumer_sync() {
  asm volatile("bar.sync 1, %0;" ::"n"(kConsumerThreads) : "memory");
}

}  // namespace gemm_wgmma_detail

extern "C" __global__ void __launch_bounds__(gemm_wgmma_detail::kThreads)
    gemm_tc(GEMM_TC_PARAMETERS) {
  using namespace gemm_wgmma_detail;
  (void)A, (void)B;  // read through the tensor maps
  extern __shared__ unsigned char smem_raw[];
  // Stages on 1024-byte boundaries (the swizzle's repeat; the spec adds 1024 bytes of slack), then the barriers.
  const unsigned raw = smem_u32(smem_raw);
  const unsigned base = (raw + 1023u) & ~1023u;
  const unsigned full = base + STAGES * kStage, empty = full + 8 * STAGES;
  unsigned* last_slice = reinterpret_cast<unsigned*>(smem_raw + (empty + 8 * STAGES - raw));

  // Clusters of CM x CN tiles, rasterized like PATH 0's tiles; a block's rank in its cluster picks its tile there.
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int rank = blockIdx.x % (CM * CN);
  int cm, cn;
  tile_coords(blockIdx.x / (CM * CN), (tiles_m + CM - 1) / CM, (tiles_n + CN - 1) / CN, cm, cn);
  const int tm = cm * CM + rank % CM, tn = cn * CN + rank / CM;
  if (tm >= tiles_m || tn >= tiles_n) return;  // a cluster over the edge of C; no block waits for another
  const int m0 = tm * BM, n0 = tn * BN, tile = tm * tiles_n + tn;
  int slab_begin, slabs;
  k_slice(K, slab_begin, slabs);

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      barrier_init(full + 8 * s, 1);                 // the producer's arrival, plus the loads' bytes
      barrier_init(empty + 8 * s, kConsumerThreads);  // every consumer thread, once its wgmmas have read the stage
    }
    // The async proxy (TMA) must see the initialised barriers.
    asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();

  if (threadIdx.x < 128) {  // the producer warpgroup: one thread issues every load
    if constexpr (kReallocate) give_registers<kProducerRegisters, false>();
    if (threadIdx.x == 0) {
      for (int i = 0; i < slabs; ++i) {
        const int s = i % STAGES;
        if (i >= STAGES) barrier_wait(empty + 8 * s, (i / STAGES - 1) & 1);
        barrier_expect(full + 8 * s, kStage);
        const unsigned stage = base + s * kStage;
        const int k = (slab_begin + i) * BK;
        tma_load(stage, &a_map, k, m0, full + 8 * s);
#pragma unroll
        for (int j = 0; j < BN / 64; ++j) tma_load(stage + kStageA + j * kBoxB, &b_map, n0 + 64 * j, k, full + 8 * s);
      }
    }
    return;
  }

  if constexpr (kReallocate) give_registers<kConsumerRegisters, true>();
  const int consumer = threadIdx.x / 128 - 1, t = threadIdx.x % 128;
  float acc[kMR][kAccs];
#pragma unroll
  for (int mr = 0; mr < kMR; ++mr)
#pragma unroll
    for (int r = 0; r < kAccs; ++r) acc[mr][r] = 0.0f;

#pragma unroll 1
  for (int i = 0; i < slabs; ++i) {
    const int s = i % STAGES;
    barrier_wait(full + 8 * s, (i / STAGES) & 1);
    const unsigned stage = base + s * kStage;
    wgmma_fence();  // the accumulators' registers are handed to the wgmmas
    bool skip = false;
#ifdef CUTUNE_TEST_SKIP_SLAB  // test builds only: drop one slab, which verification must notice
    skip = slab_begin + i == CUTUNE_TEST_SKIP_SLAB;
#endif
    if (!skip) {
#pragma unroll
      for (int ks = 0; ks < BK / 16; ++ks) {
        const u64 b = b_descriptor(stage, ks);
#pragma unroll
        for (int mr = 0; mr < kMR; ++mr) Mma<BN>::run(acc[mr], a_descriptor(stage, consumer * kMR + mr, ks), b, 1);
      }
    }
    wgmma_commit();
    // The previous slab's wgmmas are done (this one's keep the tensor cores busy): its stage can be refilled.
    wgmma_wait<1>();
    if (i > 0) barrier_arrive(empty + 8 * ((i - 1) % STAGES));
  }
  wgmma_wait<0>();
  // Pins every accumulator read below after the wait: the wait names no registers, so without this the compiler may
  // move reads of the accumulators above it (ptxas then serializes the wgmmas).
#pragma unroll
  for (int mr = 0; mr < kMR; ++mr)
#pragma unroll
    for (int r = 0; r < kAccs; ++r) asm volatile("" : "+f"(acc[mr][r])::"memory");

  if (SPLITK > 1) {  // as in PATH 0, among the consumer threads
    constexpr int kFrags = kMR * kAccs / 4;
    const int ct = threadIdx.x - 128;
    float4* ws = reinterpret_cast<float4*>(workspace) + (u64)tile * SPLITK * kFrags * kConsumerThreads;
    splitk_store<kFrags, kConsumerThreads>(ws, &acc[0][0], ct);
    __threadfence();
    consumer_sync();
    if (ct == 0) *last_slice = atomicAdd(counters + tile, 1u) == SPLITK - 1;
    consumer_sync();
    if (!*last_slice) return;
    __threadfence();
    splitk_sum<kFrags, kConsumerThreads, (kFrags % 16 == 0 ? 16 : 8)>(ws, &acc[0][0], ct);  // kFrags: 8, 16, 24, ...
    if (ct == 0) counters[tile] = 0;  // rearmed for the next launch
  }

  // N is a multiple of 8 here (TMA's row strides): every pair inside C is stored as one, and every 8-column chunk.
  const int row0 = m0 + consumer * kMR * 64;
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
        for (int j = 0; j < BN / 8; ++j) {
          store_pair(crow, n0 + acc_col(t, 4 * j), N, &acc[mr][4 * j + 2 * h], alpha, beta, true);
        }
      }
    }
}
#endif  // PATH == 1
