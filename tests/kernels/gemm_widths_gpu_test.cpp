// GPU tests of the wgmma kernels' tile widths that are not multiples of 64 (BN 80 to 224 in steps of 16; 16-bit: B in
// 64-column boxes, the last one read in part; FP8: B's K-major box of BN rows; C staged in boxes of 32 or 16 columns
// with the 64- or 32-byte swizzle; TF32: BM 80 to 240, wgmma's N of C^T = B^T A^T, A's box and C's TMA-store boxes
// of BM rows): a sample of those configurations of gemm_bf16, gemm_f16, gemm_fp8 and gemm_tf32 (persistent, stream-K,
// split-K, ping-pong, clusters, multicast, TMA stores and shape-specialized as the sample draws them) is correct at odd
// shapes whose last column (TF32: row) of tiles is partial, with beta = 0 and with alpha, beta != 0. A box read or
// stored at the wrong columns, or a swizzle the descriptors disagree with, fails verification. Skipped without a GPU
// (and without sm_90a).
#include <gtest/gtest.h>

#include "gemm_tc_gpu_support.hpp"
#include "gpu_support.hpp"

namespace cutune {
namespace {

TEST(GemmWidthsGpu, BF16SampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct("gemm_bf16", "PATH == 1 and BN % 64 != 0",
                                   {"1000x1000x1000", "1800x2056x264", "4096x232x520", "264x3000x136"});
}

TEST(GemmWidthsGpu, F16SampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct("gemm_f16", "PATH == 1 and BN % 64 != 0", {"1000x1000x1000", "1800x2056x264"});
}

// FP8 (PROMOTE=1: the sums carried over slabs keep fewer bits, gemm_fp8_gpu_test.cpp): its widths that are not
// multiples of 64, TMA stores and stores from the registers, partial tiles along N.
TEST(GemmWidthsGpu, Fp8SampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct("gemm_fp8", "BN % 64 != 0 and PROMOTE == 1",
                                   {"1000x1000x1024", "1800x2050x256", "264x3000x128"});
}

// TF32 (PATH 1 only has these widths): BM not a multiple of 64, partial tiles along M.
TEST(GemmWidthsGpu, Tf32SampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct("gemm_tf32", "PATH == 1 and BM % 64 != 0",
                                   {"1000x1000x1000", "1800x2056x264", "4100x520x1032"});
}

}  // namespace
}  // namespace cutune
