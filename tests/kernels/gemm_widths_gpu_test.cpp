// GPU tests of the 16-bit wgmma kernel's tile widths that are not multiples of 64 (BN 80 to 224 in steps of 16: B in
// 64-column boxes, the last one read in part; C staged in boxes of 32 or 16 columns with the 64- or 32-byte swizzle):
// a sample of those configurations of gemm_bf16 and gemm_f16 (persistent, stream-K, split-K, ping-pong, clusters,
// multicast, TMA stores and shape-specialized as the sample draws them) is correct at odd shapes whose last column of
// tiles is partial, with beta = 0 and with alpha, beta != 0. A box read or stored at the wrong columns, or a swizzle the
// descriptors disagree with, fails verification. Skipped without a GPU (and without sm_90a).
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

}  // namespace
}  // namespace cutune
