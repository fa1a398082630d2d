// What both wgmma + TMA kernels of the tensor-core GEMMs (PATH=1 for sm_90a: gemm_wgmma.cu for BF16/FP16,
// gemm_wgmma_tf32.cu for TF32) share: the block's tile and cluster placement, the ring of shared-memory stages with its
// mbarriers, the TMA producer, wgmma's fences and descriptors, its accumulator layout, register reallocation and
// split-K among the consumer warpgroups. The specs compile it after gemm_tc_shared.cu and before the kernel's file.
//
// A block is 1 + WG warpgroups. Warpgroup 0 is the producer: one of its threads walks K in slabs of BK elements (one
// 128-byte swizzled row of A per tile row) and loads each slab with TMA into the next of STAGES stages: A's BK x BM
// box through a_map at the stage's start, then B as BN / (columns per box) boxes through b_map, each completing on
// the stage's "full" mbarrier. The consumer warpgroups multiply; once a slab's wgmmas are done every consumer thread
// arrives on the stage's "empty" mbarrier, which the producer waits for before reusing the stage.
//
// mbarrier phases: stage s is filled for slabs s, s + STAGES, ...: slab i waits for full[s]'s completion number
// i / STAGES, parity (i / STAGES) & 1. The producer reuses stage s for slab i >= STAGES after empty[s]'s completion
// number i / STAGES - 1 (parity (i / STAGES - 1) & 1); it never runs more than one phase ahead of the consumers, so
// parity alone tells the phases apart.
//
// Parameters beyond gemm_tc.cu's: WG (consumer warpgroups, 1 or 2), CM x CN (thread-block cluster: CM tiles along M
// by CN along N run as one cluster on one GPC; without TMA multicast they share only L2 traffic and scheduling),
// PERSIST (1 or 2: a grid of about that many blocks per SM walks every tile, below), MC (1: the two
// blocks of a CM = 2 cluster share B's tile, and each loads half of its boxes with TMA multicast into both blocks'
// shared memory, so that L2 serves B once per cluster instead of twice).
//
// Multicast: a block's stage then fills from both producers, so a producer may reuse a stage only once the consumers
// of both blocks are done with it: "empty" counts one arrival per consumer warpgroup of either block (its own directly,
// the other's through the cluster), the barriers are initialised before either block loads (a cluster barrier), and
// no block leaves while the other may still arrive on its barriers (a cluster barrier at the end). A block whose tile
// lies beyond C still loads its half of B for the other one; its own rows are all past M, so it stores nothing.
//
// Persistent blocks (PERSIST=1, the 16-bit kernel without SWAP or split-K): the spec launches min(clusters of tiles,
// SM_COUNT / (CM * CN)) clusters, and a block computes the tiles of its cluster index and of every grid-th after it,
// in the rasterized order (GROUP_M), so the tiles in flight at once are neighbours. Producer and consumers walk the
// same tiles; the slab counter runs on across tiles, so the ring's stages and barrier phases continue where the last
// tile left them, and the producer fills the next tile's first STAGES slabs while the consumers store C of the last.
//
// The PTX instructions all of this is built from (mbarriers, TMA loads and stores, clusters, wgmma's fences and
// waits) have their wrappers in gemm_sm90_ptx.cu, which the specs compile just before this file.
//
// Stream-K (STREAMK=1 or 2) shares the tiles' K slabs among the persistent blocks as units of work (TileWalk below);
// gemm_sm90_streamk.cu, compiled after this file by the 16-bit specs, finishes the tiles split between blocks.
//
// Ping-pong (PINGPONG=1, the 16-bit kernel with WG=2 persistent blocks): the two consumer warpgroups take the block's
// tiles in turns, each a whole BM x BN tile, instead of sharing each tile's rows. Their main loops run one after the
// other, so that one warpgroup's epilogue (C through registers and shared memory) runs while the other's wgmmas keep
// the tensor cores busy. The producer is unchanged: it loads every tile's slabs in order into the one ring, each stage
// read by one warpgroup only. The turn passes through two named barriers (turn_wait / turn_pass): a warpgroup starts a
// tile's main loop once the other has issued and waited for the last wgmma of the tile before. That order is also what
// keeps mbarrier parity unambiguous: a warpgroup never waits for a slab more than one ring's phase ahead of the loads.
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
#ifndef PERSIST
#define PERSIST 0
#endif
#ifndef MC
#define MC 0
#endif
#ifndef STREAMK
#define STREAMK 0
#endif
#ifndef PINGPONG
#define PINGPONG 0
#endif
// KSUM=1 (with SPLITK > 1): the SPLITK slices of a tile run as one cluster along grid.z and the first sums the others'
// partial tiles from their shared memory (gemm_sm90_streamk.cu), instead of through the workspace.
#ifndef KSUM
#define KSUM 0
#endif
// B_KMAJOR=1 (the FP8 GEMMs): B is stored N x K, K contiguous, so b_map's first coordinate runs along K and a box is
// BOX_COLUMNS rows of B (columns of the product) by one slab.
#ifndef B_KMAJOR
#define B_KMAJOR 0
#endif

