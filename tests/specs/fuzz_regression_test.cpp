// Inputs the fuzz targets (fuzz/) found to crash, hang or escape the error hierarchy, each with the error it now gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>

#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "cutune/expr.hpp"
#include "cutune/kt_cache.hpp"
#include "cutune/spec.hpp"
#include "cutune/t1.hpp"

namespace {

// The message of the cutune error `f` throws, or "(no error)"; any other exception fails the test, as it would end
// `tune` with no clear message.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cutune::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a cutune error: " << e.what();
    return "";
  }
  return "(no error)";
}

// A number beyond double's range made nlohmann::json throw out_of_range, which is no parse_error.
TEST(FuzzRegression, KtCacheNumberOutOfRange) {
  const std::string text = R"({"tune_params_keys": ["a"], "cache": {"1": {"a": 1, "time": 1e400}}})";
  const std::string message = error_of([&] { cutune::parse_kt_cache(text, "big.json"); });
  EXPECT_NE(message.find("big.json: not a Kernel Tuner cache: "), std::string::npos) << message;
  EXPECT_NE(message.find("1e400"), std::string::npos) << message;
}

// A T4 file through the importer's reader (cutune's own exports need no --device, --kernel or --shape).
std::string t4_error(const std::string& text) {
  std::istringstream in(text);
  return error_of([&] { cutune::exchange_format("t4").read(in, "runs.t4.json"); });
}

// A T4 export of cutune's with one run and one result; `run`, `result` (its "cutune" part) and `measurement` are
// spliced into them.
std::string own_t4(const std::string& run, const std::string& result,
                   const std::string& measurement = R"({"name": "time", "value": 1.0})") {
  return R"({"schema_version": "1.0.0", "metadata": {"cutune_runs": [)" + run + R"(]}, "results": [
    {"configuration": {"A": 1}, "invalidity": "correct", "measurements": [)" + measurement + R"(],
     "cutune": )" + result + "}]}";
}

