// Host tests of how far ahead of the search the tuner's compile pool runs: no more of the strategy's proposals wait for
// outcomes than it allows (Strategy::ahead()), spare compile threads put what it is likely to propose next
// (Strategy::upcoming()) into the cubin cache without measuring them, and the default strategy's answers to both.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "cutune/cubin_cache.hpp"
#include "cutune/strategy.hpp"
#include "worker/worker_client.hpp"
#include "measure_loop_support.hpp"
#include "stand_in_kernel.hpp"
#include "tuner/measure_loop.hpp"
#include "valley_sample.hpp"

namespace cutune::detail {
namespace {

namespace fs = std::filesystem;

// The space in order, at most two proposals waiting for outcomes; likely next: the last unasked configurations.
class Cautious final : public Strategy {
 public:
  explicit Cautious(std::size_t size) : size_(size) {}
  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    while (out.size() < n && next_ < size_) out.push_back(next_++);
    waiting_ += out.size();
    most_waiting = std::max(most_waiting, waiting_);
    return out;
  }
  void tell(std::size_t, std::optional<double>) override { --waiting_; }
  void observe(std::size_t, std::optional<double>) override {}
  std::size_t ahead() const override { return 2; }
  std::vector<std::size_t> upcoming(std::size_t n) const override {
    std::vector<std::size_t> out;
    for (std::size_t i = size_; i > next_ && out.size() < n; --i) out.push_back(i - 1);
    return out;
  }
  std::size_t most_waiting = 0;

 private:
  std::size_t size_, next_ = 0, waiting_ = 0;
};

TEST(CompileAhead, ProposalsWaitNoMoreThanTheStrategyAllowsAndSpareThreadsCompileWhatIsLikely) {
  const KernelSpec spec = test::stand_in_kernel("compile_ahead", R"({"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4]})", "A * B");
  const Shape shape{{1000}};
  const Space space = Space::enumerate(spec, shape, DeviceLimits{});
  ASSERT_EQ(space.size(), 20u);
  const fs::path dir = fs::temp_directory_path() / ("cutune_compile_ahead_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  CubinCache cache(dir);
  WorkerSettings local;
  local.executable = CUTUNE_FAKE_WORKER_EXE;
  Dispatcher lanes({[local](std::size_t id, Outbox& outbox) {
    return make_local_lane(id, 0, [local] { return make_worker_evaluator(local); }, outbox);
  }});
  Cautious strategy(space.size());
  CompilePool pool(4);
  auto task = std::make_shared<ShapeTask>(ShapeTask{1, &spec, shape});
  std::set<std::size_t> measured;
  ShapeReport report;
  std::vector<std::future<CompileOutput>> setup;
  const std::size_t budget = 10;
  const CubinKeys keys(spec, spec.kernel);
  auto compiled = [&](std::size_t i) { return cache.contains(keys.config_key(space.configs()[i], "sm_90")); };
  test::ArrivalEvents events;
  events.on_arrival = [&](const Arrival& a) {
    measured.insert(a.job.index);
    strategy.tell(a.job.index, a.result.median_ms);  // as the tuner's store does
  };
  events.in_cache = compiled;
  Budget shape_budget = test::one_round(budget);
  const StopRules stop = test::shape_rules(shape_budget, lanes);
  const TuneOptions options;
  const RoundInputs round{.dispatcher = lanes, .strategy = strategy, .pool = pool, .cache = &cache, .arch = "sm_90",
                          .task = task, .space = space, .options = options, .budget = shape_budget, .stop = stop,
                          .events = events};
  run_round(round, setup, report);

  EXPECT_EQ(measured.size(), budget);
  EXPECT_EQ(*measured.rbegin(), budget - 1) << "only what was proposed is measured";
  EXPECT_LE(strategy.most_waiting, 2u);
  // Compiled ahead: configurations never proposed (10 to 19), now in the cache, and nothing else was.
  std::size_t cached_unasked = 0;
  for (std::size_t i = budget; i < space.size(); ++i) cached_unasked += compiled(i);
  EXPECT_GT(report.compiled_ahead, 0u);
  EXPECT_EQ(cached_unasked, report.compiled_ahead);
  fs::remove_all(dir);
}

TEST(CompileAhead, TheDefaultStrategyLooksAheadWithoutChangingItsProposals) {
  const test::Sample s = test::make_sample();
  auto plain = make_strategy("portfolio", s.recorded.space, 3);
  auto peeking = start_first(make_strategy("portfolio", s.recorded.space, 3), {7, 9});
  EXPECT_GE(peeking->ahead(), 2u + 16u) << "the start configurations and the initial design are drawn blind";
  EXPECT_EQ(peeking->upcoming(2), (std::vector<std::size_t>{7, 9}));
  std::vector<std::size_t> order_plain, order_peeking;
  auto first = start_first(std::move(plain), {7, 9});
  for (int round = 0; round < 40; ++round) {
    for (std::size_t i : first->ask(2)) first->tell(i, s.recorded.times_ms[i]), order_plain.push_back(i);
    const auto likely = peeking->upcoming(6);
    for (std::size_t i : likely) EXPECT_EQ(std::count(order_peeking.begin(), order_peeking.end(), i), 0) << "asked already";
    if (round > 12) EXPECT_FALSE(likely.empty()) << "nothing likely once the model is fitted";
    for (std::size_t i : peeking->ask(2)) peeking->tell(i, s.recorded.times_ms[i]), order_peeking.push_back(i);
  }
  EXPECT_EQ(order_plain, order_peeking);
  EXPECT_EQ(peeking->ahead(), 16u) << "after the design, sixteen proposals may wait for outcomes";
}

}  // namespace
}  // namespace cutune::detail
