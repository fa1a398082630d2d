// The mma.sync instruction path (PATH=0) of the tensor-core GEMMs gemm_tf32, gemm_bf16 and gemm_f16: ldmatrix
// fragments from shared memory filled by a cp.async pipeline, on sm_80 and later. The specs compile it after
// gemm_tc_shared.cu, whose header describes the kernels, their verification and what both paths share.
#if PATH == 0
namespace gemm_tc_detail {
using namespace gemm_tc_shared;

constexpr int kElem = sizeof(elem_t);
constexpr int kChunk = 16 / kElem;               // elements per 16-byte chunk
constexpr int kMmaK = TYPE == 0 ? 8 : 16;        // k of one mma
constexpr int kThreads = 32 * WARPS_M * WARPS_N;
constexpr int kWarpM = BM / WARPS_M, kWarpN = BN / WARPS_N;
constexpr int kMI = kWarpM / 16, kNI = kWarpN / 8;  // mma tiles per warp along M and N
constexpr int kChunksA = BK / kChunk, kChunksB = BN / kChunk;  // 16-byte chunks per shared-memory row
// Padded rows: one chunk for ldmatrix rows (8 rows at one column land in 8 bank groups); two for the TF32 B rows,
// whose fragments are read as 4 rows x 8 consecutive floats.
constexpr int kLda = BK + (SWIZZLE ? 0 : kChunk);
constexpr int kLdb = BN + (SWIZZLE ? 0 : (TYPE == 0 ? 2 : 1) * kChunk);
constexpr int kStageA = BM * kLda, kStageB = BK * kLdb;  // elements
constexpr int kStage = kStageA + kStageB;
constexpr int kLdc = BN + 8;  // staged epilogue tile, floats: a half-warp's float2 stores hit 32 banks
static_assert(kWarpM % 16 == 0 && kWarpN % 16 == 0, "warp tiles are made of 16 x 16 pieces");
static_assert(BK % kMmaK == 0 && BK % kChunk == 0, "BK must hold whole mma steps and chunks");
static_assert(STAGES >= 2, "the pipeline needs two stages at least");
static_assert(EPI_VEC == 1 || EPI_VEC == 2 || EPI_VEC == kChunk, "EPI_VEC: 1, 2 or one 16-byte chunk");

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// Where chunk `chunk` of row `row` lives in a swizzled tile of CHUNKS chunks per row. Any 8 consecutive rows (from
// a multiple of 8) at one chunk column land in 8 different 16-byte bank groups, for ldmatrix.
template <int CHUNKS>
__device__ __forceinline__ int swizzle(int row, int chunk) {
  if constexpr (!SWIZZLE) {
    return chunk;
  } else if constexpr (CHUNKS >= 8) {
    return chunk ^ (row & 7);
  } else {
    return chunk ^ ((row / (8 / CHUNKS)) & (CHUNKS - 1));
  }
}
// TF32 B: a fragment load reads rows 4j..4j+3 at two neighbouring chunks, so rows move by pairs of chunks.
__device__ __forceinline__ int swizzle_b(int row, int chunk) {
  if constexpr (TYPE != 0) {
    return swizzle<kChunksB>(row, chunk);
  } else if constexpr (SWIZZLE) {
    return chunk ^ ((row & 3) << 1);
  } else {
    return chunk;
  }
}
__device__ __forceinline__ int a_offset(int row, int k) {
  return row * kLda + swizzle<kChunksA>(row, k / kChunk) * kChunk + k % kChunk;
}
__device__ __forceinline__ int b_offset(int k, int col) {
  return k * kLdb + swizzle_b(k, col / kChunk) * kChunk + col % kChunk;
}

__device__ __forceinline__ void copy16(elem_t* dst, const elem_t* src, bool valid) {
  asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void copy4(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(valid ? 4 : 0));
}
__device__ __forceinline__ void async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if TYPE == 0
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#elif TYPE == 1
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

// How a block's threads cover an R x C tile of load units (16-byte chunks, or elements, or pairs of 16-bit
// elements), unit u = tid + i * kThreads for the thread's i-th load: row r0 + dr(i), unit column c0 + dc(i).
template <int R, int C>
struct Cover {
  static constexpr int kLoads = (R * C + kThreads - 1) / kThreads;
  static constexpr bool kWide = kThreads >= C;  // whole rows per pass; else several passes per row
  static constexpr bool kGuard = kWide && (R * C) % kThreads != 0;  // the last pass is partial
  static __device__ __forceinline__ int r0() { return kWide ? threadIdx.x / C : 0; }
  static __device__ __forceinline__ int c0() { return kWide ? threadIdx.x % C : threadIdx.x; }
  static __host__ __device__ constexpr int dr(int i) { return kWide ? i * (kThreads / C) : i / (C / kThreads); }
  static __host__ __device__ constexpr int dc(int i) { return kWide ? 0 : i % (C / kThreads) * kThreads; }
};

constexpr int kUnit = ALIGNED ? kChunk : (TYPE == 0 ? 1 : 2);  // elements per load unit
typedef Cover<BM, BK / kUnit> CoverA;
typedef Cover<BK, BN / kUnit> CoverB;

// This thread's loads: its first A and B units in the current slab (advanced slab by slab), what is left of the
// matrices from them, and where they land in a stage.
struct Loader {
  const elem_t* a;  // A at (m0 + first row, slab's first k + first k offset)
  const elem_t* b;  // B at (slab's first k + first k row, n0 + first column)
  int a_rows, a_k;  // rows of A from the first unit's row to M; its k offset in the slab
  int b_k, b_cols;  // the first B unit's k row in the slab; columns of B from it to N
  int K, N;

