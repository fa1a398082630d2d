// Host tests of tuning through outside kills: the stand-in worker and its compiler processes kill themselves on the
// configurations that say so (MODE=5, KILL_COMPILER=9), NVRTC compiles for real, and the database must end up with
// no failure for those configurations: interrupted ones are ignored by best and the budget, and measured on resume.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "cutune/database.hpp"
#include "cutune/tuner.hpp"
#include "stand_in_kernel.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

class OutsideKillTuneTest : public ::testing::Test {
 protected:
  OutsideKillTuneTest()
      : dir_(fs::temp_directory_path() / ("cutune_kill_tune_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);  // the worker, and the compiler processes
    ::setenv("CUTUNE_FAKE_KILL_LOG", (dir_ / "kills").c_str(), 1);
    device_.name = "Stand-in GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
  }
  ~OutsideKillTuneTest() override {
    for (const char* name : {"CUTUNE_FAKE_KILL_LOG", "CUTUNE_FAKE_KILLS"}) ::unsetenv(name);
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // The processes kill themselves only this many times in all (no call: every time they are told to).
  static void kills(int n) { ::setenv("CUTUNE_FAKE_KILLS", std::to_string(n).c_str(), 1); }

  ShapeReport tune(const KernelSpec& spec, std::size_t budget) {
    Database db(dir_ / "k.db");
    TuneOptions options;
    options.budget = budget;
    options.use_cache = false;
    options.compile_threads = 2;
    options.final_candidates = 1;
    Tuner tuner(device_, DeviceLimits{}, 0, db, options);
    return tuner.tune(spec, Shape{{1000}});
  }
  // The current status of each stored configuration.
  std::map<std::string, Status> stored(const KernelSpec& spec) {
    Database db(dir_ / "k.db");
    std::map<std::string, Status> out;
    for (const auto& r : db.results(device_, {spec.name, spec.hash}, "1000")) out[r.config] = r.status;
    return out;
  }
  std::size_t count(const KernelSpec& spec, Status status) {
    std::size_t n = 0;
    for (const auto& [config, s] : stored(spec)) n += s == status;
    return n;
  }
  std::optional<BestConfig> best(const KernelSpec& spec) {
    Database db(dir_ / "k.db");
    return db.best(BestQuery{spec.name, spec.hash, device_, "1000"});
  }

  fs::path dir_;
  DeviceIdentity device_;
};

TEST_F(OutsideKillTuneTest, AWorkerKilledOnceCostsNothing) {
  kills(1);
  const KernelSpec spec = test::stand_in_kernel("kill_once", R"({"MODE": [0, 5], "B": [1, 2]})", "MODE * B");
  const ShapeReport r = tune(spec, 0);
  EXPECT_EQ(r.evaluated, 4u);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(r.interrupted, 0u);
  EXPECT_EQ(count(spec, Status::Ok), 4u);
}

TEST_F(OutsideKillTuneTest, KilledTwiceIsInterruptedIgnoredByBestAndTheBudgetAndMeasuredOnResume) {
  const KernelSpec spec = test::stand_in_kernel("kill_twice", R"({"MODE": [0, 5], "B": [1, 2, 3, 4]})", "MODE * B");
  const ShapeReport first = tune(spec, 0);
  EXPECT_EQ(first.evaluated, 8u);
  EXPECT_EQ(first.interrupted, 4u);
  EXPECT_EQ(first.failed, 0u);  // nothing is stored as the configurations' failure
  for (const auto& [config, status] : stored(spec)) {
    EXPECT_EQ(status, config.find("MODE=5") != std::string::npos ? Status::Interrupted : Status::Ok) << config;
  }
  ASSERT_TRUE(first.best.has_value());
  EXPECT_EQ(first.best->config.rfind("MODE=0", 0), 0u) << first.best->config;
  const auto found = best(spec);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->result.config.rfind("MODE=0", 0), 0u) << found->result.config;

  // The same command, the kills over: only the four usable results count against a budget of 6, so two are measured,
  // and those are interrupted ones (they go first).
  kills(0);
  const ShapeReport partial = tune(spec, 6);
  EXPECT_EQ(partial.resumed, 4u);
  EXPECT_EQ(partial.evaluated, 2u);
  EXPECT_EQ(partial.interrupted, 0u);
  EXPECT_EQ(count(spec, Status::Interrupted), 2u);
  EXPECT_EQ(count(spec, Status::Ok), 6u);

  const ShapeReport rest = tune(spec, 8);
  EXPECT_EQ(rest.resumed, 6u);
  EXPECT_EQ(rest.evaluated, 2u);
  EXPECT_EQ(count(spec, Status::Ok), 8u);
  EXPECT_EQ(tune(spec, 8).evaluated, 0u);
}

TEST_F(OutsideKillTuneTest, OnlyInterruptedResultsMeanNoBest) {
  const KernelSpec spec = test::stand_in_kernel("kill_all", R"({"MODE": [5], "B": [1, 2]})", "MODE * B");
  const ShapeReport r = tune(spec, 0);
  EXPECT_EQ(r.interrupted, 2u);
  EXPECT_FALSE(r.best.has_value());
  EXPECT_FALSE(best(spec).has_value());
  EXPECT_EQ(count(spec, Status::Interrupted), 2u);
}

TEST_F(OutsideKillTuneTest, ACompileKilledTwiceIsInterruptedAndCompiledOnResume) {
  const KernelSpec spec = test::stand_in_kernel("kill_compile", R"({"KILL_COMPILER": [0, 9], "B": [1, 2]})", "B");
  const ShapeReport first = tune(spec, 0);
  EXPECT_EQ(first.interrupted, 2u);
  EXPECT_EQ(first.failed, 0u);
  EXPECT_EQ(count(spec, Status::Interrupted), 2u);
  EXPECT_EQ(count(spec, Status::CompileError), 0u);

  kills(0);
  const ShapeReport again = tune(spec, 0);
  EXPECT_EQ(again.resumed, 2u);
  EXPECT_EQ(again.evaluated, 2u);
  EXPECT_EQ(count(spec, Status::Ok), 4u);
}

}  // namespace
}  // namespace cutune
