// Tests of reading T1 problem files: values, conditions, geometry, arguments, reference, errors and defects.
#include "cutune/t1.hpp"

#include <gtest/gtest.h>

#include "cli_support.hpp"
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "t1_sample.hpp"

namespace {

template <typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const cutune::Error& e) {
    return e.what();
  }
  return "(no error)";
}

// What the problem's conditions leave, counted the slow, obvious way.
std::size_t brute_force_count() {
  std::size_t n = 0;
  for (int bx : {1, 2, 16, 32, 48, 64})
    for (int by : {1, 2, 4, 8})
      for (int tile : {1, 3, 5})
        for (int unroll : {0, 1})
          for (int radius : {4, 7}) {
            const bool c1 = 32 <= bx * by && bx * by <= 64;
            const bool c2 = !(tile == 5 && unroll) || (radius * radius / 3) % 2 == 0;
            n += c1 && c2;
          }
  return n;
}


TEST_F(T1, TranslatesParametersConditionsAndCounts) {
  const T1Problem p = read();
  const KernelSpec& s = p.spec;
  EXPECT_EQ(s.name, "problem");
  EXPECT_EQ(s.kernel, "stencil_kernel");
  EXPECT_EQ(s.source_name, "stencil.cu");
  EXPECT_NE(s.source.find("stencil_kernel"), std::string::npos);
  ASSERT_EQ(s.parameters.size(), 5u);
  EXPECT_EQ(s.parameters[0].values, (std::vector<Value>{1, 2, 16, 32, 48, 64}));
  EXPECT_EQ(s.parameters[1].values, (std::vector<Value>{1, 2, 4, 8}));
  EXPECT_EQ(s.parameters[2].values, (std::vector<Value>{1, 3, 5}));
  EXPECT_EQ(s.parameters[3].values, (std::vector<Value>{0, 1}));
  EXPECT_EQ(s.parameters[4].values, (std::vector<Value>{4, 7}));
  EXPECT_EQ(s.format(s.default_config()), "block_size_x=32,block_size_y=2,tile=3,unroll=1,radius=4");
  EXPECT_EQ(s.constraints.size(), 2u);
  EXPECT_EQ(s.compile_options, (std::vector<std::string>{"-std=c++17"}));
  EXPECT_EQ(p.shape, (Shape{{1000, 300}}));
  EXPECT_EQ(s.shape_names, (std::vector<std::string>{"problem_size_x", "problem_size_y"}));
  EXPECT_TRUE(p.tunable());

  const Space space = Space::enumerate(s, p.shape, cutune::DeviceLimits{});
  EXPECT_EQ(space.size(), brute_force_count());
  EXPECT_EQ(space.cartesian_size(), 6u * 4 * 3 * 2 * 2);
  EXPECT_EQ(space.size(), 66u);  // the brute force itself, pinned
}