  __device__ __forceinline__ void init(const elem_t* A, const elem_t* B, int m0, int n0, int k_begin, int M_,
                                       int N_, int K_) {
    K = K_, N = N_;
    const int ar = CoverA::r0(), ak = CoverA::c0() * kUnit, bk = CoverB::r0(), bc = CoverB::c0() * kUnit;
    a = A + (u64)(m0 + ar) * K + k_begin + ak;
    b = B + (u64)(k_begin + bk) * N + n0 + bc;
    a_rows = M_ - m0 - ar, a_k = ak, b_k = bk, b_cols = N - n0 - bc;
  }
  __device__ __forceinline__ void advance() { a += BK, b += (u64)BK * N; }
};

#if ALIGNED || TYPE == 0
// cp.async of the current slab (k_left = elements of K left from its start) into one stage; zero-filled outside A
// and B. Addresses of units outside are formed but never read (a zero source size reads nothing).
__device__ __forceinline__ void load_slab(elem_t* as, elem_t* bs, const Loader& l, int k_left) {
#pragma unroll
  for (int i = 0; i < CoverA::kLoads; ++i) {
    if (CoverA::kGuard && CoverA::r0() + CoverA::dr(i) >= BM) break;
    const int kk = l.a_k + CoverA::dc(i) * kUnit;
    const bool ok = CoverA::dr(i) < l.a_rows && kk < k_left;
    const elem_t* src = l.a + (u64)CoverA::dr(i) * l.K + CoverA::dc(i) * kUnit;
    elem_t* dst = as + a_offset(CoverA::r0() + CoverA::dr(i), kk);
    if constexpr (ALIGNED) copy16(dst, src, ok);
    else copy4(dst, src, ok);
  }
#pragma unroll
  for (int i = 0; i < CoverB::kLoads; ++i) {
    if (CoverB::kGuard && CoverB::r0() + CoverB::dr(i) >= BK) break;
    const int kk = l.b_k + CoverB::dr(i), col = CoverB::dc(i) * kUnit;
    const bool ok = kk < k_left && col < l.b_cols;
    const elem_t* src = l.b + (u64)CoverB::dr(i) * l.N + col;
    elem_t* dst = bs + b_offset(kk, CoverB::c0() * kUnit + col);
    if constexpr (ALIGNED) copy16(dst, src, ok);
    else copy4(dst, src, ok);
  }
}
#else
// 16-bit elements at any alignment: too small for cp.async, so they travel through registers, two per register.
// fetch_slab() issues the loads before a slab is multiplied, store_slab() writes them after it.
struct Staged {
  unsigned a[CoverA::kLoads], b[CoverB::kLoads];
};
__device__ __forceinline__ unsigned load_bits(const elem_t* p, bool ok) {
  return ok ? __ldg(reinterpret_cast<const unsigned short*>(p)) : 0u;
}
__device__ __forceinline__ void fetch_slab(Staged& r, const Loader& l, int k_left) {
#pragma unroll
  for (int i = 0; i < CoverA::kLoads; ++i) {
    if (CoverA::kGuard && CoverA::r0() + CoverA::dr(i) >= BM) break;
    const int kk = l.a_k + CoverA::dc(i) * 2;
    const bool in = CoverA::dr(i) < l.a_rows;
    const elem_t* p = l.a + (u64)CoverA::dr(i) * l.K + CoverA::dc(i) * 2;
    r.a[i] = load_bits(p, in && kk < k_left) | load_bits(p + 1, in && kk + 1 < k_left) << 16;
  }
#pragma unroll
  for (int i = 0; i < CoverB::kLoads; ++i) {
    if (CoverB::kGuard && CoverB::r0() + CoverB::dr(i) >= BK) break;
    const int col = CoverB::dc(i) * 2;
    const bool in = l.b_k + CoverB::dr(i) < k_left;
    const elem_t* p = l.b + (u64)CoverB::dr(i) * l.N + col;
    r.b[i] = load_bits(p, in && col < l.b_cols) | load_bits(p + 1, in && col + 1 < l.b_cols) << 16;
  }
}
__device__ __forceinline__ void store_slab(elem_t* as, elem_t* bs, const Staged& r) {
#pragma unroll
  for (int i = 0; i < CoverA::kLoads; ++i) {
    if (CoverA::kGuard && CoverA::r0() + CoverA::dr(i) >= BM) break;
    const int row = CoverA::r0() + CoverA::dr(i), kk = (CoverA::c0() + CoverA::dc(i)) * 2;
    *reinterpret_cast<unsigned*>(as + a_offset(row, kk)) = r.a[i];
  }
#pragma unroll
  for (int i = 0; i < CoverB::kLoads; ++i) {
    if (CoverB::kGuard && CoverB::r0() + CoverB::dr(i) >= BK) break;
    const int kk = CoverB::r0() + CoverB::dr(i), col = (CoverB::c0() + CoverB::dc(i)) * 2;
    *reinterpret_cast<unsigned*>(bs + b_offset(kk, col)) = r.b[i];
  }
}
#endif

// One mma step's operands for this warp: A fragments of its kMI row tiles, B fragments of its kNI column tiles.
struct Frags {
  unsigned a[kMI][4], b[kNI][2];
};

// Where this thread's fragment loads read, as shared-memory byte addresses relative to a stage. With the swizzle,
// a 16-byte chunk's position within its 128-byte line is XOR-ed with a row-dependent value, so an address is a
// per-thread base XOR-ed and offset by compile-time constants (when warp tiles start on 128-byte boundaries):
// A (ldmatrix): chunk (2 ks + h) ^ (row & 7) of row r, h = lane / 16, equals chunk y ^ 2 ks with y = h ^ (lane & 7).
// TF32 B (scalar): chunk c ^ 2 (k & 3) of row k; 16-bit B (ldmatrix.trans): chunk c ^ (k & 7), like A.
constexpr int kRowA = kLda * kElem, kRowB = kLdb * kElem;  // bytes per shared-memory row
constexpr int kStageBytes = kStage * kElem;
constexpr bool kFastA = SWIZZLE && kChunksA >= 8;
constexpr bool kFastB = SWIZZLE && kWarpN * kElem % 128 == 0;

struct FragAddr {
  unsigned a;  // A: kFastA: row (lane % 16) of the warp's tile, chunk y; else the element offset of row lane % 16
  unsigned b;  // B: kFastB: the thread's base with its swizzle bits in place; else unused

