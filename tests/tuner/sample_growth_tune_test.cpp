// Host-only tests of tuning a space too large to hold: a stand-in worker whose times fall with every parameter's
// value, NVRTC compiling for real. The sample grows around the best measured, so the best found lies outside the
// sample; a resume counts what was measured outside it and measures nothing again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "cutune/database.hpp"
#include "cutune/lazy_space.hpp"
#include "cutune/tuner.hpp"
#include "stand_in_kernel.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

// 8 parameters of 10 values: 10^8 configurations, tuned on a sample of kTunedSample.
KernelSpec huge_kernel() {
  std::string parameters = "{";
  for (int p = 0; p < 8; ++p)
    parameters += std::string(p ? ", " : "") + "\"P" + std::to_string(p) + "\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]";
  return test::stand_in_kernel("huge_k", parameters + "}", "1");
}

class SampleGrowthTune : public ::testing::Test {
 protected:
  SampleGrowthTune()
      : dir_(fs::temp_directory_path() / ("cutune_growth_" + std::to_string(::getpid()))), spec_(huge_kernel()) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);
    ::setenv("CUTUNE_FAKE_TIMES", "2", 1);  // 1 ms + 0.01 ms per unit of the values' sum
    device_.name = "Stand-in GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
  }
  ~SampleGrowthTune() override {
    ::unsetenv("CUTUNE_FAKE_TIMES");
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  ShapeReport tune(std::size_t budget) {
    Database db(dir_ / "g.db");
    TuneOptions options;
    options.budget = budget;
    options.use_cache = false;
    // One compile thread: outcomes arrive in the order asked, which the default search's refinement steps follow, so
    // the run is the same however loaded the machine is.
    options.compile_threads = 1;
    options.final_candidates = 1;
    options.start = {"P0=10,P1=10,P2=10,P3=10,P4=10,P5=10,P6=10,P7=10"};  // asked first, in the sample or not
    Tuner tuner(device_, DeviceLimits{}, 0, db, options);
    return tuner.tune(spec_, Shape{{1000}});
  }
  std::set<std::string> stored() {
    Database db(dir_ / "g.db");
    std::set<std::string> configs;
    for (const auto& r : db.results(device_, {spec_.name, spec_.hash}, "1000", L2Flush::Read)) configs.insert(r.config);
    return configs;
  }

  fs::path dir_;
  KernelSpec spec_;
  DeviceIdentity device_;
};

TEST_F(SampleGrowthTune, TheBestFoundLiesOutsideTheSampleAndAResumeMeasuresNothingAgain) {
  const Space sample = tuning_space(spec_, Shape{{1000}}, DeviceLimits{});
  ASSERT_GT(sample.sample_of(), 0.0);
  std::set<std::string> in_sample;
  for (const Config& c : sample.configs()) in_sample.insert(spec_.format(c));

  const ShapeReport first = tune(40);
  EXPECT_EQ(first.evaluated, 40u);
  ASSERT_TRUE(first.best.has_value());
  const std::set<std::string> measured = stored();
  EXPECT_EQ(measured.size(), 40u);
  EXPECT_EQ(measured.count("P0=10,P1=10,P2=10,P3=10,P4=10,P5=10,P6=10,P7=10"), 1u);
  std::size_t outside = 0;
  const LazySpace lazy(spec_, Shape{{1000}}, DeviceLimits{});
  for (const std::string& c : measured) {
    outside += in_sample.count(c) == 0;
    EXPECT_TRUE(lazy.valid(spec_.parse_config(c))) << c;
  }
  EXPECT_GE(outside, 15u);  // the start configuration and the rounds after the first 20
  EXPECT_EQ(in_sample.count(first.best->config), 0u) << first.best->config << " was in the sample";

  // The same budget again: everything is stored, inside the sample or not, and nothing is measured.
  const ShapeReport again = tune(40);
  EXPECT_EQ(again.evaluated, 0u);
  EXPECT_EQ(again.resumed, 40u);
  ASSERT_TRUE(again.best.has_value());
  EXPECT_EQ(again.best->config, first.best->config);
  // A larger budget measures only new configurations.
  const ShapeReport more = tune(50);
  EXPECT_EQ(more.resumed, 40u);
  EXPECT_EQ(more.evaluated, 10u);
  EXPECT_EQ(stored().size(), 50u);
}

}  // namespace
}  // namespace cutune
