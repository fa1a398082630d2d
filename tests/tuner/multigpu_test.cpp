// Host-only tests of tuning on several GPUs at once: stand-in workers play the GPUs (one per device ordinal),
// NVRTC compiles for real, and every configuration must be measured once, stored once, by whichever GPU was free.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/stop.hpp"
#include "cutune/tuner.hpp"
#include "stand_in_kernel.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kSpace = 20;
constexpr const char* kFakeVariables[] = {"CUTUNE_FAKE_LOG", "CUTUNE_FAKE_SLEEP_MS", "CUTUNE_FAKE_SLOW",
                                          "CUTUNE_FAKE_DEAD", "CUTUNE_FAKE_TIMES", "CUTUNE_FAKE_GATE"};

// What the stand-in workers were sent: per configuration, the devices that evaluated it (re-timing not counted).
struct WorkerLog {
  std::map<std::string, std::vector<int>> evaluated;
  std::map<int, std::size_t> per_device;
  std::size_t retimed = 0;
};

class MultiGpuTest : public ::testing::Test {
 protected:
  MultiGpuTest()
      : dir_(fs::temp_directory_path() / ("cutune_lanes_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name())),
        spec_(test::stand_in_kernel("lanes_k", R"({"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4]})", "A * B")) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);
    ::setenv("CUTUNE_FAKE_LOG", (dir_ / "worker.log").c_str(), 1);
    ::setenv("CUTUNE_FAKE_TIMES", "1", 1);
    device_.name = "Stand-in GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
  }
  ~MultiGpuTest() override {
    for (const char* v : kFakeVariables) ::unsetenv(v);
    reset_stop();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // The cubin cache is shared by the whole test program, so that only the first tune pays for the compiles and the
  // stand-in GPUs, not the compiler, are what limits the pace.
  static std::string cache_dir() { return (fs::temp_directory_path() / ("cutune_lanes_cache_" + std::to_string(::getpid()))).string(); }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(cache_dir(), ignored);
  }

  TuneOptions options(std::size_t budget, const std::string& strategy = "exhaustive") const {
    TuneOptions o;
    o.strategy = strategy;
    o.budget = budget;
    o.cache_dir = cache_dir();
    o.compile_threads = 2;
    o.final_candidates = 2;
    return o;
  }
  ShapeReport tune(const std::vector<int>& gpus, TuneOptions o, const std::string& db_name = "r.db") {
    Database db(dir_ / db_name);
    Tuner tuner(device_, DeviceLimits{}, gpus, db, std::move(o));
    return tuner.tune(spec_, Shape{{1000}});
  }
  std::vector<Result> stored(const std::string& db_name = "r.db") {
    Database db(dir_ / db_name);
    return db.results(device_, {spec_.name, spec_.hash}, "1000");
  }
  WorkerLog worker_log() const {
    WorkerLog log;
    std::ifstream in(dir_ / "worker.log");
    int device = 0;
    std::string kind, config;
    while (in >> device >> kind >> config) {
      if (kind == "retime") {
        ++log.retimed;
        continue;
      }
      log.evaluated[config].push_back(device);
      ++log.per_device[device];
    }
    return log;
  }
  std::set<std::string> configs(const std::vector<Result>& results) {
    std::set<std::string> out;
    for (const auto& r : results) out.insert(r.config);
    return out;
  }

  fs::path dir_;
  KernelSpec spec_;
  DeviceIdentity device_;
};

TEST_F(MultiGpuTest, EveryConfigurationIsMeasuredOnceAndStoredOnce) {
  ::setenv("CUTUNE_FAKE_SLEEP_MS", "20", 1);
  const ShapeReport r = tune({0, 1, 2}, options(0));
  EXPECT_EQ(r.evaluated, kSpace);
  EXPECT_EQ(r.failed, 0u);
  ASSERT_EQ(r.devices.size(), 3u);
  std::size_t shares = 0;
  for (const auto& d : r.devices) {
    shares += d.measured;
    EXPECT_TRUE(d.left.empty()) << d.left;
  }
  EXPECT_EQ(shares, kSpace);

  const WorkerLog log = worker_log();
  EXPECT_EQ(log.evaluated.size(), kSpace);
  for (const auto& [config, devices] : log.evaluated) EXPECT_EQ(devices.size(), 1u) << config << " evaluated twice";
  for (const auto& d : r.devices) EXPECT_EQ(log.per_device.count(d.ordinal) ? log.per_device.at(d.ordinal) : 0u, d.measured);
  // Finalists are re-timed on the first GPU only, so that their times compare.
  EXPECT_GE(log.retimed, 2u);

  const auto results = stored();
  EXPECT_EQ(results.size(), kSpace);
  EXPECT_EQ(configs(results).size(), kSpace);
  for (const auto& x : results) EXPECT_EQ(x.status, Status::Ok) << x.config;
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(r.best->config, results.front().config);  // the tuner's winner is the stored best
  EXPECT_DOUBLE_EQ(r.copy_gbs, 123.0);
}

