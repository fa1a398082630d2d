// GPU test of 8-bit float buffers and scalars (__nv_fp8_e4m3, __nv_fp8_e5m2): filled, passed, compared with the
// reference and caught when wrong, as for any other element type.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/tuner.hpp"
#include "gpu_support.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

// out = a * s + b in float, stored as e4m3; BUG=1 adds 1 at element 7, which e4m3 cannot miss (|a * s + b| < 4).
constexpr const char* kSource = R"cuda(
#include <cuda_fp8.h>
#ifndef BUG
#define BUG 0
#endif
extern "C" __global__ void fp8_axpy(__nv_fp8_e4m3* out, const __nv_fp8_e4m3* a, const __nv_fp8_e5m2* b,
                                    __nv_fp8_e5m2 s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = float(a[i]) * float(s) + float(b[i]);
  if (BUG && i == 7) v += 1.0f;
  out[i] = __nv_fp8_e4m3(v);
}
extern "C" __global__ void fp8_axpy_reference(__nv_fp8_e4m3* out, const __nv_fp8_e4m3* a, const __nv_fp8_e5m2* b,
                                              __nv_fp8_e5m2 s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __nv_fp8_e4m3(float(a[i]) * float(s) + float(b[i]));
}
)cuda";

constexpr const char* kSpec = R"json({
  "name": "fp8_axpy", "source": "fp8_axpy.cu", "kernel": "fp8_axpy", "shape": ["N"],
  "parameters": {"B": [64, 128, 256], "BUG": [0, 1]},
  "block": ["B"], "grid": ["ceil_div(N, B)"],
  "arguments": [
    {"name": "out", "type": "__nv_fp8_e4m3*", "size": "N", "output": true},
    {"name": "a", "type": "const __nv_fp8_e4m3*", "size": "N"},
    {"name": "b", "type": "const __nv_fp8_e5m2*", "size": "N"},
    {"name": "s", "type": "__nv_fp8_e5m2", "value": 2.0},
    {"name": "n", "type": "int", "value": "N"}],
  "reference": {"kernel": "fp8_axpy_reference", "block": [128], "grid": ["ceil_div(N, 128)"]},
  "metric": {"bytes": "3 * N"}
})json";

TEST(Float8Gpu, BuffersAndScalarsAreFilledPassedAndCompared) {
  REQUIRE_GPU();
  const std::string stem = "cutune_fp8_" + std::to_string(::getpid());
  const fs::path db_path = fs::temp_directory_path() / (stem + ".db");
  const fs::path cache = fs::temp_directory_path() / (stem + "_cache");
  const KernelSpec spec = KernelSpec::from_json(kSpec, kSource, "fp8_axpy.cu");
  Device device;
  TuneOptions options;
  options.strategy = "exhaustive";
  options.isolate = true;
  options.measure = testing::quick_measure();
  options.final_candidates = 1;
  options.final_repeats = 2;
  options.cache_dir = cache.string();
  options.verify_stop_after = 0;
  const Shape shape{{10000}};
  std::map<std::string, Result> results;
  {
    Database db(db_path);
    Tuner(device, db, options).tune(spec, shape);
    for (const auto& r : db.results(device.identity(), {spec.name, spec.hash}, shape.str(),
                                    spec.l2_flush(options.measure.flush))) {
      results[r.config] = r;
    }
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db_path.string() + suffix);
  fs::remove_all(cache);
  ASSERT_EQ(results.size(), 6u);
  for (const auto& [config, r] : results) {
    const bool bug = config.find("BUG=1") != std::string::npos;
    EXPECT_EQ(r.status, bug ? Status::WrongResult : Status::Ok) << config << ": " << r.message;
    if (bug) EXPECT_NE(r.message.find("first at index 7"), std::string::npos) << r.message;
  }
}

}  // namespace
}  // namespace cutune
