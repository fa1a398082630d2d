// Sum or max of a float or double array of any length, complete on the device in one launch.
//
// Chosen per spec by compile options (reduce*.json):
//   OP        0: sum, 1: max (NaN-propagating: any NaN gives NaN, like numpy.max)
//   TYPE      element type, float or double
// Tunable (as #defines; the defaults below let the file compile on its own):
//   BLOCK     threads per block
//   ITEMS     vector loads per thread per tile, all issued before any is used (loads in flight)
//   VEC       elements per load (1, 2, 4): float, float2, float4; double, double2, 2 x double2
//   GRID      most blocks; a block strides over tiles of BLOCK * ITEMS * VEC elements (the spec's grid is
//             min(tiles, GRID)), so large arrays run on a resident grid that combines few partials
//   SCHEME    reduction within a block: 0 warp shuffles (warp totals through static shared memory),
//             1 shared-memory tree in static shared memory, 2 the same tree in dynamic shared memory
//   COMBINE   across blocks: 0 the last block to finish combines the partials in a fixed order (deterministic:
//             bitwise identical run to run), 1 each block adds its result atomically into an accumulator that the
//             last block reads and clears (sum: order varies, so the low bits may; max is exact either way), 2 (float
//             only) each block stores its result, tagged as filled, into its slot with one 64-bit store, and the
//             first block, which waits for them instead of counting, adds them in slot order (deterministic) and
//             clears the slots
//   CLUSTER   blocks per thread-block cluster (compute capability 9.0): the blocks of a cluster hand their totals
//             to the cluster's first block through distributed shared memory and one cluster barrier, and only
//             that block takes part in the combine across blocks (in rank order: deterministic). A grid of one
//             cluster has no combine through global memory at all: no atomics, no fences, one launch
//
// The combine across blocks costs round trips to L2 after the last load (the partial or the atomic add, the count,
// the last block's read), which at 2^16 to 2^20 elements are a good part of the kernel: the count is one atomic with
// release and acquire semantics rather than a full fence around it, and clusters take most blocks out of it. COMBINE
// 2 has no count at all: a tagged total is complete in one 64-bit store (single-copy atomic), so nothing has to be
// released before another write, and the first block sees the last total one load after it lands. That block waits
// on the others, which is safe because it is the only one that waits: every other block runs to its end.
//
// Accuracy: a thread sums each tile's ITEMS * VEC elements (at most 32) as a pairwise tree in the element type and
// accumulates the tile sums, the block and the grid in double, so float sums are as accurate as a double sum of
// float-rounded tile sums, whatever the configuration (the spec's tolerance relies on it).
//
// Verification tolerance (the specs' "tolerance"), for inputs uniform in [-1, 1) against the double reference below
// (its own error, about 1e-18 * N for 1024 threads summing in sequence in double, is negligible):
//   float sum: |out - ref| <= 1e-6 * sqrt(N) + 2.5e-7 * |ref|. Both results are double sums rounded once to float
//     (COMBINE 2 also rounds each of G block totals, of typical size 0.58 * sqrt(N / G), to float: a random error of
//     about 2e-8 * sqrt(N) in all, a fiftieth of the atol):
//     at most 1 ulp apart from that (2^-23 relative: the rtol, with margin). The only other difference is the
//     rounding inside the float tile sums: a pairwise tree of K = ITEMS * VEC <= 32 elements makes K - 1 roundings
//     of partial sums of typical size 0.58 * sqrt(2^level), a random error of standard deviation about
//     2^-24 / 3 * sqrt(K log2 K) per tile; over N / K tiles that is at most 4.5e-8 * sqrt(N) whatever K, so the
//     atol is over 20 standard deviations. A lost element is still caught: at N = 2^28 the bound is 0.019 (any
//     element above it in size, 98% of them), at N = 2^20 + 7 it is 1.2e-3, at N = 1023 4e-5.
//   double sum: |out - ref| <= 1e-16 * N. The worst configuration is one block of 128 threads adding N / 128
//     elements each in sequence: per thread a random error of about 2^-53 * (N / 128) / 4.2, over 128 threads
//     2.3e-18 * N, so the bound is 40 standard deviations. A lost element above 2.7e-8 in size is caught at 2^28.
//   max: exact (tolerance 0): every configuration returns one of the elements, or NaN.
//
// Any alignment and length: the elements before the first VEC-aligned one (head) and after the last whole vector
// (tail) are read one by one, and the last, partial tile with bounds checks, all by the block that owns that tile.
//
// Workspace (non-output buffers that the kernel leaves as it found them, so it can run again and again):
//   partials  at least as many doubles as blocks: one partial per block, or per cluster (COMBINE 0); COMBINE 2's
//             slots (64 bits each: a tag in the upper half, the float total in the lower; zero again after the run).
//             The tag's upper half is a denormal double's, which COMBINE 0 never leaves there (its partials are sums or
//             maxima of floats: zero or at least 2^-149 in size), so a slot is never taken for filled by mistake
//   state     2 x 64 bits, zero: [0] the accumulator (COMBINE 1; its bits, zero again after the last block),
//             [1] the count of finished blocks or clusters (low 32 bits; the atomic increment wraps it back to zero
//             at the last one)
#ifndef OP
#define OP 0
#endif
#ifndef TYPE
#define TYPE float
#endif
#ifndef BLOCK
#define BLOCK 256
#endif
#ifndef ITEMS
#define ITEMS 4
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef GRID
#define GRID 1024
#endif
#ifndef SCHEME
#define SCHEME 0
#endif
#ifndef COMBINE
#define COMBINE 0
#endif
#ifndef CLUSTER
#define CLUSTER 1
#endif

