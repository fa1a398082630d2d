// Out-of-place transpose of a row-major float matrix: in is M x N, out is N x M.
//
// Two specs tune this source: transpose.json (square tiles on a 2D grid, the compact space) and transpose_full.json
// (any tile shape, aligned vector chunks for odd row lengths, a 1D grid that takes any shape).
// Tunable (as #defines; the defaults below let the file compile on its own):
//   TILE      square tile edge (transpose.json); TH and TW default to it
//   TH, TW    tile rows (input rows, output columns) and tile columns (input columns, output rows)
//   VEC       floats per global access along a row (1, 2, 4: scalar, float2, float4)
//   ROWS      transpose.json: thread rows of a (TILE / VEC) x ROWS block; THREADS defaults to their product
//   THREADS   threads per block; a block walks its tile's (row, chunk of VEC floats) pairs THREADS at a time
//   SMEM      1: stage the tile in shared memory so both reads and writes are coalesced; 0: naive
//   PAD       floats of padding per shared-memory row, against bank conflicts on the column reads
//   COALESCE  naive variants only: 0 coalesces the reads (writes strided), 1 the writes (reads strided)
//   ALIGN     with SMEM: 0 chunks start at the tile's first column, wide only where every row start is aligned
//             (row length a multiple of VEC); 1 chunks are aligned to addresses, so that rows of any length
//             (4097, 33) are read and written with full vectors, the tile's first and last partial chunk of
//             each row one float at a time by the thread of chunk 0; 2 reads like 1, and shifts each output row's
//             share of the tile back to the aligned address at or before its first column, so that every block
//             writes whole aligned vectors only (no 32-byte sector of the output is written by two blocks, except
//             at the ends of a row): the tile holds VEC - 1 more input rows above it for that
// Every configuration is correct for any M x N and any 4-byte-aligned buffers. A 1 x N or N x 1 transpose is a
// copy: every configuration copies it with aligned vectors, each block its share of the elements.
#ifndef TILE
#define TILE 32
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef ROWS
#define ROWS 8
#endif
#ifndef TH
#define TH TILE
#endif
#ifndef TW
#define TW TILE
#endif
#ifndef THREADS
#define THREADS (TILE / VEC * ROWS)
#endif
#ifndef SMEM
#define SMEM 1
#endif
#ifndef PAD
#define PAD 1
#endif
#ifndef COALESCE
#define COALESCE 0
#endif
#ifndef ALIGN
#define ALIGN 0
#endif

#define LOAD_CHUNKS (TW / VEC)   // chunks per tile row of the input
#define STORE_CHUNKS (TH / VEC)  // chunks per tile row of the output
#define STEPS (TH * TW / VEC / THREADS)  // (row, chunk) pairs per thread in each phase

template <int V>
struct Vector;
template <>
struct Vector<1> {
  typedef float type;
};
template <>
struct Vector<2> {
  typedef float2 type;
};
template <>
struct Vector<4> {
  typedef float4 type;
};
typedef Vector<VEC>::type vec_t;
typedef unsigned long long u64;

// Floats from the last address aligned to VEC floats up to p.
__device__ __forceinline__ int misalignment(const float* p) { return static_cast<int>((reinterpret_cast<u64>(p) / 4) % VEC); }

// Reads row[c .. c + VEC) with zeros past n; one wide load when `wide` allows it and the chunk is inside.
__device__ __forceinline__ void load_chunk(float (&v)[VEC], const float* __restrict__ row, int c, int n, bool wide) {
  if (wide && c + VEC <= n) {
    vec_t t = *reinterpret_cast<const vec_t*>(row + c);
    const float* f = reinterpret_cast<const float*>(&t);
#pragma unroll
    for (int i = 0; i < VEC; ++i) v[i] = f[i];
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i) v[i] = (c + i < n) ? row[c + i] : 0.0f;
  }
}

