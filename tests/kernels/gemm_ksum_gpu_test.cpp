// GPU tests of split-K through distributed shared memory (KSUM=1): the SPLITK slices of a tile run as one cluster and
// the first adds the others' partial tiles from their shared memory. A sample of those configurations of gemm_bf16
// (untransposed and SWAP=1 tiles), gemm_f16, gemm_tf32 and gemm_fp8 is correct at odd shapes whose last slice of K is
// short or empty, with beta = 0 and with alpha, beta != 0. A partial read from the wrong block, the wrong place or
// before it is written, or a block that leaves before its partial is read, fails verification (or faults). Skipped
// without a GPU (and without sm_90a).
#include <gtest/gtest.h>

#include "gemm_tc_gpu_support.hpp"
#include "gpu_support.hpp"

namespace cutune {
namespace {

TEST(GemmKsumGpu, BF16SampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct("gemm_bf16", "KSUM == 1",
                                   {"1000x1000x1000", "264x1000x2056", "64x3000x4104", "1800x520x1160"});
}

TEST(GemmKsumGpu, F16SampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct("gemm_f16", "KSUM == 1", {"1000x1000x1000", "40x1000x2056"});
}

TEST(GemmKsumGpu, Tf32SampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct("gemm_tf32", "KSUM == 1", {"1000x1000x1000", "264x1000x2056"});
}

// FP8 with its slab sums promoted to FP32 (PROMOTE=1): those the tensor cores carry over several slabs keep fewer bits
// and miss the spec's tolerance at some elements with or without split-K (gemm_fp8_gpu_test.cpp).
TEST(GemmKsumGpu, Fp8SampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct("gemm_fp8", "KSUM == 1 and PROMOTE == 1", {"1000x1000x1024", "264x3000x2048", "64x1000x4096"});
}

}  // namespace
}  // namespace cutune
