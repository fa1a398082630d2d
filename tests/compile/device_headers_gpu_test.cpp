// GPU tests of the standard headers of device code: what a kernel gets from them on the device, printf's output
// included.
#include <gtest/gtest.h>

#include <string>

#include "cutune/compiler.hpp"
#include "cutune/measure.hpp"
#include "gpu_support.hpp"
#include "spec_json_support.hpp"

namespace cutune {
namespace {

// Thread 0 prints what the headers declare, and every thread writes a value computed with them.
constexpr const char* kSource = R"(
#include <math.h>
#include <stdint.h>
#include <limits.h>
#include <float.h>
#include <stdio.h>
#include <assert.h>
extern "C" __global__ void k(float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(blockDim.x == 64);
  if (i == 0) {
    printf("cutune-printf INT32_MAX=%d UINT64_MAX=%llu CHAR_BIT=%d FLT_MAX=%g M_PI=%.6f\n", INT32_MAX,
           (unsigned long long)UINT64_MAX, CHAR_BIT, (double)FLT_MAX, M_PI);
  }
  if (i < n) out[i] = sqrtf((float)i) + (float)M_SQRT2 * isinf(INFINITY) + (float)fpclassify(0.0f);
}
)";

TEST(DeviceHeadersGpu, PrintfAndTheHeadersValuesOnTheDevice) {
  REQUIRE_GPU();
  const KernelSpec spec = testing::spec_from_json(testing::SpecJson::parse(R"json({
    "name": "headers_gpu", "source": "headers_gpu.cu", "kernel": "k", "shape": ["N"], "parameters": {"X": [1]},
    "block": [64], "grid": ["ceil_div(N, 64)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}, {"name": "n", "type": "int", "value": "N"}],
    "reference": {"configuration": {"X": 1}}})json"),
                                                  kSource);
  Device device;
  Workbench bench(device, spec, spec.parse_shape("1000"), testing::quick_measure());
  const Config config = spec.parse_config("X=1");
  const CompileOutput compiled = compile_config(spec, config, device.identity().arch());
  ASSERT_TRUE(compiled.ok) << compiled.log;
  ::testing::internal::CaptureStdout();
  const Result r = bench.evaluate(config, compiled);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_NE(printed.find("cutune-printf INT32_MAX=2147483647 UINT64_MAX=18446744073709551615 CHAR_BIT=8 "
                         "FLT_MAX=3.40282e+38 M_PI=3.141593\n"),
            std::string::npos)
      << printed;
}

}  // namespace
}  // namespace cutune