typedef TYPE T;
typedef unsigned long long u64;
#if OP == 0
typedef double acc_t;  // sums accumulate in double beyond a tile
#else
typedef T acc_t;  // max is exact in any type
#endif

#define KERNEL_TILE (BLOCK * ITEMS)  // vectors per tile

// The identity and the operation, in the element type and in double; the max keeps NaN (a > b is false for NaN).
template <typename U>
__device__ __forceinline__ U identity() {
#if OP == 0
  return U(0);
#else
  return -U(__int_as_float(0x7f800000));  // -inf
#endif
}
template <typename U>
__device__ __forceinline__ U op(U a, U b) {
#if OP == 0
  return a + b;
#else
  return (a > b || a != a) ? a : b;
#endif
}

// One vector of VEC elements from an address aligned to VEC elements, into v[0 .. VEC).
template <typename U, int V>
struct Loader;
template <typename U>
struct Loader<U, 1> {
  static __device__ __forceinline__ void load(U* v, const U* p) { v[0] = *p; }
};
template <>
struct Loader<float, 2> {
  static __device__ __forceinline__ void load(float* v, const float* p) {
    const float2 t = *reinterpret_cast<const float2*>(p);
    v[0] = t.x;
    v[1] = t.y;
  }
};
template <>
struct Loader<float, 4> {
  static __device__ __forceinline__ void load(float* v, const float* p) {
    const float4 t = *reinterpret_cast<const float4*>(p);
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
  }
};
template <>
struct Loader<double, 2> {
  static __device__ __forceinline__ void load(double* v, const double* p) {
    const double2 t = *reinterpret_cast<const double2*>(p);
    v[0] = t.x;
    v[1] = t.y;
  }
};
template <>
struct Loader<double, 4> {  // no 32-byte loads before sm_100: two 16-byte ones
  static __device__ __forceinline__ void load(double* v, const double* p) {
    Loader<double, 2>::load(v, p);
    Loader<double, 2>::load(v + 2, p + 2);
  }
};

// Pairwise tree over v[0 .. K) (K a power of two), by halves so that every index is a constant.
template <int K>
struct Tree {
  static __device__ __forceinline__ T run(T* v) {
#pragma unroll
    for (int i = 0; i < K / 2; ++i) v[i] = op(v[i], v[i + K / 2]);
    return Tree<K / 2>::run(v);
  }
};
template <>
struct Tree<1> {
  static __device__ __forceinline__ T run(T* v) { return v[0]; }
};

