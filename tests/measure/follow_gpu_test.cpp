// GPU tests of a reference that follows parameters of the configuration it checks: each filter width is verified
// against the reference configuration at that width, a width whose reference is not valid is stored as no_reference,
// and the references computed before are reused.
#include <gtest/gtest.h>

#include <string>

#include "cutune/compiler.hpp"
#include "cutune/measure.hpp"
#include "gpu_support.hpp"
#include "spec_json_support.hpp"

namespace cutune {
namespace {

// A one-dimensional box filter of width W: W says what is computed, B and ITEMS how; BUG=1 gets it wrong.
constexpr const char* kSource = R"(
extern "C" __global__ void box(float* out, const float* in, int n) {
  for (int k = 0; k < ITEMS; ++k) {
    const int i = (blockIdx.x * B + threadIdx.x) * ITEMS + k;
    if (i >= n) return;
    float sum = 0.0f;
    for (int j = 0; j < W; ++j) sum += in[i + j];
    out[i] = sum + BUG;
  }
}
)";

testing::SpecJson box_spec(bool follow) {
  auto j = testing::SpecJson::parse(R"json({
    "name": "box_follow", "source": "box_follow.cu", "kernel": "box", "shape": ["N"],
    "parameters": {"B": [64, 128], "ITEMS": [1, 2], "W": [1, 3, 5, 9], "BUG": [0, 1]},
    "constraints": ["W < 9 or B == 128"],
    "block": ["B"], "grid": ["ceil_div(N, B * ITEMS)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true},
                  {"name": "in", "type": "const float*", "size": "N + 8"},
                  {"name": "n", "type": "int", "value": "N"}],
    "reference": {"configuration": {"B": 64, "ITEMS": 1, "W": 3}}})json");
  if (follow) j["reference"]["follow"] = {"W"};
  return j;
}

Result evaluate(Workbench& bench, const KernelSpec& spec, const Device& device, const char* text) {
  const Config config = spec.parse_config(text);
  return bench.evaluate(config, compile_config(spec, config, device.identity().arch()));
}

TEST(FollowGpu, EachWidthIsVerifiedAgainstTheReferenceAtThatWidth) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec fixed = testing::spec_from_json(box_spec(false), kSource);
  Workbench unfollowed(device, fixed, fixed.parse_shape("100000"), testing::quick_measure());
  EXPECT_EQ(evaluate(unfollowed, fixed, device, "B=128,ITEMS=2,W=3,BUG=0").status, Status::Ok);
  EXPECT_EQ(evaluate(unfollowed, fixed, device, "B=128,ITEMS=2,W=5,BUG=0").status, Status::WrongResult);

  const KernelSpec spec = testing::spec_from_json(box_spec(true), kSource);
  Workbench bench(device, spec, spec.parse_shape("100000"), testing::quick_measure());
  // Widths in turn, back to ones seen before (kept references), each against its own reference.
  for (const char* text : {"B=128,ITEMS=2,W=5,BUG=0", "B=64,ITEMS=2,W=1,BUG=0", "B=128,ITEMS=1,W=3,BUG=0",
                           "B=64,ITEMS=1,W=5,BUG=0", "B=128,ITEMS=2,W=1,BUG=0"}) {
    const Result r = evaluate(bench, spec, device, text);
    EXPECT_EQ(r.status, Status::Ok) << text << ": " << r.message;
  }
  // W=9 needs B=128, so the reference B=64,ITEMS=1,W=9 is not a configuration: the result says so and nothing runs.
  const Result none = evaluate(bench, spec, device, "B=128,ITEMS=2,W=9,BUG=0");
  EXPECT_EQ(none.status, Status::NoReference);
  EXPECT_EQ(none.message,
            "not run: its reference, the configuration B=64,ITEMS=1,W=9,BUG=0 (at this configuration's W), violates "
            "constraint 'W < 9 or B == 128'");
  EXPECT_TRUE(none.samples_ms.empty());
  // A wrong output is still wrong at any width: the reference follows W alone.
  EXPECT_EQ(evaluate(bench, spec, device, "B=128,ITEMS=1,W=5,BUG=1").status, Status::WrongResult);
  EXPECT_EQ(evaluate(bench, spec, device, "B=64,ITEMS=2,W=3,BUG=1").status, Status::WrongResult);
}

}  // namespace
}  // namespace cutune