  __device__ __forceinline__ void init(int wm, int wn) {
    const int lane = threadIdx.x % 32, x = lane & 7, h = lane / 16;
    if constexpr (kFastA) a = (wm * kWarpM + lane % 16) * kRowA + ((h ^ x) << 4);
    else a = 0;
    if constexpr (kFastB && TYPE == 0) {
      const int t = lane % 4, g = lane / 4;  // b0 = B[k = t][n = g] of each 8-column tile
      b = t * kRowB + (g & 3) * 4 + wn * kWarpN * 4 + (g >> 2) * 16 + (t << 5);
    } else if constexpr (kFastB) {
      b = (lane % 16) * kRowB + wn * kWarpN * kElem + ((h ^ x) << 4);
    } else {
      b = 0;
    }
  }
};

__device__ __forceinline__ unsigned lds32(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], unsigned addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

// Reads k-step `ks` of a stage (its shared-memory byte address) into registers.
__device__ __forceinline__ void load_frags(Frags& f, unsigned stage, const FragAddr& fa, int ks, int wm, int wn) {
  const int lane = threadIdx.x % 32;
  const unsigned as = stage, bs = stage + kStageA * kElem;
  // ldmatrix.x4: lanes 0-15 give rows 0-15 at the step's first 16 bytes of k, lanes 16-31 the same rows at the next.
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi) {
    if constexpr (kFastA) {
      ldmatrix_x4(f.a[mi], ((as + fa.a) ^ (ks << 5)) + mi * 16 * kRowA);
    } else {
      const int row = wm * kWarpM + mi * 16 + lane % 16;
      ldmatrix_x4(f.a[mi], as + a_offset(row, ks * kMmaK + lane / 16 * kChunk) * kElem);
    }
  }
#if TYPE == 0
  // TF32 B fragments: b0 = B[k = lane % 4][n = lane / 4], b1 four rows further (ldmatrix cannot transpose 32 bits).
#pragma unroll
  for (int ni = 0; ni < kNI; ++ni) {
    unsigned addr;
    if constexpr (kFastB) {
      addr = ((bs + fa.b) ^ ((ni & 3) << 5)) + (ni >> 2) * 128 + ks * 8 * kRowB;
    } else {
      const int col = wn * kWarpN + ni * 8 + lane / 4, k = ks * kMmaK + lane % 4;
      addr = bs + b_offset(k, col) * kElem;
    }
    f.b[ni][0] = lds32(addr);
    f.b[ni][1] = lds32(addr + 4 * kRowB);
  }
#else
  // ldmatrix.x4.trans: rows k 0-15 of the step at two 8-column chunks give b0, b1 of two mma tiles.
#pragma unroll
  for (int nj = 0; nj < kNI / 2; ++nj) {
    unsigned r[4], addr;
    if constexpr (kFastB) {
      addr = ((bs + fa.b) ^ ((2 * nj & 7) << 4)) + (nj >> 2) * 128 + ks * 16 * kRowB;
    } else {
      addr = bs + b_offset(ks * kMmaK + lane % 16, wn * kWarpN + nj * 16 + lane / 16 * 8) * kElem;
    }
    ldmatrix_x4_trans(r, addr);
    f.b[2 * nj][0] = r[0], f.b[2 * nj][1] = r[1], f.b[2 * nj + 1][0] = r[2], f.b[2 * nj + 1][1] = r[3];
  }
#endif
}

