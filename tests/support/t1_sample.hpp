// The sample T1 problem of the T1 tests and the fixture that writes it (with edits) into a temporary folder.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/t1.hpp"

namespace {

namespace fs = std::filesystem;
using cutune::Config;
using cutune::KernelSpec;
using cutune::Shape;
using cutune::SpecError;
using cutune::Space;
using cutune::T1Issue;
using cutune::T1Problem;
using cutune::Value;
using Json = nlohmann::ordered_json;

// A small convolution-like problem in the forms the real files use.
constexpr const char* kProblem = R"json({
  "General": {"BenchmarkName": "stencil", "OutputFormat": "JSON"},
  "ConfigurationSpace": {
    "TuningParameters": [
      {"Name": "block_size_x", "Type": "int", "Values": "[1, 2] + [16*i for i in range(1,5)]", "Default": 32},
      {"Name": "block_size_y", "Type": "int", "Values": "[2**i for i in range(0, 4)]", "Default": 2},
      {"Name": "tile", "Type": "int", "Values": "list(range(1, 7, 2))", "Default": 3},
      {"Name": "unroll", "Type": "bool", "Values": "[False, True]", "Default": true},
      {"Name": "radius", "Type": "int", "Values": "[i for i in range(2, 9) if i % 3 == 1]"}
    ],
    "Conditions": [
      {"Expression": "32 <= block_size_x * block_size_y <= 64", "Parameters": ["block_size_x", "block_size_y"]},
      {"Expression": "not (tile == 5 and unroll) or radius ** 2 // 3 % 2 == 0",
       "Parameters": ["tile", "unroll", "radius"]}
    ]
  },
  "KernelSpecification": {
    "Language": "CUDA",
    "CompilerOptions": ["-std=c++17"],
    "BenchmarkName": "stencil",
    "KernelName": "stencil_kernel",
    "KernelFile": "stencil.cu",
    "GlobalSizeType": "CUDA",
    "LocalSize": {"X": "block_size_x", "Y": "block_size_y", "Z": "1"},
    "GlobalSize": {"X": "1", "Y": "1", "Z": "1"},
    "GridDivX": ["block_size_x", "tile"],
    "ProblemSize": [1000, 300],
    "SharedMemory": 0,
    "Arguments": [
      {"Name": "out", "Type": "float", "MemoryType": "Vector", "AccessType": "WriteOnly", "FillType": "Constant",
       "Size": "ProblemSize[0]*ProblemSize[1]", "FillValue": 0.0, "Output": 1},
      {"Name": "in", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadOnly", "FillType": "Random",
       "Size": "(ProblemSize[0] + 2*max(radius)) * (ProblemSize[1] + 2*max(radius))", "FillValue": 1.0},
      {"Name": "width", "Type": "int32", "MemoryType": "Scalar", "AccessType": "ReadOnly", "FillValue": 1000},
      {"Name": "scale", "Type": "float", "MemoryType": "Scalar", "AccessType": "ReadOnly", "FillValue": 0.5}
    ]
  }
})json";

class T1 : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir_ = fs::temp_directory_path() / ("cutune_t1_" + std::to_string(::getpid()) + "_" + test);
    fs::create_directories(dir_);
    write("stencil.cu",
          "extern \"C\" __global__ void stencil_kernel(float* out, const float* in, int w, float s) {}\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }

  // Writes the sample problem after `edit` and reads it.
  T1Problem read(const std::function<void(Json&)>& edit = [](Json&) {}) const {
    Json j = Json::parse(kProblem);
    edit(j);
    write("problem.t1.json", j.dump(2));
    return cutune::read_t1(dir_ / "problem.t1.json");
  }

  std::string error_after(const std::function<void(Json&)>& edit) const {
    try {
      read(edit);
    } catch (const SpecError& e) {
      return e.what();
    }
    return "(no error)";
  }

  // The first issue about `field`; a failure (and an empty issue) when there is none.
  static const T1Issue* find_issue(const T1Problem& p, const std::string& field) {
    for (const auto& i : p.issues)
      if (i.field == field) return &i;
    static const T1Issue kNone{};
    ADD_FAILURE() << "no issue about " << field;
    return &kNone;
  }

  static std::size_t count(const T1Problem& p) {
    return Space::enumerate(p.spec, p.shape, cutune::DeviceLimits{}).size();
  }

  static Json& parameter(Json& j, std::size_t i) { return j["ConfigurationSpace"]["TuningParameters"][i]; }
  static Json& kernel(Json& j) { return j["KernelSpecification"]; }

  fs::path dir_;
};

}  // namespace
