// Host tests of `tune`'s prior: what the database holds of the same kernel version and shape on other GPUs is
// measured first (after --start), a resumed run goes on with it, and a database without such GPUs changes nothing.
// A stand-in worker measures; NVRTC compiles for real.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "cutune/database.hpp"
#include "cutune/tuner.hpp"
#include "stand_in_kernel.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

class PriorTuneTest : public ::testing::Test {
 protected:
  PriorTuneTest()
      : dir_(fs::temp_directory_path() / ("cutune_prior_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name())),
        spec_(test::stand_in_kernel("prior_k", R"({"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4]})", "A * B")) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);
    ::setenv("CUTUNE_FAKE_TIMES", "1", 1);
    self_.name = "Stand-in GPU";
    self_.cc_major = 9;
    self_.sm_count = 132;
    other_.name = "Other GPU";
    other_.cc_major = 8;
    other_.cc_minor = 6;
    other_.sm_count = 84;
  }
  ~PriorTuneTest() override {
    ::unsetenv("CUTUNE_FAKE_TIMES");
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // Stores outcomes of `device` for `kernel` at `shape` in database `name`: configuration text and time (0: failed).
  void store(const std::string& name, const DeviceIdentity& device, const KernelIdentity& kernel, const std::string& shape,
             const std::vector<std::pair<std::string, double>>& outcomes) {
    Database db(dir_ / name);
    const std::int64_t run = db.begin_run(device, kernel, "test");
    for (const auto& [config, ms] : outcomes) {
      Result r;
      r.config = config;
      r.status = ms > 0 ? Status::Ok : Status::RuntimeError;
      r.median_ms = ms;
      db.record(run, shape, r);
    }
  }
  void store_other(const std::string& name) {
    store(name, other_, {spec_.name, spec_.hash}, "1000",
          {{"A=4,B=2", 0.5}, {"A=1,B=3", 0.4}, {"A=5,B=4", 0.0}, {"A=2,B=2", 0.9}, {"A=3,B=1", 0.6}, {"A=9,B=9", 0.1}});
  }

  // Tunes on the stand-in GPU with database `name`; returns the configurations this device has stored afterwards.
  std::set<std::string> tune(const std::string& name, std::size_t budget, bool prior = true,
                             std::vector<std::string> start = {}) {
    Database db(dir_ / name);
    TuneOptions options;
    options.budget = budget;
    options.use_cache = false;
    options.compile_threads = 2;
    options.final_candidates = 1;
    options.prior = prior;
    options.start = std::move(start);
    Tuner tuner(self_, DeviceLimits{}, 0, db, options);
    last_ = tuner.tune(spec_, Shape{{1000}});
    std::set<std::string> configs;
    for (const auto& r : db.results(self_, {spec_.name, spec_.hash}, "1000")) configs.insert(r.config);
    return configs;
  }

  fs::path dir_;
  KernelSpec spec_;
  DeviceIdentity self_, other_;
  ShapeReport last_;  // of the latest tune()
};

TEST_F(PriorTuneTest, AnotherGpusTwoFastestFirstAfterStart) {
  // The other GPU's fastest are A=1,B=3 then A=4,B=2 (A=9,B=9 is not in this space, A=5,B=4 failed there).
  store_other("a.db");
  EXPECT_EQ(tune("a.db", 1), (std::set<std::string>{"A=1,B=3"}));
  store_other("b.db");
  EXPECT_EQ(tune("b.db", 2), (std::set<std::string>{"A=1,B=3", "A=4,B=2"}));
  store_other("c.db");
  EXPECT_EQ(tune("c.db", 2, true, {"A=5,B=1"}), (std::set<std::string>{"A=5,B=1", "A=1,B=3"}));
  store_other("d.db");
  EXPECT_EQ(tune("d.db", 3, true, {"A=5,B=1"}), (std::set<std::string>{"A=5,B=1", "A=1,B=3", "A=4,B=2"}));
}

TEST_F(PriorTuneTest, ResumedMidwayGoesOnWithThePriorAndMeasuresNothingTwice) {
  store_other("r.db");
  EXPECT_EQ(tune("r.db", 1), (std::set<std::string>{"A=1,B=3"}));
  const auto after = tune("r.db", 8);
  EXPECT_EQ(last_.resumed, 1u);
  EXPECT_EQ(last_.evaluated, 7u);
  EXPECT_EQ(after.size(), 8u);
  EXPECT_EQ(after.count("A=4,B=2"), 1u) << "the prior's second proposal is still measured";
  EXPECT_EQ(tune("r.db", 8), after);
  EXPECT_EQ(last_.evaluated, 0u);
}

TEST_F(PriorTuneTest, NoOtherGpuOrNoPriorChangesNothing) {
  // Two evaluations: the default's first guess and first design point, which do not depend on outcomes (its later
  // proposals depend on the order in which outcomes arrive, which varies from run to run with several in flight).
  const auto plain = tune("empty.db", 2);
  // Only this device, another kernel, another shape, or the same kernel name under another version on another GPU.
  store("unrelated.db", self_, {spec_.name, spec_.hash}, "2000", {{"A=1,B=3", 0.4}});
  store("unrelated.db", other_, {"another_k", spec_.hash}, "1000", {{"A=1,B=3", 0.4}});
  store("unrelated.db", other_, {spec_.name, spec_.hash}, "2000", {{"A=1,B=3", 0.4}});
  store("unrelated.db", other_, {spec_.name, "0123456789abcdef"}, "1000", {{"A=1,B=3", 0.4}});
  EXPECT_EQ(tune("unrelated.db", 2), plain);
  // --no-prior: as if the other GPU's results were not there.
  store_other("off.db");
  EXPECT_EQ(tune("off.db", 2, false), plain);
  store_other("on.db");
  EXPECT_NE(tune("on.db", 2), plain);
}

}  // namespace
}  // namespace cutune
