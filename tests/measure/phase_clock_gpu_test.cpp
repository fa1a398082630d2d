// GPU test of the tuner's clock: a cold run of a small space accounts for its whole wall time, in a worker process
// and in this one, and every result it measured keeps its verification and timing times.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "cutune/database.hpp"
#include "cutune/templates.hpp"
#include "cutune/tuner.hpp"
#include "gpu_support.hpp"
#include "phase_clock_support.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

class PhaseClockGpu : public ::testing::TestWithParam<bool> {};

TEST_P(PhaseClockGpu, ColdRunPhasesAddUpToItsWallTime) {
  REQUIRE_GPU();
  const bool isolate = GetParam();
  const std::string tag = std::to_string(::getpid()) + (isolate ? "_worker" : "_in_process");
  const fs::path dir = fs::temp_directory_path() / ("cutune_phase_clock_gpu_" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  Device device;
  const KernelSpec spec = load_kernel("transpose");
  TuneOptions options;
  options.budget = 10;
  options.isolate = isolate;
  options.cache_dir = (dir / "cubins").string();  // fresh: every configuration is compiled
  ShapeReport report;
  double outside_s = 0.0;
  {
    Database db(dir / "t.db");
    Tuner tuner(device, db, options);
    const auto start = std::chrono::steady_clock::now();
    report = tuner.tune(spec, spec.parse_shape("1024x768"));
    outside_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  const PhaseTimes& t = report.phases;
  EXPECT_EQ(report.evaluated, 10u);
  EXPECT_EQ(report.cache_hits, 0u);
  // The phases add up to the wall time the run reports, and that is the wall time it took, within 5%.
  testing::expect_accounted(report);
  EXPECT_NEAR(t.phase_sum(), outside_s, 0.05 * outside_s) << "wall " << outside_s << " s";
  EXPECT_GT(t.startup_s, 0.0);  // a CUDA context, buffers, the reference
  EXPECT_GT(t.measure_s, 0.0);
  EXPECT_GT(t.compile_cpu_s, 0.0);
  EXPECT_LT(t.other_s, 0.1 * t.wall_s) << "a tenth of the run in no phase: something is not accounted";
  EXPECT_GT(report.verify_seconds, 0.0);
  EXPECT_GT(report.benchmark_seconds, 0.0);
  EXPECT_LE(report.verify_seconds + report.benchmark_seconds, report.measure_seconds);

  Database db(dir / "t.db");
  for (const Result& r : db.results(device.identity(), {spec.name, spec.hash}, "1024x768")) {
    if (r.status == Status::Ok) testing::expect_result_times(r);
  }
  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_TRUE(runs[0].times.has_value());
  EXPECT_DOUBLE_EQ(runs[0].times->wall_s, t.wall_s);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(WorkerAndInProcess, PhaseClockGpu, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "worker" : "in_process"; });

}  // namespace
}  // namespace cutune
