// 2D copy of a row-major float matrix (M x N) through the Tensor Memory Accelerator: the kernel copy2d_tma, the
// built-in example of the spec features for Hopper (tensor-map arguments, thread-block clusters).
//
// Each block copies one BX x BY box: one thread issues a TMA load (cp.async.bulk.tensor) of the box from the
// tensor map in_map into shared memory, completing on an mbarrier; then either the block's threads store it to
// global memory (STORE=0), undoing the shared-memory swizzle, or one thread stores it with a TMA store through
// out_map (STORE=1). Blocks run in clusters of CX x CY; with PEER=1 each block stores the box that the next block
// of its cluster loaded, read from that block's shared memory (distributed shared memory), so a launch without the
// cluster it asked for cannot produce the right output. Any block that finds itself in a cluster of another size
// writes nothing: the poisoned output then fails verification.
//
// Parameters (#defines from the tuner):
//   BX, BY    box extent in floats along N (inner) and M
//   SW        swizzle span of the box in shared memory, bytes: 0 (none), 32, 64, 128; the spec asks BX * 4 == SW
//             when swizzled, so that each box row is one swizzle row
//   CX, CY    blocks per cluster along x and y
//   STORE     0: threads store 16-byte chunks; 1: TMA store
//   PEER      1: store the next cluster block's box (needs CX * CY > 1 and STORE = 0)
//   THREADS   threads per block
// The tensor maps need rows of a multiple of 16 bytes (N % 4 == 0): the spec's constraints remove every
// configuration at other shapes.
#ifndef BX
#define BX 32
#endif
#ifndef BY
#define BY 32
#endif
#ifndef SW
#define SW 128
#endif
#ifndef CX
#define CX 1
#endif
#ifndef CY
#define CY 1
#endif
#ifndef STORE
#define STORE 0
#endif
#ifndef PEER
#define PEER 0
#endif
#ifndef THREADS
#define THREADS 128
#endif

#ifdef __CUDACC_RTC__
// cuda.h does not compile under NVRTC; the map is an opaque 128-byte, 64-byte aligned value.
struct alignas(64) CUtensorMap {
  unsigned long long opaque[16];
};
#else
#include <cuda.h>
#endif

#if !defined(CUTUNE_REFERENCE)
namespace {

constexpr unsigned kBoxBytes = BX * BY * 4;
// TMA writes a swizzled box at an address aligned to the swizzle's repeat (8 rows of the span); 1024 covers all.
constexpr unsigned kAlign = 1024;

__device__ unsigned smem_address(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ unsigned special_cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ unsigned special_cluster_size() {
  unsigned n;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
  return n;
}

__device__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

__device__ void wait_phase(unsigned bar, unsigned phase) {
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  }
}

// The byte offset of a box byte in the swizzled image: 16-byte chunks permuted by the row within each 8-row repeat.
__device__ unsigned swizzled(unsigned offset) {
#if SW == 0
  return offset;
#else
  return offset ^ (((offset >> 7) & (SW / 16 - 1)) << 4);
#endif
}

}  // namespace
#endif

extern "C" __global__ void __launch_bounds__(THREADS)
copy2d_tma(float* out, const float* in, const __grid_constant__ CUtensorMap in_map,
           const __grid_constant__ CUtensorMap out_map, int M, int N) {
#if !defined(CUTUNE_REFERENCE)
  (void)in;
  (void)out_map;
  extern __shared__ unsigned char smem_raw[];
  __shared__ unsigned long long bar_storage;
  if (special_cluster_size() != CX * CY) return;  // launched without the cluster this configuration asks for

  const unsigned base = smem_address(smem_raw);
  const unsigned box = (base + kAlign - 1) / kAlign * kAlign;
  unsigned char* box_ptr = smem_raw + (box - base);
  const unsigned bar = smem_address(&bar_storage);
  const int x0 = static_cast<int>(blockIdx.x) * BX;
  const int y0 = static_cast<int>(blockIdx.y) * BY;
  const bool inside = x0 < N && y0 < M;  // the grid is rounded up to whole clusters

  if (threadIdx.x == 0 && inside) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    // The async proxy (TMA) must see the initialised barrier.
    asm volatile("fence.mbarrier_init.release.cluster;\nfence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0 && inside) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kBoxBytes) : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
        ::"r"(box), "l"(reinterpret_cast<unsigned long long>(&in_map)), "r"(x0), "r"(y0), "r"(bar)
        : "memory");
  }
  if (inside) wait_phase(bar, 0);

#if STORE == 1
  if (threadIdx.x == 0 && inside) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 ::"l"(reinterpret_cast<unsigned long long>(&out_map)), "r"(x0), "r"(y0), "r"(box)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;" ::: "memory");
  }
#else
  // The box to store: this block's, or with PEER the next cluster block's, read through distributed shared memory.
  unsigned source = box;
  int sx = x0, sy = y0;
#if PEER
  cluster_sync();  // every block's box has arrived
  const unsigned rank = special_cluster_rank();
  const unsigned peer = (rank + 1) % (CX * CY);
  sx = (static_cast<int>(blockIdx.x) - static_cast<int>(rank % CX) + static_cast<int>(peer % CX)) * BX;
  sy = (static_cast<int>(blockIdx.y) - static_cast<int>(rank / CX) + static_cast<int>(peer / CX)) * BY;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(source) : "r"(box), "r"(peer));
#endif
  if (sx < N && sy < M) {
    constexpr unsigned kChunksPerRow = BX / 4;
    for (unsigned k = threadIdx.x; k < BY * kChunksPerRow; k += THREADS) {
      const unsigned r = k / kChunksPerRow, c = k % kChunksPerRow;
      const int row = sy + static_cast<int>(r), col = sx + static_cast<int>(c) * 4;
      if (row >= M || col >= N) continue;  // N % 4 == 0: a chunk is wholly inside or outside
      const unsigned at = source + swizzled(r * BX * 4 + c * 16);
      float4 v;
#if PEER
      asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];"
                   : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(at) : "memory");
#else
      v = *reinterpret_cast<const float4*>(box_ptr + (at - box));
#endif
      *reinterpret_cast<float4*>(out + static_cast<long long>(row) * N + col) = v;
    }
  }
#if PEER
  cluster_sync();  // no block leaves while another still reads its shared memory
#endif
#endif
  (void)box_ptr;
#endif
}

#if !defined(CUTUNE) || defined(CUTUNE_REFERENCE)
// One element per thread; the tensor maps are in the argument list only because the reference takes the spec's.
extern "C" __global__ void copy2d_reference(float* out, const float* in, const CUtensorMap in_map, const CUtensorMap out_map,
                                            int M, int N) {
  (void)in_map;
  (void)out_map;
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < static_cast<long long>(M) * N) out[i] = in[i];
}
#endif
