// Tests of the spec fields for users' kernels: every element type, fills with a value, a range, a
// generator or a file, expected outputs, constant-memory arguments and the time-only metric; and the host side of
// generated and file fills.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/spec.hpp"
#include "measure/workbench.hpp"
#include "spec_sample.hpp"

namespace cutune {
namespace {

using namespace testing::spec_sample;  // NOLINT: the sample spec and its helpers

Argument& in_argument(KernelSpec& s) { return s.arguments[1]; }

KernelSpec with_fill(const Json& fill) {
  Json j = Json::parse(kSpec);
  j["arguments"][1]["fill"] = fill;
  return parse(j.dump());
}

TEST(SpecTypes, EveryElementTypeHasASpellingSizeAndName) {
  const std::pair<const char*, ElementType> spellings[] = {
      {"int8", ElementType::Int8},     {"signed char", ElementType::Int8},    {"uint8", ElementType::UInt8},
      {"unsigned char", ElementType::UInt8}, {"int16", ElementType::Int16}, {"short", ElementType::Int16},
      {"uint16", ElementType::UInt16}, {"unsigned short", ElementType::UInt16}, {"uint64", ElementType::UInt64},
      {"bool", ElementType::Bool}};
  for (const auto& [name, type] : spellings) {
    Json j = Json::parse(kSpec);
    j["arguments"][1]["type"] = std::string("const ") + name + "*";
    j["arguments"][2]["type"] = name;
    KernelSpec s = parse(j.dump());
    EXPECT_EQ(s.arguments[1].type, type) << name;
    EXPECT_TRUE(s.arguments[1].is_buffer) << name;
    EXPECT_EQ(s.arguments[2].type, type) << name;
    EXPECT_FALSE(s.arguments[2].is_buffer) << name;
  }
  EXPECT_EQ(element_size(ElementType::Int8), 1u);
  EXPECT_EQ(element_size(ElementType::Bool), 1u);
  EXPECT_EQ(element_size(ElementType::UInt16), 2u);
  EXPECT_EQ(element_size(ElementType::UInt64), 8u);
  EXPECT_EQ(to_string(ElementType::Int8), "int8");
  EXPECT_EQ(to_string(ElementType::Bool), "bool");
  EXPECT_TRUE(is_integer(ElementType::UInt8));
  EXPECT_FALSE(is_integer(ElementType::Float16));
  // unsigned long long is a scalar spelling only, as long long is; buffers say uint64*
  EXPECT_NE(error_after([](Json& j) { j["arguments"][1]["type"] = "const unsigned long long*"; }), "(no error)");
}

TEST(SpecFills, ValuesRangesGeneratorsAndFiles) {
  EXPECT_EQ(with_fill(2.5).arguments[1].fill, Fill::Constant);
  EXPECT_EQ(with_fill(2.5).arguments[1].fill.constant, Value(2.5));
  EXPECT_EQ(with_fill(Json{{"constant", -3}}).arguments[1].fill.constant, Value(-3));
  KernelSpec uniform = with_fill(Json{{"uniform", {-2, 5.5}}});
  EXPECT_EQ(in_argument(uniform).fill, Fill::Uniform);
  EXPECT_EQ(in_argument(uniform).fill.low, -2.0);
  EXPECT_EQ(in_argument(uniform).fill.high, 5.5);
  KernelSpec normal = with_fill(Json{{"normal", {1, 0.25}}});
  EXPECT_EQ(in_argument(normal).fill, Fill::Normal);
  EXPECT_EQ(in_argument(normal).fill.high, 0.25);
  KernelSpec generated = with_fill(Json{{"generator", "i % M + N"}});
  ASSERT_TRUE(in_argument(generated).fill.generator);
  const Value scope[] = {Value(10), Value(4), Value(100)};  // i, then the shape's M and N
  EXPECT_EQ(in_argument(generated).fill.generator->eval(scope, 3), Value(102));
  EXPECT_EQ(with_fill(Json{{"file", "in.bin"}}).arguments[1].fill.file, "in.bin");
  // A spec without "metric" states the time only
  Json j = Json::parse(kSpec);
  j.erase("metric");
  EXPECT_EQ(parse(j.dump()).metric.kind, Metric::Kind::Time);
  j["metric"] = "time";
  EXPECT_FALSE(parse(j.dump()).metric.has_rate());
}

TEST(SpecFills, BadFillsNameTheFieldOnce) {
  auto error = [](const Json& fill) {
    return error_after([&](Json& j) { j["arguments"][1]["fill"] = fill; });
  };
  EXPECT_EQ(error(Json{{"uniform", {3, 1}}}), "spec transpose: arguments.in.fill.uniform: low must not exceed high");
  EXPECT_EQ(error(Json{{"uniform", {1}}}),
            "spec transpose: arguments.in.fill.uniform: must be a list of two numbers, [low, high]");
  EXPECT_EQ(error(Json{{"normal", {0, -1}}}),
            "spec transpose: arguments.in.fill.normal: the standard deviation must be >= 0");
  EXPECT_NE(error(Json{{"generator", "i + K"}}).find("unknown name 'K'"), std::string::npos);
  EXPECT_NE(error(Json{{"generator", "i +"}}).find("arguments.in.fill.generator"), std::string::npos);
  EXPECT_EQ(error(Json{{"file", ""}}), "spec transpose: arguments.in.fill.file: must be a file name");
  EXPECT_EQ(error(Json{{"sine", 1}}),
            "spec transpose: arguments.in.fill: unknown fill 'sine' (constant, uniform, normal, generator or file)");
  EXPECT_EQ(error(Json{{"uniform", {0, 1}}, {"constant", 1}}).rfind("spec transpose: arguments.in.fill: must be", 0),
            0u);
  EXPECT_EQ(error_after([](Json& j) {
              j["arguments"][1]["type"] = "const int*";
              j["arguments"][1]["fill"] = Json{{"uniform", {0, 1.5}}};
            }),
            "spec transpose: arguments.in.fill.uniform: an integer buffer's range must have integer ends");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][1]["expected"] = 1; }),
            "spec transpose: arguments.in.expected: only an output has expected contents");
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][0]["expected"] = "poison"; }),
            "spec transpose: arguments.out.expected: cannot be \"poison\"");
}

