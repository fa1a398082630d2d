// GPU tests of the Hopper spec features through copy2d_tma: tensor maps encoded per configuration, cluster launches
// (distributed shared memory included), in the workbench, a brief tuning run in workers, and the runtime API.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <random>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/runtime.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "cutune/tuner.hpp"
#include "gpu_support.hpp"
#include "driver/cuda_driver.hpp"
#include "measure/workbench.hpp"
#include "space_sample.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

// Tensor maps and clusters need compute capability 9.0 or later.
#define REQUIRE_HOPPER(device)                                                                     \
  if ((device).identity().cc_major < 9)                                                            \
  GTEST_SKIP() << "copy2d_tma needs compute capability 9.0; this GPU has " << (device).identity().arch()

bool clustered(const KernelSpec& spec, const Config& c) {
  return spec.resolve(spec.launch, c, spec.parse_shape("64x64"), 132).cluster_size() > 1;
}

bool has(const KernelSpec& spec, const Config& c, const char* name, int value) {
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
    if (spec.parameters[p].name == name) return c.values[p] == Value(value);
  }
  return false;
}

// Odd row counts (boxes partly outside the tensor, grids rounded up to whole clusters) and a wide matrix.
TEST(HopperGpu, CoveringSampleOfCopy2dTmaIsCorrect) {
  REQUIRE_GPU();
  Device device;
  REQUIRE_HOPPER(device);
  const KernelSpec spec = load_kernel("copy2d_tma");
  CubinCache cache(fs::temp_directory_path() / ("cutune_hopper_cache_" + std::to_string(::getpid())));
  for (const char* text : {"33x100", "1000x1000", "256x4096"}) {
    const Shape shape = spec.parse_shape(text);
    const Space space = Space::enumerate(spec, shape, device.limits());
    ASSERT_GT(space.size(), 0u) << text;
    const std::vector<Config> sample = testing::sample_space(spec, space, 40);
    CompilePool pool;
    std::vector<std::future<CompileOutput>> compiled;
    for (const Config& c : sample) {
      compiled.push_back(pool.submit([&, c] { return compile_config_cached(&cache, spec, c, device.identity().arch()); }));
    }
    Workbench bench(device, spec, shape, testing::quick_measure());
    int clusters_ok = 0, peers_ok = 0, tma_stores_ok = 0;
    for (std::size_t i = 0; i < sample.size(); ++i) {
      const Result r = bench.evaluate(sample[i], compiled[i].get());
      EXPECT_EQ(r.status, Status::Ok) << text << " " << r.config << ": " << r.message;
      if (r.status != Status::Ok) continue;
      clusters_ok += clustered(spec, sample[i]);
      peers_ok += has(spec, sample[i], "PEER", 1);
      tma_stores_ok += has(spec, sample[i], "STORE", 1);
    }
    EXPECT_GT(clusters_ok, 0) << text;
    EXPECT_GT(peers_ok, 0) << text;
    EXPECT_GT(tma_stores_ok, 0) << text;
  }
  fs::remove_all(cache.directory());
}

// A brief tuning run in worker processes: every result right, clustered configurations among them.
TEST(HopperGpu, TunesCopy2dTmaBriefly) {
  REQUIRE_GPU();
  Device device;
  REQUIRE_HOPPER(device);
  const KernelSpec spec = load_kernel("copy2d_tma");
  const fs::path db_path = fs::temp_directory_path() / ("cutune_hopper_" + std::to_string(::getpid()) + ".db");
  const fs::path cache = fs::temp_directory_path() / ("cutune_hopper_tune_" + std::to_string(::getpid()));
  TuneOptions options;
  options.strategy = "random";
  options.budget = 48;
  options.measure.repeats = 3;
  options.final_candidates = 1;
  options.cache_dir = cache.string();
  const Shape shape = spec.parse_shape("2048x2048");
  ShapeReport report;
  std::vector<Result> results;
  {
    Database db(db_path);
    report = Tuner(device, db, options).tune(spec, shape);
    results = db.results(device.identity(), {spec.name, spec.hash}, shape.str());
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db_path.string() + suffix);
  fs::remove_all(cache);
  EXPECT_EQ(results.size(), 48u);
  int clusters = 0;
  for (const Result& r : results) {
    EXPECT_EQ(r.status, Status::Ok) << r.config << ": " << r.message;
    clusters += r.status == Status::Ok && clustered(spec, spec.parse_config(r.config));
  }
  EXPECT_GT(clusters, 0);
  ASSERT_TRUE(report.best);
  EXPECT_GT(report.best->metric, 0.0);
}

// The runtime API encodes the tensor maps over the pointers passed in their places and launches with the cluster.
TEST(HopperGpu, RuntimeLaunchesWithTensorMapsAndClusters) {
  REQUIRE_GPU();
  Device device;
  REQUIRE_HOPPER(device);
  // A default with a cluster of 4 whose blocks store each other's boxes.
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(load_kernel("copy2d_tma").json);
  j["parameters"]["CX"]["default"] = 2;
  j["parameters"]["CY"]["default"] = 2;
  j["parameters"]["PEER"]["default"] = 1;
  const KernelSpec base = load_kernel("copy2d_tma");
  const KernelSpec spec = KernelSpec::from_json(j.dump(), base.source, base.source_name);
  const int m = 100, n = 260;
  Runtime runtime({.database = {}, .cache_directory = {}, .device = device.ordinal()});
  const RuntimeKernel& kernel = runtime.kernel(spec, spec.parse_shape("100x260"));
  EXPECT_EQ(kernel.geometry().cluster_size(), 4);

  device.make_current();
  std::vector<float> in(static_cast<std::size_t>(m) * n), out(in.size(), -1.0f);
  std::mt19937 random(7);
  for (auto& x : in) x = std::uniform_real_distribution<float>(-1, 1)(random);
  detail::DeviceBuffer d_in(in.size() * sizeof(float)), d_out(out.size() * sizeof(float));
  CU_CHECK(cuMemcpyHtoD, d_in.get(), in.data(), d_in.bytes());
  CU_CHECK(cuMemcpyHtoD, d_out.get(), out.data(), d_out.bytes());
  const CUdeviceptr out_ptr = d_out.get(), in_ptr = d_in.get();
  kernel(nullptr, out_ptr, in_ptr, in_ptr, out_ptr, m, n);  // out, in, in_map's tensor, out_map's tensor, M, N
  CU_CHECK(cuCtxSynchronize);
  CU_CHECK(cuMemcpyDtoH, out.data(), d_out.get(), d_out.bytes());
  EXPECT_EQ(std::memcmp(out.data(), in.data(), in.size() * sizeof(float)), 0);
  // A tensor that is not 16-byte aligned is refused before the driver sees it.
  const CUdeviceptr unaligned = in_ptr + 4;
  EXPECT_THROW(kernel(nullptr, out_ptr, in_ptr, unaligned, out_ptr, m, n), InputError);
}

}  // namespace
}  // namespace cutune
