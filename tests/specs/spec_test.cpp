// Tests of kernel specs: parsing, defaults, every field error, configurations, shapes and loading.
#include "cutune/spec.hpp"

#include <gtest/gtest.h>

#include "cli_support.hpp"
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cutune/error.hpp"
#include "spec_sample.hpp"

namespace {

using cutune::Config;
using cutune::ElementType;
using cutune::Fill;
using cutune::InputError;
using cutune::KernelSpec;
using cutune::Shape;
using cutune::SpecError;
using cutune::Value;

using namespace cutune::testing::spec_sample;

TEST(SpecParse, ReadsEveryField) {
  const KernelSpec s = parse(kSpec);
  EXPECT_EQ(s.name, "transpose");
  EXPECT_EQ(s.description, "tiled transpose");
  EXPECT_EQ(s.kernel, "transpose");
  EXPECT_EQ(s.source, kSource);
  EXPECT_EQ(s.source_name, "transpose.cu");
  EXPECT_EQ(s.shape_names, (std::vector<std::string>{"M", "N"}));
  ASSERT_EQ(s.parameters.size(), 3u);
  EXPECT_EQ(s.parameters[0].name, "TILE");
  EXPECT_EQ(s.parameters[0].values, (std::vector<Value>{16, 32, 64}));
  EXPECT_EQ(s.parameters[0].default_value.as_int(), 32);
  EXPECT_EQ(s.parameters[0].description, "tile edge");
  EXPECT_EQ(s.parameters[1].name, "ROWS");
  EXPECT_EQ(s.parameters[1].default_value.as_int(), 8);  // short form: the first value
  EXPECT_EQ(s.parameters[2].name, "PAD");
  ASSERT_EQ(s.constraints.size(), 1u);
  EXPECT_EQ(s.constraints[0].text(), "TILE % ROWS == 0");
  EXPECT_TRUE(s.constraints[0].bound());
  EXPECT_EQ(s.reference_kernel, "transpose_reference");
  EXPECT_DOUBLE_EQ(s.tolerance_at(Shape{{4, 4}}).atol, 0.5);
  EXPECT_DOUBLE_EQ(s.tolerance_at(Shape{{4, 4}}).rtol, 0.0);
  EXPECT_EQ(s.metric.kind, cutune::Metric::Kind::Bytes);
  EXPECT_EQ(s.metric.unit(), "GB/s");
  EXPECT_EQ(s.compile_options, (std::vector<std::string>{"--use_fast_math"}));
  EXPECT_EQ(s.scope_names(), (std::vector<std::string>{"TILE", "ROWS", "PAD", "M", "N"}));
  EXPECT_EQ(s.hash, cutune::hash_hex(std::string(kSpec) + "\n" + kSource));
  EXPECT_EQ(s.hash.size(), 16u);
}

TEST(SpecParse, Arguments) {
  const KernelSpec s = parse(kSpec);
  ASSERT_EQ(s.arguments.size(), 4u);
  const auto& out = s.arguments[0];
  EXPECT_TRUE(out.is_buffer);
  EXPECT_TRUE(out.output);
  EXPECT_EQ(out.type, ElementType::Float32);
  EXPECT_EQ(out.fill, Fill::Poison);  // the default for outputs
  EXPECT_EQ(out.size.text(), "M * N");
  EXPECT_EQ(s.arguments[1].fill, Fill::Zero);
  EXPECT_FALSE(s.arguments[1].output);
  EXPECT_FALSE(s.arguments[2].is_buffer);
  EXPECT_EQ(s.arguments[2].type, ElementType::Int32);
  EXPECT_EQ(s.arguments[3].type, ElementType::Int64);
  EXPECT_EQ(s.arguments[3].value.text(), "N");
  EXPECT_EQ(cutune::element_size(ElementType::Float64), 8u);
  EXPECT_EQ(cutune::element_size(ElementType::UInt32), 4u);
}

// CUDA's 16-bit floats, as buffers and as scalars: two bytes each.
TEST(SpecParse, SixteenBitFloatTypes) {
  Json j = Json::parse(kSpec);
  j["arguments"][0]["type"] = "__nv_bfloat16*";
  j["arguments"][1]["type"] = "const __half*";
  j["arguments"][2]["type"] = "__half";
  j["arguments"][3]["type"] = "__nv_bfloat16";
  const KernelSpec s = parse(j.dump());
  EXPECT_EQ(s.arguments[0].type, ElementType::BFloat16);
  EXPECT_EQ(s.arguments[1].type, ElementType::Float16);
  EXPECT_TRUE(s.arguments[1].is_buffer);
  EXPECT_EQ(s.arguments[2].type, ElementType::Float16);
  EXPECT_FALSE(s.arguments[2].is_buffer);
  EXPECT_EQ(s.arguments[3].type, ElementType::BFloat16);
  EXPECT_EQ(cutune::element_size(ElementType::BFloat16), 2u);
  EXPECT_EQ(cutune::element_size(ElementType::Float16), 2u);
  EXPECT_EQ(cutune::to_string(ElementType::BFloat16), "bfloat16");
  EXPECT_EQ(cutune::to_string(ElementType::Float16), "float16");
}

// CUDA's 8-bit floats: one byte each, floating point (fills draw fractions, comparisons use tolerances).
TEST(SpecParse, EightBitFloatTypes) {
  Json j = Json::parse(kSpec);
  j["arguments"][0]["type"] = "__nv_fp8_e4m3*";
  j["arguments"][1]["type"] = "const __nv_fp8_e5m2*";
  j["arguments"][2]["type"] = "__nv_fp8_e5m2";
  const KernelSpec s = parse(j.dump());
  EXPECT_EQ(s.arguments[0].type, ElementType::Float8E4M3);
  EXPECT_EQ(s.arguments[1].type, ElementType::Float8E5M2);
  EXPECT_TRUE(s.arguments[1].is_buffer);
  EXPECT_EQ(s.arguments[2].type, ElementType::Float8E5M2);
  EXPECT_FALSE(s.arguments[2].is_buffer);
  EXPECT_EQ(cutune::element_size(ElementType::Float8E4M3), 1u);
  EXPECT_FALSE(cutune::is_integer(ElementType::Float8E5M2));
  EXPECT_EQ(cutune::to_string(ElementType::Float8E4M3), "float8_e4m3");
  EXPECT_EQ(cutune::to_string(ElementType::Float8E5M2), "float8_e5m2");
}

TEST(SpecParse, ToleranceScalesWithTheShape) {
  Json j = Json::parse(kSpec);
  j["tolerance"] = Json{{"atol", "1e-6 * N"}, {"rtol", "0.5 - M"}};
  const KernelSpec s = parse(j.dump());
  EXPECT_DOUBLE_EQ(s.tolerance_at(Shape{{0, 1000}}).atol, 1e-3);
  EXPECT_DOUBLE_EQ(s.tolerance_at(Shape{{0, 1000}}).rtol, 0.5);
  EXPECT_THROW(s.tolerance_at(Shape{{2, 1000}}), cutune::InputError);  // negative there
}

TEST(SpecParse, OptionalFieldsDefault) {
  Json j = Json::parse(kSpec);
  for (const char* key : {"description", "constraints", "shared_memory", "tolerance", "compile_options"}) j.erase(key);
  j["block"] = Json::array({256});  // plain numbers are expressions too
  j["metric"] = Json{{"flops", 2}};
  const KernelSpec s = parse(j.dump());
  EXPECT_EQ(s.description, "");
  EXPECT_TRUE(s.constraints.empty());
  EXPECT_DOUBLE_EQ(s.tolerance_at(Shape{{4, 4}}).atol, 0.0);
  EXPECT_TRUE(s.compile_options.empty());
  EXPECT_EQ(s.metric.unit(), "GFLOP/s");
  EXPECT_EQ(s.metric.peak, cutune::Metric::Peak::Fp32);
  j["metric"]["peak"] = "f16_tensor";
  EXPECT_EQ(parse(j.dump()).metric.peak, cutune::Metric::Peak::F16Tensor);
  const auto launch = s.resolve(s.launch, s.default_config(), Shape{{100, 200}}, 132);
  EXPECT_EQ(launch.block, (std::array<std::int64_t, 3>{256, 1, 1}));
  EXPECT_EQ(launch.shared_memory, 0);
}

TEST(SpecParse, HashFollowsSourceAndSpec) {
  const auto a = KernelSpec::from_json(kSpec, "source one", "x.cu");
  const auto b = KernelSpec::from_json(kSpec, "source two", "x.cu");
  EXPECT_NE(a.hash, b.hash);
  EXPECT_EQ(cutune::hash_hex(""), "cbf29ce484222325");  // the FNV-1a 64 offset basis
  EXPECT_EQ(cutune::hash_hex("a"), "af63dc4c8601ec8c");
}

TEST(SpecErrors, MissingRequiredFields) {
  for (const char* key :
       {"kernel", "source", "shape", "parameters", "block", "grid", "arguments", "reference"}) {
    EXPECT_EQ(error_after([&](Json& j) { j.erase(key); }), std::string("spec transpose: ") + key + ": missing");
  }
  EXPECT_EQ(error_after([](Json& j) { j.erase("name"); }), "spec: name: missing");
  for (const char* key : {"kernel", "block", "grid"}) {
    EXPECT_EQ(error_after([&](Json& j) { j["reference"].erase(key); }),
              std::string("spec transpose: reference.") + key + ": missing");
  }
}

TEST(SpecErrors, MalformedFields) {
  EXPECT_EQ(error_after([](Json& j) {
              j["parameters"]["TILE"]["values"] = Json::array({16, "a"});
            }),
            "spec transpose: parameters.TILE: values must be numbers");
  EXPECT_EQ(error_after([](Json& j) { j["parameters"]["ROWS"] = Json::array(); }),
            "spec transpose: parameters.ROWS: values must be a non-empty list of numbers");
  EXPECT_EQ(error_after([](Json& j) { j["parameters"]["TILE"]["default"] = 48; }),
            "spec transpose: parameters.TILE.default: must be one of the values");
  EXPECT_EQ(error_after([](Json& j) {
              j["parameters"]["ROWS"] = Json::array({8, 4, 8});
            }),
            "spec transpose: parameters.ROWS: value 8 appears twice");
  EXPECT_EQ(error_after([](Json& j) { j["parameters"] = Json::object(); }),
            "spec transpose: parameters: must be a non-empty object of name: values");
  EXPECT_EQ(error_after([](Json& j) { j["parameters"]["M"] = Json::array({1}); }),
            "spec transpose: parameters.M: 'M' is both a parameter and a shape dimension");
  EXPECT_EQ(error_after([](Json& j) { j["shape"] = Json::array(); }),
            "spec transpose: shape: must be a non-empty list of dimension names");
  EXPECT_EQ(error_after([](Json& j) {
              j["shape"] = Json::array({"M", "M"});
            }),
            "spec transpose: shape: 'M' appears twice");
  EXPECT_EQ(error_after([](Json& j) {
              j["block"] = Json::array({1, 2, 3, 4});
            }),
            "spec transpose: block: must be a list of 1 to 3 expressions");
  EXPECT_EQ(error_after([](Json& j) { j["grid"][1] = true; }),
            "spec transpose: grid[1]: must be an expression (a string or a number)");
  EXPECT_EQ(error_after([](Json& j) {
              j["metric"] = Json{{"seconds", 1}};
            }),
            "spec transpose: metric: must be {\"bytes\": EXPR}, {\"flops\": EXPR} (with an optional \"peak\") or "
            "\"time\"");
  EXPECT_EQ(error_after([](Json& j) { j["metric"]["peak"] = "tf32_tensor"; }),  // a byte metric has no FLOP rate
            "spec transpose: metric: must be {\"bytes\": EXPR}, {\"flops\": EXPR} (with an optional \"peak\") or "
            "\"time\"");
  EXPECT_EQ(error_after([](Json& j) { j["metric"] = Json{{"flops", 2}, {"peak", "int8"}}; }),
            "spec transpose: metric.peak: must be \"fp32\", \"fp64\", \"tf32_tensor\", \"f16_tensor\" or \"f8_tensor\"");
  EXPECT_EQ(error_after([](Json& j) { j["tolerance"]["rtol"] = -1; }),
            "spec transpose: tolerance.rtol: must be a number >= 0");
  EXPECT_EQ(error_after([](Json& j) { j["tolerance"]["atol"] = "1e-6 * TILE"; }),
            "spec transpose: tolerance.atol: may use shape names only, not TILE");
  EXPECT_EQ(error_after([](Json& j) { j["description"] = 3; }), "spec transpose: description: must be a string");
  EXPECT_EQ(error_after([](Json& j) { j["compile_options"] = "-O3"; }),
            "spec transpose: compile_options: must be a list of strings");
  EXPECT_EQ(error_after([](Json& j) {
              j["constraint"] = Json::array();
            }).rfind("spec transpose: (top level): unknown field 'constraint'", 0),
            0u);
  EXPECT_EQ(message_of<SpecError>([] { parse("{\"name\": "); }).rfind("spec: invalid JSON", 0), 0u);
}

TEST(SpecErrors, ExpressionsAreParsedAndBound) {
  EXPECT_EQ(error_after([](Json& j) { j["constraints"][0] = "TILE % Q == 0"; }),
            "spec transpose: constraints[0]: unknown name 'Q' in 'TILE % Q == 0'");
  EXPECT_EQ(error_after([](Json& j) { j["block"][0] = "TILE +"; }),
            "spec transpose: block[0]: invalid expression 'TILE +': unexpected end at column 7");
  EXPECT_EQ(error_after([](Json& j) { j["shared_memory"] = "X * 4"; }),
            "spec transpose: shared_memory: unknown name 'X' in 'X * 4'");
  EXPECT_EQ(error_after([](Json& j) { j["reference"]["grid"][0] = "K"; }),
            "spec transpose: reference.grid[0]: unknown name 'K' in 'K'");
  EXPECT_EQ(error_after([](Json& j) { j["metric"]["bytes"] = "8 * M * Z"; }),
            "spec transpose: metric.bytes: unknown name 'Z' in '8 * M * Z'");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][0]["size"] = "M * P"; }),
            "spec transpose: arguments.out.size: unknown name 'P' in 'M * P'");
}

