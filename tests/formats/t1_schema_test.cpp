// Tests of the T1 1.0.0 input schema's argument fields: every element type (vectors as structs of their
// element), Constant, Random (FillValue as the bound), Generator and BinaryRaw fills, Script and BinaryHDF refused,
// MemoryType Symbol and MemType Constant (constant memory), Local (dynamic shared memory), ReferenceArguments as
// expected outputs with their thresholds, and General.Objective.
#include <gtest/gtest.h>

#include "t1_sample.hpp"

namespace {

const cutune::Argument& argument(const T1Problem& p, const std::string& name) {
  for (const auto& a : p.spec.arguments)
    if (a.name == name) return a;
  ADD_FAILURE() << "no argument " << name;
  return p.spec.arguments.front();
}

std::int64_t elements(const T1Problem& p, const std::string& name) {
  return argument(p, name).size.eval(p.spec.scope(p.spec.default_config(), &p.shape)).as_int();
}

// The sample problem's fixture under a suite name of this file's own (GoogleTest wants one fixture per suite).
class T1Schema : public T1 {};

Json buffer(const std::string& name, const std::string& type, Json size) {
  return {{"Name", name}, {"Type", type}, {"MemoryType", "Vector"}, {"AccessType", "ReadOnly"}, {"Size", size}};
}

TEST_F(T1Schema, EveryTypeOfTheSchemaIsABufferOfItsElement) {
  const std::pair<const char*, cutune::ElementType> types[] = {
      {"bool", cutune::ElementType::Bool},     {"int8", cutune::ElementType::Int8},
      {"uint8", cutune::ElementType::UInt8},   {"int16", cutune::ElementType::Int16},
      {"uint16", cutune::ElementType::UInt16}, {"int32", cutune::ElementType::Int32},
      {"uint32", cutune::ElementType::UInt32}, {"int64", cutune::ElementType::Int64},
      {"uint64", cutune::ElementType::UInt64}, {"half", cutune::ElementType::Float16},
      {"float", cutune::ElementType::Float32}, {"double", cutune::ElementType::Float64}};
  for (const auto& [type, element] : types) {
    const T1Problem p = read([&](Json& j) { kernel(j)["Arguments"].push_back(buffer("extra", type, 10)); });
    EXPECT_TRUE(p.tunable()) << type;
    EXPECT_EQ(argument(p, "extra").type, element) << type;
    EXPECT_EQ(elements(p, "extra"), 10) << type;
  }
  // Vector types are structs of their element: a float4 buffer of 10 is 40 floats
  for (const auto& [type, width] : std::vector<std::pair<std::string, int>>{
           {"half2", 2}, {"half16", 16}, {"float4", 4}, {"float8", 8}, {"double2", 2}, {"double16", 16}}) {
    const T1Problem p = read([&](Json& j) { kernel(j)["Arguments"].push_back(buffer("extra", type, 10)); });
    EXPECT_TRUE(p.tunable()) << type;
    EXPECT_EQ(elements(p, "extra"), 10 * width) << type;
  }
  const T1Problem bad = read([](Json& j) { kernel(j)["Arguments"].push_back(buffer("extra", "int32x4", 10)); });
  EXPECT_TRUE(find_issue(bad, "KernelSpecification.Arguments[extra].Type")->blocks_tuning);
}

TEST_F(T1Schema, FillsConstantRandomGeneratorAndBinaryRaw) {
  write("values.bin", std::string(40, '\0'));
  const T1Problem p = read([](Json& j) {
    Json& args = kernel(j)["Arguments"];
    args[0]["FillValue"] = 2.5;                                   // Constant 2.5
    args[1]["FillValue"] = 324.0;                                 // Random in [0, 324)
    args.push_back(buffer("gen", "double", 100));
    args.back()["FillType"] = "Generator";
    args.back()["DataSource"] = "i * 2 + 1";
    args.push_back(buffer("raw", "int32", 10));
    args.back()["FillType"] = "BinaryRaw";
    args.back()["DataSource"] = "values.bin";
    args.push_back(buffer("ints", "int16", 8));
    args.back()["FillType"] = "Random";
    args.back()["FillValue"] = 7.9;                               // integers in [0, 7]
  });
  ASSERT_TRUE(p.tunable());
  EXPECT_EQ(argument(p, "out").fill, cutune::Fill::Constant);
  EXPECT_EQ(argument(p, "out").fill.constant, Value(2.5));
  EXPECT_EQ(argument(p, "in").fill, cutune::Fill::Uniform);
  EXPECT_EQ(argument(p, "in").fill.low, 0.0);
  EXPECT_EQ(argument(p, "in").fill.high, 324.0);
  ASSERT_TRUE(argument(p, "gen").fill.generator);
  EXPECT_EQ(argument(p, "gen").fill.generator->text(), "i * 2 + 1");
  EXPECT_EQ(argument(p, "raw").fill, cutune::Fill::File);
  EXPECT_EQ(p.spec.folder, dir_);  // the file is read beside the T1 file
  EXPECT_EQ(argument(p, "ints").fill.high, 7.0);

  const T1Problem missing = read([](Json& j) {
    kernel(j)["Arguments"][1]["FillType"] = "BinaryRaw";
    kernel(j)["Arguments"][1]["DataSource"] = "nowhere.bin";
  });
  EXPECT_EQ(find_issue(missing, "KernelSpecification.Arguments[in].DataSource")->kind, T1Issue::Kind::Missing);
  EXPECT_FALSE(missing.tunable());
  const T1Problem unnamed = read([](Json& j) { kernel(j)["Arguments"][1]["FillType"] = "Generator"; });
  EXPECT_EQ(find_issue(unnamed, "KernelSpecification.Arguments[in].DataSource")->message,
            "a Generator needs an expression of i");
  // A generator naming something other than i is the spec reader's error, with the T1 file's name
  const std::string error = error_after([](Json& j) {
    kernel(j)["Arguments"][1]["FillType"] = "Generator";
    kernel(j)["Arguments"][1]["DataSource"] = "j + 1";
  });
  EXPECT_NE(error.find("unknown name 'j'"), std::string::npos) << error;
}

TEST_F(T1Schema, ConstantMemoryLocalMemoryAndScalarsInQuotes) {
  const T1Problem p = read([](Json& j) {
    Json& args = kernel(j)["Arguments"];
    args.push_back(buffer("d_filter", "float", 225));
    args.back()["MemType"] = "Constant";  // the suites' spelling
    args.push_back(buffer("d_coef", "double", 8));
    args.back()["MemoryType"] = "Symbol";  // the schema's
    args.push_back(buffer("scratch", "float", 256));
    args.back()["MemoryType"] = "Local";
    args[2]["FillValue"] = "1000";
  });
  ASSERT_TRUE(p.tunable());
  EXPECT_EQ(argument(p, "d_filter").symbol, "d_filter");
  EXPECT_TRUE(argument(p, "d_filter").is_parameter());  // passed as well, as Kernel Tuner passes it
  EXPECT_TRUE(argument(p, "d_coef").in_constant_memory());
  EXPECT_EQ(p.spec.arguments.size(), 6u);  // Local memory is no argument
  EXPECT_EQ(p.spec.launch.shared_memory.eval(p.spec.scope(p.spec.default_config(), &p.shape)).as_int(), 1024);
  EXPECT_EQ(argument(p, "width").value.eval(p.spec.scope(p.spec.default_config(), &p.shape)).as_int(), 1000);
}

TEST_F(T1Schema, ReferenceArgumentsAreExpectedOutputs) {
  const T1Problem p = read([](Json& j) {
    kernel(j)["Arguments"][0].erase("Output");
    kernel(j)["ReferenceArguments"] = {{{"Name", "out_ref"}, {"TargetName", "out"}, {"FillType", "Constant"},
                                        {"FillValue", 3.0}, {"ValidationMethod", "AbsoluteDifference"},
                                        {"ValidationThreshold", 0.01}}};
  });
  ASSERT_TRUE(p.tunable());
  const cutune::Argument& out = argument(p, "out");
  EXPECT_TRUE(out.output);
  ASSERT_TRUE(out.expected);
  EXPECT_EQ(*out.expected, cutune::Fill::Constant);
  EXPECT_EQ(out.expected->constant, Value(3.0));
  EXPECT_EQ(p.spec.tolerance_at(p.shape, "out").atol, 0.01);  // the target's own bound
  EXPECT_EQ(p.spec.tolerance_at(p.shape, "out").rtol, 0.0);
  EXPECT_EQ(p.spec.tolerance_at(p.shape).atol, 1e-3);  // the others keep the T1 default

  const T1Problem wrong = read([](Json& j) {
    kernel(j)["ReferenceArguments"] = {{{"Name", "r"}, {"TargetName", "nothing"}, {"FillType", "Constant"}}};
  });
  EXPECT_TRUE(find_issue(wrong, "KernelSpecification.ReferenceArguments[0].TargetName")->blocks_tuning);
}

// A file whose kernel writes no buffer it names is tuned by time alone, and says so.
TEST_F(T1Schema, WithoutOutputsTheTimeAloneIsTuned) {
  const T1Problem p = read([](Json& j) {
    kernel(j)["Arguments"][0]["Output"] = 0;
    kernel(j)["Arguments"][0]["AccessType"] = "ReadOnly";
  });
  EXPECT_TRUE(p.tunable());
  EXPECT_EQ(p.spec.verify_mode(), cutune::VerifyMode::None);
  EXPECT_EQ(find_issue(p, "KernelSpecification.Arguments")->message,
            "no buffer has Output: 1 or AccessType WriteOnly/ReadWrite, so nothing can be verified: results are timed "
            "and stored as unverified");
}

TEST_F(T1Schema, ObjectiveNamesTheMetric) {
  auto with_objective = [&](const char* objective) {
    return read([&](Json& j) { j["General"] = {{"Objective", objective}}; }).spec.metric.kind;
  };
  EXPECT_EQ(with_objective("time"), cutune::Metric::Kind::Time);
  EXPECT_EQ(with_objective("GB/s"), cutune::Metric::Kind::Bytes);
  // A FLOP rate needs a count the schema has no field for: the time, and a note that says so
  const T1Problem gflops = read([](Json& j) { j["General"] = {{"Objective", "GFLOPs"}, {"Minimize", false}}; });
  EXPECT_EQ(gflops.spec.metric.kind, cutune::Metric::Kind::Time);
  EXPECT_EQ(find_issue(gflops, "General.Objective")->message,
            "'GFLOPs' has no formula in the file; results are stored and compared by time (lower is better)");
}

}  // namespace