// Writes row[c .. c + VEC), skipping what lies past n.
__device__ __forceinline__ void store_chunk(float* __restrict__ row, int c, int n, const float (&v)[VEC], bool wide) {
  if (wide && c + VEC <= n) {
    vec_t t;
    float* f = reinterpret_cast<float*>(&t);
#pragma unroll
    for (int i = 0; i < VEC; ++i) f[i] = v[i];
    *reinterpret_cast<vec_t*>(row + c) = t;
  } else {
#pragma unroll
    for (int i = 0; i < VEC; ++i)
      if (c + i < n) row[c + i] = v[i];
  }
}

// 1 x N and N x 1: out[e] = in[e]. Block b copies the b-th share (a multiple of 4 floats, so shares keep the
// alignment of the buffers), wide when both buffers have the same misalignment.
__device__ __forceinline__ void copy_share(float* __restrict__ out, const float* __restrict__ in, u64 total, int tid) {
  const u64 blocks = static_cast<u64>(gridDim.x) * gridDim.y;
  const u64 b = static_cast<u64>(blockIdx.y) * gridDim.x + blockIdx.x;
  const u64 per = ((total + blocks - 1) / blocks + 3) / 4 * 4;
  const u64 begin = min(total, b * per), end = min(total, begin + per);
  u64 head = end - begin;  // all of it one by one, unless wide
  if (((reinterpret_cast<u64>(in) ^ reinterpret_cast<u64>(out)) / 4) % VEC == 0)
    head = min(head, static_cast<u64>((VEC - misalignment(in + begin)) % VEC));
  const u64 vectors = (end - begin - head) / VEC;
  const u64 tail_begin = begin + head + vectors * VEC;
  const vec_t* src = reinterpret_cast<const vec_t*>(in + begin + head);
  vec_t* dst = reinterpret_cast<vec_t*>(out + begin + head);
#pragma unroll 4
  for (u64 v = tid; v < vectors; v += THREADS) dst[v] = src[v];
  for (u64 e = begin + tid; e < begin + head; e += THREADS) out[e] = in[e];
  if (tail_begin + tid < end) out[tail_begin + tid] = in[tail_begin + tid];
}

#if SMEM && ALIGN
// Chunk k of tile row `trow` (TW floats from input column col0 of `row`), in address-aligned chunks: chunk k > 0
// starts s floats before k * VEC (s: the misalignment of the tile row's first float) and is one aligned vector; chunk
// 0 holds the first VEC - s floats and the last s, one by one (all of it as one vector when s is 0).
__device__ __forceinline__ void load_aligned(float* trow, const float* __restrict__ row, int col0, int k, int n) {
  const int s = misalignment(row + col0);
  if (k > 0 || s == 0) {
    float v[VEC];
    load_chunk(v, row, col0 + k * VEC - s, n, true);
#pragma unroll
    for (int i = 0; i < VEC; ++i) trow[k * VEC - s + i] = v[i];
  } else {
#pragma unroll
    for (int i = 0; i < VEC - 1; ++i) {
      if (i < VEC - s && col0 + i < n) trow[i] = row[col0 + i];
      if (i < s && col0 + TW - s + i < n) trow[TW - s + i] = row[col0 + TW - s + i];
    }
  }
}

// The output side of the same: output row `row` gets tile column j (rows row0 .. row0 + TH of the input) at row0.
__device__ __forceinline__ void store_aligned(float* __restrict__ row, const float* tile, int j, int row0, int k, int m) {
  const int s = misalignment(row + row0);
  if (k > 0 || s == 0) {
    float v[VEC];
    const int c = k * VEC - s;
#pragma unroll
    for (int i = 0; i < VEC; ++i) v[i] = tile[(c + i) * (TW + PAD) + j];
    store_chunk(row, row0 + c, m, v, true);
  } else {
#pragma unroll
    for (int i = 0; i < VEC - 1; ++i) {
      if (i < VEC - s && row0 + i < m) row[row0 + i] = tile[i * (TW + PAD) + j];
      if (i < s && row0 + TH - s + i < m) row[row0 + TH - s + i] = tile[(TH - s + i) * (TW + PAD) + j];
    }
  }
}
#endif