__device__ __forceinline__ void multiply(float (&acc)[kMI][kNI][4], const Frags& f) {
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
    for (int ni = 0; ni < kNI; ++ni) mma(acc[mi][ni], f.a[mi], f.b[ni][0], f.b[ni][1]);
}

// The slabs of one block's K slice on their way to shared memory: slab s lives in stage s % STAGES. issue() starts a
// slab's loads (cp.async, or into registers on the synchronous path), land() stores those registers.
struct SlabPipe {
  elem_t* smem;
  Loader l;
  int k_left;  // elements of K from the slice's start
  int slabs;
#if ALIGNED || TYPE == 0
  static constexpr bool kAsync = true;
#else
  static constexpr bool kAsync = false;
  Staged staged;
#endif
  __device__ __forceinline__ void issue(int slab, int stage) {
#if ALIGNED || TYPE == 0
    if (slab < slabs) load_slab(smem + stage * kStage, smem + stage * kStage + kStageA, l, k_left - slab * BK);
    async_commit();
#else
    if (slab < slabs) fetch_slab(staged, l, k_left - slab * BK);
#endif
    l.advance();
  }
  __device__ __forceinline__ void land(int slab, int stage) {
#if !(ALIGNED || TYPE == 0)
    if (slab < slabs) store_slab(smem + stage * kStage, smem + stage * kStage + kStageA, staged);
#endif
    (void)slab, (void)stage;
  }
};

