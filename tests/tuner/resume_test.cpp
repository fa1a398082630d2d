// Host-only tests of resuming a budgeted run: a stand-in worker measures, NVRTC compiles for real, and every
// strategy must count what is stored against the budget and never measure a stored configuration again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/strategy.hpp"
#include "cutune/tuner.hpp"
#include "stand_in_kernel.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

KernelSpec resume_kernel() { return test::stand_in_kernel("resume_k", R"({"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4]})", "A * B"); }

class ResumeTest : public ::testing::TestWithParam<std::string> {
 protected:
  ResumeTest()
      : dir_(fs::temp_directory_path() / ("cutune_resume_" + std::to_string(::getpid()) + "_" + GetParam())),
        spec_(resume_kernel()) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);
    device_.name = "Stand-in GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
  }
  ~ResumeTest() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  ShapeReport tune(std::size_t budget, Shard shard = {}, std::optional<L2Flush> flush = std::nullopt) {
    Database db(dir_ / "r.db");
    TuneOptions options;
    options.measure.flush = flush;
    options.strategy = GetParam();
    options.budget = budget;
    options.use_cache = false;
    options.compile_threads = 2;
    options.final_candidates = 1;
    options.shard = shard;
    Tuner tuner(device_, DeviceLimits{}, 0, db, options);
    return tuner.tune(spec_, Shape{{1000}});
  }
  // Every measurement stored for the key (and an L2 convention), and the distinct configurations among them.
  std::pair<std::size_t, std::set<std::string>> stored(L2Flush flush = L2Flush::Read) {
    Database db(dir_ / "r.db");
    const auto results = db.results(device_, {spec_.name, spec_.hash}, "1000", flush);
    std::set<std::string> configs;
    for (const auto& r : results) configs.insert(r.config);
    return {results.size(), configs};
  }

  fs::path dir_;
  KernelSpec spec_;
  DeviceIdentity device_;
};

TEST_P(ResumeTest, BudgetCountsWhatIsStoredAndRerunsMeasureOnlyTheDifference) {
  const ShapeReport first = tune(6);
  EXPECT_EQ(first.evaluated, 6u);
  EXPECT_EQ(first.resumed, 0u);
  EXPECT_EQ(stored().second.size(), 6u);

  // The same command again: the budget is reached, nothing is measured, nothing is added.
  const ShapeReport again = tune(6);
  EXPECT_EQ(again.evaluated, 0u);
  EXPECT_EQ(again.resumed, 6u);
  EXPECT_EQ(again.limit, 6u);
  ASSERT_TRUE(again.best.has_value());
  const auto [rows, configs] = stored();
  EXPECT_EQ(configs.size(), 6u);

  // A larger budget measures the difference only, and none of the stored configurations again.
  const ShapeReport more = tune(10);
  EXPECT_EQ(more.resumed, 6u);
  EXPECT_EQ(more.evaluated, 4u);
  const auto [rows_after, configs_after] = stored();
  EXPECT_EQ(configs_after.size(), 10u);
  for (const auto& c : configs) EXPECT_EQ(configs_after.count(c), 1u) << c;

  // A budget past the space stops at the space.
  const ShapeReport all = tune(1000);
  EXPECT_EQ(all.resumed + all.evaluated, 20u);
  EXPECT_EQ(stored().second.size(), 20u);
  EXPECT_EQ(tune(0).evaluated, 0u);
}

INSTANTIATE_TEST_SUITE_P(EveryStrategy, ResumeTest, ::testing::ValuesIn(strategy_names()),
                         [](const auto& info) { return info.param; });

// --shard: the parts of two jobs sharing one database never measure the same configuration; each counts only its
// own part against the budget and resumes only that part; together they measure the whole space once.
using ShardTest = ResumeTest;

