// Out-of-place transpose of a row-major float matrix: in is M x N, out is N x M.
//
// Tunable (as #defines; the defaults below let the file compile on its own):
//   TILE      tile edge handled by one thread block
//   VEC       floats per global access along a row (1, 2, 4: scalar, float2, float4)
//   ROWS      thread rows of the block; each thread handles TILE / ROWS rows of VEC floats (BLOCK_ROWS)
//   SMEM      1: stage the tile in shared memory so both reads and writes are coalesced; 0: naive
//   PAD       floats of padding per shared-memory row, against bank conflicts on the column reads
//   COALESCE  naive variants only: 0 coalesces the reads (writes strided), 1 the writes (reads strided)
// Vector accesses fall back to scalar ones where a row length is not a multiple of VEC or a row ends
// inside a vector, so every configuration is correct for any M x N.
#ifndef TILE
#define TILE 32
#endif
#ifndef VEC
#define VEC 1
#endif
#ifndef ROWS
#define ROWS 8
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

extern "C" __global__ void __launch_bounds__(TILE / VEC * ROWS)
transpose(float* __restrict__ out, const float* __restrict__ in, int M, int N) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int col0 = blockIdx.x * TILE;  // first input column of the tile = first output row
  const int row0 = blockIdx.y * TILE;  // first input row of the tile = first output column
  // A wide access needs every row start aligned to the vector: true when the row length is a multiple of VEC.
  const bool wide_in = (N % VEC) == 0;
  const bool wide_out = (M % VEC) == 0;
  (void)wide_in;  // each naive variant uses only one of the two
  (void)wide_out;
  float v[VEC];
#if SMEM
  extern __shared__ float tile[];  // TILE rows of TILE + PAD floats
#pragma unroll
  for (int j = ty; j < TILE; j += ROWS) {
    const int r = row0 + j;
    if (r < M) load_chunk(v, in + (size_t)r * N, col0 + tx * VEC, N, wide_in);
#pragma unroll
    for (int i = 0; i < VEC; ++i) tile[j * (TILE + PAD) + tx * VEC + i] = v[i];
  }
  __syncthreads();
#pragma unroll
  for (int j = ty; j < TILE; j += ROWS) {
    const int r = col0 + j;
    if (r < N) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) v[i] = tile[(tx * VEC + i) * (TILE + PAD) + j];
      store_chunk(out + (size_t)r * M, row0 + tx * VEC, M, v, wide_out);
    }
  }
#elif COALESCE == 0
#pragma unroll
  for (int j = ty; j < TILE; j += ROWS) {
    const int r = row0 + j;
    if (r < M) {
      load_chunk(v, in + (size_t)r * N, col0 + tx * VEC, N, wide_in);
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const int c = col0 + tx * VEC + i;
        if (c < N) out[(size_t)c * M + r] = v[i];
      }
    }
  }
#else
#pragma unroll
  for (int j = ty; j < TILE; j += ROWS) {
    const int r = col0 + j;
    if (r < N) {
#pragma unroll
      for (int i = 0; i < VEC; ++i) {
        const int c = row0 + tx * VEC + i;
        v[i] = c < M ? in[(size_t)c * N + r] : 0.0f;
      }
      store_chunk(out + (size_t)r * M, row0 + tx * VEC, M, v, wide_out);
    }
  }
#endif
}

// The plain reference: one element per thread, obviously right. Left out of the candidates' compiles.
#if !defined(CUTUNE) || defined(CUTUNE_REFERENCE)
extern "C" __global__ void transpose_reference(float* __restrict__ out, const float* __restrict__ in, int M, int N) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < M && c < N) out[(size_t)c * M + r] = in[(size_t)r * N + c];
}
#endif
