// Tests of the runtime API: its refusal without a GPU here, and on a GPU a tuned transpose launched and checked.

#include <cstdint>
#include <vector>

#include "gpu_support.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"
#include "db_test_support.hpp"
#include "transpose_check.hpp"

namespace cutune::testing {
namespace {

TEST(RuntimeTest, WithoutAGpuItSaysSoInOneLine) {
  if (Device::count() > 0) GTEST_SKIP() << "a CUDA device is present";
  try {
    Runtime runtime;
    FAIL() << "a Runtime was made without a GPU";
  } catch (const NoDeviceError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("no CUDA device", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

class RuntimeGpuTest : public TempDirTest {};

TEST_F(RuntimeGpuTest, LaunchesTheTunedTransposeAndChecksIt) {
  REQUIRE_GPU();
  const KernelSpec spec = load_kernel("transpose");
  const std::string tuned = "TILE=32,VEC=2,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
  {
    const DeviceIdentity gpu = Device(0).identity();
    Database db(path("tune.db"));
    db.record(db.begin_run(gpu, {spec.name, spec.hash}, "test"), "1024x768", ok_result(tuned, 0.01));
  }
  RuntimeOptions options;
  options.database = path("tune.db");
  options.cache_directory = path("cubins");
  Runtime runtime(options);
  const int m = 1000, n = 700;
  const RuntimeKernel& kernel = runtime.kernel("transpose", "1000x700");
  EXPECT_EQ(&runtime.kernel("transpose", "1000x700"), &kernel);  // kept: the second request is a lookup
  EXPECT_EQ(kernel.choice().match, Match::Predicted);
  EXPECT_EQ(kernel.choice().result.config, tuned);
  EXPECT_FALSE(kernel.from_cache());

  TransposeCheck check(m, n);
  ASSERT_TRUE(check.usable());
  EXPECT_EQ(check.wrong(kernel), 0);

  EXPECT_THROW(kernel(nullptr, check.d_out, check.d_in, m), InputError);                          // one argument short
  EXPECT_THROW(kernel(nullptr, check.d_out, check.d_in, std::int64_t{m}, n), InputError);          // an int64 for an int
  // A second runtime finds the binary in the cache.
  Runtime again(options);
  EXPECT_TRUE(again.kernel(spec, spec.parse_shape("1000x700")).from_cache());
  // An untuned architecture's request gets the spec's default.
  RuntimeOptions bare;
  bare.cache_directory = path("cubins");
  Runtime untuned(bare);
  EXPECT_EQ(untuned.kernel("transpose", "64x64").choice().match, Match::Default);
}

}  // namespace
}  // namespace cutune::testing
