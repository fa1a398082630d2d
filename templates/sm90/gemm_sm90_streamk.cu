// How the wgmma kernels (gemm_wgmma.cu, gemm_wgmma_swap.cu, gemm_wgmma_tf32.cu, gemm_fp8.cu) finish tiles whose K is
// split between blocks: stream-K's fixup and split-K's sums (splitk_finish, at the end). The specs compile it after
// gemm_sm90.cu, whose TileWalk hands each persistent block its units of work. It adds accumulators register by register, whatever
// part of the tile each register stands for, so the transposed product's layout (TF32) needs nothing of its own.
//
// Stream-K (STREAMK=1, persistent blocks of single-block clusters): the shared tiles' MAC-loop iterations (one BK slab
// of one tile each) are split evenly among the grid's blocks, block b taking iterations [b I / G, (b + 1) I / G) of I
// in all, as units of work that each lie in one tile; STREAMK=2 shares only the tiles of the last, partial wave that
// way and walks the full waves' tiles whole (data-parallel) after them. A block's ranges are contiguous, so only its
// first unit can start inside a tile (a "tail": the tile's later slabs) and only its last can hold a tile's first slab
// without the whole tile (the "head"). A tile that several blocks share is finished by the block holding its head:
// each tail leaves its partial sums in the workspace (one slot per block) and adds its slabs to the tile's count in
// `counters`, without waiting for anything; the head, its block's last shared unit, waits until the count says every
// tail is there (they were the first units of the blocks after it, so they are done long before as a rule), adds the
// tails' partials to its own in the order of K (so the sums are the same every run) and stores the tile. (Letting the
// last block to get there finish the tile instead makes every unit wait for an atomic's answer after a GPU-wide fence,
// with the tensor cores idle: stream-K measured 0.7x of the data-parallel schedule that way.) A head waits only for the first units of
// the blocks after it, which wait for nothing: the persistent grid is resident at once, and were it not, a block that
// waits would only wait for one with a higher index, so the lowest-indexed blocks always finish.
#if PATH == 1

