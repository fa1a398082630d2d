// A spec that extends another ("extends"): the base's fields with the spec's merged over them (JSON merge patch),
// through spec files and the built-in templates, and every way the chain can be wrong.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "cutune/error.hpp"
#include "cutune/templates.hpp"
#include "db_test_support.hpp"
#include "spec_sample.hpp"

namespace cutune {
namespace {

using Json = nlohmann::ordered_json;
using testing::spec_sample::kSource;
using testing::spec_sample::kSpec;

class SpecExtends : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    write("transpose.cu", kSource);
    write("base.json", kSpec);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path(name)) << text; }
  std::string error_of(const std::string& name) const {
    try {
      load_spec_file(path(name));
    } catch (const Error& e) {
      return e.what();
    }
    return "(no error)";
  }
};

TEST_F(SpecExtends, MergesTheSpecOverItsBase) {
  write("wide.json", R"json({"extends": "base.json", "name": "transpose_wide",
    "parameters": {"TILE": {"values": [64, 128], "default": 64}, "PAD": null},
    "shared_memory": "TILE * TILE * 4", "compile_options": []})json");
  const KernelSpec base = load_spec_file(path("base.json"));
  const KernelSpec wide = load_spec_file(path("wide.json"));
  EXPECT_EQ(wide.name, "transpose_wide");
  EXPECT_EQ(wide.description, base.description);  // not named: the base's
  EXPECT_EQ(wide.source, base.source);
  ASSERT_EQ(wide.parameters.size(), 2u);  // PAD removed by null
  EXPECT_EQ(wide.parameters[0].name, "TILE");
  EXPECT_EQ(wide.parameters[0].values.size(), 2u);
  EXPECT_EQ(wide.parameters[0].description, "tile edge");  // an object merged field by field
  EXPECT_EQ(wide.parameters[1].name, "ROWS");
  EXPECT_TRUE(wide.compile_options.empty());  // an array replaced whole
  EXPECT_NE(wide.hash, base.hash);
  // The merged document is what the spec holds (workers and ranks rebuild the spec from it).
  EXPECT_FALSE(Json::parse(wide.json).contains("extends"));
  EXPECT_EQ(KernelSpec::from_json(wide.json, wide.source, wide.source_name).hash, wide.hash);
}

TEST_F(SpecExtends, ChainsResolveInOrder) {
  write("middle.json", R"json({"extends": "base.json", "name": "middle", "description": "from the middle"})json");
  write("top.json", R"json({"extends": "middle.json", "name": "top"})json");
  const KernelSpec top = load_spec_file(path("top.json"));
  EXPECT_EQ(top.name, "top");
  EXPECT_EQ(top.description, "from the middle");
  EXPECT_EQ(top.kernel, "transpose");
}

TEST_F(SpecExtends, BrokenChainsSayWhy) {
  write("missing.json", R"json({"extends": "nowhere.json", "name": "x"})json");
  EXPECT_NE(error_of("missing.json").find("nowhere.json"), std::string::npos) << error_of("missing.json");
  write("number.json", R"json({"extends": 3, "name": "x"})json");
  EXPECT_EQ(error_of("number.json"),
            "spec: extends: must name the spec file it extends, such as \"gemm_fp8.json\", not 3");
  write("a.json", R"json({"extends": "b.json", "name": "a"})json");
  write("b.json", R"json({"extends": "a.json", "name": "b"})json");
  EXPECT_EQ(error_of("a.json"), "spec: extends: the specs extend each other in a circle (b.json -> a.json -> b.json)");
  write("list.json", "[1, 2]");
  write("bad_base.json", R"json({"extends": "list.json", "name": "x"})json");
  EXPECT_EQ(error_of("bad_base.json"), "spec: extends: 'list.json' is not a spec (a JSON object)");
  // A merged spec is read like any other: its faults are named as usual.
  write("no_kernel.json", R"json({"extends": "base.json", "kernel": null})json");
  EXPECT_NE(error_of("no_kernel.json").find("kernel"), std::string::npos) << error_of("no_kernel.json");
}

