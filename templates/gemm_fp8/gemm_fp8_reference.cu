// gemm_fp8's reference (the specs' "reference"): the product gemm_fp8.cu computes, from the same FP8 inputs, multiplied
// exactly and summed in double, and the same scales, beta and bias, rounded once to the output type. The specs compile
// it after gemm_fp8.cu, whose parameters (GEMM_FP8_PARAMETERS) and conversions (gemm_fp8_detail::to_float) it uses.
// 16 x 16 tiles, one element per thread; left out of the candidates' compiles.
#if !defined(CUTUNE) || defined(CUTUNE_REFERENCE)
extern "C" __global__ void gemm_fp8_reference(GEMM_FP8_PARAMETERS()) {
  (void)counters, (void)workspace, (void)a_map, (void)b_map;
  __shared__ double as[16][17], bs[16][17];
  const int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  const int b_row = blockIdx.x * 16 + threadIdx.y;  // B is N x K: its rows are columns of the product
  double sum = 0.0, block = 0.0;  // BLOCK_SCALE: the products of the current block of K, scaled as it ends
  const int blocks_k = (K + 127) / 128;
  for (int k0 = 0; k0 < K; k0 += 16) {
    const int k = k0 + threadIdx.x;
    as[threadIdx.y][threadIdx.x] = row < M && k < K ? static_cast<double>(static_cast<float>(A[(u64)row * K + k])) : 0.0;
    bs[threadIdx.y][threadIdx.x] =
        b_row < N && k < K ? static_cast<double>(static_cast<float>(B[(u64)b_row * K + k])) : 0.0;
    __syncthreads();
    for (int kk = 0; kk < 16; ++kk) block += as[threadIdx.y][kk] * bs[threadIdx.x][kk];
    __syncthreads();
    if (!BLOCK_SCALE || (k0 + 16) % 128 == 0 || k0 + 16 >= K) {
      const int kb = k0 / 128;
      const double scale = !BLOCK_SCALE ? 1.0
                           : row < M && col < N ? (double)scale_a[(u64)kb * M + row] * (double)scale_b[(u64)(col / 128) * blocks_k + kb]
                                                : 0.0;
      sum += scale * block;
      block = 0.0;
    }
  }
  if (row < M && col < N) {
    const double tensor_scales = BLOCK_SCALE ? 1.0 : (double)*scale_a * (double)*scale_b;
    double out = (double)alpha * tensor_scales * sum;
    if (beta != 0.0f) out += (double)beta * (double)gemm_fp8_detail::to_float(C[(u64)row * N + col]);
    if (bias != nullptr) out += (double)gemm_fp8_detail::to_float(bias[col]);
#if OUT == 1
    C[(u64)row * N + col] = __double2bfloat16(out);
#elif OUT == 2
    C[(u64)row * N + col] = __double2half(out);
#else
    C[(u64)row * N + col] = (float)out;
#endif
  }
}
#endif