// The fields cutune adds to T4 were read with nlohmann::json's value(), whose type_error escaped the reader, and an
// out-of-range number converted to int was undefined behaviour.
TEST(FuzzRegression, T4OwnFieldsOfTheWrongType) {
  const std::string ok_run = R"({"uid": "u", "device": {"name": "GPU", "cc_major": 9}})";
  const std::string ok_result = R"({"run": 0, "shape": "64"})";
  EXPECT_EQ(t4_error(own_t4(ok_run, ok_result)), "(no error)");  // the cases below differ from it in one field

  const std::pair<std::string, std::string> cases[] = {
      {own_t4("5", ok_result), "metadata.cutune_runs[0] is not an object"},
      {own_t4(R"({"uid": 5})", ok_result), "metadata.cutune_runs[0].uid is 5, not a string"},
      {own_t4(R"({"device": 7})", ok_result), "metadata.cutune_runs[0].device is not an object"},
      {own_t4(R"({"device": {"cc_major": 1e300}})", ok_result), "cc_major is 1e+300, not an integer in range"},
      {own_t4(R"({"device": {"sm_count": 4294967296}})", ok_result), "sm_count is 4294967296, not an integer"},
      {own_t4(ok_run, R"({"run": "zero"})"), "results[0].cutune.run is \"zero\", not an integer"},
      {own_t4(ok_run, R"({"run": -1})"), "results[0] names run -1, which is not listed"},
      {own_t4(ok_run, R"({"run": 0, "registers": 1e300})"), "registers is 1e+300, not an integer in range"},
      {own_t4(ok_run, R"({"run": 0, "max_error": "big"})"), "max_error is \"big\", not a number"},
      {own_t4(ok_run, R"({"run": 0, "shape": [64]})"), "results[0].cutune.shape is [64], not a string"},
      {R"({"metadata": {"cutune_runs": "all"}, "results": [{}]})", "metadata.cutune_runs that is not a list"},
      // A measurement's name of another type than a string: not the objective, so there is none.
      {own_t4(ok_run, ok_result, R"({"name": 5, "value": 1.0})"), "results[0] is correct but has no objective value"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = t4_error(text);
    EXPECT_NE(message.find("'runs.t4.json' "), std::string::npos) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << message << "\n  expected: " << expected;
  }
}

std::string repeat(std::string_view piece, std::size_t times) {
  std::string out;
  for (std::size_t i = 0; i < times; ++i) out += piece;
  return out;
}

// Deep expressions overflowed the stack in the parser's recursion (parentheses, `not`, unary minus, **) or in
// evaluating and destroying the tree (a long chain of + or or); each left-hand operand of a chain was also copied
// whole at every step, so a 1000-term sum took seconds.
TEST(FuzzRegression, DeepExpressionsAreRefused) {
  const std::vector<std::string> deep{
      repeat("(", 20000) + "1" + repeat(")", 20000),
      "1" + repeat(" + 1", 30000),
      repeat("not ", 20000) + "1",
      repeat("-", 20000) + "1",
      "2" + repeat(" ** 1", 20000),
      "x" + repeat(" or x", 20000),
  };
  for (const auto& text : deep) {
    const std::string message = error_of([&] { cutune::Expr::parse(text); });
    EXPECT_NE(message.find("nested more than 500 levels deep"), std::string::npos) << message.substr(0, 200);
  }
  const std::string lists = error_of([] { cutune::eval_list(repeat("[", 20000) + repeat("]", 20000)); });
  EXPECT_NE(lists.find("nested more than 500 levels deep"), std::string::npos) << lists.substr(0, 200);
  const std::string clauses = error_of([] { cutune::eval_list("[1" + repeat(" for a in [1]", 1000) + "]"); });
  EXPECT_NE(clauses.find("nested more than 500 levels deep"), std::string::npos) << clauses.substr(0, 200);
}

TEST(FuzzRegression, NestingUpToTheLimitEvaluates) {
  EXPECT_EQ(cutune::Expr::parse(repeat("(", 499) + "7" + repeat(")", 499)).eval({}), cutune::Value(7));
  EXPECT_EQ(cutune::Expr::parse("1" + repeat(" + 1", 498)).eval({}), cutune::Value(499));
  EXPECT_EQ(cutune::eval_list("[1" + repeat(" for a in [1]", 400) + "]").size(), 1u);
}

// Repeating an empty list looped once per repetition ([] * 99999999999 ran for minutes), and nested comprehension
// clauses whose filter keeps nothing ran unbounded.
TEST(FuzzRegression, ListWorkIsBounded) {
  EXPECT_TRUE(cutune::eval_list("[] * 99999999999").empty());
  const std::string repeated = error_of([] { cutune::eval_list("[0] * 10**12"); });
  EXPECT_NE(repeated.find("a list of more than 16777216 values in '[0] * 10**12'"), std::string::npos) << repeated;
  EXPECT_EQ(cutune::eval_list("[1, 2] * 3").size(), 6u);
  const std::string nested =
      error_of([] { cutune::eval_list("[0 for x in range(10**6) for y in range(10**6) if 0]"); });
  EXPECT_NE(nested.find("a comprehension of more than 16777216 iterations"), std::string::npos) << nested;
}

// Duplicate values were searched for with a scan of the values before each one: a parameter of 10^5 values took
// minutes (T1's range(), a spec's list, a Kernel Tuner cache whose records use many values). 200000 values would
// take hours that way; the test states no time, the run's own limit catches a regression.
constexpr int kManyValues = 200000;

std::string numbers(int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += (i ? ", " : "") + std::to_string(i);
  return out;
}

TEST(FuzzRegression, SpecWithManyValues) {
  const std::string spec = R"({"name": "many", "source": "k.cu", "kernel": "k", "shape": ["N"],
    "parameters": {"A": [)" + numbers(kManyValues) + R"(, 7.0]}, "block": [1], "grid": [1],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
    "reference": {"configuration": {"A": 0}}, "metric": {"bytes": "N"}})";
  const std::string message = error_of([&] { cutune::KernelSpec::from_json(spec, "", "k.cu"); });
  EXPECT_NE(message.find("parameters.A: value 7.0 appears twice"), std::string::npos) << message;
}

std::string t1_problem(const std::string& values) {
  return R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "block_size_x", "Type": "int", "Values": ")" +
         values + R"("}]}, "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
         "LocalSize": {"X": "1"}, "GlobalSize": {"X": "1"},
         "Arguments": [{"Name": "out", "Type": "float", "MemoryType": "Vector", "Size": 64, "Output": 1}]}})";
}

