// Tests of architecture-specific targets: the spec's "target", pruning by compute capability, what NVRTC compiles.
#include "cutune/target.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "spec_json_support.hpp"

#include "cli_support.hpp"
#include "cutune/compiler.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"

namespace cutune {
namespace {

using Json = testing::SpecJson;

// PATH=1 uses wgmma, which only the sm_90a target has; PATH=0 is plain code.
constexpr const char* kSource = R"(
#ifndef PATH
#define PATH 0
#endif
extern "C" __global__ void k(float* out) {
#if PATH == 1
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
  out[threadIdx.x] = PATH;
}
)";

KernelSpec spec_of(const Json& j) { return testing::spec_from_json(j, kSource); }

Json base_spec() {
  return Json::parse(R"json({
    "name": "targeted", "source": "targeted.cu", "kernel": "k", "shape": ["N"],
    "parameters": {"PATH": [0, 1], "X": [1, 2, 3]},
    "target": {"sm_90a": "PATH == 1"},
    "block": [128], "grid": [1],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
    "reference": {"configuration": {"PATH": 0}},
    "metric": {"bytes": "4 * N"}
  })json");
}

TEST(Target, ArchitectureNames) {
  EXPECT_EQ(arch_compute_capability("sm_90"), 90);
  EXPECT_EQ(arch_compute_capability("sm_90a"), 90);
  EXPECT_EQ(arch_compute_capability("sm_100a"), 100);
  EXPECT_EQ(arch_compute_capability("sm_120a"), 120);
  EXPECT_EQ(arch_compute_capability("sm_80"), 80);
  EXPECT_EQ(arch_compute_capability("compute_90"), std::nullopt);
  EXPECT_EQ(arch_compute_capability("sm_9"), std::nullopt);
  EXPECT_EQ(arch_compute_capability("sm_90b"), std::nullopt);
  EXPECT_TRUE(is_arch_specific("sm_90a"));
  EXPECT_FALSE(is_arch_specific("sm_90"));
}

TEST(Target, ParsesRulesAndSpecWideTargets) {
  const KernelSpec spec = spec_of(base_spec());
  ASSERT_EQ(spec.targets.size(), 1u);
  EXPECT_EQ(spec.targets[0].arch, "sm_90a");
  EXPECT_EQ(required_targets(spec, spec.parse_config("PATH=1,X=2")), std::vector<std::string>{"sm_90a"});
  EXPECT_TRUE(required_targets(spec, spec.parse_config("PATH=0,X=2")).empty());
  EXPECT_EQ(compile_arch(spec, spec.parse_config("PATH=1,X=1"), "sm_90"), "sm_90a");
  EXPECT_EQ(compile_arch(spec, spec.parse_config("PATH=0,X=1"), "sm_90"), "sm_90");

  Json j = base_spec();
  j["target"] = "sm_100a";
  const KernelSpec wide = spec_of(j);
  EXPECT_EQ(compile_arch(wide, wide.parse_config("PATH=0,X=1"), "sm_100"), "sm_100a");
}

TEST(Target, ErrorsNameTheField) {
  Json j = base_spec();
  j["target"] = "sm_90";
  EXPECT_EQ(testing::spec_error(j), "spec targeted: target: 'sm_90' is not an architecture-specific target (sm_<major><minor>a: "
                         "sm_90a, sm_100a, sm_120a, ...)");
  j["target"] = {{"sm_90a", "N > 4"}};
  EXPECT_EQ(testing::spec_error(j), "spec targeted: target.sm_90a: may use parameter names only, not the shape's N");
  j["target"] = {{"sm_90a", "PATH == Q"}};
  EXPECT_NE(testing::spec_error(j).find("target.sm_90a: unknown name 'Q'"), std::string::npos) << testing::spec_error(j);
  j["target"] = Json::array();
  EXPECT_EQ(testing::spec_error(j), "spec targeted: target: must be a target such as \"sm_90a\" or an object {\"sm_90a\": "
                         "CONDITION, ...}");
}

