// GPU test of crash isolation: the fault-injection space tunes to the end with every failure recorded as what it is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "gpu_support.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/templates.hpp"
#include "cutune/tuner.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

// The source tree: CUTUNE_SOURCE_DIR when set, else where it was at build time, else the working directory
// (the GPU machine runs the tests from a copy of the tree).
fs::path source_dir() {
  if (const char* dir = std::getenv("CUTUNE_SOURCE_DIR")) return dir;
  if (fs::exists(fs::path(CUTUNE_SOURCE_DIR) / "tests/faults/fault.json")) return CUTUNE_SOURCE_DIR;
  return fs::current_path();
}

TEST(CrashIsolationGpu, FaultSpaceTunesToTheEndWithEveryStatusRight) {
  REQUIRE_GPU();
  const KernelSpec spec = load_kernel((source_dir() / "tests/faults/fault.json").string());
  const fs::path db_path = fs::temp_directory_path() / ("cutune_fault_" + std::to_string(::getpid()) + ".db");
  const fs::path cache = fs::temp_directory_path() / ("cutune_fault_cache_" + std::to_string(::getpid()));
  Device device;
  TuneOptions options;
  options.isolate = true;
  options.timeout_floor_s = 3.0;
  options.measure.repeats = 3;
  options.final_candidates = 1;
  options.cache_dir = cache.string();
  const Shape shape{{100003}};
  std::map<std::string, Status> status;
  ShapeReport report;
  {
    Database db(db_path);
    report = Tuner(device, db, options).tune(spec, shape);
    for (const auto& r : db.results(device.identity(), {spec.name, spec.hash}, shape.str())) status[r.config] = r.status;
  }
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db_path.string() + suffix);
  fs::remove_all(cache);

  const std::map<int, Status> expected = {{0, Status::Ok},           {1, Status::RuntimeError}, {2, Status::RuntimeError},
                                          {3, Status::RuntimeError}, {4, Status::Timeout},      {5, Status::LaunchError},
                                          {6, Status::WrongResult}};
  ASSERT_EQ(status.size(), 14u);
  for (int b : {64, 128}) {
    for (const auto& [mode, want] : expected) {
      const std::string config = "B=" + std::to_string(b) + ",MODE=" + std::to_string(mode);
      ASSERT_TRUE(status.count(config)) << config;
      EXPECT_EQ(to_string(status[config]), to_string(want)) << config;
    }
  }
  EXPECT_EQ(report.evaluated, 14u);
  EXPECT_EQ(report.failed, 12u);
  ASSERT_TRUE(report.best);
  EXPECT_NE(report.best->config.find("MODE=0"), std::string::npos);
}

}  // namespace
}  // namespace cutune
