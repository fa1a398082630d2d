// GPU tests of the tensor-core GEMM templates: a sample of each space is correct on odd shapes, with beta = 0 (C is
// never read: it starts as NaN) and with alpha, beta != 0 (C is read and scaled); a kernel that skips one k-slab fails.
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

const std::vector<std::string> kKernels = {"gemm_tf32", "gemm_bf16", "gemm_f16"};
const char* const kShapes[] = {"1x1x1", "127x257x511", "33x4096x7", "4096x16x4096"};

TEST(GemmTcGpu, SampleIsCorrectOnOddShapes) {
  REQUIRE_GPU();
  Device device;
  for (const auto& name : kKernels) {
    const KernelSpec spec = load_kernel(name);
    Compiled compiled(spec, device.identity().arch());
    std::map<std::string, std::vector<Config>> samples;
    for (const char* text : kShapes) {
      const Space space = Space::enumerate(spec, spec.parse_shape(text), device.limits());
      samples[text] = testing::sample_space(spec, space, 48);
      compiled.add(samples[text], spec.parse_shape(text));
    }
    testing::expect_samples_correct(device, spec, compiled, samples);
  }
}

// One k-slab left out (a test-only define): verification must fail for every configuration, split or not.
TEST(GemmTcGpu, MissingSlabIsCaught) {
  REQUIRE_GPU();
  Device device;
  for (const auto& name : kKernels) {
    const KernelSpec spec = load_kernel(name);
    // 33x4096x7 has one slab: it is the one left out.
    for (const auto& [text, slab] : {std::pair{"127x257x511", 1}, {"4096x16x4096", 1}, {"33x4096x7", 0}}) {
      const Shape shape = spec.parse_shape(text);
      const Space space = Space::enumerate(spec, shape, device.limits());
      const std::vector<Config> sample = testing::sample_space(spec, space, 24);
      const auto caught = testing::expect_missing_slab_wrong(device, spec, shape, slab, sample, name + " " + text);
      std::printf("%s %-13s slab %d skipped: %d of %zu wrong, smallest largest-error %.3g (atol %.3g)\n", name.c_str(),
                  text, slab, caught.wrong, sample.size(), caught.smallest_error, spec.tolerance_at(shape).atol);
    }
  }
}

}  // namespace
}  // namespace cutune