namespace gemm_sm90 {

// Stream-K's workspace slot of block b's partial sums (its tail unit's); the workspace holds two per block.
__device__ __forceinline__ unsigned streamk_slot(unsigned b) { return 2 * b; }

// Stream-K's fixup of a unit that is part of a tile (STREAMK >= 1; see the top of this file), for the consumer threads
// with ACCS accumulators each; true at once for a whole tile. A tail leaves its partial sums in its slot and adds its
// slabs to the tile's count (release), then returns false; the head waits for the count of the other slabs (acquire),
// adds their partials to `acc` in the order of K, lowers the count for the next launch and returns true.
template <int ACCS>
__device__ __forceinline__ bool streamk_reduce(float* acc, float* workspace, unsigned* counters, const Block& block,
                                               int M, int N, int K) {
  const int per_tile = TileWalk::slabs_per_tile(K);
  if (STREAMK == 0 || block.slabs == per_tile) return true;
  constexpr int kFrags = ACCS / 4;
  const int ct = threadIdx.x - 128;
  const int first = block.walk.sk_next - block.slab_begin;  // the tile's first iteration
  unsigned* count = counters + first / per_tile;
  float4* slots = reinterpret_cast<float4*>(workspace);
  if (block.slab_begin != 0) {  // a tail: leave the partials to the head and go on
    splitk_store<kFrags, kConsumerThreads>(slots + (u64)streamk_slot(blockIdx.x) * kFrags * kConsumerThreads, acc, ct);
    consumer_sync();  // every consumer thread's stores come before the count
    if (ct == 0) count_release_add(count, static_cast<unsigned>(block.slabs));
    return false;
  }
  const unsigned others = static_cast<unsigned>(per_tile - block.slabs);
  if (ct == 0) {
    while (count_acquire(count) != others) __nanosleep(64);
  }
  consumer_sync();  // the tails' partials are visible to every consumer thread after thread 0's acquire
  // The tails, in the order of K: the blocks after this one (blocks without iterations skipped).
  const int iterations = TileWalk::sk_iterations(M, N, K);
  int b = static_cast<int>(blockIdx.x) + 1;
#pragma unroll 1
  for (int at = first + block.slabs; at < first + per_tile; ++b) {
    const int end = TileWalk::sk_start(iterations, b + 1);
    if (end <= at) continue;
    const float4* part = slots + (u64)streamk_slot(b) * kFrags * kConsumerThreads + ct;
#pragma unroll
    for (int f = 0; f < kFrags; ++f) {
      const float4 v = __ldcg(part + f * kConsumerThreads);
      acc[4 * f] += v.x, acc[4 * f + 1] += v.y, acc[4 * f + 2] += v.z, acc[4 * f + 3] += v.w;
    }
    at = end;
  }
  if (ct == 0) *count = 0;
  return true;
}

// Split-K through distributed shared memory (KSUM=1, SPLITK > 1): the SPLITK slices of a tile are the blocks of one
// cluster along grid.z (cluster rank = slice). Every slice but the first leaves its partial sums in its own ring
// (free once every consumer's wgmmas are done with it: ACCS floats per consumer thread, fragment by fragment, so that
// neighbouring threads write neighbouring 16 bytes), and a cluster barrier makes them visible; the first slice adds
// them to its accumulators in slice order, reading the other blocks' shared memory (so the sums are the same every
// run), and stores the tile, while a second barrier keeps the others resident until it has read them. Nothing goes
// through global memory, no counter is kept, and the reads are spread over the cluster's SMs instead of one SM's
// share of L2. True for the first slice; the producer warpgroup takes part in both barriers (start_block()).
template <int ACCS>
__device__ __forceinline__ bool cluster_sum(float* acc, unsigned ring) {
  constexpr int kFrags = ACCS / 4, kGroup = splitk_group(kFrags);
  const unsigned ct = threadIdx.x - 128, rank = cluster_rank();
  const auto at = [&](int f) { return ring + (static_cast<unsigned>(f) * kConsumerThreads + ct) * 16u; };
  consumer_sync();  // both consumer warpgroups' wgmmas are done with the ring
  if (rank != 0) {
#pragma unroll
    for (int f = 0; f < kFrags; ++f) store_shared_f4(at(f), acc[4 * f], acc[4 * f + 1], acc[4 * f + 2], acc[4 * f + 3]);
  }
  cluster_sync();  // the partials are written
  if (rank == 0) {
#pragma unroll
    for (int g = 0; g < kFrags; g += kGroup) {
#pragma unroll 1
      for (unsigned z = 1; z < SPLITK; ++z) {
#pragma unroll
        for (int f = g; f < g + kGroup; ++f) {
          const float4 v = load_cluster_f4(cluster_address(at(f), z));
          acc[4 * f] += v.x, acc[4 * f + 1] += v.y, acc[4 * f + 2] += v.z, acc[4 * f + 3] += v.w;
        }
      }
    }
  }
  cluster_sync();  // the first slice has read them: the others may leave
  return rank == 0;
}

// A split-K tile's sum (SPLITK > 1), for the consumer threads with ACCS accumulators each: through the cluster's
// shared memory (KSUM=1) or through the workspace (gemm_sm90.cu's splitk_reduce); true for the block that stores it.
template <int ACCS>
__device__ __forceinline__ bool splitk_finish(float* acc, float* workspace, unsigned* counters, const Block& block) {
  if constexpr (kClusterSum) {
    (void)workspace, (void)counters;
    return cluster_sum<ACCS>(acc, block.ring.base);
  } else {
    return splitk_reduce<ACCS>(acc, workspace, counters, block.tile, block.ring.last_slice);
  }
}

}  // namespace gemm_sm90
#endif  // PATH == 1
