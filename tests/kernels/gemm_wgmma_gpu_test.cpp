// GPU tests of the tensor-core GEMMs' wgmma + TMA path (PATH=1 of gemm_bf16 and gemm_f16, gemm_wgmma.cu, and of
// gemm_tf32, gemm_wgmma_tf32.cu; the 16-bit SWAP=1, gemm_wgmma_swap.cu): a sample of its configurations is correct at
// the smallest and odd shapes TMA allows (skinny ones for SWAP=1, many tiles for the other variants), with beta = 0
// and with alpha, beta != 0, and a kernel that skips one k-slab fails verification. Skipped without a GPU of compute
// capability 9.0.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/runtime.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "gemm_tc_gpu_support.hpp"
#include "gpu_support.hpp"
#include "driver/cuda_driver.hpp"
#include "measure/workbench.hpp"
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

// Each shape's sample of PATH 1 (24 configurations) is correct, with beta = 0 and with alpha, beta != 0.
void expect_correct_at(const Device& device, const KernelSpec& spec, const std::vector<const char*>& shapes) {
  Compiled compiled(spec, device.identity().arch());
  std::map<std::string, std::vector<Config>> samples;
  for (const char* text : shapes) {
    samples[text] = wgmma_sample(spec, spec.parse_shape(text), device, 24);
    ASSERT_FALSE(samples[text].empty()) << spec.name << " " << text;
    compiled.add(samples[text], spec.parse_shape(text));
  }
  testing::expect_samples_correct(device, spec, compiled, samples);
}

// One k-slab left out (a test-only define): verification fails for every configuration of each shape's sample (12).
void expect_missing_slab_caught(const Device& device, const KernelSpec& spec,
                                const std::vector<std::pair<const char*, int>>& cases, const char* what) {
  for (const auto& [text, slab] : cases) {
    const Shape shape = spec.parse_shape(text);
    const std::vector<Config> sample = wgmma_sample(spec, shape, device, 12);
    const int wrong =
        testing::expect_missing_slab_wrong(device, spec, shape, slab, sample, spec.name + " " + text).wrong;
    std::printf("%s %-14s slab %d skipped: %d of %zu %s configurations wrong\n", spec.name.c_str(), text, slab, wrong,
                sample.size(), what);
  }
}

TEST_P(GemmWgmmaGpu, SampleIsCorrectAtShapesTmaAllows) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  expect_correct_at(device, load_kernel(GetParam()), shapes_of(GetParam()));
}

// Split or not (slab 10 of 1000x1000x1000 exists for both slab depths, 64 and 32).
TEST_P(GemmWgmmaGpu, MissingSlabIsCaught) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  expect_missing_slab_caught(device, load_kernel(GetParam()),
                             {{"127x256x512", 1}, {"33x4096x8", 0}, {"1000x1000x1000", 10}}, "PATH 1");
}

// The 16-bit kernels' SWAP=1 (C^T = B^T A^T, the small M as wgmma's N) at the shapes above that it takes (M <= 128)
// and at skinny decode-like ones. One kernel per instance.
class GemmWgmmaSwapGpu : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Kernels, GemmWgmmaSwapGpu, ::testing::Values("gemm_bf16", "gemm_f16"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

KernelSpec swapped_only(const std::string& name) {
  KernelSpec spec = load_kernel(name);
  spec.restrict_to("SWAP == 1");
  return spec;
}

TEST_P(GemmWgmmaSwapGpu, SampleIsCorrectAtSkinnyShapes) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  expect_correct_at(device, swapped_only(GetParam()),
                    {"1x8x8", "127x256x512", "33x4096x8", "16x512x1024", "64x1024x512", "16x4096x4096"});
}

TEST_P(GemmWgmmaSwapGpu, MissingSlabIsCaught) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  expect_missing_slab_caught(device, swapped_only(GetParam()), {{"64x1024x512", 3}, {"16x4096x4096", 40}}, "SWAP=1");
}

