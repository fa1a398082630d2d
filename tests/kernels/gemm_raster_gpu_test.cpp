// GPU tests of the GEMM templates' serpentine tile order (RASTER=1): a sample of each kernel's RASTER=1 configurations
// (16-bit, TF32, FP8; persistent, stream-K, clusters and shape-specialized as the sample draws them) is correct at odd
// shapes of at least 256 tiles, whose last group of GROUP_M rows is partial, with beta = 0 and with alpha, beta != 0.
// A tile the order skipped or computed twice fails verification. Skipped without a GPU (and without sm_90a).
#include <gtest/gtest.h>

#include <map>

#include "cutune/device.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "gemm_tc_gpu_support.hpp"
#include "gpu_support.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

struct Case {
  const char* kernel;
  const char* where;  ///< besides RASTER == 1: FP8's sums carried over slabs keep fewer bits (gemm_fp8_gpu_test.cpp)
  std::vector<const char*> shapes;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.kernel; }

class GemmRasterGpu : public ::testing::TestWithParam<Case> {};
INSTANTIATE_TEST_SUITE_P(
    Kernels, GemmRasterGpu,
    ::testing::Values(Case{"gemm_bf16", "", {"1800x2056x264", "3000x1000x520"}},
                      Case{"gemm_f16", "", {"1800x2056x264"}},
                      Case{"gemm_tf32", "", {"1800x2052x132", "3000x1000x516"}},
                      Case{"gemm_fp8", "PROMOTE == 1", {"1800x2050x256", "3000x1000x512"}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.kernel); });

// Each shape's sample of 16 RASTER=1 configurations is correct, beta 0 and 0.5.
TEST_P(GemmRasterGpu, SerpentineSampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct(
      GetParam().kernel,
      std::string("RASTER == 1") + (*GetParam().where ? std::string(" and ") + GetParam().where : ""), GetParam().shapes);
}

}  // namespace
}  // namespace cutune