// "arguments" as an object patches the base's arguments by name, in the base's order; null removes one. The result is
// the standalone spec that says the same: the same document, the same version.
TEST_F(SpecExtends, ArgumentsArePatchedByName) {
  write("f64.json", R"json({"extends": "base.json", "name": "transpose_f64",
    "arguments": {"in": {"type": "const double*", "fill": "random"}, "out": {"type": "double*"}, "n": null}})json");
  const KernelSpec f64 = load_spec_file(path("f64.json"));
  ASSERT_EQ(f64.arguments.size(), 3u);
  EXPECT_EQ(f64.arguments[0].name, "out");
  EXPECT_EQ(f64.arguments[1].name, "in");
  EXPECT_EQ(f64.arguments[2].name, "m");

  Json standalone = Json::parse(kSpec);
  standalone["name"] = "transpose_f64";
  standalone["arguments"][0]["type"] = "double*";
  standalone["arguments"][1]["type"] = "const double*";
  standalone["arguments"][1]["fill"] = "random";
  standalone["arguments"].erase(3);
  write("standalone.json", standalone.dump(2));
  const KernelSpec expected = load_spec_file(path("standalone.json"));
  EXPECT_EQ(f64.json, expected.json);
  EXPECT_EQ(f64.hash, expected.hash);

  // A list still replaces the base's whole.
  write("list.json", R"json({"extends": "base.json", "arguments": [
    {"name": "out", "type": "float*", "size": "M * N", "output": true}]})json");
  EXPECT_EQ(load_spec_file(path("list.json")).arguments.size(), 1u);
}

TEST_F(SpecExtends, ArgumentPatchesNameArgumentsOfTheBase) {
  write("typo.json", R"json({"extends": "base.json", "arguments": {"inn": {"type": "const double*"}}})json");
  EXPECT_EQ(error_of("typo.json"),
            "spec: extends: arguments: 'inn' is not an argument of 'base.json' (its arguments: out, in, m, n)");
  write("number.json", R"json({"extends": "base.json", "arguments": {"in": 3}})json");
  EXPECT_EQ(error_of("number.json"),
            "spec: extends: arguments: 'in': must be an object of the fields to change, or null, not 3");
  write("no_list.json", R"json({"extends": "base.json", "arguments": null})json");
  write("patch_of_none.json", R"json({"extends": "no_list.json", "arguments": {"in": {"fill": "random"}}})json");
  EXPECT_EQ(error_of("patch_of_none.json"),
            "spec: extends: arguments: an object of patches by name needs a list of arguments in 'no_list.json'");
}

// gemm_f16 is gemm_bf16 with __half for __nv_bfloat16: its arguments in the same order, the rest the same but for
// its name, description, tolerance and compile options.
TEST(SpecExtendsBuiltin, F16GemmIsTheBf16OneWithOtherTypes) {
  Json bf16 = Json::parse(load_kernel("gemm_bf16").json);
  Json f16 = Json::parse(load_kernel("gemm_f16").json);
  ASSERT_EQ(f16["arguments"].size(), bf16["arguments"].size());
  for (std::size_t i = 0; i < f16["arguments"].size(); ++i) {
    Json& a = f16["arguments"][i];
    Json& b = bf16["arguments"][i];
    const std::string type = b["type"].get<std::string>();
    const auto at = type.find("__nv_bfloat16");
    EXPECT_EQ(a["type"], at == std::string::npos ? type : type.substr(0, at) + "__half" + type.substr(at + 13)) << i;
    a.erase("type");
    b.erase("type");
  }
  for (const char* field : {"name", "description", "tolerance", "compile_options"}) {
    EXPECT_NE(f16[field], bf16[field]) << field;
    f16.erase(field);
    bf16.erase(field);
  }
  EXPECT_EQ(f16, bf16);
}

// The built-in FP8 GEMM's variants extend gemm_fp8.json: only what differs is theirs.
TEST(SpecExtendsBuiltin, Fp8VariantsDifferFromTheirBaseWhereTheySay) {
  const KernelSpec base = load_kernel("gemm_fp8");
  for (const char* name : {"gemm_fp8_e5m2", "gemm_fp8_f16", "gemm_fp8_f32", "gemm_fp8_blockscaled"}) {
    const KernelSpec v = load_kernel(name);
    EXPECT_EQ(v.name, name);
    EXPECT_EQ(v.source, base.source) << name;
    EXPECT_EQ(v.parameters.size(), base.parameters.size()) << name;
    EXPECT_EQ(v.kernel, base.kernel) << name;
    EXPECT_NE(v.hash, base.hash) << name;
  }
  const KernelSpec f32 = load_kernel("gemm_fp8_f32");
  for (const auto& p : f32.parameters)
    if (p.name == "EPI") EXPECT_EQ(p.values.size(), 1u);  // TMA stores take 16-bit D only
  EXPECT_EQ(f32.arguments.size() + 1, base.arguments.size());  // and so it has no map of D
}

}  // namespace
}  // namespace cutune
