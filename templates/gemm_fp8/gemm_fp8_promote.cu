// The FP8 GEMMs' promoted main loop with two buffers of partial sums (gemm_fp8.cu's PROMOTE, where the registers
// hold them): the wgmmas of PROMOTE slabs sum into one buffer while the sums of the PROMOTE slabs before, in the other
// buffer, are added to the FP32 accumulators. The specs compile it after gemm_sm90*.cu and before gemm_fp8.cu.
//
// With one buffer, a consumer warpgroup waits for all of its wgmmas, then adds their sums, and both warpgroups
// reach that wait together (they read the same stages), so the tensor cores idle while they add and issue the next
// slab. With two, a group's first slab is issued into the other buffer before the wait, and the wait (wait_group 1)
// leaves that slab's wgmmas running: the tensor cores hold the next slab's work while the sums are added.
//
// Per slab `it` of the ring (the block's slab count so far, as in consume_slabs): wait for its stage, issue its wgmmas
// into the group's buffer, commit; then, but for the unit's first slab, wait for every wgmma but this slab's and
// release the stage of the slab before; at a group's first slab also add the buffer of the group before. ptxas keeps
// the wgmmas asynchronous when the buffer is known when compiling, so the loop walks two groups per iteration, buffer 0
// then 1.
#if PATH == 1 && !defined(CUTUNE_REFERENCE)
namespace gemm_fp8_promote {
using namespace gemm_sm90;

// One group: slabs i ... i + P - 1 of the block's unit (fewer at its end) into buffer B of `sums`:
// sums.multiply<B>(it, slab, fresh) issues slab `slab`'s wgmmas from the ring's slab `it` (fresh: the buffer starts
// afresh), sums.promote<b>() adds buffer b to the accumulators once its wgmmas are done; issued() runs once the unit's
// last wgmmas are issued. FIRST: the unit's first group (no group before it to add).
template <int P, int B, bool FIRST, typename Sums, typename Issued>
__device__ __forceinline__ void promote_group(const Block& block, int i, Sums& sums, Issued& issued) {
#pragma unroll
  for (int p = 0; p < P; ++p) {
    if (i + p == block.slabs) break;
    const unsigned it = block.it + i + p;
    stage_wait(block.ring, it);
    wgmma_fence();
    sums.template multiply<B>(it, i + p, p == 0);
    wgmma_commit();
    if (i + p + 1 == block.slabs) issued();
    if (p > 0 || !FIRST) {
      wgmma_wait<1>();  // all but this slab's wgmmas: the slab before is done with its stage
      stage_release(block.ring, it - 1);
      if (p == 0) sums.template promote<1 - B>();
    }
  }
}

// The unit's last group, in buffer B: its wgmmas waited for, its last stage released, its sums added.
template <int B, typename Sums>
__device__ __forceinline__ void promote_last(const Block& block, Sums& sums) {
  wgmma_wait<0>();
  stage_release(block.ring, block.it + block.slabs - 1);
  sums.template promote<B>();
}

// Every slab of the block's unit, P slabs a group.
template <int P, typename Sums, typename Issued>
__device__ __forceinline__ void consume_overlapped(const Block& block, Sums& sums, Issued&& issued) {
  if (block.slabs <= 0) return;
  promote_group<P, 0, true>(block, 0, sums, issued);
#pragma unroll 1
  for (int i = P;; i += 2 * P) {
    if (i >= block.slabs) {
      promote_last<0>(block, sums);
      return;
    }
    promote_group<P, 1, false>(block, i, sums, issued);
    if (i + P >= block.slabs) {
      promote_last<1>(block, sums);
      return;
    }
    promote_group<P, 0, false>(block, i + P, sums, issued);
  }
}

}  // namespace gemm_fp8_promote
#endif  // PATH == 1 && !defined(CUTUNE_REFERENCE)