__device__ __forceinline__ void clear(float (&acc)[kMI][kNI][4]) {
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
    for (int ni = 0; ni < kNI; ++ni)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[mi][ni][r] = 0.0f;
}

// The main loop over the slabs, STAGES - 1 of them in flight while one is multiplied. PREFETCH=1 double-buffers the
// fragments: each k-step's mma runs while the next step's fragments load, the next slab's first step included, so
// that the barrier between slabs hides behind tensor-core work. PREFETCH=0 loads each step's fragments just before
// its mma: fewer registers (more blocks per SM), for memory-bound shapes. `slab_begin`: the slice's first slab.
#if PREFETCH
__device__ __forceinline__ void main_loop(float (&acc)[kMI][kNI][4], SlabPipe& pipe, const FragAddr& fa,
                                          unsigned smem_base, int wm, int wn, int slab_begin) {
  constexpr int kSteps = BK / kMmaK;
  const int slabs = pipe.slabs;
  int read = 0, write = STAGES - 1;  // the stages being multiplied and filled
  if constexpr (SlabPipe::kAsync) async_wait<STAGES - 2>();
  __syncthreads();
  Frags frags[2];
  if (slabs > 0) load_frags(frags[0], smem_base, fa, 0, wm, wn);
#pragma unroll 1
  for (int s = 0; s < slabs; ++s) {
    const int next = s + STAGES - 1;  // the slab loaded during this one
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {
      if (ks == 0) pipe.issue(next, write);
      if (ks == kSteps - 1) {
        // Slab s + 1 must have landed, and every warp be done with the stage that the next slab's loads overwrite.
        pipe.land(next, write);
        if constexpr (SlabPipe::kAsync) async_wait<STAGES - 2>();
        __syncthreads();
        read = read == STAGES - 1 ? 0 : read + 1;
        write = write == STAGES - 1 ? 0 : write + 1;
      }
      if (ks < kSteps - 1 || s + 1 < slabs)
        load_frags(frags[(ks + 1) % 2], smem_base + read * kStageBytes, fa, (ks + 1) % kSteps, wm, wn);
#ifdef CUTUNE_TEST_SKIP_SLAB  // test builds only: drop one slab, which verification must notice
      if (slab_begin + s != CUTUNE_TEST_SKIP_SLAB)
#endif
        multiply(acc, frags[ks % 2]);
      if constexpr (kSteps == 1) frags[0] = frags[1];  // one step per slab: the next slab's fragments move up
    }
  }
  (void)slab_begin;
}
#else
__device__ __forceinline__ void main_loop(float (&acc)[kMI][kNI][4], SlabPipe& pipe, const FragAddr& fa,
                                          unsigned smem_base, int wm, int wn, int slab_begin) {
  constexpr int kSteps = BK / kMmaK;
  const int slabs = pipe.slabs;
  int read = 0, write = STAGES - 1;  // the stages being multiplied and filled
#pragma unroll 1
  for (int s = 0; s < slabs; ++s) {
    if constexpr (SlabPipe::kAsync) async_wait<STAGES - 2>();
    __syncthreads();  // slab s has landed, and every warp is done with the stage that the next loads overwrite
    const int next = s + STAGES - 1;
    pipe.issue(next, write);
#pragma unroll
    for (int ks = 0; ks < kSteps; ++ks) {
      Frags f;
      load_frags(f, smem_base + read * kStageBytes, fa, ks, wm, wn);
#ifdef CUTUNE_TEST_SKIP_SLAB
      if (slab_begin + s != CUTUNE_TEST_SKIP_SLAB)
#endif
        multiply(acc, f);
    }
    pipe.land(next, write);
    read = read == STAGES - 1 ? 0 : read + 1;
    write = write == STAGES - 1 ? 0 : write + 1;
  }
  (void)slab_begin;
}
#endif