namespace gemm_sm90 {
using namespace gemm_tc_shared;

constexpr int kConsumerThreads = 128 * WG;
constexpr int kThreads = 128 + kConsumerThreads;  // the producer warpgroup first
constexpr unsigned kRow = 128;                    // bytes of a swizzled row: BK elements
constexpr unsigned kGroup = 8 * kRow;             // 8 rows: the swizzle pattern's repeat
static_assert(BK * sizeof(elem_t) == kRow, "a slab is one 128-byte swizzle row deep");
static_assert(WG == 1 || WG == 2, "one or two consumer warpgroups");
static_assert(STAGES >= 2, "the pipeline needs two stages at least");
static_assert(CM * CN <= 2, "clusters of one or two blocks");
static_assert(PERSIST == 0 || SPLITK == 1, "persistent blocks walk whole tiles (split-K slices by blockIdx.z)");
static_assert(STREAMK == 0 || PERSIST >= 1 && CM * CN == 1, "stream-K shares iterations among persistent blocks");
constexpr bool kMulticast = MC == 1;
static_assert(!kMulticast || CM == 2 && CN == 1 && SPLITK == 1, "multicast of B within a cluster of two tiles along M");
static_assert(PINGPONG == 0 || WG == 2 && PERSIST >= 1 && STREAMK == 0, "ping-pong: two consumers taking turns at tiles");
constexpr bool kClusterSum = KSUM == 1 && SPLITK > 1;
static_assert(KSUM == 0 || SPLITK > 1 && SPLITK <= 8 && CM * CN == 1 && PERSIST == 0,
              "split-K through distributed shared memory: a portable cluster of the tile's slices only");
constexpr int kReaders = PINGPONG ? 1 : WG;  // consumer warpgroups that read each stage
// Arrivals that free a stage: every thread of the warpgroups that read it, or with multicast one per such warpgroup of
// either block (its wgmmas, which alone read the stage there, complete for the whole warpgroup at once).
constexpr unsigned kReleases = kMulticast ? 2 * kReaders : 128 * kReaders;

// A shared-memory matrix descriptor (PTX ISA, "matrix descriptor format"): start address, leading and stride byte
// offsets, each as (x & 0x3FFFF) >> 4 in 14 bits at bits 0, 16 and 32; base offset 0 (stages are 1024-byte aligned);
// mode 1 (128-byte swizzle) at bits 62-63.
__host__ __device__ constexpr u64 descriptor(unsigned address, unsigned lbo, unsigned sbo) {
  return (u64)((address & 0x3FFFFu) >> 4) | (u64)((lbo & 0x3FFFFu) >> 4) << 16 |
         (u64)((sbo & 0x3FFFFu) >> 4) << 32 | 1ull << 62;
}
static_assert(descriptor(0x400, 16, 1024) == (0x40ull | 1ull << 16 | 64ull << 32 | 1ull << 62), "descriptor fields");
static_assert(descriptor(0x12020, 8192, kGroup) == (0x1202ull | 512ull << 16 | 64ull << 32 | 1ull << 62),
              "descriptor fields");
// K-major rows as TMA leaves them with the 128-byte swizzle (row r at byte 128 r, its 16-byte chunk c at chunk
// c ^ (r % 8)), starting at `rows`: the wgmma step `ks` of 32 bytes along the rows (k16 of 16-bit elements, k8 of
// TF32); 8-row groups are 1024 bytes apart (SBO); LBO is unused for swizzled K-major layouts (1 by convention).
__host__ __device__ constexpr u64 kmajor_descriptor(unsigned rows, int ks) {
  return descriptor(rows + ks * 32, 16, kGroup);
}
// 16-bit rows of 64 elements along M or N (MN-major) as TMA leaves them in 64 x BK boxes, 8192 bytes apart, starting at
// `columns`: a k16 step is 16 k-rows (two 8-row groups, 2048 bytes) further; LBO is the distance between 64-element
// boxes, SBO between 8-row groups. Read with the transpose bit: as B by C = A B, as A by SWAP=1's C^T = B^T A^T.
__host__ __device__ constexpr u64 mnmajor_descriptor(unsigned columns, int ks) {
  return descriptor(columns + ks * 2 * kGroup, 64 * kRow, kGroup);
}
static_assert(mnmajor_descriptor(0x10000, 1) == descriptor(0x10800, 8192, 1024), "k16 steps are 16 rows apart");
// Columns of C's boxes in the TMA-store epilogue (gemm_sm90_store.cu): 64, one 128-byte swizzle row, where BN allows;
// else 32 or 16 columns, a row of the 64- or 32-byte swizzle, which TMA lays out as it does the 128-byte one (16-byte
// chunk c of row r at c ^ (r / (128 / span)) % (span / 16)).
constexpr int kBoxColumns = BN % 64 == 0 ? 64 : BN % 32 == 0 ? 32 : 16;

// Where accumulator register r of thread t (0..127) of a warpgroup lands in its 64 x N tile (PTX ISA, wgmma's
// FP32 D fragments): warp t / 32 owns rows 16 (t / 32) ..+15; n8 block r / 4 holds rows (t % 32) / 4 and 8 below it
// (r % 4 >= 2), columns 2 (t % 4) and the next (r odd).
__host__ __device__ constexpr int acc_row(int t, int r) { return 16 * (t / 32) + (t % 32) / 4 + 8 * (r % 4 / 2); }
__host__ __device__ constexpr int acc_col(int t, int r) { return 8 * (r / 4) + 2 * (t % 4) + r % 2; }
// Checked when a kernel compiles: the 128 threads' N / 2 registers cover the 64 x N tile, each element once.
template <int N>
__host__ __device__ constexpr bool accumulators_cover_tile() {
  unsigned char seen[64 * N] = {};
  for (int t = 0; t < 128; ++t)
    for (int r = 0; r < N / 2; ++r) {
      const int row = acc_row(t, r), col = acc_col(t, r);
      if (row < 0 || row >= 64 || col < 0 || col >= N || seen[row * N + col]++) return false;
    }
  return true;
}

// Register reallocation between warpgroups (setmaxnreg, sm_90a). Two consumer warpgroups with 128 accumulators each
// need more than the 168 registers that 384 threads get at launch (65536 / 384, rounded down to 8); the producer
// needs few. Then, and only then (each kernel says when), the producer gives up registers (down to 40) and the
// consumers take them (up to 232): (40 + 2 x 232) x 128 = 64512 fit the 64K register file. This relies on the kernel
// being allocated exactly 168 registers per thread at launch (an .inc that asks for more than the producer frees
// waits forever), which ptxas does for these tiles because their consumers need more; the host compile tests check
// it. Smaller tiles fit in their allocation and do not reallocate.
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
// Ping-pong's turns: consumer warpgroup `consumer` waits for its turn (named barrier 4 + consumer), or hands the turn to
// the other (an arrival there, which the other's wait completes): 128 threads arrive and 128 wait on each use.
__device__ __forceinline__ void turn_wait(int consumer) {
  if (consumer == 0) {
    asm volatile("bar.sync 4, 256;" ::: "memory");
  } else {
    asm volatile("bar.sync 5, 256;" ::: "memory");
  }
}
__device__ __forceinline__ void turn_pass(int consumer) {
  if (consumer == 0) {
    asm volatile("bar.arrive 5, 256;" ::: "memory");
  } else {
    asm volatile("bar.arrive 4, 256;" ::: "memory");
  }
}
// This thread's consumer warpgroup (0 or 1; the producer is warpgroup 0 of the block), broadcast from lane 0: ptxas
// then knows it is the same across the warp and keeps what derives from it (the wgmma descriptors) in uniform
// registers, instead of moving them there before every wgmma (226 -> 158 such moves in a 128x128 FP8 kernel).
__device__ __forceinline__ int consumer_warpgroup() {
  return __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / 128, 0) - 1;
}
// The consumer warpgroups only (the producer has left): named barrier 1.
__device__ __forceinline__ void consumer_sync() {
  asm volatile("bar.sync 1, %0;" ::"n"(kConsumerThreads) : "memory");
}