TEST(Target, PrunesByComputeCapabilityAndCounts) {
  const KernelSpec spec = spec_of(base_spec());
  const Space hopper = Space::enumerate(spec, std::nullopt, limits_of_compute_capability(90));
  EXPECT_EQ(hopper.size(), 6u);
  EXPECT_EQ(hopper.removed_by_target(), 0u);
  for (const int cc : {80, 100, 89}) {
    const Space other = Space::enumerate(spec, std::nullopt, limits_of_compute_capability(cc));
    EXPECT_EQ(other.size(), 3u) << cc;
    EXPECT_EQ(other.removed_by_target(), 3u) << cc;
    EXPECT_EQ(other.removed_by_constraints(), 0u) << cc;
    for (const Config& c : other.configs()) EXPECT_EQ(c.values[0], Value(0)) << cc;
  }
  // A configuration that needs two targets runs nowhere.
  Json j = base_spec();
  j["target"] = {{"sm_90a", "PATH == 1"}, {"sm_100a", "X == 3"}};
  const KernelSpec both = spec_of(j);
  // On 9.0: PATH=0,X=3 (sm_100a) and PATH=1,X=3 (both); on 10.0: PATH=1 with X=1, 2 (sm_90a) and both.
  EXPECT_EQ(Space::enumerate(both, std::nullopt, limits_of_compute_capability(90)).removed_by_target(), 2u);
  EXPECT_EQ(Space::enumerate(both, std::nullopt, limits_of_compute_capability(100)).removed_by_target(), 3u);
  const auto why = target_unavailable(both, both.scope(both.parse_config("PATH=1,X=3"), nullptr), 90);
  ASSERT_TRUE(why);
  EXPECT_EQ(*why, "it needs both sm_90a and sm_100a, which no GPU has");
}

// The sm_90a-only instruction is real: NVRTC rejects it for sm_90 and accepts it for sm_90a, and a configuration
// that asks for the target compiles for it (through the cache, under a key of its own).
TEST(Target, CompilesArchitectureSpecificInstructionsForTheTarget) {
  const KernelSpec spec = spec_of(base_spec());
  const CompileOutput plain = compile(spec, "k", {"-DPATH=1"}, "sm_90");
  EXPECT_FALSE(plain.ok);
  EXPECT_NE(plain.log.find("wgmma.fence"), std::string::npos) << plain.log;
  EXPECT_TRUE(compile(spec, "k", {"-DPATH=1"}, "sm_90a").ok);
  EXPECT_TRUE(compile_config(spec, spec.parse_config("PATH=1,X=1"), "sm_90").ok);

  const auto dir = std::filesystem::temp_directory_path() / ("cutune_target_" + std::to_string(::getpid()));
  {
    CubinCache cache(dir);
    const Config c = spec.parse_config("PATH=1,X=1");
    EXPECT_TRUE(compile_config_cached(&cache, spec, c, "sm_90").ok);
    const CompileOutput again = compile_config_cached(&cache, spec, c, "sm_90");
    EXPECT_TRUE(again.ok);
    EXPECT_TRUE(again.from_cache);
    EXPECT_NE(CubinCache::key(spec, "k", spec.defines(c), "sm_90"), CubinCache::key(spec, "k", spec.defines(c), "sm_90a"));
  }
  std::filesystem::remove_all(dir);
}

TEST(Target, SpaceCommandCountsByTarget) {
  const auto dir = std::filesystem::temp_directory_path() / ("cutune_target_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "targeted.json") << base_spec().dump(2);
  std::ofstream(dir / "targeted.cu") << kSource;
  auto r = test::run_tune(dir, "space --spec targeted.json --arch sm_80");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "3 valid configurations of targeted (6 combinations, 0 removed by constraints, 0 by compute "
                   "capability 9.0 launch limits, 3 by target sm_80)\n");
  r = test::run_tune(dir, "space --spec targeted.json");
  EXPECT_EQ(r.out.rfind("6 valid configurations", 0), 0u) << r.out;
  r = test::run_tune(dir, "compile --spec targeted.json --arch sm_90");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  r = test::run_tune(dir, "space --spec targeted.json --arch ampere");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--arch 'ampere'"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cutune
