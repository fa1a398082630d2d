// Tests of a spec's "defines": reading them (errors that name the define), their values per configuration and shape,
// and what they do to compiles and cubin cache keys (one binary for every shape unless the shape is compiled in).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "spec_json_support.hpp"

#include "cli_support.hpp"

#include "cutune/compiler.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"

namespace cutune {
namespace {

using Json = testing::SpecJson;

// With SHAPED=1 the kernel reads N as a constant (as the GEMM templates do); TILE reaches it as a parameter.
constexpr const char* kSource = R"(
#ifndef TILE
#define TILE 64
#endif
extern "C" __global__ void k(float* out, int n) {
#ifdef SHAPE_N
  n = SHAPE_N;
#endif
  const int i = blockIdx.x * TILE + threadIdx.x;
  if (i < n) out[i] = HALF_TILE;
}
)";

Json base_spec() {
  return Json::parse(R"json({
    "name": "shaped", "source": "shaped.cu", "kernel": "k", "shape": ["N"],
    "parameters": {"TILE": [64, 128], "SHAPED": [0, 1]},
    "defines": {"HALF_TILE": "TILE // 2", "SHAPE_N": {"value": "N", "when": "SHAPED == 1"},
                "TILES": {"value": "ceil_div(N, TILE)", "when": "SHAPED"}},
    "block": ["TILE"], "grid": ["ceil_div(N, TILE)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true},
                  {"name": "n", "type": "int", "value": "N"}],
    "reference": {"configuration": {"TILE": 64}},
    "metric": {"bytes": "4 * N"}
  })json");
}

KernelSpec spec_of(const Json& j) { return testing::spec_from_json(j, kSource); }

std::string error_with_defines(const Json& defines) {
  Json j = base_spec();
  j["defines"] = defines;
  return testing::spec_error(j);
}

TEST(Defines, AreReadInOrderWithTheirConditions) {
  const KernelSpec spec = spec_of(base_spec());
  ASSERT_EQ(spec.define_rules.size(), 3u);
  EXPECT_EQ(spec.define_rules[0].name, "HALF_TILE");
  EXPECT_FALSE(spec.define_rules[0].uses_shape);
  EXPECT_EQ(spec.define_rules[1].name, "SHAPE_N");
  EXPECT_TRUE(spec.define_rules[1].uses_shape);
  EXPECT_TRUE(spec.define_rules[2].uses_shape);
}

TEST(Defines, ValuesFollowTheConfigurationAndTheShape) {
  const KernelSpec spec = spec_of(base_spec());
  const Shape shape = spec.parse_shape("1000");
  const Config plain = spec.parse_config("TILE=128,SHAPED=0");
  const Config shaped = spec.parse_config("TILE=128,SHAPED=1");
  EXPECT_EQ(spec.defines(plain, &shape), (std::vector<std::string>{"-DTILE=128", "-DSHAPED=0", "-DHALF_TILE=64"}));
  EXPECT_EQ(spec.defines(plain), spec.defines(plain, &shape));  // no shape needed
  EXPECT_EQ(spec.defines(shaped, &shape), (std::vector<std::string>{"-DTILE=128", "-DSHAPED=1", "-DHALF_TILE=64",
                                                                     "-DSHAPE_N=1000", "-DTILES=8"}));
  EXPECT_FALSE(spec.shape_specialized(plain));
  EXPECT_TRUE(spec.shape_specialized(shaped));
  try {
    spec.defines(shaped);
    FAIL() << "a shape-specialized configuration's defines need the shape";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("define SHAPE_N of shaped ('N') needs the shape"), std::string::npos)
        << e.what();
  }
}

TEST(Defines, ErrorsNameTheDefine) {
  EXPECT_NE(error_with_defines({{"X", "TILE +"}}).find("defines.X"), std::string::npos);
  EXPECT_NE(error_with_defines({{"X", "ROWS * 2"}}).find("defines.X: unknown name 'ROWS'"), std::string::npos)
      << error_with_defines({{"X", "ROWS * 2"}});
  EXPECT_NE(error_with_defines({{"X", {{"value", "N"}, {"when", "N > 4"}}}}).find("defines.X.when: may name parameters only"),
            std::string::npos);
  EXPECT_NE(error_with_defines({{"X", {{"when", "SHAPED"}}}}).find("defines.X.value: missing"), std::string::npos);
  EXPECT_NE(error_with_defines({{"X", {{"value", "N"}, {"if", "SHAPED"}}}}).find("defines.X: unknown field 'if'"),
            std::string::npos);
  EXPECT_NE(error_with_defines({{"TILE", "2"}}).find("defines.TILE: is a parameter's or cutune's own name"),
            std::string::npos);
  EXPECT_NE(error_with_defines({{"CUTUNE_REFERENCE", "1"}}).find("defines.CUTUNE_REFERENCE"), std::string::npos);
  EXPECT_NE(error_with_defines({{"2X", "1"}}).find("defines.2X: must be a name"), std::string::npos);
  EXPECT_NE(error_with_defines({{"X", Json::array({1})}}).find("defines.X: must be an object"), std::string::npos);
  EXPECT_NE(error_with_defines(Json::array()).find("spec shaped: defines: must be an object"), std::string::npos);
}