// A BM x BN tile of C: clusters of CM x CN tiles, rasterized like PATH 0's tiles; a block's rank in its cluster picks
// its tile there. False for a block of a cluster over the edge of C (no block waits for another).
struct Tile {
  int m0, n0, index;
};
__device__ __forceinline__ bool place_tile(int M, int N, int cluster, Tile& tile) {
  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int rank = blockIdx.x % (CM * CN);
  int cm, cn;
  tile_coords(cluster, (tiles_m + CM - 1) / CM, (tiles_n + CN - 1) / CN, cm, cn);
  const int tm = cm * CM + rank % CM, tn = cn * CN + rank / CM;
  if (!kMulticast && (tm >= tiles_m || tn >= tiles_n)) return false;  // multicast: the other block needs its loads
  tile = {tm * BM, tn * BN, tm * tiles_n + tn};
  return true;
}

// The units of work a block computes, in order: its tile only (PERSIST=0: the grid has one cluster per cluster of
// tiles), or its own and every grid-th after it (PERSIST=1), each with the block's share of K (split-K); with STREAMK
// first its stream-K iterations (see the top of this file), in units that each lie in one tile.
struct TileWalk {
  int cluster, stride, clusters;
  int sk_next, sk_end;  // stream-K: this block's iterations not walked yet (the rest is computed when needed)
  __device__ static __forceinline__ int slabs_per_tile(int K) { return (K + BK - 1) / BK; }
  // Stream-K: the slabs of the shared tiles, all blocks together (below 2^31 at any shape a GPU holds).
  __device__ static __forceinline__ int sk_iterations(int M, int N, int K) {
    const int tiles = (M + BM - 1) / BM * ((N + BN - 1) / BN), grid = static_cast<int>(gridDim.x);
    // STREAMK=2: the full waves stay whole; only the last wave's tiles (all of them when there is no full wave) share.
    const int shared = STREAMK == 1 ? tiles : tiles % grid == 0 ? 0 : tiles % grid;
    return shared * slabs_per_tile(K);
  }
  // The next tile of this block from `cluster` on (skipping tiles over the edge of C); false when there is none.
  __device__ __forceinline__ bool find(int M, int N, Tile& tile) {
    for (; cluster < clusters; cluster += stride) {
      if (place_tile(M, N, cluster, tile)) return true;
    }
    return false;
  }
  // Stream-K: the first iteration of block `b` (the grid's end for b = gridDim.x).
  __device__ static __forceinline__ int sk_start(int iterations, int b) {
    return static_cast<int>(static_cast<long long>(iterations) * b / static_cast<int>(gridDim.x));
  }
  // The unit at the walk's position: its tile and slabs [slab_begin, slab_begin + slabs) of K; false when none is left.
  __device__ __forceinline__ bool find_unit(int M, int N, int K, Tile& tile, int& slab_begin, int& slabs) {
    if (STREAMK > 0 && sk_next < sk_end) {
      const int per_tile = slabs_per_tile(K);
      slab_begin = sk_next % per_tile;
      slabs = min(per_tile - slab_begin, sk_end - sk_next);
      place_tile(M, N, sk_next / per_tile, tile);  // shared tiles lie inside C
      return true;
    }
    if (!find(M, N, tile)) return false;
    k_slice(K, slab_begin, slabs);
    return true;
  }
  // Past the unit that find_unit() gave, of `slabs` slabs.
  __device__ __forceinline__ void advance(int slabs) {
    if (STREAMK > 0 && sk_next < sk_end) sk_next += slabs;
    else cluster += stride;
  }
};
__device__ __forceinline__ TileWalk tile_walk(int M, int N, int K) {
  const int clusters = ((M + BM - 1) / BM + CM - 1) / CM * (((N + BN - 1) / BN + CN - 1) / CN);
  const int block = static_cast<int>(blockIdx.x) / (CM * CN);
  if constexpr (STREAMK == 0) {
    (void)K;
    return {block, PERSIST ? static_cast<int>(gridDim.x) / (CM * CN) : clusters, clusters, 0, 0};
  } else {
    const int iterations = TileWalk::sk_iterations(M, N, K);
    const int shared = iterations / TileWalk::slabs_per_tile(K);  // the data-parallel tiles come after these
    return {shared + block, static_cast<int>(gridDim.x), clusters, TileWalk::sk_start(iterations, block),
            TileWalk::sk_start(iterations, block + 1)};
  }
}

