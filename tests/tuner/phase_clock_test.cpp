// Host-only tests of the tuner's clock: phases on synthetic times, and runs of a stand-in worker whose phases add up
// to their wall time, with each result's verify, benchmark, framework and search times stored.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "cutune/database.hpp"
#include "cutune/tuner.hpp"
#include "db_test_support.hpp"
#include "phase_clock_support.hpp"
#include "stand_in_kernel.hpp"
#include "tuner/phase_clock.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;
using detail::LaneSpan;
using detail::Phase;
using detail::PhaseClock;
using Clock = PhaseClock::Clock;

Clock::time_point at(const Clock::time_point t0, double s) {
  return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

TEST(PhaseClock, ChargesEachSwitchToThePhaseItLeaves) {
  const auto t0 = Clock::now();
  PhaseClock clock(Phase::Startup, t0);
  EXPECT_EQ(clock.enter(Phase::Search, at(t0, 1.0)), Phase::Startup);
  clock.enter(Phase::Store, at(t0, 1.5));
  clock.enter(Phase::Other, at(t0, 3.5));
  clock.enter(Phase::Search, at(t0, 3.75));
  const PhaseTimes t = clock.read(at(t0, 4.0));
  EXPECT_NEAR(t.wall_s, 4.0, 1e-9);
  EXPECT_NEAR(t.startup_s, 1.0, 1e-9);
  EXPECT_NEAR(t.search_s, 0.75, 1e-9);
  EXPECT_NEAR(t.store_s, 2.0, 1e-9);
  EXPECT_NEAR(t.other_s, 0.25, 1e-9);
  EXPECT_EQ(t.compile_wait_s, 0.0);
  EXPECT_EQ(t.measure_s, 0.0);
  EXPECT_NEAR(t.phase_sum(), t.wall_s, 1e-9);
}

// A wait is measuring while some lane measures, start-up while a lane holds a job it has not begun (its worker
// starting, the shape being prepared), and compiling while no lane has a job.
TEST(PhaseClock, SplitsWaitsByWhatTheLanesDid) {
  const auto t0 = Clock::now();
  PhaseClock clock(Phase::Waiting, t0);
  clock.add(LaneSpan{at(t0, 1.0), at(t0, 3.0), at(t0, 6.0)});  // lane 0: prepares 1-3, measures 3-6
  clock.add(LaneSpan{at(t0, 5.0), at(t0, 5.0), at(t0, 8.0)});  // lane 1: measures 5-8
  clock.enter(Phase::Store, at(t0, 10.0));
  const PhaseTimes t = clock.read(at(t0, 11.0));
  EXPECT_NEAR(t.compile_wait_s, 3.0, 1e-9);  // 0-1 and 8-10
  EXPECT_NEAR(t.startup_s, 2.0, 1e-9);
  EXPECT_NEAR(t.measure_s, 5.0, 1e-9);
  EXPECT_NEAR(t.store_s, 1.0, 1e-9);
  EXPECT_NEAR(t.phase_sum(), 11.0, 1e-9);
}

// Only the tuner thread's waits are split: while it stores, a lane that measures does not make it measuring.
TEST(PhaseClock, WhatTheThreadDoesItselfOutranksTheLanes) {
  const auto t0 = Clock::now();
  PhaseClock clock(Phase::Store, t0);
  clock.enter(Phase::Waiting, at(t0, 2.0));
  clock.add(LaneSpan{t0, t0, at(t0, 3.0)});
  const PhaseTimes t = clock.read(at(t0, 4.0));
  EXPECT_NEAR(t.store_s, 2.0, 1e-9);
  EXPECT_NEAR(t.measure_s, 1.0, 1e-9);
  EXPECT_NEAR(t.compile_wait_s, 1.0, 1e-9);
}

TEST(PhaseClock, ScopeRestoresThePhaseItReplaced) {
  PhaseClock clock(Phase::Other);
  {
    const detail::PhaseScope searching(&clock, Phase::Search);
    EXPECT_EQ(clock.enter(Phase::Search), Phase::Search);
    const detail::PhaseScope none(nullptr, Phase::Store);  // no clock: nothing happens
  }
  EXPECT_EQ(clock.enter(Phase::Other), Phase::Other);
}

class PhaseClockRun : public ::testing::Test {
 protected:
  PhaseClockRun()
      : dir_(fs::temp_directory_path() / ("cutune_phase_clock_" + std::to_string(::getpid()))),
        spec_(test::stand_in_kernel("clock_k", R"({"A": [1, 2, 3, 4], "B": [1, 2, 3]})", "A * B")) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);
    ::setenv("CUTUNE_FAKE_SLEEP_MS", "20", 1);
    ::setenv("CUTUNE_FAKE_PREPARE_MS", "300", 1);
    device_.name = "Stand-in GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
  }
  ~PhaseClockRun() override {
    ::unsetenv("CUTUNE_FAKE_SLEEP_MS");
    ::unsetenv("CUTUNE_FAKE_PREPARE_MS");
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  TuneOptions options() const {
    TuneOptions o;
    o.strategy = "exhaustive";
    o.use_cache = false;
    o.compile_threads = 2;
    o.final_candidates = 2;
    o.final_repeats = 5;
    return o;
  }
  fs::path dir_;
  KernelSpec spec_;
  DeviceIdentity device_;
};