__device__ __forceinline__ acc_t accumulate(acc_t acc, T tile_total) { return op(acc, static_cast<acc_t>(tile_total)); }

// The block's total, in thread 0 (fixed order: deterministic). Each Slot has its own static shared memory, so a
// second call (the last block's combine) needs no barrier after the first.
template <int Slot>
__device__ __forceinline__ acc_t block_reduce(acc_t x) {
  const int tid = threadIdx.x;
#if SCHEME == 0
#pragma unroll
  for (int o = 16; o > 0; o /= 2) x = op(x, __shfl_down_sync(0xffffffffu, x, o));
  __shared__ acc_t warp_totals[BLOCK / 32];
  if ((tid & 31) == 0) warp_totals[tid / 32] = x;
  __syncthreads();
  if (tid < 32) {
    x = tid < BLOCK / 32 ? warp_totals[tid] : identity<acc_t>();
#pragma unroll
    for (int o = 16; o > 0; o /= 2) x = op(x, __shfl_down_sync(0xffffffffu, x, o));
  }
  return x;
#else
#if SCHEME == 1
  __shared__ acc_t s[BLOCK];
#else
  extern __shared__ acc_t s[];  // BLOCK values, sized by the spec's shared_memory
#endif
  s[tid] = x;
  __syncthreads();
#pragma unroll
  for (int stride = BLOCK / 2; stride > 32; stride /= 2) {
    if (tid < stride) s[tid] = op(s[tid], s[tid + stride]);
    __syncthreads();
  }
  // The last 64 values within one warp, still through shared memory.
  if (tid < 32) {
#pragma unroll
    for (int stride = 32; stride > 0; stride /= 2) {
      const acc_t y = op(s[tid], s[tid + stride]);
      __syncwarp();
      s[tid] = y;
      __syncwarp();
    }
  }
  x = s[0];
#if SCHEME == 2
  __syncthreads();  // the one dynamic buffer may be reused by a second call
#endif
  return x;
#endif
}

// Counts a finished block (wrapping to zero at the last one) with release semantics for this thread's earlier
// writes and acquire semantics for the other blocks' ones: true in the last block's calling thread.
__device__ __forceinline__ bool count_finished(unsigned* finished, unsigned blocks) {
  unsigned before;
  asm volatile("atom.acq_rel.gpu.global.inc.u32 %0, [%1], %2;" : "=r"(before) : "l"(finished), "r"(blocks - 1) : "memory");
  return before == blocks - 1;
}

#if CLUSTER > 1
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ void store_remote(unsigned address, float x) {
  asm volatile("st.shared::cluster.f32 [%0], %1;" ::"r"(address), "f"(x) : "memory");
}
__device__ __forceinline__ void store_remote(unsigned address, double x) {
  asm volatile("st.shared::cluster.f64 [%0], %1;" ::"r"(address), "d"(x) : "memory");
}
// The cluster's total in thread 0 of its first block (rank order); false in every other block, which may leave.
__device__ __forceinline__ bool cluster_reduce(acc_t& total) {
  __shared__ acc_t totals[CLUSTER];  // used in the first block only
  const unsigned rank = cluster_rank();
  if (threadIdx.x == 0) {
    unsigned leader;
    const unsigned local = static_cast<unsigned>(__cvta_generic_to_shared(totals + rank));
    asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(leader) : "r"(local));
    store_remote(leader, total);
  }
  // Nobody reads another block's shared memory after this barrier, so the other blocks may exit at once.
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (rank != 0) return false;
  if (threadIdx.x == 0) {
    total = totals[0];
#pragma unroll
    for (int r = 1; r < CLUSTER; ++r) total = op(total, totals[r]);
  }
  return true;
}
#endif

#if COMBINE == 1
// Doubles as unsigned integers that order like the values, for atomicMax; NaN (made positive) is the largest.
__device__ __forceinline__ u64 ordered_key(double x) {
  u64 b = static_cast<u64>(__double_as_longlong(x));
  if (x != x) b = 0x7fffffffffffffffull;
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}
__device__ __forceinline__ double from_key(u64 k) {
  return __longlong_as_double(static_cast<long long>((k >> 63) ? (k & 0x7fffffffffffffffull) : ~k));
}
#endif