// The ring in dynamic shared memory: STAGES stages of STAGE bytes from a 1024-byte boundary (the swizzle's repeat;
// the specs add 1024 bytes of slack), or `ring_bytes` when the kernel reuses the space for more, then the full and
// empty barriers and split-K's flag. Thread 0 initialises the barriers; every thread of the block must call it.
struct Ring {
  unsigned base, full, empty;
  unsigned* last_slice;
};
template <unsigned RING_BYTES>
__device__ __forceinline__ Ring make_ring(unsigned char* smem_raw) {
  const unsigned raw = smem_u32(smem_raw);
  const unsigned base = (raw + 1023u) & ~1023u;
  const unsigned full = base + RING_BYTES, empty = full + 8 * STAGES;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      barrier_init(full + 8 * s, 1);                 // the producer's arrival, plus the loads' bytes
      barrier_init(empty + 8 * s, kReleases);  // the consumers, once their wgmmas have read the stage
    }
    // The async proxy (TMA) must see the initialised barriers.
    asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;" ::: "memory");
  }
  if constexpr (kMulticast) {
    cluster_sync();  // the other block's loads and arrivals reach initialised barriers
  } else {
    __syncthreads();
  }
  return {base, full, empty, reinterpret_cast<unsigned*>(smem_raw + (empty + 8 * STAGES - raw))};
}

