// Tests of start configurations: the strategy wrapper that asks them first, the spec's "start" list, and a tuning
// run that measures them within its budget.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/spec.hpp"
#include "cutune/strategy.hpp"
#include "cutune/templates.hpp"

namespace cutune {
namespace {

// X in 1..4, Y in 1..5: 20 configurations; time X + Y / 10, so that every strategy has a unique optimum (1, 1).
Space grid_space() {
  std::vector<Value> xs = {1, 2, 3, 4}, ys = {1, 2, 3, 4, 5};
  std::vector<Config> configs;
  for (const Value& x : xs)
    for (const Value& y : ys) configs.push_back(Config{{x, y}});
  return Space::from_configs({xs, ys}, configs);
}
double time_of(const Space& space, std::size_t i) {
  return static_cast<double>(space.configs()[i].values[0].as_int()) + 0.1 * space.configs()[i].values[1].as_int();
}

// A wrapped strategy that proposes 0, 1, 2, ... (skipping what it observed) and writes down what it hears.
class Recorder final : public Strategy {
 public:
  explicit Recorder(std::size_t size, std::vector<std::string>* log) : size_(size), log_(log) {}
  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    for (; next_ < size_ && out.size() < n; ++next_)
      if (!observed_.count(next_)) out.push_back(next_);
    return out;
  }
  void tell(std::size_t i, std::optional<double>) override { log_->push_back("tell " + std::to_string(i)); }
  void observe(std::size_t i, std::optional<double>) override {
    observed_.insert(i);
    log_->push_back("observe " + std::to_string(i));
  }

 private:
  std::size_t size_, next_ = 0;
  std::set<std::size_t> observed_;
  std::vector<std::string>* log_;
};

TEST(StartFirst, EveryStrategyAsksTheStartConfigurationsFirstAndEveryConfigurationOnce) {
  const Space space = grid_space();
  for (const std::string& name : strategy_names()) {
    for (std::size_t batch : {1u, 4u}) {
      auto strategy = start_first(make_strategy(name, space, 3), {17, 4, 17, 9});
      std::vector<std::size_t> order;
      while (order.size() <= 2 * space.size()) {
        const auto asked = strategy->ask(batch);
        if (asked.empty()) break;
        order.insert(order.end(), asked.begin(), asked.end());
        for (std::size_t i : asked) strategy->tell(i, time_of(space, i));
      }
      ASSERT_GE(order.size(), 3u) << name;
      EXPECT_EQ((std::vector<std::size_t>(order.begin(), order.begin() + 3)), (std::vector<std::size_t>{17, 4, 9}))
          << name << " batch " << batch;
      EXPECT_EQ(order.size(), space.size()) << name << " batch " << batch;
      EXPECT_EQ(std::set<std::size_t>(order.begin(), order.end()).size(), space.size()) << name << " batch " << batch;
    }
  }
}

TEST(StartFirst, OutcomesReachTheWrappedStrategyOnceAsObservationsOrAsItsOwn) {
  std::vector<std::string> log;
  auto strategy = start_first(std::make_unique<Recorder>(8, &log), {3, 6});
  EXPECT_EQ(strategy->ask(3), (std::vector<std::size_t>{3, 6, 0}));
  // The wrapped strategy proposes 3 and 6 too while their outcomes are out: they are not asked again.
  EXPECT_EQ(strategy->ask(6), (std::vector<std::size_t>{1, 2, 4, 5, 7}));
  EXPECT_TRUE(strategy->ask(1).empty());
  for (std::size_t i : {3u, 6u, 0u, 1u}) strategy->tell(i, 1.0);
  EXPECT_EQ(log, (std::vector<std::string>{"tell 3", "tell 6", "tell 0", "tell 1"}));

  log.clear();
  auto observed = start_first(std::make_unique<Recorder>(8, &log), {3, 6});
  observed->observe(6, 2.0);  // stored before the run: never asked
  EXPECT_EQ(observed->ask(2), (std::vector<std::size_t>{3, 0}));
  observed->tell(3, 1.0);
  observed->tell(0, std::nullopt);
  EXPECT_EQ(observed->ask(8), (std::vector<std::size_t>{1, 2, 4, 5, 7}));
  EXPECT_EQ(log, (std::vector<std::string>{"observe 6", "observe 3", "tell 0"}));
  EXPECT_THROW(observed->observe(3, 1.0), InputError);
}

TEST(StartFirst, NoStartConfigurationsLeaveTheStrategyAsItIs) {
  std::vector<std::string> log;
  auto inner = std::make_unique<Recorder>(4, &log);
  Strategy* raw = inner.get();
  EXPECT_EQ(start_first(std::move(inner), {}).get(), raw);
}

const char* kSpecWithStart = R"({
  "name": "k", "source": "k.cu", "kernel": "k", "shape": ["N"],
  "parameters": {"X": {"values": [1, 2, 4]}, "Y": {"values": [8, 16]}},
  "block": ["X"], "grid": [1],
  "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
  "reference": {"configuration": {"X": 1}},
  "metric": {"bytes": "4 * N"},
  "start": START
})";
KernelSpec spec_with(const std::string& start) {
  std::string text = kSpecWithStart;
  text.replace(text.find("START"), 5, start);
  return KernelSpec::from_json(text, "extern \"C\" __global__ void k(float*) {}", "k.cu");
}

TEST(SpecStart, ReadsConfigurationsThatAreNotPartOfTheVersion) {
  const KernelSpec a = spec_with(R"(["X=4,Y=16", "Y=8,X=2"])");
  ASSERT_EQ(a.start.size(), 2u);
  EXPECT_EQ(a.format(a.start[0]), "X=4,Y=16");
  EXPECT_EQ(a.format(a.start[1]), "X=2,Y=8");
  EXPECT_EQ(spec_with("[]").hash, a.hash);  // other hints, same kernel version
  EXPECT_EQ(KernelSpec::from_json(a.json, a.source, a.source_name).start.size(), 2u);
}

TEST(SpecStart, BadEntriesAreOneClearError) {
  const std::pair<const char*, const char*> bad[] = {
      {R"("X=4,Y=16")", "must be an array"},
      {R"([4])", "start[0] must be a configuration text"},
      {R"(["X=4,Y=16", "X=3,Y=16"])", "start[1]: invalid value '3' for X"},
      {R"(["X=4"])", "start[0]: configuration 'X=4' misses parameter Y"},
      {R"(["X=4,Z=1"])", "start[0]: unknown parameter 'Z'"},
  };
  for (const auto& [start, message] : bad) {
    try {
      spec_with(start);
      ADD_FAILURE() << start << " was accepted";
    } catch (const SpecError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

// A built-in kernel's start configurations are hints worth having: each is a valid configuration of its space (at
// some shape), not a typo that no shape would ever let through.
TEST(SpecStart, BuiltInStartConfigurationsAreValid) {
  std::size_t hints = 0;
  for (const std::string& name : builtin_kernels()) {
    const KernelSpec spec = load_kernel(name);
    if (spec.start.empty()) continue;
    std::set<std::string> valid;
    for (const Config& c : Space::enumerate(spec, std::nullopt, DeviceLimits{}).configs()) valid.insert(spec.format(c));
    for (const Config& c : spec.start) EXPECT_TRUE(valid.count(spec.format(c))) << name << ": " << spec.format(c);
    hints += spec.start.size();
  }
  EXPECT_GE(hints, 27u);  // gemm_tf32, gemm_bf16 and gemm_f16 at least
}

}  // namespace
}  // namespace cutune
