// Host-only tests of tuning an operation (tune_operation(), cutune/requests.hpp): stand-in workers play the GPU, NVRTC
// compiles for real, and the budget is divided among the implementations in turns by what their measurements pay.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "cutune/database.hpp"
#include "cutune/requests.hpp"
#include "stand_in_kernel.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

class OperationTuneTest : public ::testing::Test {
 protected:
  OperationTuneTest()
      : dir_(fs::temp_directory_path() / ("cutune_optune_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);
    ::setenv("CUTUNE_FAKE_TIMES", "2", 1);  // 1 + 0.01 * the sum of the configuration's values, ms
    device_.name = "Stand-in GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
    // The first implementation's search lowers its time by 0.06 ms a configuration, from 1.70 ms; the second's first
    // answer, 1.30 ms, is its best.
    operation_.name = "stand_in_op";
    operation_.implementations = {
        test::stand_in_kernel("op_steep", R"({"A": [70, 64, 58, 52, 46, 40, 34, 28, 22, 16, 10, 4, 3, 2]})", "A"),
        test::stand_in_kernel("op_flat", R"({"C": [30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42]})", "C")};
  }
  ~OperationTuneTest() override {
    for (const char* v : {"CUTUNE_WORKER", "CUTUNE_FAKE_TIMES"}) ::unsetenv(v);
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  std::vector<ShapeReport> tune(std::size_t budget, const std::vector<Shape>& shapes) {
    Database db(dir_ / "r.db");
    TuneOptions o;
    o.strategy = "exhaustive";
    o.cache_dir = (dir_ / "cache").string();
    o.compile_threads = 1;  // results arrive in the order proposed: the first of a turn is its first configuration
    o.final_candidates = 1;
    ProgressTap tap;
    o.on_progress = [&tap](const Progress& p) {
      if (tap) tap(p);
    };
    Tuner tuner(device_, DeviceLimits{}, std::vector<int>{0}, db, o);
    const Shape* current = nullptr;
    TuneHooks hooks;
    hooks.implementation = [this](const KernelSpec& spec) { turns_.push_back(spec.name); };
    return tune_operation(tuner, operation_, shapes, budget, device_, current, hooks, &tap);
  }
  std::size_t stored(const KernelSpec& spec, const std::string& shape) {
    Database db(dir_ / "r.db");
    return db.results(device_, {spec.name, spec.hash}, shape).size();
  }

  fs::path dir_;
  DeviceIdentity device_;
  OperationSpec operation_;
  std::vector<std::string> turns_;
};

TEST_F(OperationTuneTest, TheRoundsGoToTheImplementationThatLowersTheBest) {
  const std::vector<ShapeReport> reports = tune(16, {Shape{{1000}}, Shape{{2000}}});
  ASSERT_EQ(reports.size(), 4u);  // per shape, one report per implementation, its turns merged
  for (std::size_t shape = 0; shape < 2; ++shape) {
    const ShapeReport& steep = reports[2 * shape];
    const ShapeReport& flat = reports[2 * shape + 1];
    EXPECT_EQ(flat.evaluated, 4u);    // its first share only
    EXPECT_EQ(steep.evaluated, 12u);  // its first share and both rounds
    ASSERT_TRUE(steep.best && flat.best);
    EXPECT_LT(steep.best->median_ms, flat.best->median_ms);
    EXPECT_EQ(steep.resumed, 0u);  // a later turn's resumed results are its own earlier turns'
    EXPECT_EQ(stored(operation_.implementations[0], steep.shape.str()), 12u);
    EXPECT_EQ(stored(operation_.implementations[1], flat.shape.str()), 4u);
  }
  // Per shape: the two first shares in order, two rounds, then each report.
  EXPECT_EQ(turns_.size(), 12u);
  EXPECT_EQ(turns_[0], "op_steep");
  EXPECT_EQ(turns_[1], "op_flat");
  EXPECT_EQ(turns_[2], "op_steep");
  EXPECT_EQ(turns_[3], "op_steep");
}

TEST_F(OperationTuneTest, TheSameRunAgainMeasuresNothing) {
  tune(16, {Shape{{1000}}});
  const std::vector<ShapeReport> again = tune(16, {Shape{{1000}}});
  ASSERT_EQ(again.size(), 2u);
  EXPECT_EQ(again[0].evaluated + again[1].evaluated, 0u);
  EXPECT_EQ(stored(operation_.implementations[0], "1000") + stored(operation_.implementations[1], "1000"), 16u);
}

}  // namespace
}  // namespace cutune