// The spec's start configurations and the run's own (--start) are measured within the budget, whatever the strategy
// would have picked; one that is not in the space (here: ruled out by --where) stands in for its nearest configuration
// there (one parameter changed by the fewest steps, the earlier parameter first), and one with no such neighbour is
// skipped.
TEST_F(MultiGpuTest, StartConfigurationsAreMeasuredWithinTheBudget) {
  spec_.start = {spec_.parse_config("A=5,B=4"), spec_.parse_config("A=1,B=2")};
  spec_.restrict_to("A * B != 6");
  TuneOptions o = options(4, "random");
  o.start = {"A=2,B=3", "A=4,B=1", "A=5,B=4"};
  const ShapeReport r = tune({0}, o);
  EXPECT_EQ(r.evaluated, 4u);
  const std::set<std::string> measured = configs(stored());
  for (const char* c : {"A=5,B=4", "A=1,B=2", "A=1,B=3", "A=4,B=1"}) EXPECT_TRUE(measured.count(c)) << c;
  EXPECT_FALSE(measured.count("A=2,B=3"));  // A * B == 6: A=1,B=3 (A one step down) instead
  o.start = {"A=9,B=1"};
  EXPECT_THROW(tune({0}, o, "bad.db"), InputError);
}

// A start configuration that no one-parameter change puts in the space is skipped.
TEST_F(MultiGpuTest, AStartWithoutANeighbourInTheSpaceIsSkipped) {
  spec_.restrict_to("A * B == 20 or A * B == 1");  // A=5,B=4 and A=1,B=1 only
  TuneOptions o = options(1, "random");
  o.start = {"A=3,B=3", "A=5,B=3"};  // the first has no neighbour in the space; the second is one step from A=5,B=4
  const ShapeReport r = tune({0}, o);
  EXPECT_EQ(r.evaluated, 1u);
  EXPECT_EQ(configs(stored()), (std::set<std::string>{"A=5,B=4"}));
}

TEST_F(MultiGpuTest, FinalistsAreRetimedOnTheFirstGpu) {
  tune({2, 0}, options(8));
  std::ifstream in(dir_ / "worker.log");
  int device = 0, retimed = 0;
  std::string kind, config;
  while (in >> device >> kind >> config) {
    if (kind != "retime") continue;
    ++retimed;
    EXPECT_EQ(device, 2) << config;  // the first of the list, not the lowest ordinal
  }
  EXPECT_GE(retimed, 2);
}

TEST_F(MultiGpuTest, ASlowGpuMeasuresFewer) {
  tune({0}, options(0), "warm.db");  // fills the cubin cache: compiles then keep up with three GPUs
  ::setenv("CUTUNE_FAKE_SLEEP_MS", "15", 1);
  ::setenv("CUTUNE_FAKE_SLOW", "1:400", 1);
  const ShapeReport r = tune({0, 1, 2}, options(0));
  EXPECT_EQ(r.evaluated, kSpace);
  const auto& d = r.devices;
  ASSERT_EQ(d.size(), 3u);
  EXPECT_GE(d[1].measured, 1u);  // every GPU got a configuration at the start
  EXPECT_LT(d[1].measured, d[0].measured);
  EXPECT_LT(d[1].measured, d[2].measured);
  EXPECT_EQ(d[0].measured + d[1].measured + d[2].measured, kSpace);
}

// Compiles slower than the GPUs measure (a cold run): each compiled configuration finds both GPUs idle, and the one
// idle longest takes it, so that both measure about half instead of the first one nearly everything.
TEST_F(MultiGpuTest, WhenCompilesAreTheBottleneckEveryGpuMeasuresItsShare) {
  TuneOptions o = options(0);
  o.use_cache = false;
  o.compile_threads = 1;
  const ShapeReport r = tune({0, 1}, o);
  EXPECT_EQ(r.evaluated, kSpace);
  ASSERT_EQ(r.devices.size(), 2u);
  for (const auto& d : r.devices) EXPECT_GE(d.measured, 8u) << d.name;  // at least 40% each
  EXPECT_EQ(r.devices[0].measured + r.devices[1].measured, kSpace);
}

