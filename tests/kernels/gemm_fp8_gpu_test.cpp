// GPU tests of the FP8 GEMMs (templates/gemm_fp8/): a sample of each kernel's configurations is correct against the
// FP32-accumulating reference at small, odd and skinny shapes, with beta = 0 and with alpha, beta != 0 (the scales and
// the bias always apply); each variant of the pipeline alone (persistent blocks, multicast, TMA stores of D, stream-K,
// ping-pong, split-K, SWAP=1) at many tiles; a kernel that skips one k-slab fails verification. Skipped without a GPU
// of compute capability 9.0.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "gemm_tc_gpu_support.hpp"
#include "gpu_support.hpp"
#include "measure/workbench.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

using testing::Compiled;
using testing::edited;

std::vector<Config> sample_of(const KernelSpec& spec, const Shape& shape, const Device& device, std::size_t count) {
  return testing::sample_configs(spec, Space::enumerate(spec, shape, device.limits()).configs(), count);
}

bool runs_fp8(const Device& device) {
  const KernelSpec spec = load_kernel("gemm_fp8");
  return !sample_of(spec, spec.parse_shape("4096x4096x4096"), device, 1).empty();
}

// Each shape's sample of `spec` is correct (beta 0 and 0.5); shapes where the space is empty are left out, at least one
// must remain.
void expect_sample_correct(const Device& device, const KernelSpec& spec, const std::vector<const char*>& shapes,
                           std::size_t count) {
  Compiled compiled(spec, device.identity().arch());
  std::map<std::string, std::vector<Config>> samples;
  for (const char* text : shapes) {
    std::vector<Config> sample = sample_of(spec, spec.parse_shape(text), device, count);
    if (sample.empty()) continue;
    compiled.add(sample, spec.parse_shape(text));
    samples[text] = std::move(sample);
  }
  ASSERT_FALSE(samples.empty()) << spec.name << ": no configurations at any shape";
  testing::expect_samples_correct(device, spec, compiled, samples);
}

// PROMOTE=1 configurations pass the spec's tolerance (that of FP32 accumulation) at every shape. Those whose sums the
// tensor cores carry over more than one slab (PROMOTE 0, 2, 4) keep fewer bits: verification keeps them only where
// their error passes, which it may not from K = 512 (on the H200, an element of 6 million at 2050x3000x512, and 14 of
// 31,750 of FP32 D at 127x250x512, 1.1-1.3 times the bound). Their pipelines are checked at K <= 512 against four times
// the bound: a lost or repeated slab or stage is off by far more.
void expect_correct_at(const Device& device, const std::string& kernel, const std::string& where,
                       const std::vector<const char*>& shapes, std::size_t count) {
  const auto within = [&](const std::string& also) { return where.empty() ? also : also + " and (" + where + ")"; };
  KernelSpec promoted = load_kernel(kernel);
  promoted.restrict_to(within("PROMOTE == 1"));
  expect_sample_correct(device, promoted, shapes, count);
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(promoted.json);
  j["tolerance"]["atol"] = "4 * (" + j["tolerance"]["atol"].get<std::string>() + ")";
  KernelSpec carried = KernelSpec::from_json(j.dump(), promoted.source, promoted.source_name);
  carried.restrict_to(within("PROMOTE != 1"));
  std::vector<const char*> short_k;
  for (const char* text : shapes) {
    const Shape shape = carried.parse_shape(text);
    if (shape.dims[2] <= 512 && !sample_of(carried, shape, device, 1).empty()) short_k.push_back(text);
  }
  if (!short_k.empty()) expect_sample_correct(device, carried, short_k, count);
}

