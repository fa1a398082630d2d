// Tests of the fallback chain: exact shape, nearest tuned shape, same compute capability, the spec's default.
#include <cmath>

#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

class FallbackTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    db_.emplace(path("tune.db"));
    const auto run = db_->begin_run(h200_, kernel_, "tune");
    db_->record(run, "1024x1024", ok_result("A=1", 1.0));
    db_->record(run, "1024x1024", ok_result("A=2", 0.5));
    db_->record(run, "8192x8192", ok_result("A=3", 9.0));
    db_->record(run, "4096x256", ok_result("A=4", 2.0));
    // A shape where everything failed is not "tuned": it never answers.
    db_->record(run, "2000x2000", failed_result("A=5", Status::WrongResult, "mismatch"));
  }

  BestQuery query(const DeviceIdentity& device, const std::string& shape) const {
    return {kernel_.name, kernel_.hash, device, shape};
  }

  DeviceIdentity h200_ = synthetic_device("NVIDIA H200", 9, 0, 132);
  KernelIdentity kernel_{"gemm", "aaaaaaaaaaaaaaaa"};
  std::optional<Database> db_;
};

TEST_F(FallbackTest, ExactShapeFirst) {
  const auto found = db_->best_with_fallback(query(h200_, "1024x1024"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->match, Match::Exact);
  EXPECT_EQ(found->result.config, "A=2");
  EXPECT_EQ(found->shape, "1024x1024");
  EXPECT_EQ(found->distance, 0.0);
  EXPECT_EQ(to_string(found->match), "exact shape");
}

TEST_F(FallbackTest, NearestShapeByLogDistance) {
  // 2000x2000 itself holds only failures; 1024x1024 is nearer than 8192x8192 on the log scale.
  auto found = db_->best_with_fallback(query(h200_, "2000x2000"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->match, Match::NearestShape);
  EXPECT_EQ(found->shape, "1024x1024");
  EXPECT_EQ(found->result.config, "A=2");
  EXPECT_NEAR(found->distance, std::sqrt(2.0) * std::log(2000.0 / 1024.0), 1e-12);
  EXPECT_FALSE(db_->best(query(h200_, "2000x2000")));  // best() stays exact

  // Each dimension counts on its own: 4096x512 is one doubling away from 4096x256.
  found = db_->best_with_fallback(query(h200_, "4096x512"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->shape, "4096x256");
  EXPECT_NEAR(found->distance, std::log(2.0), 1e-12);
  found = db_->best_with_fallback(query(h200_, "6000x6000"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->shape, "8192x8192");
  EXPECT_EQ(to_string(found->match), "nearest tuned shape");
}

TEST_F(FallbackTest, SameComputeCapabilityThenNearestSmCount) {
  const DeviceIdentity h100_pcie = synthetic_device("NVIDIA H100 PCIe", 9, 0, 114);
  db_->record(db_->begin_run(h100_pcie, kernel_, "tune"), "1024x1024", ok_result("B=1", 0.7));
  // Nothing tuned on a GH200 (cc 9.0, 132 SMs): the H200 (132 SMs) is chosen over the H100 PCIe (114).
  const DeviceIdentity gh200 = synthetic_device("NVIDIA GH200 480GB", 9, 0, 132);
  auto found = db_->best_with_fallback(query(gh200, "1024x1024"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->match, Match::SameArchitecture);
  EXPECT_EQ(found->device.name, "NVIDIA H200");
  EXPECT_EQ(found->result.config, "A=2");
  EXPECT_EQ(to_string(found->match), "same compute capability");
  // Shape distance comes before the SM count: for 16384x16384 the H200's 8192x8192 is the nearest shape.
  found = db_->best_with_fallback(query(gh200, "16384x16384"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->shape, "8192x8192");
  EXPECT_NEAR(found->distance, std::sqrt(2.0) * std::log(2.0), 1e-12);
  // An SM count nearer the PCIe card picks it when the shapes tie.
  const DeviceIdentity small = synthetic_device("NVIDIA H100 NVL", 9, 0, 120);
  found = db_->best_with_fallback(query(small, "1024x1024"));
  ASSERT_TRUE(found);
  EXPECT_EQ(found->device.name, "NVIDIA H100 PCIe");
  EXPECT_EQ(found->result.config, "B=1");
}

TEST_F(FallbackTest, OtherArchitectureOrVersionFindsNothing) {
  const DeviceIdentity a100 = synthetic_device("NVIDIA A100-SXM4-80GB", 8, 0, 108);
  EXPECT_FALSE(db_->best_with_fallback(query(a100, "1024x1024")));
  BestQuery other_version = query(h200_, "1024x1024");
  other_version.kernel_hash = "bbbbbbbbbbbbbbbb";
  EXPECT_FALSE(db_->best_with_fallback(other_version));
  BestQuery other_kernel = query(h200_, "1024x1024");
  other_kernel.kernel = "transpose";
  EXPECT_FALSE(db_->best_with_fallback(other_kernel));
  // Without a hash, the version measured last on the device (or on its compute capability) answers.
  BestQuery latest = query(synthetic_device("NVIDIA GH200 480GB", 9, 0, 132), "1024x1024");
  latest.kernel_hash.clear();
  const auto found = db_->best_with_fallback(latest);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->kernel.hash, kernel_.hash);
}

TEST_F(FallbackTest, ChooseConfigEndsWithTheSpecDefault) {
  const KernelSpec spec = load_kernel("transpose");
  const Shape shape = spec.parse_shape("4096x4096");
  const std::string tuned = "TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
  const auto run = db_->begin_run(h200_, {spec.name, spec.hash}, "tune transpose");
  db_->record(run, "8192x8192", ok_result(tuned, 0.3));

  BestConfig chosen = choose_config(&*db_, spec, h200_, shape);
  EXPECT_EQ(chosen.match, Match::Predicted);
  EXPECT_EQ(chosen.result.config, tuned);

  const DeviceIdentity l4 = synthetic_device("NVIDIA L4", 8, 9, 58);
  chosen = choose_config(&*db_, spec, l4, shape);
  EXPECT_EQ(chosen.match, Match::Default);
  EXPECT_EQ(chosen.result.config, spec.format(spec.default_config()));
  EXPECT_EQ(chosen.device.name, "NVIDIA L4");
  EXPECT_EQ(chosen.shape, "4096x4096");
  EXPECT_EQ(to_string(chosen.match), "spec default");
  EXPECT_EQ(choose_config(nullptr, spec, h200_, shape).match, Match::Default);
}

TEST_F(FallbackTest, ChooseConfigRefusesAConfigurationTheShapeForbids) {
  const KernelSpec spec = KernelSpec::from_json(R"json({"name": "scale", "source": "scale.cu", "kernel": "scale",
    "shape": ["N"], "parameters": {"TILE": {"values": [16, 64], "default": 16}}, "constraints": ["TILE <= N"],
    "block": ["TILE"], "grid": ["ceil_div(N, TILE)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}, {"name": "n", "type": "int", "value": "N"}],
    "reference": {"kernel": "scale_ref", "block": [32], "grid": ["ceil_div(N, 32)"]}, "metric": {"bytes": "4 * N"}})json",
                                                "extern \"C\" __global__ void scale(float*, int) {}", "scale.cu");
  db_->record(db_->begin_run(h200_, {spec.name, spec.hash}, "tune scale"), "1024", ok_result("TILE=64", 0.1));
  EXPECT_EQ(choose_config(&*db_, spec, h200_, spec.parse_shape("2048")).result.config, "TILE=64");
  // At N = 32 the nearest shape's TILE=64 breaks "TILE <= N": the default answers instead.
  const BestConfig small = choose_config(&*db_, spec, h200_, spec.parse_shape("32"));
  EXPECT_EQ(small.match, Match::Default);
  EXPECT_EQ(small.result.config, "TILE=16");
}

// A default that the shape rules out (here the tensor-core GEMM's 16-byte loads at an odd K) gives way to the valid
// configuration nearest to it: the runtime never launches a configuration its own spec forbids.
TEST_F(FallbackTest, ChooseConfigMovesOffADefaultTheShapeForbids) {
  const KernelSpec spec = load_kernel("gemm_bf16");
  const Shape odd = spec.parse_shape("127x257x511");
  const BestConfig chosen = choose_config(nullptr, spec, h200_, odd);
  EXPECT_EQ(chosen.match, Match::Default);
  const Config config = spec.parse_config(chosen.result.config);
  const Config preferred = spec.default_config();
  const std::vector<Value> scope = spec.scope(config, &odd);
  for (const auto& constraint : spec.constraints) EXPECT_TRUE(constraint.eval(scope).truthy()) << constraint.text();
  std::size_t changed = 0;
  for (std::size_t p = 0; p < config.values.size(); ++p) changed += !(config.values[p] == preferred.values[p]);
  // Element loads and stores for the odd K and N (ALIGNED, EPI_VEC), which need smaller warp tiles (BM).
  EXPECT_EQ(changed, 3u) << chosen.result.config;
  EXPECT_EQ(chosen.result.config,
            "PATH=0,BM=32,BN=128,BK=32,WARPS_M=2,WARPS_N=2,STAGES=3,PREFETCH=1,SWIZZLE=1,SPLITK=1,GROUP_M=1,EPI_VEC=1,"
            "ALIGNED=0,WG=1,CM=1,CN=1,SWAP=0,PERSIST=0,MC=0,STREAMK=0,EPI_SLICE=0,PINGPONG=0,SHAPED=0,RASTER=0,KSUM=0");
  EXPECT_EQ(choose_config(nullptr, spec, h200_, spec.parse_shape("4096x4096x4096")).result.config,
            spec.format(preferred));
}

}  // namespace
}  // namespace cutune::testing
