// The search a tuner keeps between calls at a shape (KeptSearch, TunerResources::keep_search): a later call, such as an
// operation's next turn, goes on with the same strategy, told only of what it has not heard; stand-in workers play the
// GPU and NVRTC compiles for real.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "cutune/cubin_cache.hpp"
#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/lazy_space.hpp"
#include "stand_in_kernel.hpp"
#include "tuner/shape_run.hpp"
#include "tuner/tuner_resources.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

std::size_t known(const detail::KeptSearch& search) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < search.space_size(); ++i) n += search.knows(i);
  return n;
}

TEST(KeptSearch, KnowsWhatItProposedAndWhatItWasTold) {
  const KernelSpec spec = test::stand_in_kernel("kept_s0", R"({"A": [1, 2, 3, 4, 5, 6]})", "A");
  const Space space = tuning_space(spec, Shape{{1000}}, DeviceLimits{});
  detail::KeptSearch search(make_strategy("exhaustive", space, 1), space.size());
  search.observe(4, 1.0);
  const std::vector<std::size_t> asked = search.ask(2);
  ASSERT_EQ(asked, (std::vector<std::size_t>{0, 1}));
  EXPECT_TRUE(search.knows(0) && search.knows(1) && search.knows(4));
  EXPECT_FALSE(search.knows(2) || search.knows(3) || search.knows(5) || search.knows(6));
  EXPECT_EQ(known(search), 3u);
  EXPECT_THROW(search.observe(0, 1.0), InputError);  // asked already: a later call must not tell it again
}

TEST(KeptSearch, WhatItAskedAheadIsProposedFirst) {
  const KernelSpec spec = test::stand_in_kernel("kept_s1", R"({"A": [1, 2, 3, 4, 5, 6]})", "A");
  const Space space = tuning_space(spec, Shape{{1000}}, DeviceLimits{});
  detail::KeptSearch search(make_strategy("exhaustive", space, 1), space.size());
  EXPECT_EQ(search.ask_ahead(2), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(search.ahead_waiting(), 2u);
  EXPECT_TRUE(search.knows(0) && search.knows(1));
  EXPECT_EQ(search.ask(1), (std::vector<std::size_t>{0}));
  EXPECT_EQ(search.ask(3), (std::vector<std::size_t>{1, 2, 3}));  // the rest of what was asked ahead, then new ones
  EXPECT_EQ(search.ahead_waiting(), 0u);
}

class KeptSearchTune : public ::testing::Test {
 protected:
  KeptSearchTune()
      : dir_(fs::temp_directory_path() / ("cutune_kept_search_" + std::to_string(::getpid()))),
        spec_(test::stand_in_kernel("kept_s", R"({"A": [1, 2, 3, 4, 5, 6, 7, 8]})", "A")) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_WORKER", CUTUNE_FAKE_WORKER_EXE, 1);
    device_.name = "Stand-in GPU";
    device_.cc_major = 9;
    device_.sm_count = 132;
    options_.cache_dir = (dir_ / "cache").string();
    options_.compile_threads = 1;
    options_.final_candidates = 1;
  }
  ~KeptSearchTune() override {
    ::unsetenv("CUTUNE_WORKER");
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  fs::path dir_;
  KernelSpec spec_;
  DeviceIdentity device_;
  TuneOptions options_;
  const Shape shape_{{1000}};
};

TEST_F(KeptSearchTune, ALaterCallAtTheShapeGoesOnWithTheSameSearch) {
  Database db(dir_ / "r.db");
  detail::TunerResources resources(device_, DeviceLimits{}, {0}, nullptr, db, options_);
  const ShapeReport first = detail::ShapeRun(resources, spec_, shape_, 3).run();
  EXPECT_EQ(first.evaluated, 3u);
  std::unique_ptr<detail::KeptSearch> search = resources.take_search(spec_, shape_, 8);
  ASSERT_NE(search, nullptr);
  EXPECT_EQ(known(*search), 3u);
  EXPECT_EQ(resources.take_search(spec_, shape_, 8), nullptr);  // taken
  const detail::KeptSearch* kept = search.get();
  resources.keep_search(spec_, shape_, std::move(search));

  const ShapeReport second = detail::ShapeRun(resources, spec_, shape_, 7).run();
  EXPECT_EQ(second.resumed, 3u);  // the first call's results, which the kept search had heard: not told again
  EXPECT_EQ(second.evaluated, 4u);
  search = resources.take_search(spec_, shape_, 8);
  ASSERT_EQ(search.get(), kept);  // the same search went on
  EXPECT_EQ(known(*search), 7u);

  // Without a kept search (taken above), a call starts a fresh one, told of everything stored.
  const ShapeReport third = detail::ShapeRun(resources, spec_, shape_, 8).run();
  EXPECT_EQ(third.resumed, 7u);
  EXPECT_EQ(third.evaluated, 1u);
  EXPECT_EQ(db.results(device_, {spec_.name, spec_.hash}, shape_.str()).size(), 8u);
  EXPECT_EQ(resources.take_search(spec_, shape_, 5), nullptr);  // a space of another size: not this search's
}

TEST_F(KeptSearchTune, ACallAsksAheadForTheNextAndCompilesThat) {
  Database db(dir_ / "r.db");
  detail::TunerResources resources(device_, DeviceLimits{}, {0}, nullptr, db, options_);
  const ShapeReport first = detail::ShapeRun(resources, spec_, shape_, 3, 3).run();
  EXPECT_EQ(first.evaluated, 3u);
  std::unique_ptr<detail::KeptSearch> search = resources.take_search(spec_, shape_, 8);
  ASSERT_NE(search, nullptr);
  EXPECT_EQ(search->ahead_waiting(), 3u);  // asked for the next call, not measured
  EXPECT_EQ(known(*search), 6u);
  // The compiles of what was asked ahead run on the pool's spare thread after the call: the cache comes to hold them.
  const Space space = tuning_space(spec_, shape_, DeviceLimits{});
  CubinCache cache(options_.cache_dir);
  const CubinKeys keys(spec_, spec_.kernel);
  const auto compiled = [&] {
    for (std::size_t i = 3; i < 6; ++i)
      if (!cache.contains(keys.config_key(space.configs()[i], device_.arch(), &shape_))) return false;
    return true;
  };
  for (int tries = 0; tries < 600 && !compiled(); ++tries) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(compiled());
  resources.keep_search(spec_, shape_, std::move(search));

  const ShapeReport second = detail::ShapeRun(resources, spec_, shape_, 6).run();
  EXPECT_EQ(second.evaluated, 3u);
  EXPECT_EQ(second.cache_hits, 3u);  // what the first call asked ahead, measured first
  search = resources.take_search(spec_, shape_, 8);
  ASSERT_NE(search, nullptr);
  EXPECT_EQ(search->ahead_waiting(), 0u);
  EXPECT_EQ(known(*search), 6u);
}

}  // namespace
}  // namespace cutune