// The PATH 1 variants, each alone: persistent blocks (PERSIST 1 and 2: many tiles per block, the ring's phases carried
// across tiles), multicast of B within a cluster (MC=1: odd numbers of tile rows leave the last cluster's second block
// beyond C, loading for the first without storing), TMA stores of C (EPI_VEC 64: clipped at the edges, C read for
// beta; EPI_SLICE 1: a box at a time in alternating buffers, 2: in one buffer) and stream-K (STREAMK 1: every tile's
// slabs shared by the persistent blocks, partial tiles summed through the workspace; 2: the last wave's tiles only) and
// ping-pong (PINGPONG=1: the consumer warpgroups take turns at whole tiles; blocks with an odd number of tiles leave
// the second warpgroup's last turn empty). Partial tiles at the edges, a partial last k-slab. One kernel and variant per instance.
struct Variant {
  const char* kernel;
  const char* where;
  const char* name;
};
void PrintTo(const Variant& v, std::ostream* os) { *os << v.kernel << " where " << v.where; }
class GemmWgmmaVariantGpu : public ::testing::TestWithParam<Variant> {};
INSTANTIATE_TEST_SUITE_P(
    Kernels, GemmWgmmaVariantGpu,
    ::testing::Values(Variant{"gemm_bf16", "PERSIST >= 1", "persist"}, Variant{"gemm_f16", "PERSIST >= 1", "persist"},
                      Variant{"gemm_bf16", "MC == 1", "multicast"}, Variant{"gemm_f16", "MC == 1", "multicast"},
                      Variant{"gemm_bf16", "EPI_VEC == 64", "tma_store"},
                      Variant{"gemm_f16", "EPI_VEC == 64", "tma_store"},
                      Variant{"gemm_bf16", "EPI_SLICE == 1", "tma_store_sliced"},
                      Variant{"gemm_f16", "EPI_SLICE == 2", "tma_store_one_buffer"},
                      Variant{"gemm_bf16", "STREAMK == 1", "streamk"}, Variant{"gemm_f16", "STREAMK == 2", "streamk_dp"},
                      Variant{"gemm_bf16", "STREAMK == 2", "streamk_dp"},
                      Variant{"gemm_bf16", "PINGPONG == 1", "pingpong"}, Variant{"gemm_f16", "PINGPONG == 1", "pingpong"},
                      Variant{"gemm_tf32", "PERSIST == 1 and STREAMK == 0", "persist"},
                      Variant{"gemm_tf32", "EPI_VEC == 64", "tma_store"},
                      Variant{"gemm_tf32", "STREAMK == 1", "streamk"}, Variant{"gemm_tf32", "STREAMK == 2", "streamk_dp"},
                      Variant{"gemm_tf32", "PINGPONG == 1", "pingpong"}),
    [](const ::testing::TestParamInfo<Variant>& info) {
      return std::string(info.param.kernel) + "_" + info.param.name;
    });

KernelSpec variant_only(const Variant& v) {
  KernelSpec spec = load_kernel(v.kernel);
  spec.restrict_to(v.where);
  return spec;
}

TEST_P(GemmWgmmaVariantGpu, SampleIsCorrectAtManyTiles) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  expect_correct_at(device, variant_only(GetParam()), {"1000x1000x1000", "2050x3000x520", "8200x1032x136"});
}

TEST_P(GemmWgmmaVariantGpu, MissingSlabIsCaught) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  expect_missing_slab_caught(device, variant_only(GetParam()), {{"1000x1000x1000", 10}, {"2050x3000x520", 7}},
                             GetParam().where);
}

// Stream-K's partial tiles are summed in a fixed order: each configuration, its own reference, gives the same bits in
// three later runs (the flags it raises are lowered for the next launch, or the next run would read stale partials).
TEST(GemmWgmmaStreamKGpu, SameBitsEveryRun) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  MeasureOptions options = testing::quick_measure();
  for (const char* name : {"gemm_bf16", "gemm_f16", "gemm_tf32"}) {
    KernelSpec family = load_kernel(name);
    family.restrict_to("STREAMK >= 1");
    const Shape shape = family.parse_shape("1000x1000x1000");
    const std::vector<Config> sample = wgmma_sample(family, shape, device, 6);
    ASSERT_FALSE(sample.empty()) << name;
    for (const Config& c : sample) {
      const KernelSpec spec = testing::self_referenced(family, c);
      Compiled compiled(spec, device.identity().arch());
      compiled.add({c}, shape);
      Workbench bench(device, spec, shape, options);
      for (int run = 0; run < 3; ++run) {
        const Result r = bench.evaluate(c, compiled.get(c, shape));
        EXPECT_EQ(r.status, Status::Ok) << name << " " << r.config << " run " << run + 2 << ": " << r.message;
      }
    }
    std::printf("%s: %zu stream-K configurations gave the same bits in 4 runs each\n", name, sample.size());
  }
}