TEST(SpecErrors, Arguments) {
  EXPECT_EQ(error_after([](Json& j) {
              j["arguments"][0]["type"] = "half*";
            }).rfind("spec transpose: arguments.out.type: unknown type 'half*'", 0),
            0u);
  EXPECT_NE(error_after([](Json& j) { j["arguments"][2]["type"] = "const int"; }).find("unknown type 'const int'"),
            std::string::npos);
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][1].erase("size"); }),
            "spec transpose: arguments.in.size: missing");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][2].erase("value"); }),
            "spec transpose: arguments.m.value: missing");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][1]["fill"] = "ones"; }),
            "spec transpose: arguments.in.fill: must be \"random\", \"zero\", \"one\", \"poison\", a number, or an "
            "object with one of constant, uniform, normal, generator, file");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][0]["output"] = "yes"; }),
            "spec transpose: arguments.out.output: must be true or false");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][1]["output"] = true; }),
            "spec transpose: arguments.in.output: a const buffer cannot be an output");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][0]["output"] = false; }),
            "spec transpose: arguments: no buffer has \"output\": true, so nothing could be verified (to tune by time "
            "alone, without verification: \"verify\": {\"mode\": \"none\"})");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][1]["name"] = "out"; }),
            "spec transpose: arguments[1].name: 'out' appears twice");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][0].erase("type"); }),
            "spec transpose: arguments.out.type: missing");
  EXPECT_NE(error_after([](Json& j) { j["arguments"][2]["size"] = 4; }).find("arguments.m: unknown field 'size'"),
            std::string::npos);
}

