// Stream-K's fixup for the wgmma kernels (gemm_wgmma.cu, gemm_wgmma_tf32.cu): the specs compile it after gemm_sm90.cu,
// whose TileWalk hands each persistent block its units of work. It adds accumulators register by register, whatever
// part of the tile each register stands for, so the transposed product's layout (TF32) needs nothing of its own.
//
// Stream-K (STREAMK=1, persistent blocks of single-block clusters): the shared tiles' MAC-loop iterations (one BK slab
// of one tile each) are split evenly among the grid's blocks, block b taking iterations [b I / G, (b + 1) I / G) of I
// in all, as units of work that each lie in one tile; STREAMK=2 shares only the tiles of the last, partial wave that
// way and walks the full waves' tiles whole (data-parallel) after them. A tile that several blocks share is finished
// by the last of its blocks to get there: each leaves its partial sums in the workspace (two slots per block: only a
// block's first unit can start inside a tile and only its last can end inside one) and adds its slabs to the tile's
// count in `counters`; the block whose slabs complete the count adds the partials in the order of K (so the sums are
// the same every run) and stores the tile. No block waits for another, so no schedule of the blocks can deadlock.
#if PATH == 1

namespace gemm_sm90 {

// Stream-K's workspace slot of block b's partial sums: two per block, one for a unit that holds a tile's first slab
// (the last unit of the block's range) and one for a unit that does not (its first); a block has at most one of each.
__device__ __forceinline__ unsigned streamk_slot(unsigned b, bool head) { return 2 * b + (head ? 1 : 0); }

// Stream-K's fixup of a unit that is part of a tile (STREAMK >= 1; see the top of this file), for the consumer threads
// with ACCS accumulators each; true at once for a whole tile. Every block sharing the tile leaves its partial sums in
// its slot of the workspace and adds its slabs to the tile's count in `counters`; the one that completes the count
// returns true with the whole tile's sums in `acc` (the partials added in the order of K, so the same every run) and
// lowers the count for the next launch; the others return false. No block waits for another.
template <int ACCS>
__device__ __forceinline__ bool streamk_reduce(float* acc, float* workspace, unsigned* counters, const Block& block,
                                               int M, int N, int K) {
  const int per_tile = TileWalk::slabs_per_tile(K);
  if (STREAMK == 0 || block.slabs == per_tile) return true;
  constexpr int kFrags = ACCS / 4;
  const int ct = threadIdx.x - 128;
  const int first = block.walk.sk_next - block.slab_begin;  // the tile's first iteration
  float4* slots = reinterpret_cast<float4*>(workspace);
  splitk_store<kFrags, kConsumerThreads>(slots + (u64)streamk_slot(blockIdx.x, block.slab_begin == 0) * kFrags *
                                                     kConsumerThreads, acc, ct);
  __threadfence();
  consumer_sync();
  if (ct == 0) {
    const unsigned slabs = static_cast<unsigned>(block.slabs);
    *block.ring.last_slice = atomicAdd(counters + first / per_tile, slabs) + slabs == static_cast<unsigned>(per_tile);
  }
  consumer_sync();
  if (!*block.ring.last_slice) return false;
  __threadfence();
  // The blocks that share the tile, in order from the one holding its first slab; blocks without iterations skipped.
  const int iterations = TileWalk::sk_iterations(M, N, K);
  int b = static_cast<int>(static_cast<long long>(first) * gridDim.x / iterations);
  while (TileWalk::sk_start(iterations, b + 1) <= first) ++b;
  while (TileWalk::sk_start(iterations, b) > first) --b;
#pragma unroll
  for (int r = 0; r < ACCS; ++r) acc[r] = 0.0f;
#pragma unroll 1
  for (int at = first; at < first + per_tile; ++b) {
    const int end = TileWalk::sk_start(iterations, b + 1);
    if (end <= at) continue;
    const float4* part = slots + (u64)streamk_slot(b, at == first) * kFrags * kConsumerThreads + ct;
#pragma unroll
    for (int f = 0; f < kFrags; ++f) {
      const float4 v = __ldcg(part + f * kConsumerThreads);
      acc[4 * f] += v.x, acc[4 * f + 1] += v.y, acc[4 * f + 2] += v.z, acc[4 * f + 3] += v.w;
    }
    at = end;
  }
  if (ct == 0) counters[first / per_tile] = 0;
  return true;
}

}  // namespace gemm_sm90
#endif  // PATH == 1
