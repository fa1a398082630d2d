// Host tests of the cuBLASLt configuration families (ALGO and the CUBLASLT_ALGO_CONFIG_* attributes as parameters):
// what the built-in specs read, a configuration decoded into cuBLASLt's attributes and back, the values refused with
// a message naming the parameter, the capability rules, and the space with what a library does not admit removed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/library.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "driver/cublaslt_algo.hpp"

namespace cutune {
namespace {

using detail::LtAlgoConfig;
using detail::LtCapabilities;
using Json = nlohmann::ordered_json;

constexpr const char* kFamilies[] = {"gemm_bf16_cublaslt_config", "gemm_f16_cublaslt_config",
                                     "gemm_tf32_cublaslt_config", "gemm_fp8_cublaslt_config"};

Json bf16_config_family() { return Json::parse(load_kernel("gemm_bf16_cublaslt_config").json); }

KernelSpec from(const Json& j) {
  return KernelSpec::from_json(j.dump(), load_kernel("gemm_bf16_cublaslt_config").source, "s.cu");
}

void expect_spec_error(const Json& j, const std::string& part) {
  try {
    from(j);
    ADD_FAILURE() << "no error; expected one containing: " << part;
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(LibraryAlgoSpec, BuiltInFamiliesNameTheAlgorithmAndEveryAttribute) {
  for (const char* name : kFamilies) {
    const KernelSpec spec = load_kernel(name);
    ASSERT_TRUE(spec.library) << name;
    ASSERT_TRUE(spec.library->algo) << name;
    const LibraryAlgoParameters& p = *spec.library->algo;
    EXPECT_EQ(spec.parameters[p.algo].name, "ALGO");
    for (std::size_t a = 0; a < kLibraryAttributes; ++a) {
      ASSERT_TRUE(p.attributes[a]) << name << " " << kLibraryAttributeNames[a];
      EXPECT_EQ(spec.parameters[*p.attributes[a]].name, kLibraryAttributeNames[a]);
    }
    EXPECT_EQ(spec.parameters.size(), 8u) << name;  // RANK and REDUCTION removed from the family it extends
    // The arguments, reference and tolerance are those of the rank family it extends.
    const KernelSpec by_rank = load_kernel(std::string(name).substr(0, std::string(name).size() - 7));
    EXPECT_FALSE(by_rank.library->algo);
    EXPECT_EQ(spec.arguments.size(), by_rank.arguments.size());
    EXPECT_EQ(spec.reference_kernel, by_rank.reference_kernel);
    EXPECT_EQ(spec.library->tf32, by_rank.library->tf32);
    EXPECT_EQ(spec.library->b_transposed, by_rank.library->b_transposed);
    const CompileOutput out = compile_config(spec, spec.default_config(), "sm_90");
    EXPECT_TRUE(out.ok && out.cubin.empty()) << name;
  }
}

TEST(LibraryAlgoSpec, AConfigurationDecodesToCublasLtAttributesAndBack) {
  const KernelSpec spec = load_kernel("gemm_bf16_cublaslt_config");
  const std::string text = "ALGO=66,TILE=399,STAGES=35,SPLITK=3,SCHEME=2,SWIZZLE=1,CUSTOM=5,CLUSTER=7";
  const LtAlgoConfig c = detail::lt_algo_config(spec, spec.parse_config(text));
  EXPECT_EQ(c.algo, 66);
  EXPECT_EQ(c.tile, 399u);
  EXPECT_EQ(c.stages, 35u);
  EXPECT_EQ(c.splitk, 3);
  EXPECT_EQ(c.scheme, 2u);
  EXPECT_EQ(c.swizzle, 1u);
  EXPECT_EQ(c.custom, 5u);
  EXPECT_EQ(c.cluster, 7u);
  EXPECT_EQ(detail::lt_config_text(spec, c), text);
  EXPECT_EQ(detail::describe(c),
            "cuBLASLt algorithm 66, tile 399, stages 35, split-K 3 (reduction scheme 2), swizzle 1, custom 5, cluster 7");
  const LtAlgoConfig own = detail::lt_algo_config(spec, spec.parse_config("ALGO=42,TILE=15,STAGES=35,SPLITK=-1,SCHEME=2,"
                                                                          "SWIZZLE=0,CUSTOM=0,CLUSTER=2"));
  EXPECT_EQ(own.splitk, -1);
}

// A family with ALGO and TILE only: the other attributes take cuBLASLt's defaults, and a configuration that needs one
// of them otherwise is not one of the family's.
TEST(LibraryAlgoSpec, AttributesLeftOutTakeCublasLtDefaults) {
  Json j = bf16_config_family();
  for (const char* name : {"STAGES", "SPLITK", "SCHEME", "SWIZZLE", "CUSTOM", "CLUSTER"}) j["parameters"].erase(name);
  j["constraints"] = Json::array();
  const KernelSpec spec = from(j);
  ASSERT_TRUE(spec.library->algo);
  EXPECT_FALSE(spec.library->algo->attributes[1]);
  const LtAlgoConfig c = detail::lt_algo_config(spec, spec.parse_config("ALGO=24,TILE=15"));
  EXPECT_EQ(c, (LtAlgoConfig{24, 15, 0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(detail::lt_config_text(spec, c), "ALGO=24,TILE=15");
  LtAlgoConfig clustered = c;
  clustered.cluster = 3;
  EXPECT_THROW(detail::lt_config_text(spec, clustered), InputError);
}

TEST(LibraryAlgoSpec, RefusesValuesCublasLtCannotTake) {
  Json j = bf16_config_family();
  j["parameters"]["RANK"] = {{"values", {0, 1}}};
  expect_spec_error(j, "parameters.RANK: a cublasLt configuration family's parameters are among ALGO, TILE, STAGES");
  j = bf16_config_family();
  j["parameters"]["BM"] = {{"values", {64}}};
  expect_spec_error(j, "parameters.BM: a cublasLt configuration family's parameters are among");
  struct Case {
    const char* parameter;
    Json values;
    const char* message;
  };
  const Case cases[] = {
      {"SWIZZLE", {0, 2}, "parameters.SWIZZLE: values must be 0 or 1"},
      {"SCHEME", {0, 3}, "parameters.SCHEME: values must be 0 (none), 1 (in place), 2 (compute type) or 4"},
      {"SPLITK", {0, 1}, "parameters.SPLITK: values must be -1"},
      {"SPLITK", {-2, 1}, "parameters.SPLITK: values must be -1"},
      {"CLUSTER", {3, 70000}, "parameters.CLUSTER: values must be cublasLtClusterShape_t numbers"},
      {"ALGO", {-1, 66}, "parameters.ALGO: values must be algorithm ids"},
      {"TILE", {1.5, 17}, "parameters.TILE: values must be cublasLtMatmulTile_t numbers"},
  };
  for (const Case& c : cases) {
    j = bf16_config_family();
    j["parameters"][c.parameter]["values"] = c.values;
    expect_spec_error(j, c.message);
  }
}

// The capability attributes of an algorithm as cuBLASLt 13.0 reports them for BF16 on an H200: algorithm 24's tiles
// and stages, split-K with every reduction scheme, no swizzling, no custom option.
LtCapabilities algorithm_24() {
  LtCapabilities caps;
  caps.tiles = {5, 11, 15, 17, 18, 20, 23, 24};
  caps.stages = {7};
  caps.splitk = true;
  caps.reduction_mask = 7;
  return caps;
}

TEST(LibraryAlgoCapabilities, EachAttributeIsCheckedAgainstItsCapability) {
  const LtCapabilities caps = algorithm_24();
  const LtAlgoConfig ok{24, 15, 7, 1, 0, 0, 0, 0};
  EXPECT_EQ(detail::capability_refusal(caps, ok), std::nullopt);
  const auto refusal = [&](LtAlgoConfig c) { return detail::capability_refusal(caps, c).value_or("admitted"); };
  LtAlgoConfig c = ok;
  c.tile = 21;
  EXPECT_EQ(refusal(c), "cuBLASLt algorithm 24 has no tile 21 (its tiles: 5 11 15 17 18 20 23 24)");
  c = ok;
  c.stages = 8;
  EXPECT_EQ(refusal(c), "cuBLASLt algorithm 24 has no stages 8 (its stages: 7)");
  c = ok;
  c.tile = 0;  // undefined: cublasLtMatmulAlgoCheck decides
  c.stages = 0;
  EXPECT_EQ(refusal(c), "admitted");
  c = ok;
  c.splitk = 4;
  c.scheme = 4;
  EXPECT_EQ(refusal(c), "admitted");
  c.scheme = 0;  // no reduction of split partial sums is cuBLASLt's to refuse at the shape
  EXPECT_EQ(refusal(c), "admitted");
  c = ok;
  c.scheme = 2;
  EXPECT_EQ(refusal(c), "a reduction scheme (2) needs K split");
  c = ok;
  c.swizzle = 1;
  EXPECT_EQ(refusal(c), "cuBLASLt algorithm 24 has no CTA swizzling");
  c = ok;
  c.custom = 1;
  EXPECT_EQ(refusal(c), "cuBLASLt algorithm 24 has no custom option 1 (at most 0)");

  LtCapabilities sm90 = caps;  // algorithm 66's kind: FP32 reductions only, no tiles listed
  sm90.tiles.clear();
  sm90.splitk = false;
  sm90.reduction_mask = 2;
  c = ok;
  EXPECT_EQ(detail::capability_refusal(sm90, c).value_or(""), "cuBLASLt algorithm 24 has no tile 15 (its tiles: none)");
  c.tile = 0;
  c.splitk = -1;
  c.scheme = 2;
  EXPECT_EQ(detail::capability_refusal(sm90, c).value_or(""), "cuBLASLt algorithm 24 does not split K");
  sm90.splitk = true;
  c.scheme = 1;
  EXPECT_EQ(detail::capability_refusal(sm90, c).value_or(""), "cuBLASLt algorithm 24 has no reduction scheme 1 (its mask: 2)");
}

// The space of a configuration family is the spec's values under its constraints (a reduction scheme exactly when K is
// split); what the tuner's capability filter does not admit counts as removed by the device.
TEST(LibraryAlgoSpace, ConstraintsThenWhatTheLibraryAdmits) {
  Json j = bf16_config_family();
  j["parameters"]["ALGO"]["values"] = {24, 66};
  j["parameters"]["TILE"]["values"] = {15, 21};
  j["parameters"]["TILE"]["default"] = 15;
  j["parameters"]["STAGES"]["values"] = {7, 35};
  j["parameters"]["SPLITK"]["values"] = {1, 2};
  j["parameters"]["CUSTOM"]["values"] = {0};
  j["parameters"]["CLUSTER"]["values"] = {0};
  j["parameters"]["CLUSTER"]["default"] = 0;
  const KernelSpec spec = from(j);
  const Space space = Space::enumerate(spec, spec.parse_shape("1000x1000x1000"), limits_of_compute_capability(90));
  // 2 algorithms x 2 tiles x 2 stages x (split 1 with scheme 0, split 2 with scheme 2) x 2 swizzles.
  EXPECT_EQ(space.cartesian_size(), 2u * 2 * 2 * 2 * 2 * 2);
  EXPECT_EQ(space.size(), 32u);
  const LtCapabilities caps24 = algorithm_24();
  const Space runs = space.where_runs([&](const Config& config) {
    const LtAlgoConfig c = detail::lt_algo_config(spec, config);
    return c.algo == 24 && !detail::capability_refusal(caps24, c);
  });
  // Algorithm 24: tile 15, stages 7, no swizzle, split 1 or 2: 2 configurations.
  EXPECT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs.removed_by_device(), space.removed_by_device() + 30u);
  EXPECT_EQ(spec.format(runs.configs()[0]), "ALGO=24,TILE=15,STAGES=7,SPLITK=1,SCHEME=0,SWIZZLE=0,CUSTOM=0,CLUSTER=0");
}

}  // namespace
}  // namespace cutune