// Split-K: every slice leaves its partial tile in the workspace; the last slice to finish a tile adds the partials
// in slice order (deterministic) into `acc` and rearms the tile's counter for the next launch. False in the blocks
// of the other slices, which are done.
__device__ __forceinline__ bool splitk_gather(float (&acc)[kMI][kNI][4], float* __restrict__ workspace,
                                              unsigned* __restrict__ counters, int tile) {
  constexpr int kFrags = kMI * kNI;  // one float4 per mma tile and thread
  float4* ws = reinterpret_cast<float4*>(workspace) + (u64)tile * SPLITK * kFrags * kThreads;
  splitk_store<kFrags, kThreads>(ws, &acc[0][0][0], threadIdx.x);
  __threadfence();
  __syncthreads();
  // Only thread 0 counts; __syncthreads_or hands its answer to the block (no static shared memory, so the spec's
  // dynamic size is the whole footprint).
  const bool last = __syncthreads_or(threadIdx.x == 0 && atomicAdd(counters + tile, 1u) == SPLITK - 1);
  if (!last) return false;
  __threadfence();
  constexpr int kGroup = kNI >= 16 ? 1 : (16 / kNI < kMI ? 16 / kNI : kMI);  // mma rows per group of <= 16 fragments
  splitk_sum<kFrags, kThreads, kGroup * kNI>(ws, &acc[0][0][0], threadIdx.x);
  if (threadIdx.x == 0) counters[tile] = 0;  // rearmed for the next launch
  return true;
}

// The epilogue, EPI_VEC 1 or 2: each thread stores its accumulators' pairs straight to C. Accumulator layout: mma
// tile (mi, ni) holds rows g and g + 8 (g = lane / 4), columns 2 (lane % 4) and the next.
__device__ __forceinline__ void store_direct(const float (&acc)[kMI][kNI][4], elem_t* __restrict__ C, int M, int N,
                                             int m0, int n0, int wm, int wn, int lane, float alpha, float beta) {
  const int g = lane / 4, t2 = 2 * (lane % 4);
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = m0 + wm * kWarpM + mi * 16 + g + 8 * h;
      if (row >= M) continue;
      elem_t* crow = C + (u64)row * N;
#pragma unroll
      for (int ni = 0; ni < kNI; ++ni) {
        const int col = n0 + wn * kWarpN + ni * 8 + t2;
        // N is even for EPI_VEC 2 (the spec's constraint)
        store_pair(crow, col, N, &acc[mi][ni][2 * h], alpha, beta, EPI_VEC == 2);
      }
    }
}