TEST_F(T1, TranslatesGeometryArgumentsAndReference) {
  const T1Problem p = read();
  const KernelSpec& s = p.spec;
  const Config c = s.parse_config("block_size_x=16,block_size_y=4,tile=3,unroll=0,radius=7");
  const cutune::Launch l = s.resolve(s.launch, c, p.shape, 132);
  EXPECT_EQ(l.block, (std::array<std::int64_t, 3>{16, 4, 1}));
  // GridDivX divides ProblemSize[0] by block_size_x * tile; Y by block_size_y (Kernel Tuner's default); no Z.
  EXPECT_EQ(l.grid, (std::array<std::int64_t, 3>{(1000 + 47) / 48, 300 / 4, 1}));
  EXPECT_EQ(l.shared_memory, 0);
  EXPECT_EQ(find_issue(p, "KernelSpecification.GlobalSize")->kind, T1Issue::Kind::Note);  // ignored, and said so

  ASSERT_EQ(s.arguments.size(), 4u);
  const auto scope = s.scope(s.default_config(), &p.shape);
  EXPECT_TRUE(s.arguments[0].is_buffer);
  EXPECT_TRUE(s.arguments[0].output);
  EXPECT_EQ(s.arguments[0].fill, cutune::Fill::Zero);
  EXPECT_EQ(s.arguments[0].size.eval(scope).as_int(), 300000);
  EXPECT_FALSE(s.arguments[1].output);
  EXPECT_EQ(s.arguments[1].fill, cutune::Fill::Uniform);  // FillValue 1.0 bounds the range: [0, 1)
  EXPECT_EQ(s.arguments[1].fill.high, 1.0);
  EXPECT_EQ(s.arguments[1].size.eval(scope).as_int(), (1000 + 14) * (300 + 14));
  EXPECT_FALSE(s.arguments[2].is_buffer);
  EXPECT_EQ(s.arguments[2].type, cutune::ElementType::Int32);
  EXPECT_EQ(s.arguments[2].value.eval(scope).as_int(), 1000);
  EXPECT_EQ(s.arguments[3].type, cutune::ElementType::Float32);
  EXPECT_EQ(s.arguments[3].value.eval(scope).as_double(), 0.5);
  EXPECT_EQ(s.metric.kind, cutune::Metric::Kind::Time);  // no Objective: the time alone

  // The Default values are valid, so they are the reference; the spec's reference is its own kernel.
  ASSERT_TRUE(s.reference_config.has_value());
  EXPECT_EQ(*s.reference_config, s.default_config());
  EXPECT_TRUE(s.reference_kernel.empty());
  const T1Issue* reference = find_issue(p, "reference");
  EXPECT_NE(reference->message.find("Default values block_size_x=32"), std::string::npos) << reference->message;
}

// Kernel Tuner defines kernel_tuner, the launch's block and grid sizes besides the parameters for every compile;
// sources keep stand-alone values under #ifndef kernel_tuner, which must not replace the configuration's own.
TEST_F(T1, DefinesWhatKernelTunerDefines) {
  write("stencil.cu", R"(
#ifndef kernel_tuner
#define block_size_x 8
#define tile 1
#endif
static_assert(block_size_x == 16 && block_size_y == 4 && block_size_z == 1 && tile == 3, "the configuration's values");
static_assert(grid_size_x == 21 && grid_size_y == 75 && grid_size_z == 1, "the launch's grid");
extern "C" __global__ void stencil_kernel(float* out, const float* in, int w, float s) {}
)");
  const T1Problem p = read();
  const KernelSpec& s = p.spec;
  const Config c = s.parse_config("block_size_x=16,block_size_y=4,tile=3,unroll=0,radius=7");
  const std::vector<std::string> defines = s.defines(c);  // the same at every shape: none needs it
  for (const char* d : {"-Dkernel_tuner=1", "-Dblock_size_z=1", "-Dgrid_size_x=21", "-Dgrid_size_y=75",
                        "-Dgrid_size_z=1"}) {
    EXPECT_NE(std::find(defines.begin(), defines.end(), d), defines.end()) << d;
  }
  EXPECT_FALSE(s.shape_specialized(c));
  const cutune::CompileOutput out = cutune::compile_config(s, c, "sm_90", &p.shape);
  EXPECT_TRUE(out.ok) << out.log;
}

