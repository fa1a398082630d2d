// GPU tests of the inputs users' kernels need: a kernel reading a __constant__ filter, one whose inputs are
// generated from the element index and whose output is checked against an expected fill, and one over int8, int16
// and bool buffers. Each is tuned end to end through worker processes into a SQLite file; the constant-memory kernel
// is also launched through the runtime API with its filter passed from device and from host memory.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/runtime.hpp"
#include "cutune/tuner.hpp"
#include "driver_memory.hpp"
#include "gpu_support.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

constexpr const char* kConvolution = R"cu(
#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef WPT
#define WPT 1
#endif
__constant__ float d_filter[16];
extern "C" __global__ void conv1d(float* out, const float* in, int n) {
  for (int w = 0; w < WPT; ++w) {
    const int i = (blockIdx.x * WPT + w) * BLOCK + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < 16; ++k) acc += in[i + k] * d_filter[k];
    out[i] = acc;
  }
}
)cu";

constexpr const char* kConvolutionSpec = R"json({
  "name": "conv1d_constant", "source": "conv1d.cu", "kernel": "conv1d", "shape": ["N"],
  "parameters": {"BLOCK": [64, 128, 256], "WPT": [1, 2, 4]},
  "block": ["BLOCK"], "grid": ["ceil_div(N, BLOCK * WPT)"],
  "arguments": [
    {"name": "out", "type": "float*", "size": "N", "output": true},
    {"name": "in", "type": "const float*", "size": "N + 15", "fill": {"uniform": [-2, 2]}},
    {"name": "filter", "type": "float", "size": 16, "memory": "constant", "symbol": "d_filter",
     "fill": {"generator": "1.0 / (i + 1)"}},
    {"name": "n", "type": "int", "value": "N"}
  ],
  "reference": {"configuration": {"BLOCK": 64, "WPT": 1}},
  "tolerance": {"atol": 1e-5, "rtol": 1e-5},
  "metric": {"bytes": "8 * N"}
})json";

// out = a + s * b over doubles generated from the index: exact, and checked against the expected fill.
constexpr const char* kTriad = R"cu(
#ifndef BLOCK
#define BLOCK 128
#endif
extern "C" __global__ void triad(double* c, const double* a, const double* b, double s, int n) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) c[i] = a[i] + s * b[i];
}
)cu";

constexpr const char* kTriadSpec = R"json({
  "name": "triad_generated", "source": "triad.cu", "kernel": "triad", "shape": ["N"],
  "parameters": {"BLOCK": [32, 64, 128, 256, 512, 1024]},
  "block": ["BLOCK"], "grid": ["ceil_div(N, BLOCK)"],
  "arguments": [
    {"name": "c", "type": "double*", "size": "N", "output": true,
     "expected": {"generator": "i + 1.75 * (3 * i % 7)"}},
    {"name": "a", "type": "const double*", "size": "N", "fill": {"generator": "i"}},
    {"name": "b", "type": "const double*", "size": "N", "fill": {"generator": "3 * i % 7"}},
    {"name": "s", "type": "double", "value": 1.75},
    {"name": "n", "type": "int", "value": "N"}
  ],
  "reference": {"configuration": {"BLOCK": 32}},
  "metric": "time"
})json";

// Products of int8 inputs into int16, where a bool mask is set; a second output of the int8 sums wraps around.
constexpr const char* kInt8 = R"cu(
#ifndef BLOCK
#define BLOCK 128
#endif
#ifndef VEC
#define VEC 1
#endif
extern "C" __global__ void mul8(short* prod, signed char* sum, const signed char* a, const signed char* b,
                                const bool* mask, int n) {
  const int base = (blockIdx.x * BLOCK + threadIdx.x) * VEC;
  for (int v = 0; v < VEC; ++v) {
    const int i = base + v;
    if (i >= n) return;
    prod[i] = mask[i] ? (short)(a[i] * b[i]) : (short)0;
    sum[i] = (signed char)(a[i] + b[i]);
  }
}
)cu";

constexpr const char* kInt8Spec = R"json({
  "name": "mul_int8", "source": "mul8.cu", "kernel": "mul8", "shape": ["N"],
  "parameters": {"BLOCK": [64, 128, 256], "VEC": [1, 2, 4]},
  "block": ["BLOCK"], "grid": ["ceil_div(N, BLOCK * VEC)"],
  "arguments": [
    {"name": "prod", "type": "int16*", "size": "N", "output": true},
    {"name": "sum", "type": "int8*", "size": "N", "output": true},
    {"name": "a", "type": "const int8*", "size": "N", "fill": {"uniform": [-128, 127]}},
    {"name": "b", "type": "const int8*", "size": "N"},
    {"name": "mask", "type": "const bool*", "size": "N"},
    {"name": "n", "type": "int", "value": "N"}
  ],
  "reference": {"configuration": {"BLOCK": 64, "VEC": 1}},
  "metric": {"bytes": "6 * N"}
})json";

class UserInputsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cutune_inputs_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  KernelSpec write(const std::string& source_name, const char* source, const char* spec) const {
    std::ofstream(dir_ / source_name) << source;
    const fs::path spec_file = dir_ / (source_name + ".json");
    std::ofstream(spec_file) << spec;
    return KernelSpec::load(spec_file);
  }

  // Tunes every configuration at `shape` through worker processes; every one must be stored as ok.
  void tune_all(const KernelSpec& spec, const std::string& shape) const {
    Device device;
    Database db(dir_ / "tune.db");
    TuneOptions options;
    options.measure = testing::quick_measure();
    options.cache_dir = (dir_ / "cache").string();
    options.isolate = true;
    Tuner tuner(device, db, options);
    const ShapeReport report = tuner.tune(spec, spec.parse_shape(shape));
    EXPECT_TRUE(report.best) << spec.name;
    EXPECT_EQ(report.evaluated, report.space_size) << spec.name;
    int ok = 0;
    for (const Result& r : db.results(device.identity(), {spec.name, spec.hash}, shape, L2Flush::None)) {
      ok += r.status == Status::Ok;
      EXPECT_EQ(r.status, Status::Ok) << spec.name << " " << r.config << ": " << r.message;
    }
    EXPECT_EQ(ok, static_cast<int>(report.space_size)) << spec.name;
    std::printf("%s %s: %d of %zu configurations ok\n", spec.name.c_str(), shape.c_str(), ok, report.space_size);
  }

  fs::path dir_;
};

TEST_F(UserInputsGpu, ConstantMemoryKernelTunesAndLaunchesThroughTheRuntime) {
  REQUIRE_GPU();
  const KernelSpec spec = write("conv1d.cu", kConvolution, kConvolutionSpec);
  tune_all(spec, "100000");

  // The runtime: the filter passed from device memory, then from host memory, in the constant argument's place.
  const int n = 5000;
  std::vector<float> in(n + 15), filter(16), out(n);
  for (int i = 0; i < n + 15; ++i) in[i] = static_cast<float>((i * 37) % 11) - 5.0f;
  for (int k = 0; k < 16; ++k) filter[k] = 0.5f * static_cast<float>(k % 5) - 1.0f;
  RuntimeOptions options;
  options.database = dir_ / "tune.db";
  Runtime runtime(options);
  const RuntimeKernel& kernel = runtime.kernel(spec, spec.parse_shape(std::to_string(n)));
  testing::DriverMemory memory;
  ASSERT_TRUE(memory.usable());
  const std::uint64_t d_out = memory.alloc(out.size() * 4), d_in = memory.alloc(in.size() * 4),
                      d_filter = memory.alloc(filter.size() * 4);
  memory.upload(d_in, in.data(), in.size() * 4);
  memory.upload(d_filter, filter.data(), filter.size() * 4);
  for (const bool from_host : {false, true}) {
    const std::vector<float> zeros(out.size(), 0.0f);
    memory.upload(d_out, zeros.data(), zeros.size() * 4);
    const std::uint64_t filter_address = from_host ? reinterpret_cast<std::uint64_t>(filter.data()) : d_filter;
    kernel(nullptr, d_out, d_in, filter_address, n);
    ASSERT_EQ(memory.synchronize(), 0);
    memory.download(out.data(), d_out, out.size() * 4);
    for (int i = 0; i < n; ++i) {
      float want = 0.0f;
      for (int k = 0; k < 16; ++k) want += in[i + k] * filter[k];
      ASSERT_NEAR(out[i], want, 1e-4) << "element " << i << (from_host ? " (filter from host)" : " (from device)");
    }
  }
}

TEST_F(UserInputsGpu, GeneratedInputsAndAnExpectedOutputTune) {
  REQUIRE_GPU();
  tune_all(write("triad.cu", kTriad, kTriadSpec), "1000003");
}

TEST_F(UserInputsGpu, Int8Int16AndBoolBuffersTune) {
  REQUIRE_GPU();
  tune_all(write("mul8.cu", kInt8, kInt8Spec), "1048577");
}

}  // namespace
}  // namespace cutune