TEST(Defines, AValueThatCannotBeEvaluatedIsAnInputErrorNamingIt) {
  Json j = base_spec();
  j["defines"] = {{"X", "N // (TILE - 64)"}};
  const KernelSpec spec = spec_of(j);
  const Shape shape = spec.parse_shape("100");
  EXPECT_THROW(spec.defines(spec.parse_config("TILE=64,SHAPED=0"), &shape), InputError);
}

TEST(Defines, ChangeTheKernelsVersion) {
  Json j = base_spec();
  j["defines"]["HALF_TILE"] = "TILE // 4";
  EXPECT_NE(spec_of(base_spec()).hash, spec_of(j).hash);
}

// NVRTC sees the defines; a configuration that does not compile the shape in keeps one cubin for every shape, a
// shape-specialized one gets one per shape; without a shape it is a failed compile that says why.
TEST(Defines, CompileOnceForEveryShapeUnlessTheShapeIsCompiledIn) {
  const KernelSpec spec = spec_of(base_spec());
  const Shape a = spec.parse_shape("1000"), b = spec.parse_shape("4096");
  const Config plain = spec.parse_config("TILE=64,SHAPED=0");
  const Config shaped = spec.parse_config("TILE=64,SHAPED=1");
  const CubinKeys keys(spec, spec.kernel);
  EXPECT_EQ(keys.config_key(plain, "sm_90", &a), keys.config_key(plain, "sm_90", &b));
  EXPECT_EQ(keys.config_key(plain, "sm_90", &a), keys.config_key(plain, "sm_90"));
  EXPECT_NE(keys.config_key(shaped, "sm_90", &a), keys.config_key(shaped, "sm_90", &b));
  EXPECT_EQ(keys.config_key(shaped, "sm_90"), "");
  EXPECT_EQ(keys.config_key(shaped, "sm_90", &a),
            CubinCache::key(spec, spec.kernel, config_options(spec, shaped, &a), "sm_90"));

  const CompileOutput none = compile_config(spec, shaped, "sm_90");
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.log.find("needs the shape"), std::string::npos) << none.log;

  const auto dir = std::filesystem::temp_directory_path() / ("cutune_defines_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    CubinCache cache(dir);
    ASSERT_TRUE(compile_config_cached(&cache, spec, plain, "sm_90", &a).ok);
    EXPECT_TRUE(compile_config_cached(&cache, spec, plain, "sm_90", &b).from_cache);  // one binary for both shapes
    const CompileOutput at_a = compile_config_cached(&cache, spec, shaped, "sm_90", &a);
    ASSERT_TRUE(at_a.ok) << at_a.log;
    EXPECT_FALSE(at_a.from_cache);
    EXPECT_TRUE(compile_config_cached(&cache, spec, shaped, "sm_90", &a).from_cache);
    const CompileOutput at_b = compile_config_cached(&cache, spec, shaped, "sm_90", &b);
    ASSERT_TRUE(at_b.ok) << at_b.log;
    EXPECT_FALSE(at_b.from_cache);  // a binary of its own per shape
    EXPECT_NE(at_a.cubin, at_b.cubin);
    EXPECT_FALSE(compile_config_cached(&cache, spec, shaped, "sm_90").ok);
  }
  std::filesystem::remove_all(dir);
}

// `tune compile` leaves the shape-specialized configurations out without a shape, and compiles them for one.
class DefinesCompileCommand : public test::TuneCommandTest {};

TEST_F(DefinesCompileCommand, CompilesSpecializedConfigurationsForTheShapeGiven) {
  std::ofstream(dir_ / "shaped.cu") << kSource;
  std::ofstream(dir_ / "shaped.json") << base_spec().dump();
  const test::CommandOutput without = tune("compile --spec shaped.json");
  EXPECT_EQ(without.code, 0) << without.out << without.err;
  EXPECT_NE(without.out.find("2 of 2 configurations of shaped compiled for sm_90 (2 specialized for their shape left "
                             "out: give --shape"),
            std::string::npos)
      << without.out;
  const test::CommandOutput with = tune("compile --spec shaped.json --shape 1000");
  EXPECT_EQ(with.code, 0) << with.out << with.err;
  EXPECT_NE(with.out.find("4 of 4 configurations of shaped compiled for sm_90 at 1000 ("), std::string::npos)
      << with.out;
}

}  // namespace
}  // namespace cutune