// The runtime API launches TF32's PATH 1 as any kernel: the maps encoded over the A and B pointers passed in their
// places, split-K through the caller's counters and workspace, a cluster, edges in M. The spec's defaults are set to
// such a configuration, so that a runtime without a database launches it.
TEST(GemmWgmmaTf32Gpu, RuntimeLaunchesPath1WithItsTensorMaps) {
  REQUIRE_GPU();
  Device device;
  if (!runs_wgmma(device)) GTEST_SKIP() << "PATH 1 (sm_90a) does not run on " << device.identity().arch();
  const KernelSpec base = load_kernel("gemm_tf32");
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(base.json);
  const Config chosen = base.parse_config(
      "PATH=1,BM=128,BN=128,BK=32,WARPS_M=2,WARPS_N=2,STAGES=4,PREFETCH=1,SWIZZLE=1,SPLITK=2,GROUP_M=1,EPI_VEC=4,"
      "ALIGNED=1,WG=2,CM=2,CN=1,PERSIST=0,STREAMK=0,PINGPONG=0,SHAPED=0,RASTER=0,KSUM=0");
  for (std::size_t p = 0; p < base.parameters.size(); ++p)
    j["parameters"][base.parameters[p].name]["default"] = chosen.values[p].as_int();
  const KernelSpec spec = KernelSpec::from_json(j.dump(), base.source, base.source_name);
  const int m = 300, n = 256, k = 512;
  Runtime runtime({.database = {}, .cache_directory = {}, .device = device.ordinal()});
  const RuntimeKernel& gemm = runtime.kernel(spec, spec.parse_shape("300x256x512"));
  EXPECT_EQ(spec.format(gemm.config()), base.format(chosen));

  device.make_current();
  std::vector<float> a(static_cast<std::size_t>(m) * k), b(static_cast<std::size_t>(k) * n), c(static_cast<std::size_t>(m) * n, NAN);
  std::mt19937 random(11);
  for (auto* v : {&a, &b})
    for (float& x : *v) x = std::uniform_real_distribution<float>(-1, 1)(random);
  const std::size_t counters = static_cast<std::size_t>((m + 15) / 16) * ((n + 31) / 32);
  const std::size_t workspace = std::min<std::size_t>(16ull * m * n, 33554432) + 1048576;
  detail::DeviceBuffer d_a(a.size() * 4), d_b(b.size() * 4), d_c(c.size() * 4), d_counters(counters * 4),
      d_workspace(workspace * 4);
  CU_CHECK(cuMemcpyHtoD, d_a.get(), a.data(), d_a.bytes());
  CU_CHECK(cuMemcpyHtoD, d_b.get(), b.data(), d_b.bytes());
  CU_CHECK(cuMemcpyHtoD, d_c.get(), c.data(), d_c.bytes());
  const std::vector<unsigned> zeros(counters, 0u);
  CU_CHECK(cuMemcpyHtoD, d_counters.get(), zeros.data(), d_counters.bytes());
  const CUdeviceptr pa = d_a.get(), pb = d_b.get(), pc = d_c.get(), pcount = d_counters.get(), pw = d_workspace.get();
  for (int run = 0; run < 2; ++run) {  // twice: the split-K counters must be left as found
    gemm(nullptr, m, n, k, 1.0f, pa, pb, 0.0f, pc, pcount, pw, pa, pb, pc);
    CU_CHECK(cuCtxSynchronize);
    CU_CHECK(cuMemcpyDtoH, c.data(), pc, d_c.bytes());
    // The tensor cores' inputs (the top 19 bits) multiplied exactly: what is left is the FP32 accumulation, below
    // the spec's 1e-7 * K^1.5 = 1.2e-3 at K = 512; a wrong element is off by about 7.
    const auto tf32 = [](float x) {
      std::uint32_t bits;
      std::memcpy(&bits, &x, 4);
      bits &= 0xffffe000u;
      std::memcpy(&x, &bits, 4);
      return double(x);
    };
    int wrong = 0;
    for (int i = 0; i < m; ++i)
      for (int col = 0; col < n; ++col) {
        double sum = 0.0;
        for (int p = 0; p < k; ++p) sum += tf32(a[std::size_t(i) * k + p]) * tf32(b[std::size_t(p) * n + col]);
        wrong += !(std::abs(sum - c[std::size_t(i) * n + col]) < 1.2e-3);
      }
    EXPECT_EQ(wrong, 0) << "run " << run + 1;
  }
}

}  // namespace
}  // namespace cutune