// A parameter that a size names is a parameter of the problem: the reference follows each configuration's value.
TEST_F(T1, TheReferenceFollowsTheParametersThatSizesName) {
  const T1Problem p = read();  // "in" is (ProblemSize[0] + 2*max(radius)) * (...): radius is the stencil's
  const KernelSpec& s = p.spec;
  ASSERT_EQ(s.reference_follow.size(), 1u);
  EXPECT_EQ(s.parameters[s.reference_follow[0]].name, "radius");
  const Config c = s.parse_config("block_size_x=16,block_size_y=4,tile=1,unroll=0,radius=7");
  EXPECT_EQ(s.format(s.following(*s.reference_config, c)), "block_size_x=32,block_size_y=2,tile=3,unroll=1,radius=7");
  const T1Issue* follow = find_issue(p, "reference.follow");
  EXPECT_EQ(follow->kind, T1Issue::Kind::Note);
  EXPECT_FALSE(follow->blocks_tuning);
  EXPECT_EQ(follow->message, "radius is a parameter of the problem (named by KernelSpecification.Arguments[in].Size): "
                             "each configuration is verified against the reference at its own value of it");

  // A ProblemSize that names one too; a parameter of a single value has nothing to follow.
  const T1Problem q = read([](Json& j) {
    kernel(j)["ProblemSize"] = Json::array({1000, "100 * max(tile)"});
    parameter(j, 4)["Values"] = "[4]";
  });
  ASSERT_EQ(q.spec.reference_follow.size(), 1u);
  EXPECT_EQ(q.spec.parameters[q.spec.reference_follow[0]].name, "tile");
  EXPECT_EQ(q.shape, (Shape{{1000, 500}}));
  EXPECT_NE(find_issue(q, "reference.follow")->message.find("tile is a parameter of the problem (named by "
                                                             "KernelSpecification.ProblemSize)"),
            std::string::npos);

  // Sizes of numbers and ProblemSize alone: one reference for every configuration, and no note.
  const T1Problem fixed =
      read([](Json& j) { kernel(j)["Arguments"][1]["Size"] = "(ProblemSize[0]+14)*(ProblemSize[1]+14)"; });
  EXPECT_TRUE(fixed.spec.reference_follow.empty());
  EXPECT_TRUE(std::none_of(fixed.issues.begin(), fixed.issues.end(),
                           [](const T1Issue& i) { return i.field == "reference.follow"; }));
  EXPECT_EQ(fixed.spec.json.find("follow"), std::string::npos);
}

TEST_F(T1, InvalidDefaultsFallBackToTheFirstValidConfiguration) {
  const T1Problem p = read([](Json& j) { parameter(j, 0)["Default"] = 1; });  // 1 * 2 threads < 32
  ASSERT_TRUE(p.spec.reference_config.has_value());
  const Space space = Space::enumerate(p.spec, p.shape, cutune::DeviceLimits{});
  EXPECT_EQ(*p.spec.reference_config, space.configs().front());
  EXPECT_EQ(p.spec.format(*p.spec.reference_config), "block_size_x=16,block_size_y=2,tile=1,unroll=0,radius=4");
  const T1Issue* reference = find_issue(p, "reference");
  EXPECT_NE(reference->message.find("first valid configuration"), std::string::npos);
  EXPECT_NE(reference->message.find("violate condition '32 <= block_size_x * block_size_y <= 64'"), std::string::npos);

  // Defaults that meet the conditions but not the launch limits fall back too.
  const T1Problem q = read([](Json& j) {
    j["ConfigurationSpace"]["Conditions"][0]["Expression"] = "32 <= block_size_x * block_size_y";
    kernel(j)["LocalSize"]["X"] = "block_size_x * block_size_y * 16";
  });
  EXPECT_NE(find_issue(q, "reference")->message.find("cannot launch (2048 threads per block > 1024)"),
            std::string::npos) << find_issue(q, "reference")->message;
  EXPECT_EQ(q.spec.format(*q.spec.reference_config), "block_size_x=16,block_size_y=2,tile=1,unroll=0,radius=4");
}

TEST_F(T1, GlobalSizeInBlocksOrThreads) {
  const auto without_divisors = [](const std::string& type) {
    return [type](Json& j) {
      kernel(j).erase("GridDivX");
      kernel(j)["GlobalSizeType"] = type;
      kernel(j)["GlobalSize"] = {{"X", "4096 // block_size_x"}};
    };
  };
  const T1Problem cuda = read(without_divisors("CUDA"));
  const Config c = cuda.spec.parse_config("block_size_x=16,block_size_y=4,tile=3,unroll=0,radius=7");
  EXPECT_EQ(cuda.spec.resolve(cuda.spec.launch, c, cuda.shape, 132).grid, (std::array<std::int64_t, 3>{256, 1, 1}));
  const T1Problem opencl = read(without_divisors("OpenCL"));  // global size in threads: divided by the block
  EXPECT_EQ(opencl.spec.resolve(opencl.spec.launch, c, opencl.shape, 132).grid, (std::array<std::int64_t, 3>{16, 1, 1}));
}

