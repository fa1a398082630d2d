// GPU tests of the resources measured with each configuration: launch geometry, shared memory, resident blocks
// from the occupancy calculator, and the peak its metric is a fraction of, in process and through a worker.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/resources.hpp"
#include "cutune/templates.hpp"
#include "cutune/tuner.hpp"
#include "gpu_support.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

MeasureOptions quick() {
  MeasureOptions o;
  o.repeats = 3;
  return o;
}

TEST(ResourcesGpu, TransposeGeometryOccupancyAndCopyPeak) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec spec = load_kernel("transpose");
  const Shape shape = spec.parse_shape("4096x4096");
  Workbench bench(device, spec, shape, quick());
  const Config config = spec.parse_config("TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0");
  const Result r = bench.evaluate(config, compile_config(spec, config, device.identity().arch()));
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_EQ(r.threads_per_block, 32 * 8);
  EXPECT_EQ(r.blocks, 128 * 128);
  EXPECT_EQ(r.dynamic_smem_bytes, 32 * 33 * 4);
  EXPECT_EQ(r.static_smem_bytes, 0);  // the tile is dynamic shared memory
  // 256 threads: at most 2048 / 256 = 8 resident blocks on any recent SM, at least one.
  EXPECT_GE(r.blocks_per_sm, 1);
  EXPECT_LE(r.blocks_per_sm, 8);
  EXPECT_GT(r.registers, 0);
  EXPECT_EQ(r.spill_bytes, 0);
  // Bytes metric: the peak is this device's copy bandwidth at the kernel's bytes; a transpose gets near it.
  EXPECT_GT(r.peak, 100.0);
  const DerivedResources d = derived_resources(r, device.identity());
  EXPECT_GT(d.fraction_of_peak, 0.05);
  EXPECT_LT(d.fraction_of_peak, 1.5);
  EXPECT_DOUBLE_EQ(d.waves, 16384.0 / (device.identity().sm_count * r.blocks_per_sm));
}

TEST(ResourcesGpu, StaticSharedMemoryAndFp32PeakOfAUserKernel) {
  REQUIRE_GPU();
  const fs::path dir = fs::temp_directory_path() / ("cutune_res_gpu_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "fma.cu") << R"(
extern "C" __global__ void fma_loop(float* out, const float* in, int n) {
  __shared__ float stage[B];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  stage[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  float x = stage[threadIdx.x];
  for (int k = 0; k < 64; ++k) x = fmaf(x, 0.5f, 0.25f);
  if (i < n) out[i] = x;
}
extern "C" __global__ void fma_ref(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  for (int k = 0; k < 64; ++k) x = fmaf(x, 0.5f, 0.25f);
  out[i] = x;
})";
  std::ofstream(dir / "fma.json") << R"json({"name": "fma", "source": "fma.cu", "kernel": "fma_loop", "shape": ["N"],
    "parameters": {"B": [128, 512]}, "block": ["B"], "grid": ["ceil_div(N, B)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true},
                  {"name": "in", "type": "const float*", "size": "N"}, {"name": "n", "type": "int", "value": "N"}],
    "reference": {"kernel": "fma_ref", "block": [256], "grid": ["ceil_div(N, 256)"]},
    "tolerance": {"atol": 1e-6, "rtol": 1e-6}, "metric": {"flops": "128 * N"}})json";
  const KernelSpec spec = load_kernel((dir / "fma.json").string());
  fs::remove_all(dir);
  Device device;
  Workbench bench(device, spec, spec.parse_shape("1000000"), quick());
  const Config config = spec.parse_config("B=512");
  const Result r = bench.evaluate(config, compile_config(spec, config, device.identity().arch()));
  ASSERT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_EQ(r.static_smem_bytes, 512 * 4);
  EXPECT_EQ(r.dynamic_smem_bytes, 0);
  EXPECT_EQ(r.threads_per_block, 512);
  EXPECT_EQ(r.blocks, (1000000 + 511) / 512);
  const DeviceIdentity& id = device.identity();
  EXPECT_DOUBLE_EQ(r.peak, fp32_peak_gflops(id.cc_major, id.cc_minor, id.sm_count, device.clock_khz()));
  EXPECT_GT(r.peak, 1000.0) << "clock " << device.clock_khz() << " kHz";
  EXPECT_LT(fraction_of_peak(r.metric, r.peak), 1.0);
}

TEST(ResourcesGpu, StoredThroughTheWorker) {
  REQUIRE_GPU();
  const fs::path db_path = fs::temp_directory_path() / ("cutune_res_tune_" + std::to_string(::getpid()) + ".db");
  const fs::path cache_dir = fs::temp_directory_path() / ("cutune_res_cache_" + std::to_string(::getpid()));
  {
    Device device;
    Database db(db_path);
    const KernelSpec spec = load_kernel("transpose");
    TuneOptions options;
    options.budget = 6;
    options.measure.repeats = 3;
    options.cache_dir = cache_dir.string();
    options.isolate = true;
    Tuner tuner(device, db, options);
    const ShapeReport report = tuner.tune(spec, spec.parse_shape("2048x2048"));
    ASSERT_TRUE(report.best);
    for (const Result& r : db.results(device.identity(), {spec.name, spec.hash}, "2048x2048")) {
      if (r.status != Status::Ok) continue;
      EXPECT_GT(r.threads_per_block, 0) << r.config;
      EXPECT_GT(r.blocks, 0) << r.config;
      EXPECT_GT(r.blocks_per_sm, 0) << r.config;
      EXPECT_GT(r.peak, 0.0) << r.config;
    }
  }
  fs::remove(db_path);
  fs::remove_all(cache_dir);
}

}  // namespace
}  // namespace cutune