#if SMEM && ALIGN == 2
#define HALO (VEC - 1)  // input rows above the tile: an output row's share starts up to VEC - 1 columns earlier
#define SHIFTED_LOADS ((TH + HALO) * LOAD_CHUNKS)
#define SHIFTED_STORES (TW * (STORE_CHUNKS + 1))  // the last tile of a row may need one chunk more

// Input rows row0 - HALO .. row0 + TH - 1 of the tile's columns into the shared tile (rows outside the matrix skipped).
__device__ __forceinline__ void load_shifted(float* tile, const float* __restrict__ in, int row0, int col0, int M,
                                             int N, int tid) {
#pragma unroll
  for (int step = 0; step < (SHIFTED_LOADS + THREADS - 1) / THREADS; ++step) {
    const int i = tid + step * THREADS;
    const int j = i / LOAD_CHUNKS, k = i % LOAD_CHUNKS;
    const int r = row0 - HALO + j;
    if (i < SHIFTED_LOADS && r >= 0 && r < M) load_aligned(tile + j * (TW + PAD), in + (size_t)r * N, col0, k, N);
  }
}

// Output row `row` (tile column j) gets its share of the tile: from the aligned address at or before column row0 up
// to where the next tile's share starts (the same shift, as TH is a multiple of VEC), or to M in the last tile.
__device__ __forceinline__ void store_shifted(float* __restrict__ row, const float* tile, int j, int row0, int k,
                                              int M) {
  const int s = misalignment(row + row0);
  const int first = row0 - s + k * VEC;  // output column of the chunk's first float
  const int end = row0 + TH >= M ? M : row0 + TH - s;
  if (first >= end) return;
  const float* column = tile + (HALO - s + k * VEC) * (TW + PAD) + j;  // the chunk's first float in the tile
  if (first >= 0 && first + VEC <= end) {
    vec_t t;
    float* f = reinterpret_cast<float*>(&t);
#pragma unroll
    for (int e = 0; e < VEC; ++e) f[e] = column[e * (TW + PAD)];
    *reinterpret_cast<vec_t*>(row + first) = t;
  } else {  // the ends of the row: only what lies in it (the tile holds nothing before column 0 or past M)
#pragma unroll
    for (int e = 0; e < VEC; ++e)
      if (first + e >= 0 && first + e < end) row[first + e] = column[e * (TW + PAD)];
  }
}
#endif

