// The PTX instructions of the wgmma + TMA kernels (gemm_sm90.cu describes the pipeline they build): shared-memory
// addresses, mbarriers, TMA loads (multicast too) and stores, cluster ranks and barriers, named barriers of a
// warpgroup, wgmma's fences, commits and waits, and the register pins around them. The specs compile it after
// gemm_tc_shared.cu and gemm_tc.cu and before gemm_sm90.cu.
#if PATH == 1

namespace gemm_sm90 {
using namespace gemm_tc_shared;

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

// Multicast (MC=1): the load lands at `dst` in every block of the cluster in `mask`, completing on `bar` in each.
__device__ __forceinline__ void tma_load_multicast(unsigned dst, const CUtensorMap* map, int x, int y, unsigned bar,
                                                   unsigned short mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;"
      ::"r"(dst), "l"(reinterpret_cast<u64>(map)), "r"(x), "r"(y), "r"(bar), "h"(mask)
      : "memory");
}
// The address in block `rank` of the cluster that the address `local` of this block's shared memory maps to (in the
// shared::cluster window).
__device__ __forceinline__ unsigned cluster_address(unsigned local, unsigned rank) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}
// An arrival on the barrier at the same place in block `rank` of the cluster. The default (CTA-scope) release: with
// .release.cluster the kernel ran at half speed on an H100 (0.51x cuBLAS at 4096^3 against 0.83x), and what the
// other block's producer then overwrites was only read by wgmmas that the arrival's wait already covered.
__device__ __forceinline__ void barrier_arrive_in(unsigned bar, unsigned rank) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(cluster_address(bar, rank)) : "memory");
}
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}
// 16 bytes loaded from another block's shared memory (distributed shared memory, at a cluster_address), and 16
// stored into this block's own.
__device__ __forceinline__ float4 load_cluster_f4(unsigned address) {
  float4 v;
  asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "r"(address)
               : "memory");
  return v;
}
__device__ __forceinline__ void store_shared_f4(unsigned address, float a, float b, float c, float d) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(address), "f"(a), "f"(b), "f"(c), "f"(d) : "memory");
}
// Every thread of every block of the cluster (threads may arrive apart: not .aligned).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

// TMA stores (EPI_VEC 64): the box at coordinates (x innermost, y) of `map` from shared memory at `src`, in the
// thread's bulk group; commit closes the group; wait_read<N> returns once at most N groups still read shared memory,
// wait_all<N> once at most N are still writing. The threads' own writes of `src` must reach the async proxy first.
__device__ __forceinline__ void tma_store(const CUtensorMap* map, unsigned src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
               ::"l"(reinterpret_cast<u64>(map)), "r"(x), "r"(y), "r"(src)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void bulk_wait_all() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}
// Stream-K's signal and wait on a tile's count in global memory, at GPU scope: a reduction with release semantics
// (the writes the calling thread has seen, its block's after a barrier among them, are visible before the count) and a
// load with acquire semantics.
__device__ __forceinline__ void count_release_add(unsigned* count, unsigned n) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(count), "r"(n) : "memory");
}
__device__ __forceinline__ unsigned count_acquire(const unsigned* count) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(count) : "memory");
  return v;
}
__device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// The 128 threads of consumer warpgroup `consumer` (0 or 1): named barriers 2 and 3 (immediates, so that ptxas
// reserves only the barriers used).
__device__ __forceinline__ void warpgroup_sync(int consumer) {
  if (consumer == 0) {
    asm volatile("bar.sync 2, 128;" ::: "memory");
  } else {
    asm volatile("bar.sync 3, 128;" ::: "memory");
  }
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}
// Keeps registers whose values wgmmas read or write asynchronously alive, unchanged, up to this point (after the
// wait that covers them): the wait names no registers, so without this the compiler may read the accumulators early
// (ptxas then serializes the wgmmas) or give a fragment's registers to other values while a wgmma still reads them.
template <int N>
__device__ __forceinline__ void pin(float (&v)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(v[i])::"memory");
}
template <int N>
__device__ __forceinline__ void pin(unsigned (&v)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(v[i])::"memory");
}

}  // namespace gemm_sm90
#endif  // PATH == 1