TEST(SpecConfig, FormatAndParseRoundTrip) {
  const KernelSpec s = parse(kSpec);
  const Config d = s.default_config();
  EXPECT_EQ(s.format(d), "TILE=32,ROWS=8,PAD=0");
  EXPECT_EQ(s.parse_config("TILE=32,ROWS=8,PAD=0"), d);
  const Config c = s.parse_config("  PAD = 1 , TILE=64,ROWS= 2 ");
  EXPECT_EQ(s.format(c), "TILE=64,ROWS=2,PAD=1");
  EXPECT_EQ(s.parse_config(s.format(c)), c);
  const Config numeric = s.parse_config("TILE=16.0,ROWS=4,PAD=1");  // compared numerically, stored as the list's value
  EXPECT_FALSE(numeric.values[0].is_float());
  EXPECT_EQ(s.format(numeric), "TILE=16,ROWS=4,PAD=1");
  EXPECT_EQ(s.defines(c), (std::vector<std::string>{"-DTILE=64", "-DROWS=2", "-DPAD=1"}));
}

TEST(SpecConfig, ParseConfigErrors) {
  const KernelSpec s = parse(kSpec);
  auto error = [&](std::string_view text) { return message_of<InputError>([&] { s.parse_config(text); }); };
  EXPECT_EQ(error("TILE=32,ROWS=8,PAD=0,VEC=4"),
            "unknown parameter 'VEC' in configuration 'TILE=32,ROWS=8,PAD=0,VEC=4' (parameters of transpose: TILE, "
            "ROWS, PAD)");
  EXPECT_EQ(error("TILE=32,ROWS=8"), "configuration 'TILE=32,ROWS=8' misses parameter PAD");
  EXPECT_EQ(error("TILE=32,ROWS=8,TILE=16,PAD=0"),
            "parameter TILE appears twice in configuration 'TILE=32,ROWS=8,TILE=16,PAD=0'");
  EXPECT_EQ(error("TILE=48,ROWS=8,PAD=0"),
            "invalid value '48' for TILE in configuration 'TILE=48,ROWS=8,PAD=0': expected one of 16, 32, 64");
  EXPECT_NE(error("TILE=big,ROWS=8,PAD=0").find("invalid value 'big' for TILE"), std::string::npos);
  EXPECT_NE(error("TILE=32,ROWS=8,PAD=0,").find("expected NAME=VALUE"), std::string::npos);
  EXPECT_NE(error("").find("expected NAME=VALUE"), std::string::npos);
}

