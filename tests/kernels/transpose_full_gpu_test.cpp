// GPU tests of transpose_full: every configuration is exact at small odd and one-sided shapes, a sample covering every
// parameter value at the benchmark's awkward shapes, and misaligned buffers through the runtime API. Each skips with
// the reason when no GPU exists.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <future>
#include <numeric>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/runtime.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "driver_memory.hpp"
#include "gpu_support.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

using testing::DriverMemory;

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
  ASSERT_EQ(space.size(), 755u);
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

// Through the runtime API buffers may start anywhere: the default configuration (VEC=4, ALIGN=1) at input and output
// pointers 0 to 3 floats past an allocation, so that row starts and the copy path's shares meet every misalignment.
TEST(TransposeFullGpu, MisalignedBuffersThroughTheRuntime) {
  REQUIRE_GPU();
  const auto cache = std::filesystem::temp_directory_path() / ("cutune_transpose_full_" + std::to_string(::getpid()));
  RuntimeOptions options;
  options.cache_directory = cache;
  Runtime runtime(options);
  DriverMemory memory;
  ASSERT_TRUE(memory.usable());
  struct Case {
    int m, n, in_shift, out_shift;
  };
  for (const Case& c : {Case{37, 4097, 1, 0}, Case{4097, 37, 0, 3}, Case{130, 131, 2, 1}, Case{1, 1001, 1, 2},
                        Case{1001, 1, 3, 3}, Case{1, 1001, 2, 2}}) {
    const std::string shape = std::to_string(c.m) + "x" + std::to_string(c.n);
    const RuntimeKernel& kernel = runtime.kernel("transpose_full", shape);
    EXPECT_EQ(kernel.choice().match, Match::Default);
    const std::size_t count = static_cast<std::size_t>(c.m) * c.n;
    std::vector<float> in(count), out(count + 4, -1.0f);
    std::iota(in.begin(), in.end(), 1.0f);
    const std::uint64_t d_in = memory.alloc((count + 4) * sizeof(float)) + c.in_shift * sizeof(float);
    const std::uint64_t d_out = memory.alloc((count + 4) * sizeof(float));
    memory.upload(d_in, in.data(), count * sizeof(float));
    memory.upload(d_out, out.data(), out.size() * sizeof(float));  // -1 around the output: a stray write shows
    const std::uint64_t shifted_out = d_out + c.out_shift * sizeof(float);
    kernel(nullptr, shifted_out, d_in, c.m, c.n);
    ASSERT_EQ(memory.synchronize(), 0) << shape;
    memory.download(out.data(), d_out, out.size() * sizeof(float));
    int wrong = 0;
    for (int i = 0; i < c.out_shift; ++i) wrong += out[i] != -1.0f;
    for (std::size_t i = c.out_shift + count; i < out.size(); ++i) wrong += out[i] != -1.0f;
    for (int r = 0; r < c.m; ++r)
      for (int k = 0; k < c.n; ++k)
        wrong += out[c.out_shift + static_cast<std::size_t>(k) * c.m + r] != in[static_cast<std::size_t>(r) * c.n + k];
    EXPECT_EQ(wrong, 0) << shape << " in +" << c.in_shift << " out +" << c.out_shift;
  }
  std::error_code ignored;
  std::filesystem::remove_all(cache, ignored);
}

}  // namespace
}  // namespace cutune