// Each variant moves the tile at (row0, col0) of `in` to `out`; `wide_in`/`wide_out`: every row start of that matrix
// is aligned to a chunk.
#if SMEM && ALIGN == 2
__device__ __forceinline__ void move_tile(float* __restrict__ out, const float* __restrict__ in, int M, int N, int row0,
                                          int col0, bool, bool, int tid) {
  extern __shared__ float tile[];  // TH + HALO rows of TW + PAD floats
  load_shifted(tile, in, row0, col0, M, N, tid);
  __syncthreads();
#pragma unroll
  for (int step = 0; step < (SHIFTED_STORES + THREADS - 1) / THREADS; ++step) {
    const int i = tid + step * THREADS;
    const int j = i / (STORE_CHUNKS + 1), k = i % (STORE_CHUNKS + 1);
    if (i < SHIFTED_STORES && col0 + j < N) store_shifted(out + (size_t)(col0 + j) * M, tile, j, row0, k, M);
  }
}
#elif SMEM
__device__ __forceinline__ void move_tile(float* __restrict__ out, const float* __restrict__ in, int M, int N, int row0,
                                          int col0, bool wide_in, bool wide_out, int tid) {
  extern __shared__ float tile[];  // TH rows of TW + PAD floats
  float v[VEC];
  (void)v;  // the aligned chunks keep their own
  (void)wide_in;
  (void)wide_out;
#pragma unroll
  for (int step = 0; step < STEPS; ++step) {
    const int i = tid + step * THREADS;
    const int j = i / LOAD_CHUNKS, k = i % LOAD_CHUNKS;
    const int r = row0 + j;
    if (r < M) {
#if ALIGN
      load_aligned(tile + j * (TW + PAD), in + (size_t)r * N, col0, k, N);
#else
      load_chunk(v, in + (size_t)r * N, col0 + k * VEC, N, wide_in);
#pragma unroll
      for (int e = 0; e < VEC; ++e) tile[j * (TW + PAD) + k * VEC + e] = v[e];
#endif
    }
  }
  __syncthreads();
#pragma unroll
  for (int step = 0; step < STEPS; ++step) {
    const int i = tid + step * THREADS;
    const int j = i / STORE_CHUNKS, k = i % STORE_CHUNKS;
    const int r = col0 + j;
    if (r < N) {
#if ALIGN
      store_aligned(out + (size_t)r * M, tile, j, row0, k, M);
#else
#pragma unroll
      for (int e = 0; e < VEC; ++e) v[e] = tile[(k * VEC + e) * (TW + PAD) + j];
      store_chunk(out + (size_t)r * M, row0 + k * VEC, M, v, wide_out);
#endif
    }
  }
}
#elif COALESCE == 0
__device__ __forceinline__ void move_tile(float* __restrict__ out, const float* __restrict__ in, int M, int N, int row0,
                                          int col0, bool wide_in, bool, int tid) {
  float v[VEC];
#pragma unroll
  for (int step = 0; step < STEPS; ++step) {
    const int i = tid + step * THREADS;
    const int j = i / LOAD_CHUNKS, k = i % LOAD_CHUNKS;
    const int r = row0 + j;
    if (r < M) {
      load_chunk(v, in + (size_t)r * N, col0 + k * VEC, N, wide_in);
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        const int c = col0 + k * VEC + e;
        if (c < N) out[(size_t)c * M + r] = v[e];
      }
    }
  }
}
#else
__device__ __forceinline__ void move_tile(float* __restrict__ out, const float* __restrict__ in, int M, int N, int row0,
                                          int col0, bool, bool wide_out, int tid) {
  float v[VEC];
#pragma unroll
  for (int step = 0; step < STEPS; ++step) {
    const int i = tid + step * THREADS;
    const int j = i / STORE_CHUNKS, k = i % STORE_CHUNKS;
    const int r = col0 + j;
    if (r < N) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        const int c = row0 + k * VEC + e;
        v[e] = c < M ? in[(size_t)c * N + r] : 0.0f;
      }
      store_chunk(out + (size_t)r * M, row0 + k * VEC, M, v, wide_out);
    }
  }
}
#endif

extern "C" __global__ void __launch_bounds__(THREADS)
transpose(float* __restrict__ out, const float* __restrict__ in, int M, int N) {
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  if (M == 1 || N == 1) {
    copy_share(out, in, static_cast<u64>(M) * N, tid);
    return;
  }
  // transpose.json's 2D grid has gridDim.x == tiles_x (blockIdx.y the tile row); transpose_full.json's 1D grid
  // numbers the tiles row by row, so that no side is limited to 65535 tiles.
  const int tiles_x = (N + TW - 1) / TW;
  const int col0 = (blockIdx.x % tiles_x) * TW;                  // first input column of the tile = first output row
  const int row0 = (blockIdx.x / tiles_x + blockIdx.y) * TH;     // first input row of the tile = first output column
  // A wide access at a chunk boundary needs every row start aligned: the buffer aligned, the row length a multiple.
  const bool wide_in = (N % VEC) == 0 && misalignment(in) == 0;
  const bool wide_out = (M % VEC) == 0 && misalignment(out) == 0;
  move_tile(out, in, M, N, row0, col0, wide_in, wide_out, tid);
}

// The plain reference: one element per thread, obviously right; rows stride over the grid, whose y extent is capped
// at 65535 blocks (N x 1 with N up to 2^31). Left out of the candidates' compiles.
#if !defined(CUTUNE) || defined(CUTUNE_REFERENCE)
extern "C" __global__ void transpose_reference(float* __restrict__ out, const float* __restrict__ in, int M, int N) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  for (long long r = blockIdx.y * blockDim.y + threadIdx.y; r < M; r += (long long)gridDim.y * blockDim.y)
    if (c < N) out[(size_t)c * M + r] = in[(size_t)r * N + c];
}
#endif
