// GPU tests of arguments of no elements: an input of none is passed and never read (as Kernel Tuner passes an empty
// array; its spmv example under NumPy 2 gives some), an output of none is refused.
#include <gtest/gtest.h>

#include <string>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/measure.hpp"
#include "gpu_support.hpp"
#include "spec_json_support.hpp"

namespace cutune {
namespace {

// A sparse matrix with no non-zero elements: the row pointers are all 0, so the kernel reads no column index and no
// value, and each row's product is 0.
constexpr const char* kSource = R"(
extern "C" __global__ void spmv(float* y, const int* rows, const int* cols, const float* vals, const float* x, int n) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n) return;
  float sum = 0.0f;
  for (int j = rows[row]; j < rows[row + 1]; ++j) sum += vals[j] * x[cols[j]];
  y[row] = sum;
}
)";

testing::SpecJson spmv_spec(const std::string& nonzeros, bool output_of_none) {
  auto j = testing::SpecJson::parse(R"json({
    "name": "spmv_empty", "source": "spmv_empty.cu", "kernel": "spmv", "shape": ["N"], "parameters": {"B": [32, 64]},
    "block": ["B"], "grid": ["ceil_div(N, B)"],
    "arguments": [{"name": "y", "type": "float*", "size": "N", "output": true},
                  {"name": "rows", "type": "const int*", "size": "N + 1", "fill": "zero"},
                  {"name": "cols", "type": "const int*", "size": "NNZ"},
                  {"name": "vals", "type": "const float*", "size": "NNZ"},
                  {"name": "x", "type": "const float*", "size": "N"},
                  {"name": "n", "type": "int", "value": "N"}],
    "reference": {"configuration": {"B": 32}}})json");
  for (auto& a : j["arguments"]) {
    if (a.value("size", "") == "NNZ") a["size"] = nonzeros;
  }
  if (output_of_none) j["arguments"][0]["size"] = "0";
  return j;
}

TEST(EmptyInputGpu, AnInputOfNoElementsIsPassedAndTheRunVerifies) {
  REQUIRE_GPU();
  const KernelSpec spec = testing::spec_from_json(spmv_spec("0", false), kSource);
  Device device;
  Workbench bench(device, spec, spec.parse_shape("131072"), testing::quick_measure());
  for (const char* text : {"B=32", "B=64"}) {
    const Config config = spec.parse_config(text);
    const Result r = bench.evaluate(config, compile_config(spec, config, device.identity().arch()));
    EXPECT_EQ(r.status, Status::Ok) << text << ": " << r.message;
  }
}

TEST(EmptyInputGpu, AnOutputOfNoElementsIsRefused) {
  REQUIRE_GPU();
  const KernelSpec spec = testing::spec_from_json(spmv_spec("0", true), kSource);
  Device device;
  try {
    Workbench bench(device, spec, spec.parse_shape("1024"), testing::quick_measure());
    FAIL() << "an output of no elements was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("output y of spmv_empty has no elements at shape 1024"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cutune