// The schema's ProblemSize may be one size without the list around it: a number or an expression.
TEST_F(T1, ProblemSizeMayBeOneNumber) {
  const auto one_dimension = [](const Json& size) {
    return [size](Json& j) {
      kernel(j)["ProblemSize"] = size;
      kernel(j)["Arguments"][0]["Size"] = "ProblemSize[0]";
      kernel(j)["Arguments"][1]["Size"] = "ProblemSize[0] + 2*max(radius)";
    };
  };
  const T1Problem number = read(one_dimension(20000000));
  EXPECT_EQ(number.shape.dims, (std::vector<std::int64_t>{20000000}));
  const Config c = number.spec.parse_config("block_size_x=16,block_size_y=4,tile=3,unroll=0,radius=7");
  EXPECT_EQ(number.spec.resolve(number.spec.launch, c, number.shape, 132).grid[0], (20000000 + 47) / 48);
  EXPECT_EQ(read(one_dimension("2**20")).shape.dims, (std::vector<std::int64_t>{1 << 20}));
  EXPECT_EQ(error_after([](Json& j) { kernel(j)["ProblemSize"] = 0; }),
            "T1 problem: KernelSpecification.ProblemSize: must hold positive integers, got 0");
  EXPECT_EQ(error_after([](Json& j) { kernel(j)["ProblemSize"] = Json::object(); }),
            "T1 problem: KernelSpecification.ProblemSize: must be a size or a list of 1 to 3 sizes");
}

TEST_F(T1, UnsupportedConstructsAndBadSpacesNameTheField) {
  EXPECT_EQ(error_after([](Json& j) { parameter(j, 2)["Values"] = "[i for i in range(1, n)]"; }),
            "T1 problem: ConfigurationSpace.TuningParameters[tile].Values: unknown name 'n' in "
            "'[i for i in range(1, n)]'");
  EXPECT_NE(error_after([](Json& j) { parameter(j, 2)["Values"] = "{1, 2}"; })
                .find("TuningParameters[tile].Values: invalid expression '{1, 2}': unexpected character '{'"),
            std::string::npos);
  EXPECT_NE(error_after([](Json& j) { parameter(j, 2)["Values"] = "[x for x in range(3)][0]"; })
                .find("TuningParameters[tile].Values: expected a list in the result, got 0"),
            std::string::npos);
  EXPECT_EQ(error_after([](Json& j) { parameter(j, 2)["Type"] = "string"; }),
            "T1 problem: ConfigurationSpace.TuningParameters[tile].Type: string parameters are not supported "
            "(cutune's values are numbers)");
  EXPECT_EQ(error_after([](Json& j) { parameter(j, 2)["Values"] = "[1, 2, 1]"; }),
            "T1 problem: ConfigurationSpace.TuningParameters[tile].Values: value 1 appears twice");
  EXPECT_EQ(error_after([](Json& j) { parameter(j, 2)["Values"] = "[1, 2.5]"; }),
            "T1 problem: ConfigurationSpace.TuningParameters[tile].Values: 2.5 is not an integer (Type int)");
  EXPECT_EQ(error_after([](Json& j) { parameter(j, 2)["Values"] = "range(5, 1)"; }),
            "T1 problem: ConfigurationSpace.TuningParameters[tile].Values: gives no values");
  EXPECT_EQ(error_after([](Json& j) { parameter(j, 1)["Name"] = "block_size_x"; }),
            "T1 problem: ConfigurationSpace.TuningParameters[block_size_x].Name: appears twice");
  EXPECT_EQ(error_after([](Json& j) { parameter(j, 1)["Name"] = "lambda"; }),
            "T1 problem: ConfigurationSpace.TuningParameters[1].Name: 'lambda' is not a usable name");
  EXPECT_EQ(error_after([](Json& j) { j["ConfigurationSpace"]["Conditions"][1]["Expression"] = "tile > depth"; }),
            "T1 problem: ConfigurationSpace.Conditions[1].Expression: 'depth' is not a tuning parameter");
  EXPECT_NE(error_after([](Json& j) { j["ConfigurationSpace"]["Conditions"][1]["Expression"] = "tile in [1, 3]"; })
                .find("ConfigurationSpace.Conditions[1].Expression: invalid expression 'tile in [1, 3]'"),
            std::string::npos);
  EXPECT_NE(error_after([](Json& j) { j["ConfigurationSpace"]["Conditions"][1]["Expression"] = "tile > 9"; })
                .find("T1 problem: ConfigurationSpace: no configuration satisfies every condition"),
            std::string::npos);
  EXPECT_EQ(error_after([](Json& j) { kernel(j).erase("KernelName"); }),
            "T1 problem: KernelSpecification.KernelName: missing or not a string");
  EXPECT_EQ(error_after([](Json& j) { kernel(j)["ProblemSize"] = {1000, -3}; }),
            "T1 problem: KernelSpecification.ProblemSize: must hold positive integers, got -3");
  EXPECT_EQ(error_after([](Json& j) { j.erase("ConfigurationSpace"); }), "T1 problem: ConfigurationSpace: missing");
  EXPECT_THROW(cutune::read_t1(dir_ / "absent.json"), cutune::InputError);
  write("broken.json", "{\"ConfigurationSpace\": ");
  EXPECT_NE(std::string(message_of([&] { cutune::read_t1(dir_ / "broken.json"); })).find("T1 broken: invalid JSON"),
            std::string::npos);
}