TEST_F(MultiGpuTest, AGpuWhoseWorkerKeepsDyingLeavesAndTheOthersFinish) {
  // The healthy GPUs hold their first configuration until the failing one was sent eight (the gate), so that it
  // gets a job every time its worker died, eight times, and leaves.
  ::setenv("CUTUNE_FAKE_DEAD", "1", 1);
  ::setenv("CUTUNE_FAKE_GATE", (dir_ / "gate").c_str(), 1);
  const ShapeReport r = tune({0, 1, 2}, options(0));
  ASSERT_EQ(r.devices.size(), 3u);
  EXPECT_NE(r.devices[1].left.find("in a row"), std::string::npos) << r.devices[1].left;
  EXPECT_EQ(r.devices[1].measured, 0u);  // its crashes were the GPU's, not the configurations': measured elsewhere
  EXPECT_TRUE(r.devices[0].left.empty() && r.devices[2].left.empty());
  EXPECT_EQ(r.evaluated, kSpace);
  EXPECT_EQ(r.failed, 0u);
  const auto results = stored();
  EXPECT_EQ(configs(results).size(), kSpace);
  for (const auto& x : results) EXPECT_EQ(x.status, Status::Ok) << x.config << ": " << x.message;
  EXPECT_EQ(worker_log().per_device[1], 8u);
}

TEST_F(MultiGpuTest, CrashesOfAGpuThatStaysGetASecondOpinion) {
  // The failing GPU may not reach the failures in a row that make it leave: what it still holds at the end of the
  // shape is measured on another GPU, and nothing it crashed is stored as the configuration's failure.
  ::setenv("CUTUNE_FAKE_SLEEP_MS", "10", 1);
  ::setenv("CUTUNE_FAKE_DEAD", "1", 1);
  const ShapeReport r = tune({0, 1, 2}, options(0));
  EXPECT_EQ(r.devices[1].measured, 0u);
  EXPECT_EQ(r.evaluated, kSpace);
  EXPECT_EQ(r.failed, 0u);
  for (const auto& x : stored()) EXPECT_EQ(x.status, Status::Ok) << x.config << ": " << x.message;
}

TEST_F(MultiGpuTest, AConfigurationThatCrashesEverywhereIsStoredAsACrashOnce) {
  const KernelSpec spec = test::stand_in_kernel("lanes_crash", R"({"MODE": [0, 1], "X": [1, 2, 3, 4]})", "MODE * X");
  ::setenv("CUTUNE_FAKE_SLEEP_MS", "10", 1);  // MODE=1 makes the stand-in abort on every GPU
  Database db(dir_ / "r.db");
  Tuner tuner(device_, DeviceLimits{}, std::vector<int>{0, 1}, db, options(0));
  const ShapeReport r = tuner.tune(spec, Shape{{1000}});
  EXPECT_EQ(r.evaluated, 8u);
  EXPECT_EQ(r.failed, 4u);
  const auto results = db.results(device_, {spec.name, spec.hash}, "1000");
  EXPECT_EQ(results.size(), 8u);
  for (const auto& x : results) {
    EXPECT_EQ(x.status, x.config.find("MODE=1") == 0 ? Status::RuntimeError : Status::Ok) << x.config;
  }
  // A crash counts at once when its GPU then measures something correctly (the GPU works); one still held at the end
  // gets a second opinion, never from the GPU that crashed it first. Nothing is measured a third time.
  for (const auto& [config, devices] : worker_log().evaluated) {
    ASSERT_LE(devices.size(), config.find("MODE=1") == 0 ? 2u : 1u) << config;
    if (devices.size() == 2) EXPECT_NE(devices[0], devices[1]) << config;
  }
}

TEST_F(MultiGpuTest, WhenEveryGpuLeavesTheRunStopsWithTheLastError) {
  ::setenv("CUTUNE_FAKE_DEAD", "0", 1);
  try {
    tune({0}, options(0));
    FAIL() << "a run whose only GPU keeps crashing finished";
  } catch (const CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("in a row"), std::string::npos) << e.what();
  }
  // As on one GPU before: the crashes before the last one are stored, as runtime errors.
  const auto results = stored();
  EXPECT_EQ(results.size(), 7u);
  for (const auto& x : results) EXPECT_EQ(x.status, Status::RuntimeError);
}

