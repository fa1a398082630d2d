// GPU tests of the tensor-core GEMMs' wgmma + TMA path (PATH=1 of gemm_bf16 and gemm_f16, gemm_wgmma.cu, and of
// gemm_tf32, gemm_wgmma_tf32.cu): a sample of its configurations is correct at the smallest and odd shapes TMA allows,
// with beta = 0 and with alpha, beta != 0, and a kernel that skips one k-slab fails verification. Skipped without a
// GPU of compute capability 9.0.
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

// K and N multiples of 16 bytes (TMA's rows), M anything: the smallest shape, partial tiles in every direction, a
// single partial k-slab, a skinny N, and many tiles with partial edges (clusters over the edge of C).
std::vector<const char*> shapes_of(const std::string& kernel) {
  if (kernel == "gemm_tf32") return {"1x4x4", "127x256x512", "33x4096x8", "4096x16x4096", "1000x1000x1000"};
  return {"1x8x8", "127x256x512", "33x4096x8", "4096x16x4096", "1000x1000x1000"};
}

// One kernel per instance, so that a run can pick one (--gtest_filter='*GemmWgmmaGpu.*/gemm_tf32').
class GemmWgmmaGpu : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Kernels, GemmWgmmaGpu, ::testing::Values("gemm_tf32", "gemm_bf16", "gemm_f16"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

std::vector<Config> wgmma_sample(const KernelSpec& spec, const Shape& shape, const Device& device, std::size_t count) {
  const Space space = Space::enumerate(spec, shape, device.limits());
  return testing::sample_configs(spec, testing::configs_with(spec, space, "PATH", 1), count);
}

// Whether this GPU runs PATH 1 at all (compute capability 9.0: sm_90a).
bool runs_wgmma(const Device& device) {
  const KernelSpec spec = load_kernel("gemm_bf16");
  return !wgmma_sample(spec, spec.parse_shape("4096x4096x4096"), device, 1).empty();
}

TEST_P(GemmWgmmaGpu, SampleIsCorrectAtShapesTmaAllows) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  const std::string& name = GetParam();
  const KernelSpec spec = load_kernel(name);
  Compiled compiled(spec, device.identity().arch());
  std::map<std::string, std::vector<Config>> samples;
  for (const char* text : shapes_of(name)) {
    samples[text] = wgmma_sample(spec, spec.parse_shape(text), device, 24);
    ASSERT_FALSE(samples[text].empty()) << name << " " << text;
    compiled.add(samples[text]);
  }
  testing::expect_samples_correct(device, spec, compiled, samples);
}

// One k-slab left out (a test-only define): verification fails for every configuration, split or not (slab 10 of
// 1000x1000x1000 exists for both slab depths, 64 and 32).
TEST_P(GemmWgmmaGpu, MissingSlabIsCaught) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  const std::string& name = GetParam();
  const KernelSpec spec = load_kernel(name);
  for (const auto& [text, slab] : {std::pair{"127x256x512", 1}, {"33x4096x8", 0}, {"1000x1000x1000", 10}}) {
    const KernelSpec broken = edited(spec, false, "-DCUTUNE_TEST_SKIP_SLAB=" + std::to_string(slab));
    const Shape shape = spec.parse_shape(text);
    const std::vector<Config> sample = wgmma_sample(spec, shape, device, 12);
    Compiled compiled(broken, device.identity().arch());
    compiled.add(sample);
    Workbench bench(device, broken, shape, testing::quick_measure());
    int wrong = 0;
    for (const auto& c : sample) {
      const Result r = bench.evaluate(c, compiled.get(c));
      EXPECT_EQ(r.status, Status::WrongResult) << name << " " << text << " " << r.config << ": " << r.message;
      wrong += r.status == Status::WrongResult;
    }
    std::printf("%s %-14s slab %d skipped: %d of %zu PATH 1 configurations wrong\n", name.c_str(), text, slab, wrong,
                sample.size());
  }
}

}  // namespace
}  // namespace cutune