TEST_F(PhaseClockRun, PhasesAddUpToTheWallTimeAndEachResultKeepsItsTimes) {
  Database db(dir_ / "t.db");
  ShapeReport report;
  {
    Tuner tuner(device_, DeviceLimits{}, 0, db, options());
    report = tuner.tune(spec_, Shape{{1000}});
  }
  ASSERT_EQ(report.evaluated, 12u);
  testing::expect_accounted(report);
  const PhaseTimes& t = report.phases;
  // 12 configurations of 20 ms and 2 finalists re-timed: 0.28 s on the GPU, half verifying, half timing. The tuner's
  // thread measures while it waits for them, not while it stores or searches: at most that long. The worker's 0.3 s
  // of preparing the shape is start-up, not measuring.
  EXPECT_GE(report.verify_seconds, 0.14);
  EXPECT_GE(report.benchmark_seconds, 0.14);
  EXPECT_GE(report.measure_seconds, report.verify_seconds + report.benchmark_seconds);
  EXPECT_GT(t.measure_s, 0.1);
  // Two clocks read on two threads, tens of microseconds apart, or a few ms on a loaded machine (seen: 1.5 ms).
  EXPECT_LE(t.measure_s, report.measure_seconds + 5e-3);
  EXPECT_GE(t.startup_s, 0.28);
  EXPECT_GT(t.compile_cpu_s, 0.0);  // NVRTC compiled every configuration (no cache)
  EXPECT_GT(t.store_s, 0.0);
  EXPECT_GT(t.search_s, 0.0);

  // Every result carries its own times; the run carries the report's phases.
  const auto results = db.results(device_, {spec_.name, spec_.hash}, "1000");
  ASSERT_EQ(results.size(), 12u);
  std::size_t proposed = 0;
  for (const Result& r : results) {
    testing::expect_result_times(r);
    EXPECT_GE(r.verify_ms, 9.0) << r.config;  // the stand-in's 10 ms of each
    EXPECT_GE(r.benchmark_ms, 9.0) << r.config;
    EXPECT_LT(r.framework_ms, 1000.0) << r.config;
    proposed += r.search_ms > 0.0;
  }
  EXPECT_EQ(proposed, results.size() - report.retimed);  // a finalist's re-timing replaced its first evaluation
  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_TRUE(runs[0].times.has_value());
  testing::expect_same_times(*runs[0].times, t);
}

// The second shape of a tuner finds the worker started: its start-up is preparing the shape, and its phases still
// add up; a shape with nothing left to measure accounts for its (short) time too, and stores no run.
TEST_F(PhaseClockRun, EveryShapeOfATunerIsAccounted) {
  Database db(dir_ / "t.db");
  Tuner tuner(device_, DeviceLimits{}, 0, db, options());
  const ShapeReport first = tuner.tune(spec_, Shape{{1000}});
  const ShapeReport second = tuner.tune(spec_, Shape{{2000}});
  const ShapeReport again = tuner.tune(spec_, Shape{{2000}});
  for (const ShapeReport* r : {&first, &second, &again}) testing::expect_accounted(*r);
  EXPECT_GE(second.phases.startup_s, 0.28);
  EXPECT_EQ(again.evaluated, 0u);
  EXPECT_EQ(again.phases.measure_s, 0.0);
  EXPECT_EQ(db.runs().size(), 2u);
}

// On two stand-in GPUs the tuner's thread measures while either one does.
TEST_F(PhaseClockRun, SeveralGpusAreAccountedOnTheTunersThread) {
  Database db(dir_ / "t.db");
  Tuner tuner(device_, DeviceLimits{}, std::vector<int>{0, 1}, db, options());
  const ShapeReport r = tuner.tune(spec_, Shape{{1000}});
  testing::expect_accounted(r);
  EXPECT_GT(r.phases.measure_s, 0.05);
  EXPECT_LE(r.phases.measure_s, r.measure_seconds);  // the GPUs' times overlap on the tuner's clock
  EXPECT_GE(r.measure_seconds, r.verify_seconds + r.benchmark_seconds);
}

}  // namespace
}  // namespace cutune