TEST(SpecConstantMemory, ArraysInConstantMemoryAreNoParameters) {
  Json j = Json::parse(kSpec);
  j["arguments"].push_back({{"name", "filter"}, {"type", "float"}, {"size", 225}, {"memory", "constant"},
                            {"symbol", "d_filter"}, {"fill", Json{{"uniform", {0, 1}}}}});
  j["arguments"].push_back({{"name", "coef"}, {"type", "const double*"}, {"size", "M"}, {"memory", "constant"}});
  const KernelSpec s = parse(j.dump());
  EXPECT_TRUE(s.arguments[4].is_buffer);
  EXPECT_TRUE(s.arguments[4].in_constant_memory());
  EXPECT_FALSE(s.arguments[4].is_parameter());
  EXPECT_EQ(s.arguments[4].symbol, "d_filter");
  EXPECT_EQ(s.arguments[5].symbol, "coef");  // the argument's name by default
  EXPECT_EQ(s.arguments[5].type, ElementType::Float64);
  EXPECT_TRUE(s.arguments[0].is_parameter());

  auto error = [](const std::function<void(Json&)>& edit) {
    return error_after([&](Json& j) {
      j["arguments"].push_back({{"name", "filter"}, {"type", "float"}, {"size", 9}, {"memory", "constant"}});
      edit(j["arguments"].back());
    });
  };
  EXPECT_EQ(error([](Json& a) { a["output"] = true; }),
            "spec transpose: arguments.filter.output: an output cannot be copied to constant memory");
  EXPECT_EQ(error([](Json& a) { a["memory"] = "texture"; }),
            "spec transpose: arguments.filter.memory: must be \"global\" (a pointer type) or \"constant\" (a "
            "__constant__ array)");
  EXPECT_EQ(error([](Json& a) { a["symbol"] = "1x"; }),
            "spec transpose: arguments.filter.symbol: must be a name like [A-Za-z_][A-Za-z0-9_]*");
  // A global buffer with a symbol is passed and copied into the symbol as well
  Json both = Json::parse(kSpec);
  both["arguments"][1]["symbol"] = "d_in";
  const KernelSpec b = parse(both.dump());
  EXPECT_TRUE(b.arguments[1].in_constant_memory());
  EXPECT_TRUE(b.arguments[1].is_parameter());
  EXPECT_EQ(error_after([](Json& j) { j["arguments"][0]["symbol"] = "s"; }),
            "spec transpose: arguments.out.output: an output cannot be copied to constant memory");
}