TEST(FuzzRegression, T1WithManyValues) {
  const auto folder = std::filesystem::temp_directory_path();
  const cutune::T1Problem problem =
      cutune::parse_t1(t1_problem("range(" + std::to_string(kManyValues) + ")"), folder, "many");
  ASSERT_EQ(problem.spec.parameters.size(), 1u);
  EXPECT_EQ(problem.spec.parameters[0].values.size(), static_cast<std::size_t>(kManyValues));
  const std::string message =
      error_of([&] { cutune::parse_t1(t1_problem("list(range(200000)) + [123456]"), folder, "many"); });
  EXPECT_NE(message.find("value 123456 appears twice"), std::string::npos) << message;
}

TEST(FuzzRegression, KtCacheWithManyValues) {
  std::string records;
  for (int i = kManyValues; i-- > 0;) records += (records.empty() ? "" : ", ") + ("\"" + std::to_string(i) +
                                                 "\": {\"a\": " + std::to_string(i) + ", \"time\": 1.0}");
  const cutune::KtCache cache = cutune::parse_kt_cache(
      R"({"tune_params_keys": ["a"], "cache": {)" + records + "}}", "many.json");
  ASSERT_EQ(cache.parameters.size(), 1u);
  const auto& values = cache.parameters[0].values;
  ASSERT_EQ(values.size(), static_cast<std::size_t>(kManyValues));  // each value once, ascending
  EXPECT_EQ(values.front(), cutune::Value(0));
  EXPECT_EQ(values.back(), cutune::Value(kManyValues - 1));
}

// The buffers' bytes (the metric) were summed without a check: 1200 buffers of 10^15 doubles overflowed int64.
TEST(FuzzRegression, T1BufferBytesOverflow) {
  std::string arguments;
  for (int i = 0; i < 1200; ++i) {
    arguments += (i ? ", " : "") + std::string(R"({"Name": "b)") + std::to_string(i) +
                 R"(", "Type": "double", "MemoryType": "Vector", "Size": 1e15, "Output": 1})";
  }
  const std::string problem = R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "block_size_x", "Type": "int",
    "Values": "[32]"}]}, "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
    "LocalSize": {"X": "block_size_x"}, "GlobalSize": {"X": "16"}, "Arguments": [)" + arguments + "]}}";
  const std::string message =
      error_of([&] { cutune::parse_t1(problem, std::filesystem::temp_directory_path(), "huge"); });
  EXPECT_NE(message.find("T1 huge: KernelSpecification.Arguments[b1152].Size: the buffers add up to more than 2^63 "
                         "bytes"), std::string::npos) << message;
}

// A value nested 100000 levels deep parsed, but printing it in an error message recursed once per level and
// overflowed the stack; the readers that print values (T1, T4, Kernel Tuner caches) refuse such nesting first.
TEST(FuzzRegression, DeeplyNestedJson) {
  const std::string deep = repeat("[", 100000) + repeat("]", 100000);
  const std::string cache = R"({"tune_params_keys": ["a"], "cache": {"1": {"a": )" + deep + R"(, "time": 1.0}}})";
  const std::string kt = error_of([&] { cutune::parse_kt_cache(cache, "deep.json"); });
  EXPECT_NE(kt.find("deep.json: not a Kernel Tuner cache: nested more than 100 levels deep"), std::string::npos) << kt;

  const std::string t4 = t4_error(R"({"metadata": {"cutune_runs": [{"uid": "u"}]}, "results": [{"configuration":
    {"A": )" + deep + R"(}, "invalidity": "correct", "cutune": {"run": 0}}]})");
  EXPECT_NE(t4.find("'runs.t4.json' is nested more than 100 levels deep"), std::string::npos) << t4;

  const std::string problem = R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int",
    "Values": "[1]", "Default": )" + deep + R"(}]}, "KernelSpecification": {}})";
  const std::string t1 = error_of([&] { cutune::parse_t1(problem, std::filesystem::temp_directory_path(), "deep"); });
  EXPECT_NE(t1.find("T1 deep: nested more than 100 levels deep"), std::string::npos) << t1;

  // Brackets inside strings are text, however many there are.
  const std::string brackets = R"({"tune_params_keys": ["a"], "kernel_name": ")" + repeat("[{\\\"", 500) +
                               R"(", "cache": {"1": {"a": 1, "time": 1.0}}})";
  EXPECT_EQ(error_of([&] { cutune::parse_kt_cache(brackets, "text.json"); }), "(no error)");
}

}  // namespace