TEST(SpecShape, ParseAndPrint) {
  const KernelSpec s = parse(kSpec);
  const Shape shape = s.parse_shape("8192x4096");
  EXPECT_EQ(shape.dims, (std::vector<std::int64_t>{8192, 4096}));
  EXPECT_EQ(shape.str(), "8192x4096");
  EXPECT_EQ(s.parse_shape("1x9223372036854775807").dims[1], 9223372036854775807);
}

TEST(SpecShape, BadShapesSayWhatIsExpected) {
  const KernelSpec s = parse(kSpec);
  for (const char* bad :
       {"8192x", "-1x5", "axb", "0x10", "", "1x2x3", "x5", "99999999999999999999x5", "+5x5", " 5x5"}) {
    EXPECT_EQ(message_of<InputError>([&] { s.parse_shape(bad); }),
              std::string("invalid shape '") + bad + "': expected MxN with positive integers");
  }
}


class SpecLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    static std::atomic<int> counter{0};
    dir_ = std::filesystem::temp_directory_path() /
           ("cutune_spec_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::filesystem::path dir_;
};

TEST_F(SpecLoad, ReadsSpecAndSourceNextToIt) {
  write("transpose.json", kSpec);
  write("transpose.cu", kSource);
  const KernelSpec s = KernelSpec::load(dir_ / "transpose.json");
  EXPECT_EQ(s.source, kSource);
  EXPECT_EQ(s.source_name, "transpose.cu");
  EXPECT_EQ(s.hash, cutune::hash_hex(std::string(kSpec) + "\n" + kSource));
}