#if COMBINE == 2
static_assert(sizeof(T) == 4, "COMBINE 2 packs a float total and its tag into one 64-bit slot");
constexpr unsigned kFilled = 0xc0deu;  // the upper half of a filled slot
__device__ __forceinline__ void slot_store(u64* slot, T total) {
  const u64 v = static_cast<u64>(kFilled) << 32 | __float_as_uint(total);
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(slot), "l"(v) : "memory");
}
// The slot's total once its group has stored it (spinning until then); clears the slot for the next launch.
__device__ __forceinline__ T slot_take(u64* slot) {
  u64 v;
  do {
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(slot) : "memory");
  } while (static_cast<unsigned>(v >> 32) != kFilled);
  *slot = 0;
  return __uint_as_float(static_cast<unsigned>(v));
}
#endif

// This thread's share of the input: its elements of the whole tiles, and for the block whose turn the next tile
// would be, of the partial tile, the head (before the first address aligned to VEC elements) and the tail.
__device__ __forceinline__ acc_t thread_share(const T* __restrict__ in, long long n) {
  const int tid = threadIdx.x;
  const long long misalign = static_cast<long long>((reinterpret_cast<u64>(in) / sizeof(T)) % VEC);
  const long long head = min(n, (VEC - misalign) % VEC);
  const T* body = in + head;
  const long long vectors = (n - head) / VEC;
  const long long tail = n - head - vectors * VEC;
  const long long tiles = vectors / KERNEL_TILE;  // whole tiles; the rest is one partial tile

  acc_t acc = identity<acc_t>();
  {
    const T* p = body + (static_cast<long long>(blockIdx.x) * KERNEL_TILE + tid) * VEC;
    const long long step = static_cast<long long>(gridDim.x) * KERNEL_TILE * VEC;
    for (long long t = blockIdx.x; t < tiles; t += gridDim.x, p += step) {
      T v[ITEMS * VEC];
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) Loader<T, VEC>::load(v + i * VEC, p + i * BLOCK * VEC);
      acc = accumulate(acc, Tree<ITEMS * VEC>::run(v));
    }
  }
  if (blockIdx.x == tiles % gridDim.x) {
    const long long first = tiles * KERNEL_TILE;
    T v[ITEMS * VEC];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      const long long k = first + i * BLOCK + tid;
      T* w = v + i * VEC;
      if (k < vectors) {
        Loader<T, VEC>::load(w, body + k * VEC);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) w[j] = identity<T>();
      }
    }
    T extra = identity<T>();
    if (tid < head) extra = in[tid];
    if (tid < tail) extra = op(extra, body[vectors * VEC + tid]);
    acc = accumulate(accumulate(acc, Tree<ITEMS * VEC>::run(v)), extra);
  }
  return acc;
}