class HostFill : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("cutune_host_fill_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(HostFill, GeneratorsGiveEveryElementItsValueInTheBuffersType) {
  KernelSpec s = with_fill(Json{{"generator", "i * 2 - 3"}});
  in_argument(s).type = ElementType::Int16;
  const std::size_t n = 200000;  // several threads' share
  const auto bytes = detail::host_fill(s, s.arguments[1], s.arguments[1].fill, Shape{{4, 5}}, n);
  ASSERT_EQ(bytes.size(), n * 2);
  for (const std::size_t i : {std::size_t{0}, std::size_t{1}, n / 2, n - 1}) {
    std::int16_t v = 0;
    std::memcpy(&v, bytes.data() + 2 * i, 2);
    EXPECT_EQ(v, static_cast<std::int16_t>(i * 2 - 3)) << i;
  }
  KernelSpec broken = with_fill(Json{{"generator", "1 // (i - 5)"}});
  EXPECT_NE(message_of<InputError>([&] {
              detail::host_fill(broken, broken.arguments[1], broken.arguments[1].fill, Shape{{4, 5}}, 10);
            }).find("arguments.in.fill: generator '1 // (i - 5)'"),
            std::string::npos);
}

TEST_F(HostFill, FilesMustHoldExactlyTheBuffer) {
  const std::vector<float> values{1.5f, -2.0f, 3.25f};
  std::ofstream(dir_ / "in.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 4));
  KernelSpec s = with_fill(Json{{"file", "in.bin"}});
  s.folder = dir_;
  const auto bytes = detail::host_fill(s, s.arguments[1], s.arguments[1].fill, Shape{{1, 3}}, 3);
  ASSERT_EQ(bytes.size(), 12u);
  EXPECT_EQ(std::memcmp(bytes.data(), values.data(), 12), 0);
  EXPECT_NE(message_of<InputError>([&] { detail::host_fill(s, s.arguments[1], s.arguments[1].fill, Shape{{1, 4}}, 4); })
                .find("holds 12 bytes; the buffer is 4 elements of float32, 16 bytes"),
            std::string::npos);
  EXPECT_NE(message_of<InputError>([&] { detail::host_fill(s, s.arguments[1], s.arguments[1].fill, Shape{{1, 2}}, 2); })
                .find("holds more than 8 bytes"),
            std::string::npos);
  s.arguments[1].fill.file = "missing.bin";
  EXPECT_NE(message_of<InputError>([&] { detail::host_fill(s, s.arguments[1], s.arguments[1].fill, Shape{{1, 3}}, 3); })
                .find("missing.bin cannot be read"),
            std::string::npos);
}

// Blocks of more than 256 threads compile with the registers per thread that let them launch: 64 Ki per block.
TEST(RegisterCap, LargeBlocksCompileWithTheRegistersTheyCanLaunchWith) {
  Json j = Json::parse(kSpec);  // block [TILE, ROWS]
  j["parameters"]["TILE"] = Json{{"values", {16, 32, 64, 128}}, {"default", 32}};
  j["constraints"] = Json::array();
  const KernelSpec s = parse(j.dump());
  auto cap = [&](const char* config) { return register_cap(s, s.parse_config(config)); };
  EXPECT_EQ(cap("TILE=32,ROWS=8,PAD=0"), std::nullopt);  // 256 threads: 255 registers fit
  EXPECT_EQ(cap("TILE=64,ROWS=8,PAD=0"), 128);           // 512
  EXPECT_EQ(cap("TILE=128,ROWS=8,PAD=0"), 64);           // 1024
  EXPECT_EQ(cap("TILE=128,ROWS=2,PAD=0"), std::nullopt);  // 256 again
  const auto options = config_options(s, s.parse_config("TILE=64,ROWS=8,PAD=1"));
  EXPECT_EQ(options, (std::vector<std::string>{"-DTILE=64", "-DROWS=8", "-DPAD=1", "--maxrregcount=128"}));
  // A block that follows the shape, or the user's own cap: none of cutune's
  j["block"] = Json::array({"TILE", "M"});
  EXPECT_EQ(register_cap(parse(j.dump()), s.parse_config("TILE=64,ROWS=8,PAD=0")), std::nullopt);
  j["block"] = Json::array({"TILE", "ROWS"});
  j["compile_options"] = Json::array({"--maxrregcount=32"});
  EXPECT_EQ(register_cap(parse(j.dump()), s.parse_config("TILE=128,ROWS=8,PAD=0")), std::nullopt);
}

}  // namespace
}  // namespace cutune