// One kernel per instance: K multiples of 16 (TMA), M and N anything, a single partial k-slab, skinny M and N.
class GemmFp8Gpu : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Kernels, GemmFp8Gpu,
                         ::testing::Values("gemm_fp8", "gemm_fp8_e5m2", "gemm_fp8_f16", "gemm_fp8_f32",
                                           "gemm_fp8_blockscaled"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST_P(GemmFp8Gpu, SampleIsCorrectAtShapesTmaAllows) {
  REQUIRE_GPU();
  Device device;
  if (!runs_fp8(device)) GTEST_SKIP() << "the FP8 GEMMs (sm_90a) do not run on " << device.identity().arch();
  expect_correct_at(device, GetParam(), "", {"1x16x16", "127x250x512", "33x4096x16", "1000x1000x1024"}, 10);
}

// Large K: the sums promoted to FP32 every slab (PROMOTE=1, the default) stay within the tolerance.
TEST_P(GemmFp8Gpu, PromotedSumsAreCorrectAtLargeK) {
  REQUIRE_GPU();
  Device device;
  if (!runs_fp8(device)) GTEST_SKIP() << "the FP8 GEMMs (sm_90a) do not run on " << device.identity().arch();
  expect_correct_at(device, GetParam(), "", {"256x512x8192", "16x1024x16384"}, 6);
}

// The pipeline's variants, each alone, at many tiles with partial edges.
struct Variant {
  const char* where;
  const char* name;
};
void PrintTo(const Variant& v, std::ostream* os) { *os << v.where; }
class GemmFp8VariantGpu : public ::testing::TestWithParam<Variant> {};
INSTANTIATE_TEST_SUITE_P(
    Variants, GemmFp8VariantGpu,
    ::testing::Values(Variant{"PERSIST >= 1 and STREAMK == 0", "persist"}, Variant{"MC == 1", "multicast"},
                      Variant{"EPI == 1 and EPI_SLICE == 0", "tma_store"}, Variant{"EPI_SLICE == 1", "tma_store_sliced"},
                      Variant{"EPI_SLICE == 2", "tma_store_one_buffer"}, Variant{"STREAMK == 1", "streamk"},
                      Variant{"STREAMK == 2", "streamk_dp"}, Variant{"PINGPONG == 1", "pingpong"},
                      Variant{"SPLITK > 1 and SWAP == 0", "splitk"}),
    [](const ::testing::TestParamInfo<Variant>& info) { return std::string(info.param.name); });

TEST_P(GemmFp8VariantGpu, SampleIsCorrectAtManyTiles) {
  REQUIRE_GPU();
  Device device;
  if (!runs_fp8(device)) GTEST_SKIP() << "the FP8 GEMMs (sm_90a) do not run on " << device.identity().arch();
  expect_correct_at(device, "gemm_fp8", GetParam().where, {"1000x1000x1024", "2050x3000x512"}, 6);
}

// Block scales at a partial last block of K (1040 = 8 x 128 + 16) and at many tiles with partial edges, each pipeline
// variant that takes them included in the sample (persistent, stream-K, split-K, TMA stores, clusters).
TEST(GemmFp8BlockScaledGpu, SampleIsCorrectAtPartialBlocks) {
  REQUIRE_GPU();
  Device device;
  if (!runs_fp8(device)) GTEST_SKIP() << "the FP8 GEMMs (sm_90a) do not run on " << device.identity().arch();
  expect_correct_at(device, "gemm_fp8_blockscaled", "", {"1000x1000x1040", "2050x3000x512", "64x384x2048"}, 12);
}

// One k-slab left out (a test-only define): verification fails for every configuration of the sample, with or without
// promotion, swapped or not.
TEST(GemmFp8MissingSlabGpu, IsCaught) {
  REQUIRE_GPU();
  Device device;
  if (!runs_fp8(device)) GTEST_SKIP() << "the FP8 GEMMs (sm_90a) do not run on " << device.identity().arch();
  for (const auto& [where, text, slab] : {std::tuple{"SWAP == 0", "1000x1000x1024", 5},
                                          std::tuple{"SWAP == 1", "64x2048x2048", 9}}) {
    KernelSpec spec = load_kernel("gemm_fp8");
    spec.restrict_to(where);
    const Shape shape = spec.parse_shape(text);
    const std::vector<Config> sample = sample_of(spec, shape, device, 8);  // a missing slab is wrong at any PROMOTE
    const int wrong = testing::expect_missing_slab_wrong(device, spec, shape, slab, sample, text).wrong;
    std::printf("gemm_fp8 %s %s slab %d skipped: %d of %zu configurations wrong\n", where, text, slab, wrong,
                sample.size());
  }
}

}  // namespace
}  // namespace cutune