// The producer's thread: slab after slab of each of the block's tiles (from `tile`, the first), A's box of STAGE_A
// bytes at the stage's start and B's BOXES boxes of BOX_BYTES, BOX_COLUMNS columns each, after it; STAGE_A + BOXES *
// BOX_BYTES bytes expected per stage. `it` counts the slabs loaded so far: slab `it` goes to stage it % STAGES.
template <unsigned STAGE_A, int BOXES, unsigned BOX_BYTES, int BOX_COLUMNS>
__device__ __forceinline__ void produce(const Ring& ring, const CUtensorMap* a_map, const CUtensorMap* b_map, int M,
                                        int N, int K, TileWalk walk, Tile tile, int slab_begin, int slabs) {
  constexpr unsigned kStage = STAGE_A + BOXES * BOX_BYTES;
  const int rank = kMulticast ? static_cast<int>(cluster_rank()) : 0;
  unsigned it = 0;
  do {
#pragma unroll 1
    for (int i = 0; i < slabs; ++i, ++it) {
      const unsigned s = it % STAGES;
      if (it >= STAGES) barrier_wait(ring.empty + 8 * s, (it / STAGES - 1) & 1);
      barrier_expect(ring.full + 8 * s, kStage);
      const unsigned stage = ring.base + s * kStage;
      const int k = (slab_begin + i) * BK;
      tma_load(stage, a_map, k, tile.m0, ring.full + 8 * s);
#pragma unroll
      for (int j = 0; j < BOXES; ++j) {
        const unsigned dst = stage + STAGE_A + j * BOX_BYTES;
        const int n = tile.n0 + BOX_COLUMNS * j, x = B_KMAJOR ? k : n, y = B_KMAJOR ? n : k;
        if constexpr (kMulticast) {  // B's boxes alternate between the two blocks, each landing in both
          if (j % 2 == rank) tma_load_multicast(dst, b_map, x, y, ring.full + 8 * s, 3);
        } else {
          tma_load(dst, b_map, x, y, ring.full + 8 * s);
        }
      }
    }
    walk.advance(slabs);
  } while (walk.find_unit(M, N, K, tile, slab_begin, slabs));
}

