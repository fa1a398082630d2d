// GPU tests of the tensor-core GEMM's wgmma + TMA path (PATH=1 of gemm_bf16 and gemm_f16, gemm_wgmma.cu): a sample of
// its configurations is correct at the smallest and odd shapes TMA allows, with beta = 0 and with alpha, beta != 0,
// and a kernel that skips one k-slab fails verification. Skipped without a GPU of compute capability 9.0.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "gemm_tc_gpu_support.hpp"
#include "gpu_support.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

using testing::Compiled;
using testing::edited;

const std::vector<std::string> kKernels = {"gemm_bf16", "gemm_f16"};
// K and N multiples of 8 (TMA's 16-byte rows), M anything: the smallest shape, partial tiles in every direction, a
// single partial k-slab, a skinny N, and many tiles with partial edges (clusters over the edge of C).
const char* const kShapes[] = {"1x8x8", "127x256x512", "33x4096x8", "4096x16x4096", "1000x1000x1000"};

std::vector<Config> wgmma_sample(const KernelSpec& spec, const Shape& shape, const Device& device, std::size_t count) {
  const Space space = Space::enumerate(spec, shape, device.limits());
  return testing::sample_configs(spec, testing::configs_with(spec, space, "PATH", 1), count);
}

// Whether this GPU runs PATH 1 at all (compute capability 9.0: sm_90a).
bool runs_wgmma(const Device& device) {
  const KernelSpec spec = load_kernel("gemm_bf16");
  return !wgmma_sample(spec, spec.parse_shape("4096x4096x4096"), device, 1).empty();
}

TEST(GemmWgmmaGpu, SampleIsCorrectAtShapesTmaAllows) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  for (const auto& name : kKernels) {
    const KernelSpec spec = load_kernel(name);
    Compiled compiled(spec, device.identity().arch());
    std::map<std::string, std::vector<Config>> samples;
    for (const char* text : kShapes) {
      samples[text] = wgmma_sample(spec, spec.parse_shape(text), device, 24);
      ASSERT_FALSE(samples[text].empty()) << name << " " << text;
      compiled.add(samples[text]);
    }
    testing::expect_samples_correct(device, spec, compiled, samples);
  }
}

// One k-slab left out (a test-only define): verification fails for every configuration, split or not.
TEST(GemmWgmmaGpu, MissingSlabIsCaught) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  const KernelSpec spec = load_kernel("gemm_bf16");
  for (const auto& [text, slab] : {std::pair{"127x256x512", 1}, {"33x4096x8", 0}}) {
    const KernelSpec broken = edited(spec, false, "-DCUTUNE_TEST_SKIP_SLAB=" + std::to_string(slab));
    const Shape shape = spec.parse_shape(text);
    const std::vector<Config> sample = wgmma_sample(spec, shape, device, 12);
    Compiled compiled(broken, device.identity().arch());
    compiled.add(sample);
    Workbench bench(device, broken, shape, testing::quick_measure());
    int wrong = 0;
    for (const auto& c : sample) {
      const Result r = bench.evaluate(c, compiled.get(c));
      EXPECT_EQ(r.status, Status::WrongResult) << text << " " << r.config << ": " << r.message;
      wrong += r.status == Status::WrongResult;
    }
    std::printf("gemm_bf16 %-13s slab %d skipped: %d of %zu PATH 1 configurations wrong\n", text, slab, wrong,
                sample.size());
  }
}

}  // namespace
}  // namespace cutune