TEST_F(SpecLoad, MissingFilesNameThePath) {
  const auto spec_path = dir_ / "absent.json";
  EXPECT_EQ(message_of<SpecError>([&] { KernelSpec::load(spec_path); }),
            "cannot read spec file '" + spec_path.string() + "'");
  write("transpose.json", kSpec);
  EXPECT_EQ(message_of<SpecError>([&] { KernelSpec::load(dir_ / "transpose.json"); }),
            "cannot read kernel source '" + (dir_ / "transpose.cu").string() + "'");
}

// `tune --spec` and `tune space --spec` on a kernel that is not built in: examples/saxpy.
class SpecCli : public SpecLoad {
 protected:
  using Output = cutune::test::CommandOutput;
  Output tune(const std::string& args) const { return cutune::test::run_tune(dir_, args); }
  static std::string example(const char* file) {
    return "'" + (std::filesystem::path(CUTUNE_SOURCE_DIR) / "examples" / "saxpy" / file).string() + "'";
  }
};

TEST_F(SpecCli, SpaceAndCompileAUserKernel) {
  Output r = tune("space --spec " + example("saxpy.json"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "15 valid configurations of saxpy (16 combinations, 1 removed by constraints, 0 by compute "
                   "capability 9.0 launch limits, 0 by target sm_90)\n");
  r = tune("space --kernel " + example("saxpy.json") + " --list");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("BLOCK=512,ITEMS=8\n"), std::string::npos);
  EXPECT_EQ(r.out.find("BLOCK=1024,ITEMS=8\n"), std::string::npos);
  r = tune("compile --kernel " + example("saxpy.json"));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("15 of 15 configurations of saxpy compiled for sm_90", 0), 0u) << r.out;
}