// How a block of either kernel starts: its tile (false for a block without one, which leaves), its share of K, the ring
// (RING bytes of stages or more), and the producer warpgroup's whole work (false for it too, once its loads are
// issued: A's box of STAGE_A bytes and B's BOXES boxes of BOX_BYTES, BOX_COLUMNS columns each, per stage). True for
// the consumer threads, which go on to multiply; with REALLOCATE the producer's registers go to them.
struct Block {
  Tile tile;
  int slab_begin, slabs;
  Ring ring;
  TileWalk walk;
  int it = 0;  // slabs of the block's earlier tiles: this tile's slab i is the ring's slab it + i
};
template <unsigned RING, unsigned STAGE_A, int BOXES, unsigned BOX_BYTES, int BOX_COLUMNS, bool REALLOCATE>
__device__ __forceinline__ bool start_block(int M, int N, int K, const CUtensorMap* a_map, const CUtensorMap* b_map,
                                            unsigned char* smem_raw, Block& block) {
  block.walk = tile_walk(M, N, K);
  if (!block.walk.find_unit(M, N, K, block.tile, block.slab_begin, block.slabs)) return false;
  block.ring = make_ring<RING>(smem_raw);
  if (threadIdx.x < 128) {  // the producer warpgroup: one thread issues every load
    if constexpr (REALLOCATE) give_registers<kProducerRegisters, false>();
    if (threadIdx.x == 0) {
      produce<STAGE_A, BOXES, BOX_BYTES, BOX_COLUMNS>(block.ring, a_map, b_map, M, N, K, block.walk, block.tile,
                                                      block.slab_begin, block.slabs);
    }
    if constexpr (kMulticast) cluster_sync();  // finish_block()'s, for the producer warpgroup
    if constexpr (kClusterSum) {  // cluster_sum()'s two barriers, for the producer warpgroup
      cluster_sync();
      cluster_sync();
    }
    return false;
  }
  if constexpr (REALLOCATE) give_registers<kConsumerRegisters, true>();
  return true;
}

// The consumers' next unit after the one just finished (PERSIST=1), as the producer walks them; false when none is
// left.
__device__ __forceinline__ bool next_tile(int M, int N, int K, Block& block) {
  if constexpr (PERSIST == 0) {
    (void)M, (void)N, (void)K;
    return false;
  } else {
    block.it += block.slabs;
    block.walk.advance(block.slabs);
    return block.walk.find_unit(M, N, K, block.tile, block.slab_begin, block.slabs);
  }
}

// Whether the block has a unit after the current one (a copy of its walk looks ahead).
__device__ __forceinline__ bool has_next_tile(int M, int N, int K, const Block& block) {
  Block ahead = block;
  return next_tile(M, N, K, ahead);
}

// Test builds only (-DCUTUNE_TEST_SKIP_SLAB=s): whether slab i of this block is slab s of K, whose wgmmas the kernel
// then leaves out, which verification must notice.
__device__ __forceinline__ bool skipped(const Block& block, int i) {
#ifdef CUTUNE_TEST_SKIP_SLAB
  return block.slab_begin + i == CUTUNE_TEST_SKIP_SLAB;
#else
  (void)block, (void)i;
  return false;
#endif
}