TEST_F(MultiGpuTest, WhatIsStoredDoesNotDependOnHowManyGpus) {
  for (const std::string strategy : {"exhaustive", "random"}) {
    const ShapeReport one = tune({0}, options(12, strategy), strategy + "_one.db");
    const ShapeReport three = tune({0, 1, 2}, options(12, strategy), strategy + "_three.db");
    EXPECT_EQ(configs(stored(strategy + "_one.db")), configs(stored(strategy + "_three.db"))) << strategy;
    ASSERT_TRUE(one.best && three.best);
    EXPECT_EQ(one.best->config, three.best->config) << strategy;
    EXPECT_EQ(three.evaluated, 12u);
  }
}

TEST_F(MultiGpuTest, ResumeMeasuresOnlyTheDifference) {
  ::setenv("CUTUNE_FAKE_SLEEP_MS", "10", 1);
  EXPECT_EQ(tune({0, 1, 2}, options(6, "bayes")).evaluated, 6u);
  const ShapeReport more = tune({1, 0}, options(10, "bayes"));
  EXPECT_EQ(more.resumed, 6u);
  EXPECT_EQ(more.evaluated, 4u);
  EXPECT_EQ(configs(stored()).size(), 10u);
  for (const auto& [config, devices] : worker_log().evaluated) EXPECT_EQ(devices.size(), 1u) << config;
  EXPECT_EQ(tune({0, 1}, options(10, "bayes")).evaluated, 0u);
}

TEST_F(MultiGpuTest, StopRequestEndsEveryLaneAndResumeCompletes) {
  ::setenv("CUTUNE_FAKE_SLEEP_MS", "30", 1);
  TuneOptions o = options(0);
  o.on_progress = [](const Progress& p) {
    if (p.done == 5) request_stop();
  };
  EXPECT_THROW(tune({0, 1, 2}, o), Interrupted);
  reset_stop();
  const std::size_t kept = configs(stored()).size();
  EXPECT_GE(kept, 5u);
  EXPECT_LT(kept, kSpace);
  const ShapeReport rest = tune({0, 1, 2}, options(0));
  EXPECT_EQ(rest.resumed, kept);
  EXPECT_EQ(rest.evaluated, kSpace - kept);
  EXPECT_EQ(configs(stored()).size(), kSpace);
}

TEST_F(MultiGpuTest, ATunerKeepsItsWorkersForTheNextShape) {
  Database db(dir_ / "r.db");
  Tuner tuner(device_, DeviceLimits{}, std::vector<int>{0, 1}, db, options(0));
  const ShapeReport a = tuner.tune(spec_, Shape{{1000}});
  const ShapeReport b = tuner.tune(spec_, Shape{{2000}});
  EXPECT_EQ(a.evaluated, kSpace);
  EXPECT_EQ(b.evaluated, kSpace);
  EXPECT_EQ(db.results(device_, {spec_.name, spec_.hash}, "2000").size(), kSpace);
}

// Shapes announced with expect() have their spaces enumerated in the background; each tunes as without (the space of
// the --where-narrowed spec, not of another spec object), and a shape not announced still tunes.
TEST_F(MultiGpuTest, ExpectedShapesTuneAsTheyWouldWithout) {
  Database db(dir_ / "r.db");
  KernelSpec narrowed = spec_;
  narrowed.restrict_to("A != 2");
  Tuner tuner(device_, DeviceLimits{}, std::vector<int>{0}, db, options(0));
  tuner.expect(narrowed, {Shape{{1000}}, Shape{{2000}}});
  EXPECT_EQ(tuner.tune(narrowed, Shape{{1000}}).evaluated, kSpace - 4);
  EXPECT_EQ(tuner.tune(narrowed, Shape{{2000}}).evaluated, kSpace - 4);
  EXPECT_EQ(tuner.tune(spec_, Shape{{3000}}).evaluated, kSpace);
  EXPECT_EQ(db.results(device_, {spec_.name, spec_.hash}, "2000").size(), kSpace - 4);
}

TEST_F(MultiGpuTest, ARepeatedOrEmptyGpuListIsRefused) {
  Database db(dir_ / "r.db");
  EXPECT_THROW(Tuner(device_, DeviceLimits{}, std::vector<int>{0, 0}, db, options(0)), InputError);
  EXPECT_THROW(Tuner(device_, DeviceLimits{}, std::vector<int>{}, db, options(0)), InputError);
}

}  // namespace
}  // namespace cutune
