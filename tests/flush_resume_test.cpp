// Host-only tests of resuming under an L2 convention: a stand-in worker measures, and a run resumes and counts its
// budget only from results of its own convention (the command line's, else the spec's, else read).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "cutune/database.hpp"
#include "cutune/tuner.hpp"
#include "stand_in_kernel.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

class FlushResumeTest : public ::testing::Test {
 protected:
  FlushResumeTest()
      : dir_(fs::temp_directory_path() / ("cutune_flush_resume_" + std::to_string(::getpid()))),
        spec_(test::stand_in_kernel("flush_k", R"({"A": [1, 2, 3, 4], "B": [1, 2]})", "A * B")) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);
    device_.name = "Stand-in GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
  }
  ~FlushResumeTest() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  ShapeReport tune(std::size_t budget, std::optional<L2Flush> flush) {
    Database db(dir_ / "r.db");
    TuneOptions options;
    options.strategy = "exhaustive";
    options.budget = budget;
    options.use_cache = false;
    options.compile_threads = 2;
    options.final_candidates = 1;
    options.measure.flush = flush;
    Tuner tuner(device_, DeviceLimits{}, 0, db, options);
    return tuner.tune(spec_, Shape{{1000}});
  }
  std::size_t stored(L2Flush flush) {
    Database db(dir_ / "r.db");
    return db.results(device_, {spec_.name, spec_.hash}, "1000", flush).size();
  }

  fs::path dir_;
  KernelSpec spec_;
  DeviceIdentity device_;
};

TEST_F(FlushResumeTest, EachConventionResumesAndCountsOnlyItsOwn) {
  const ShapeReport read = tune(3, std::nullopt);
  EXPECT_EQ(read.flush, L2Flush::Read);
  EXPECT_EQ(read.evaluated, 3u);

  // The same budget under another convention measures afresh: the read results say nothing about written L2.
  const ShapeReport write = tune(3, L2Flush::Write);
  EXPECT_EQ(write.flush, L2Flush::Write);
  EXPECT_EQ(write.resumed, 0u);
  EXPECT_EQ(write.evaluated, 3u);
  EXPECT_EQ(stored(L2Flush::Read), 3u);
  EXPECT_EQ(stored(L2Flush::Write), 3u);

  // Each resumes its own: nothing to measure for read, the difference for write.
  const ShapeReport read_again = tune(3, L2Flush::Read);
  EXPECT_EQ(read_again.resumed, 3u);
  EXPECT_EQ(read_again.evaluated, 0u);
  const ShapeReport write_more = tune(5, L2Flush::Write);
  EXPECT_EQ(write_more.resumed, 3u);
  EXPECT_EQ(write_more.evaluated, 2u);
  EXPECT_EQ(stored(L2Flush::Read), 3u);
  EXPECT_EQ(stored(L2Flush::Write), 5u);

  // A spec that asks for none is tuned under none unless the options say otherwise.
  spec_.flush = L2Flush::None;
  EXPECT_EQ(tune(2, std::nullopt).flush, L2Flush::None);
  EXPECT_EQ(stored(L2Flush::None), 2u);
  const ShapeReport asked = tune(5, L2Flush::Write);
  EXPECT_EQ(asked.flush, L2Flush::Write);
  EXPECT_EQ(asked.resumed, 5u);
  EXPECT_EQ(asked.evaluated, 0u);
  EXPECT_EQ(stored(L2Flush::Write), 5u);
}

}  // namespace
}  // namespace cutune