// The totals of `groups` groups (blocks, or clusters through their first block) into out[0]; `total` is this
// group's, in its thread 0. COMBINE chooses how.
#if COMBINE == 0
// Each group stores its partial; the last to finish adds them all up.
__device__ __forceinline__ void combine_groups(T* __restrict__ out, acc_t total, unsigned groups,
                                               double* __restrict__ partials, long long* __restrict__ state) {
  const int tid = threadIdx.x;
  unsigned* finished = reinterpret_cast<unsigned*>(state + 1);
  __shared__ bool last;
  if (tid == 0) {
    partials[blockIdx.x / CLUSTER] = static_cast<double>(total);
    last = count_finished(finished, groups);  // releases the partial, acquires the others
  }
  __syncthreads();
  if (!last) return;
  acc_t x = identity<acc_t>();
  for (int b = tid; b < static_cast<int>(groups); b += BLOCK) x = op(x, static_cast<acc_t>(__ldcg(partials + b)));
  total = block_reduce<1>(x);
  if (tid == 0) out[0] = static_cast<T>(total);
}
#elif COMBINE == 2
// Each group fills its slot; the first group waits for them.
__device__ __forceinline__ void combine_groups(T* __restrict__ out, acc_t total, unsigned groups,
                                               double* __restrict__ partials, long long* __restrict__) {
  const int tid = threadIdx.x;
  u64* slots = reinterpret_cast<u64*>(partials);
  const unsigned group = blockIdx.x / CLUSTER;
  if (group != 0) {
    if (tid == 0) slot_store(slots + group, static_cast<T>(total));
    return;
  }
  // The first group: each thread takes its slots in index order, so the sum is the same run to run.
  acc_t x = identity<acc_t>();
  for (unsigned g = 1 + tid; g < groups; g += BLOCK) x = op(x, static_cast<acc_t>(slot_take(slots + g)));
  x = block_reduce<1>(x);
  if (tid == 0) out[0] = static_cast<T>(op(total, x));
}
#else
// Each group adds (or maxes) its total into one global word; the last to finish reads and clears it.
__device__ __forceinline__ void combine_groups(T* __restrict__ out, acc_t total, unsigned groups, double* __restrict__,
                                               long long* __restrict__ state) {
  unsigned* finished = reinterpret_cast<unsigned*>(state + 1);
  if (threadIdx.x == 0) {
#if OP == 0
    atomicAdd(reinterpret_cast<double*>(state), static_cast<double>(total));
#else
    atomicMax(reinterpret_cast<u64*>(state), ordered_key(static_cast<double>(total)));
#endif
    if (count_finished(finished, groups)) {  // releases the addition above, acquires all the others
      const u64 bits = atomicExch(reinterpret_cast<u64*>(state), 0ull);  // read and clear (0 is the identity)
#if OP == 0
      out[0] = static_cast<T>(__longlong_as_double(static_cast<long long>(bits)));
#else
      out[0] = static_cast<T>(from_key(bits));
#endif
    }
  }
}
#endif

// The kernel's body, separate so that tests can wrap it (e.g. at a misaligned start).
__device__ __forceinline__ void reduce_body(T* __restrict__ out, const T* __restrict__ in, long long n,
                                            double* __restrict__ partials, long long* __restrict__ state) {
  acc_t total = block_reduce<0>(thread_share(in, n));
#if CLUSTER > 1
  if (!cluster_reduce(total)) return;
#endif
  // From here on a "group" is a block, or with clusters a cluster (through its first block).
  const unsigned groups = gridDim.x / CLUSTER;
  if (groups == 1) {
    if (threadIdx.x == 0) out[0] = static_cast<T>(total);
    return;
  }
  combine_groups(out, total, groups, partials, state);
}

extern "C" __global__ void __launch_bounds__(BLOCK)
reduce(T* __restrict__ out, const T* __restrict__ in, long long n, double* __restrict__ partials,
       long long* __restrict__ state) {
  reduce_body(out, in, n, partials, state);
}

// The reference's body, for a block of a power-of-two size: each thread sums a strided share in double (eight loads
// in flight, added in order), then a plain shared-memory tree. Obviously right, deterministic, and exact for max.
__device__ void reference_block(T* out, const T* in, long long n) {
  __shared__ double s[1024];
  const int tid = threadIdx.x;
  const long long stride = blockDim.x;
  double x = identity<double>();
  long long i = tid;
  for (; i + 7 * stride < n; i += 8 * stride) {
    double v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = static_cast<double>(in[i + j * stride]);
#pragma unroll
    for (int j = 0; j < 8; ++j) x = op(x, v[j]);
  }
  for (; i < n; i += stride) x = op(x, static_cast<double>(in[i]));
  s[tid] = x;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (tid < h) s[tid] = op(s[tid], s[tid + h]);
    __syncthreads();
  }
  if (tid == 0) out[0] = static_cast<T>(s[0]);
}

// One block of at most 1024 threads (a power of two). Left out of the candidates' compiles.
#if !defined(CUTUNE) || defined(CUTUNE_REFERENCE)
extern "C" __global__ void reduce_reference(T* out, const T* in, long long n, double*, long long*) {
  reference_block(out, in, n);
}
#endif
