// GPU tests of transpose_full: every configuration is exact at small odd and one-sided shapes, and a sample covering
// every parameter value at the benchmark's awkward shapes. Each skips with the reason when no GPU exists.
#include <gtest/gtest.h>

#include <future>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "gpu_support.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

std::vector<CompileOutput> compile_all(const KernelSpec& spec, const std::vector<Config>& configs, const std::string& arch) {
  CompilePool pool;
  std::vector<std::future<CompileOutput>> futures;
  for (const auto& c : configs) futures.push_back(pool.submit([&spec, c, &arch] { return compile_config(spec, c, arch); }));
  std::vector<CompileOutput> out;
  for (auto& f : futures) out.push_back(f.get());
  return out;
}

// Evaluates every configuration at each shape: all must be exact (the reference is one element per thread).
void expect_exact(const Device& device, const KernelSpec& spec, const std::vector<Config>& configs,
                  const std::vector<CompileOutput>& compiled, const std::vector<const char*>& shapes) {
  for (const char* text : shapes) {
    Workbench bench(device, spec, spec.parse_shape(text), testing::quick_measure());
    int ok = 0, reported = 0;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const Result r = bench.evaluate(configs[i], compiled[i]);
      ok += r.status == Status::Ok && r.max_error == 0.0;
      if ((r.status != Status::Ok || r.max_error != 0.0) && ++reported <= 10) {
        ADD_FAILURE() << text << " " << r.config << ": " << to_string(r.status) << " " << r.message;
      }
      ASSERT_TRUE(bench.usable()) << text << " " << r.config;
    }
    EXPECT_EQ(ok, static_cast<int>(configs.size())) << text;
  }
}

// Rows of every length mod 4 (so every misalignment of row starts on both sides), partial tiles on both sides,
// sides of 1 (the copy path, with lengths that are not multiples of 4) and 2 (the smallest tiled shapes).
TEST(TransposeFullGpu, EveryConfigurationIsExactAtSmallOddShapes) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec spec = load_kernel("transpose_full");
  const Space space = Space::enumerate(spec, std::nullopt, device.limits());
  ASSERT_EQ(space.size(), 640u);
  const auto compiled = compile_all(spec, space.configs(), device.identity().arch());
  expect_exact(device, spec, space.configs(), compiled,
               {"1x1", "1x77", "77x1", "1x4099", "4099x1", "2x2", "2x4097", "4097x2", "17x33", "33x17", "127x257",
                "33x1001", "1001x33", "258x259"});
}

// The benchmark's shapes (smaller copies of the one-sided ones), for a sample that covers every parameter value.
TEST(TransposeFullGpu, CoveringSampleIsExactAtTheAwkwardShapes) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec spec = load_kernel("transpose_full");
  const Space space = Space::enumerate(spec, std::nullopt, device.limits());
  const auto sample = testing::sample_space(spec, space, 40);
  const auto compiled = compile_all(spec, sample, device.identity().arch());
  expect_exact(device, spec, sample, compiled,
               {"4097x4097", "4095x4097", "1x1000003", "1000003x1", "33x100000", "100000x33", "3000x4001"});
}

}  // namespace
}  // namespace cutune