// The epilogue through shared memory (EPI_VEC one 16-byte chunk): the warps leave alpha-free sums in `cs`, then every
// thread writes 16-byte chunks of rows.
__device__ __forceinline__ void store_staged(const float (&acc)[kMI][kNI][4], float* cs, elem_t* __restrict__ C, int M,
                                             int N, int m0, int n0, int wm, int wn, int lane, float alpha, float beta) {
  const int g = lane / 4, t2 = 2 * (lane % 4);
  __syncthreads();  // every warp is done with the pipeline's stages
#pragma unroll
  for (int mi = 0; mi < kMI; ++mi)
#pragma unroll
    for (int ni = 0; ni < kNI; ++ni)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = wm * kWarpM + mi * 16 + g + 8 * h, c = wn * kWarpN + ni * 8 + t2;
        *reinterpret_cast<float2*>(cs + r * kLdc + c) = make_float2(acc[mi][ni][2 * h], acc[mi][ni][2 * h + 1]);
      }
  __syncthreads();
  constexpr int kRowChunks = BN / EPI_VEC;
#pragma unroll
  for (int i = 0; i < (BM * kRowChunks + kThreads - 1) / kThreads; ++i) {
    const int u = threadIdx.x + i * kThreads;
    if ((BM * kRowChunks) % kThreads != 0 && u >= BM * kRowChunks) break;
    const int r = u / kRowChunks, c = u % kRowChunks * EPI_VEC;
    const int row = m0 + r, col = n0 + c;
    if (row >= M || col >= N) continue;  // N is a multiple of EPI_VEC (the spec's constraint)
    float v[EPI_VEC];
#pragma unroll
    for (int e = 0; e < EPI_VEC; e += 4) {
      const float4 q = *reinterpret_cast<const float4*>(cs + r * kLdc + c + e);
      v[e] = q.x, v[e + 1] = q.y, v[e + 2] = q.z, v[e + 3] = q.w;
    }
    store_out<EPI_VEC>(C + (u64)row * N + col, v, alpha, beta);
  }
}

}  // namespace gemm_tc_detail

extern "C" __global__ void __launch_bounds__(gemm_tc_detail::kThreads)
    gemm_tc(GEMM_TC_PARAMETERS) {
  GEMM_SHAPE_CONSTANTS();
  using namespace gemm_tc_detail;
  extern __shared__ __align__(1024) unsigned char smem_bytes[];  // stages start on 256-byte lines
  elem_t* smem = reinterpret_cast<elem_t*>(smem_bytes);

  const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
  const int tile = blockIdx.x;
  int tm, tn;
  tile_coords(tile, tiles_m, tiles_n, tm, tn);
  const int m0 = tm * BM, n0 = tn * BN;
  int slab_begin, slabs;
  k_slice(K, slab_begin, slabs);
  const int k_begin = slab_begin * BK;

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / WARPS_N, wn = warp % WARPS_N;

  SlabPipe pipe;
  pipe.smem = smem;
  pipe.l.init(A, B, m0, n0, k_begin, M, N, K);
  pipe.k_left = K - k_begin;
  pipe.slabs = slabs;

  float acc[kMI][kNI][4];
  clear(acc);
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    pipe.issue(s, s);
    pipe.land(s, s);
  }
  FragAddr fa;
  fa.init(wm, wn);
  main_loop(acc, pipe, fa, smem_addr(smem), wm, wn, slab_begin);
  if constexpr (SlabPipe::kAsync) async_wait<0>();

  if (SPLITK > 1 && !splitk_gather(acc, workspace, counters, tile)) return;
  if constexpr (EPI_VEC <= 2) {
    store_direct(acc, C, M, N, m0, n0, wm, wn, lane, alpha, beta);
  } else {
    store_staged(acc, reinterpret_cast<float*>(smem_bytes), C, M, N, m0, n0, wm, wn, lane, alpha, beta);
  }
}
#endif  // PATH == 0