TEST_F(T1, InconsistentKernelSpecificationsAreReportedAndBlockTuning) {
  // A LocalSize naming no parameter (as gemm_milo.json, copied from hotspot): the space is still counted.
  const T1Problem copied = read([](Json& j) {
    kernel(j)["LocalSize"]["X"] = "block_size_z";
    kernel(j)["BenchmarkName"] = "hotspot";
  });
  const T1Issue* local = find_issue(copied, "KernelSpecification.LocalSize.X");
  EXPECT_EQ(local->kind, T1Issue::Kind::Defect);
  EXPECT_TRUE(local->blocks_tuning);
  EXPECT_EQ(local->str(), "defect: KernelSpecification.LocalSize.X: 'block_size_z' is not a tuning parameter; the "
                          "space is counted without block-size limits (blocks tuning)");
  EXPECT_EQ(find_issue(copied, "KernelSpecification.BenchmarkName")->kind, T1Issue::Kind::Defect);
  EXPECT_EQ(count(copied), brute_force_count());
  EXPECT_FALSE(copied.tunable());
  const std::string refusal = message_of([&] { copied.require_tunable(); });
  EXPECT_EQ(refusal.rfind("T1 problem problem cannot be tuned: KernelSpecification.LocalSize.X: 'block_size_z'", 0), 0u)
      << refusal;

  // A HIP file under Language CUDA (as dedispersion_milo.json), OpenCL, custom types, fills cutune cannot read.
  write("k.cu.hip", "");
  const T1Problem hip = read([](Json& j) { kernel(j)["KernelFile"] = "k.cu.hip"; });
  EXPECT_EQ(find_issue(hip, "KernelSpecification.KernelFile")->str(),
            "defect: KernelSpecification.KernelFile: 'k.cu.hip' is a HIP source (.hip), but Language says CUDA "
            "(blocks tuning)");
  EXPECT_FALSE(hip.tunable());
  const T1Problem opencl = read([](Json& j) { kernel(j)["Language"] = "OpenCL"; });
  EXPECT_EQ(find_issue(opencl, "KernelSpecification.Language")->kind, T1Issue::Kind::Unsupported);
  const T1Problem unreadable = read([](Json& j) {
    kernel(j)["Arguments"][1]["FillType"] = "Script";
    kernel(j)["Arguments"][0]["FillType"] = "BinaryHDF";
    kernel(j)["Arguments"][2]["Type"] = "custom";
    kernel(j)["Arguments"][3]["Type"] = "float4";
  });
  EXPECT_EQ(find_issue(unreadable, "KernelSpecification.Arguments[in].FillType")->str(),
            "unsupported: KernelSpecification.Arguments[in].FillType: 'Script' (cutune fills Constant, Random, "
            "Generator and BinaryRaw; Script and BinaryHDF would need a Python or HDF5 reader) (blocks tuning)");
  EXPECT_TRUE(find_issue(unreadable, "KernelSpecification.Arguments[out].FillType")->blocks_tuning);
  EXPECT_TRUE(find_issue(unreadable, "KernelSpecification.Arguments[width].Type")->blocks_tuning);
  EXPECT_EQ(find_issue(unreadable, "KernelSpecification.Arguments[scale].Type")->message,
            "'float4': cutune passes scalars of one element, not vectors");
  const T1Problem missing = read([](Json& j) { kernel(j)["KernelFile"] = "elsewhere.cu"; });
  EXPECT_EQ(find_issue(missing, "KernelSpecification.KernelFile")->kind, T1Issue::Kind::Missing);
  EXPECT_EQ(count(missing), brute_force_count());

  // Inconsistencies that leave the meaning clear are reported without blocking.
  const T1Problem minor = read([](Json& j) {
    parameter(j, 2)["Default"] = 4;
    parameter(j, 3)["Default"] = Json::array({0});
    j["ConfigurationSpace"]["Conditions"][1]["Parameters"] = {"tile", "unroll", "nothing"};
  });
  EXPECT_TRUE(minor.tunable());
  EXPECT_EQ(find_issue(minor, "ConfigurationSpace.TuningParameters[tile].Default")->message,
            "4 is not one of the Values; the default is the first value, 1");
  EXPECT_EQ(find_issue(minor, "ConfigurationSpace.TuningParameters[unroll].Default")->message,
            "[0] is not a number; the default is the first value, 0");
  bool lists = false, omits = false;
  for (const auto& i : minor.issues) {
    if (i.field != "ConfigurationSpace.Conditions[1].Parameters") continue;
    lists = lists || i.message == "lists nothing, not tuning parameters; ignored";
    omits = omits || i.message == "omits radius, which the Expression uses; the Expression is applied";
  }
  EXPECT_TRUE(lists && omits);
}