// A consumer's side of slab i: wait until its stage is full; later, once its wgmmas are done, release it.
// (Unsigned: the division and remainder by STAGES then need no sign fix-ups.)
__device__ __forceinline__ void stage_wait(const Ring& ring, unsigned i) {
  barrier_wait(ring.full + 8 * (i % STAGES), (i / STAGES) & 1);
}
__device__ __forceinline__ void stage_release(const Ring& ring, unsigned i) {
  const unsigned bar = ring.empty + 8 * (i % STAGES);
  if constexpr (kMulticast) {
    if (threadIdx.x % 128 == 0) {  // after the wgmma wait: the warpgroup's wgmmas are done with the stage
      barrier_arrive(bar);
      barrier_arrive_in(bar, cluster_rank() ^ 1u);
    }
  } else {
    barrier_arrive(bar);
  }
}
// The consumers' last step: with multicast, no block leaves while the other may still arrive on its barriers.
__device__ __forceinline__ void finish_block() {
  if constexpr (kMulticast) cluster_sync();
}

// The consumers' main loop when wgmma reads both operands from shared memory (the 16-bit kernels): per slab, wait
// for its stage, hand the accumulators to `multiply(stage)`'s wgmmas, and release the stage once they are done, one
// slab later (wait_group 1: this slab's wgmmas keep the tensor cores busy meanwhile). `issued()` runs once the last
// slab's wgmmas are issued (ping-pong hands the turn over there, so that the other warpgroup's first wgmmas follow
// these without a gap). Returns after every wgmma.
template <unsigned STAGE, typename Multiply, typename Issued>
__device__ __forceinline__ void consume_slabs(const Block& block, Multiply&& multiply, Issued&& issued) {
#pragma unroll 1
  for (int i = 0; i < block.slabs; ++i) {
    const int it = block.it + i;
    stage_wait(block.ring, it);
    wgmma_fence();  // the accumulators' registers are handed to the wgmmas
    if (!skipped(block, i)) multiply(block.ring.base + (unsigned(it) % STAGES) * STAGE);
    wgmma_commit();
    wgmma_wait<1>();
    if (i > 0) stage_release(block.ring, it - 1);
  }
  issued();
  wgmma_wait<0>();
  // The next tile's slabs may take the last stage now, while this tile's C is stored.
  if (PERSIST) stage_release(block.ring, block.it + block.slabs - 1);
}

// Stores of 8-column chunks of C from the accumulators (the 16-bit kernel's EPI_VEC 8, the FP8 kernels): the four
// threads of a quad (t % 4 = q) hold one row's columns 2q, 2q + 1 of every n8 block. In four shuffle rounds r, thread q
// sends its pair of block (q + r) % 4 of a group of four and receives the pair that thread (q - r) % 4 holds of block
// q: then it has all 8 columns of block q, one chunk of the row (16 bytes of 16-bit elements), and a quad stores
// contiguous bytes instead of a pair in each of four blocks. `pairs` points at the group's first pair (this
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

// Split-K among the consumer threads (as in PATH 0): every slice leaves its ACCS accumulators per thread in the
// workspace; false for all but the last slice to finish the tile, which gets the sum of all slices in `acc`.
template <int ACCS>
__device__ __forceinline__ bool splitk_reduce(float* acc, float* workspace, unsigned* counters, const Tile& tile,
                                              unsigned* last_slice) {
  constexpr int kFrags = ACCS / 4;
  const int ct = threadIdx.x - 128;
  float4* ws = reinterpret_cast<float4*>(workspace) + (u64)tile.index * SPLITK * kFrags * kConsumerThreads;
  splitk_store<kFrags, kConsumerThreads>(ws, acc, ct);
  __threadfence();
  consumer_sync();
  if (ct == 0) *last_slice = atomicAdd(counters + tile.index, 1u) == SPLITK - 1;
  consumer_sync();
  if (!*last_slice) return false;
  __threadfence();
  splitk_sum<kFrags, kConsumerThreads, splitk_group(kFrags)>(ws, acc, ct);
  if (ct == 0) counters[tile.index] = 0;  // rearmed for the next launch
  return true;
}

}  // namespace gemm_sm90
#endif  // PATH == 1