TEST_P(ShardTest, PartsAreDisjointAndEachResumesItsOwn) {
  const ShapeReport first = tune(1000, {1, 2});
  EXPECT_EQ(first.space_size, 10u);
  EXPECT_EQ(first.evaluated, 10u);
  const std::set<std::string> part1 = stored().second;
  ASSERT_EQ(part1.size(), 10u);
  // Part 1 is Space::shard's: the configurations at even positions of the enumeration.
  const Space space = Space::enumerate(spec_, Shape{{1000}}, DeviceLimits{});
  for (std::size_t p = 0; p < space.size(); p += 2) EXPECT_EQ(part1.count(spec_.format(space.configs()[p])), 1u) << p;

  const ShapeReport second = tune(4, {2, 2});
  EXPECT_EQ(second.resumed, 0u) << "part 1's results counted against part 2's budget";
  EXPECT_EQ(second.evaluated, 4u);
  EXPECT_EQ(stored().second.size(), 14u);
  const ShapeReport rest = tune(1000, {2, 2});
  EXPECT_EQ(rest.resumed, 4u);
  EXPECT_EQ(rest.evaluated, 6u);
  EXPECT_EQ(stored().second.size(), 20u);
  EXPECT_EQ(tune(1000, {1, 2}).evaluated, 0u);
}

// The split does not depend on the strategy: one that learns from outcomes and one that does not.
INSTANTIATE_TEST_SUITE_P(Sharded, ShardTest, ::testing::Values("bayes", "exhaustive"),
                         [](const auto& info) { return info.param; });

// --flush: a run resumes and counts its budget only from results of its own L2 convention (the options', else the
// spec's, else read), as times measured after another L2 state mean something else.
using FlushResumeTest = ResumeTest;

TEST_P(FlushResumeTest, EachConventionResumesAndCountsOnlyItsOwn) {
  const ShapeReport read = tune(3);
  EXPECT_EQ(read.flush, L2Flush::Read);
  EXPECT_EQ(read.evaluated, 3u);
  const ShapeReport write = tune(3, {}, L2Flush::Write);
  EXPECT_EQ(write.flush, L2Flush::Write);
  EXPECT_EQ(write.resumed, 0u) << "read results counted against a written flush's budget";
  EXPECT_EQ(write.evaluated, 3u);

  const ShapeReport read_again = tune(3, {}, L2Flush::Read);
  EXPECT_EQ(read_again.resumed, 3u);
  EXPECT_EQ(read_again.evaluated, 0u);
  const ShapeReport write_more = tune(5, {}, L2Flush::Write);
  EXPECT_EQ(write_more.resumed, 3u);
  EXPECT_EQ(write_more.evaluated, 2u);
  EXPECT_EQ(stored(L2Flush::Read).second.size(), 3u);
  EXPECT_EQ(stored(L2Flush::Write).second.size(), 5u);

  // A spec that asks for none is tuned under none, unless the options ask for another.
  spec_.flush = L2Flush::None;
  EXPECT_EQ(tune(2).flush, L2Flush::None);
  EXPECT_EQ(stored(L2Flush::None).second.size(), 2u);
  const ShapeReport asked = tune(5, {}, L2Flush::Write);
  EXPECT_EQ(asked.flush, L2Flush::Write);
  EXPECT_EQ(asked.resumed, 5u);
  EXPECT_EQ(asked.evaluated, 0u);
}

INSTANTIATE_TEST_SUITE_P(Flush, FlushResumeTest, ::testing::Values("exhaustive"),
                         [](const auto& info) { return info.param; });

TEST(StrategyObserve, ObservedConfigurationsAreNeverProposed) {
  const KernelSpec spec = resume_kernel();
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  for (const auto& name : strategy_names()) {
    auto strategy = make_strategy(name, space, 7);
    for (std::size_t i : {0u, 3u, 7u, 19u}) strategy->observe(i, i == 3 ? std::nullopt : std::optional<double>(1.0 + i));
    EXPECT_THROW(strategy->observe(3, 1.0), InputError) << name;
    std::set<std::size_t> proposed;
    for (auto batch = strategy->ask(5); !batch.empty(); batch = strategy->ask(5)) {
      for (std::size_t i : batch) {
        EXPECT_TRUE(proposed.insert(i).second) << name;
        strategy->tell(i, 2.0);
      }
    }
    EXPECT_EQ(proposed.size(), 16u) << name;
    for (std::size_t i : {0u, 3u, 7u, 19u}) EXPECT_EQ(proposed.count(i), 0u) << name << " proposed " << i;
  }
}

}  // namespace
}  // namespace cutune
