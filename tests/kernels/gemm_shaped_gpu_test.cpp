// GPU tests of the GEMM templates compiled for their shape (SHAPED=1): a sample of the specialized configurations of
// each kernel (16-bit, TF32, FP8; every path the sample draws) is correct at odd shapes with beta = 0 and with alpha,
// beta != 0, and the runtime API compiles a stored specialized configuration for the shape it is asked for, also when
// the configuration was tuned at another shape. Skipped without a GPU (the wgmma and FP8 paths: without sm_90a).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cuda_bf16.h>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/runtime.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "driver/cuda_driver.hpp"
#include "gemm_tc_gpu_support.hpp"
#include "gpu_support.hpp"
#include "runtime_gemm_support.hpp"
#include "measure/workbench.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

struct Case {
  const char* kernel;
  const char* where;  ///< besides SHAPED == 1: FP8's sums carried over slabs keep fewer bits (gemm_fp8_gpu_test.cpp)
  std::vector<const char*> shapes;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.kernel; }

class GemmShapedGpu : public ::testing::TestWithParam<Case> {};
INSTANTIATE_TEST_SUITE_P(
    Kernels, GemmShapedGpu,
    ::testing::Values(Case{"gemm_bf16", "", {"127x256x520", "33x4096x8", "1000x1000x1000", "4096x16x4096"}},
                      Case{"gemm_f16", "", {"127x256x520", "1000x1000x1000"}},
                      Case{"gemm_tf32", "", {"127x256x516", "33x4096x4", "1000x1000x1000"}},
                      Case{"gemm_fp8", "PROMOTE == 1", {"127x250x512", "33x4096x16", "1000x1000x1024"}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.kernel); });

// Each shape's sample of 16 specialized configurations (each compiled for that shape) is correct, beta 0 and 0.5.
TEST_P(GemmShapedGpu, SampleIsCorrectAtOddShapes) {
  REQUIRE_GPU();
  testing::expect_subspace_correct(
      GetParam().kernel,
      std::string("SHAPED == 1") + (*GetParam().where ? std::string(" and ") + GetParam().where : ""), GetParam().shapes);
}

// The database holds a specialized configuration at 4096^3 only; asked for 1500x1000x1000, the runtime chooses it (by
// the nearest tuned shape or its model), compiles it for that shape and launches it: the output is right (a binary
// built for 4096^3 would compute a 4096^3 product into a smaller buffer).
TEST(GemmShapedRuntimeGpu, CompilesAStoredConfigurationForTheRequestedShape) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec spec = load_kernel("gemm_bf16");
  const std::string text =
      "PATH=1,BM=128,BN=128,BK=64,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=1,GROUP_M=1,EPI_VEC=64,"
      "ALIGNED=1,WG=2,CM=1,CN=1,SWAP=0,PERSIST=1,MC=0,STREAMK=0,EPI_SLICE=1,PINGPONG=0,SHAPED=1,RASTER=0,KSUM=0";
  const Shape shape = spec.parse_shape("1500x1000x1000");
  const Space space = Space::enumerate(spec, shape, device.limits());
  if (std::find(space.configs().begin(), space.configs().end(), spec.parse_config(text)) == space.configs().end()) {
    GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  }
  const auto dir = std::filesystem::temp_directory_path() / ("cutune_shaped_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    Database db(dir / "tuned.db");
    Result r;
    r.config = text;
    r.status = Status::Ok;
    r.median_ms = 0.2;
    db.record(db.begin_run(device.identity(), {spec.name, spec.hash}, "test", L2Flush::Write), "4096x4096x4096", r);
  }
  Runtime runtime({.database = dir / "tuned.db", .cache_directory = dir / "cubins", .device = device.ordinal(),
                   .flush = L2Flush::Write});
  const RuntimeKernel& gemm = runtime.kernel(spec, shape);
  EXPECT_NE(gemm.choice().match, Match::Exact);  // the nearest tuned shape, or the runtime's model (predicted)
  EXPECT_EQ(spec.format(gemm.config()), text);

  const int m = 1500, n = 1000, k = 1000;
  device.make_current();
  // Every 7th row, whole, within the spec's tolerance of the sum in double.
  const int wrong = testing::wrong_bf16_elements(gemm, m, n, k, 7, spec.tolerance_at(shape), 5);
  const int checked = (m + 6) / 7 * n;
  EXPECT_EQ(wrong, 0) << "of " << checked << " elements";
  std::printf("gemm_bf16 SHAPED=1 tuned at 4096^3, launched at 1500x1000x1000 (%s): %d of %d checked elements wrong\n",
              std::string(to_string(gemm.choice().match)).c_str(), wrong, checked);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cutune