// 24 parameters of 4 values in 12 ordered pairs: 10^12 of 2.8 * 10^14 combinations valid, counted in seconds without
// enumerating them (an estimate with its interval); a small space is still enumerated, with what removed the rest.
TEST_F(SpecCli, SpaceOfTrillionsIsEstimated) {
  nlohmann::json spec = nlohmann::json::parse(std::ifstream(std::filesystem::path(CUTUNE_SOURCE_DIR) / "examples/saxpy/saxpy.json"));
  spec["name"] = "huge";
  spec["source"] = (std::filesystem::path(CUTUNE_SOURCE_DIR) / "examples/saxpy/saxpy.cu").string();
  spec["constraints"] = nlohmann::json::array();
  for (int p = 0; p < 24; ++p) {
    spec["parameters"]["P" + std::to_string(p)] = {1, 2, 3, 4};
    if (p % 2 == 1) spec["constraints"].push_back("P" + std::to_string(p - 1) + " <= P" + std::to_string(p));
  }
  std::ofstream(dir_ / "huge.json") << spec.dump();
  const Output r = tune("space --spec huge.json --shape 1000000");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("about ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find(" valid configurations of huge (4503599627370496 combinations; 95% between "), std::string::npos)
      << r.out;
  // One part of it: a quarter of the estimate, still without enumerating.
  const Output part = tune("space --spec huge.json --shape 1000000 --shard 1/4");
  EXPECT_EQ(part.code, 0) << part.err;
  EXPECT_NE(part.out.find(" valid configurations of huge in part 1/4 (4503599627370496 combinations; 95% between "),
            std::string::npos)
      << part.out;
}

TEST_F(SpecCli, PartOfASpaceTooLargeToHoldIsCountedAndListedByTheWalk) {
  nlohmann::json spec = nlohmann::json::parse(std::ifstream(std::filesystem::path(CUTUNE_SOURCE_DIR) / "examples/saxpy/saxpy.json"));
  spec["name"] = "big";
  spec["source"] = (std::filesystem::path(CUTUNE_SOURCE_DIR) / "examples/saxpy/saxpy.cu").string();
  spec["constraints"] = nlohmann::json::array();
  for (int p = 0; p < 9; ++p) spec["parameters"]["P" + std::to_string(p)] = {1, 2, 3, 4};  // 16 * 4^9 = 4194304
  std::ofstream(dir_ / "big.json") << spec.dump();
  Output r = tune("space --spec big.json --shape 1000 --shard 3/5");  // positions 2, 7, ...: 838861 of them
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "838861 valid configurations of big in part 3/5 (4194304 combinations, 4194304 valid in all; "
                   "counted by a walk that keeps none of them)\n");
  r = tune("space --spec big.json --shape 1000 --shard 3/5 --list");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 838861 + 1);
  EXPECT_EQ(r.out.rfind("BLOCK=128,ITEMS=1,P0=1,P1=1,P2=1,P3=1,P4=1,P5=1,P6=1,P7=1,P8=3\n", 0), 0u) << r.out.substr(0, 200);
  EXPECT_NE(r.out.find("\n838861 valid configurations of big in part 3/5 (4194304 in all; 4194304 combinations; "
                       "listed by a walk that keeps none of them)\n"),
            std::string::npos);
}

TEST_F(SpecCli, SpecTakesAnyFileNameAndSaysWhatIsWrong) {
  std::filesystem::copy_file(std::filesystem::path(CUTUNE_SOURCE_DIR) / "examples/saxpy/saxpy.json", dir_ / "my.spec");
  std::filesystem::copy_file(std::filesystem::path(CUTUNE_SOURCE_DIR) / "examples/saxpy/saxpy.cu", dir_ / "saxpy.cu");
  Output r = tune("space --spec my.spec --shape 1000");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("15 valid configurations of saxpy", 0), 0u) << r.out;
  r = tune("--spec absent.json --shapes 1000");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: spec file 'absent.json' does not exist\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ / "cutune.db"));
  r = tune("--spec my.spec");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("tuning needs --kernel (or --spec) and --shapes, or --problem"), std::string::npos) << r.err;
  r = tune("space");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: give one of --kernel, --spec and --problem\n");
  r = tune("space --spec my.spec --kernel transpose");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
}

}  // namespace