// The `tune` command on a T1 problem: issues on stderr, the count on stdout, refusals in one line.
class T1Cli : public T1 {
 protected:
  using Output = cutune::test::CommandOutput;
  Output tune(const std::string& args) const { return cutune::test::run_tune(dir_, args); }
};

TEST_F(T1Cli, SpaceCountsListsAndReports) {
  read([](Json& j) { kernel(j)["KernelFile"] = "k.cu.hip"; });
  Output r = tune("space --problem problem.t1.json");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("66 valid configurations of problem (288 combinations", 0), 0u) << r.out;
  EXPECT_NE(r.err.find("problem: defect: KernelSpecification.KernelFile: 'k.cu.hip' is a HIP source"),
            std::string::npos) << r.err;
  r = tune("space --problem problem.t1.json --list");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 67);
  EXPECT_NE(r.out.find("block_size_x=16,block_size_y=2,tile=1,unroll=0,radius=4\n"), std::string::npos);
  r = tune("space --problem problem.t1.json --shape 1000x300");
  EXPECT_EQ(r.code, 0) << r.err;
  r = tune("space --problem problem.t1.json --shape 64x64");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("describes one problem size, 1000x300 (its ProblemSize), not 64x64"), std::string::npos)
      << r.err;
  r = tune("space --problem problem.t1.json --kernel transpose");
  EXPECT_NE(r.code, 0);
}

TEST_F(T1Cli, TuningRefusesWhatCannotBeTuned) {
  read([](Json& j) { kernel(j)["Language"] = "OpenCL"; });
  for (const char* cmd : {"--problem problem.t1.json", "compile --problem problem.t1.json"}) {
    const Output r = tune(cmd);
    EXPECT_EQ(r.code, 1) << cmd;
    EXPECT_NE(r.err.find("error: T1 problem problem cannot be tuned: KernelSpecification.Language: OpenCL: cutune "
                         "compiles CUDA through NVRTC only\n"),
              std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "cutune.db"));
  read();
  const Output r = tune("--problem problem.t1.json --shapes 5x5");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("not 5x5; leave out --shapes"), std::string::npos) << r.err;
}

}  // namespace
