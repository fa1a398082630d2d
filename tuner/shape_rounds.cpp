// A shape's measurements in rounds: one over a whole space, or, over the sample of a space too large to hold, a first
// round on the sample and then rounds that each grow it around the best configurations measured so far.
#include <algorithm>

#include "base/log.hpp"
#include "cutune/error.hpp"
#include "tuner/shape_run.hpp"
#include "tuner/tuner_resources.hpp"

namespace cutune::detail {

// The configurations to evaluate first, at their positions in this shape's space or their nearest configurations'
// there (start_positions()): the spec's "start", the run's own, and a cuBLASLt configuration family's heuristic answers.
std::vector<Config> ShapeRun::start_configs() const {
  std::vector<Config> configs = spec_.start;
  for (const std::string& text : options_.start) configs.push_back(spec_.parse_config(text));  // InputError if malformed
  configs.insert(configs.end(), library_start_.begin(), library_start_.end());
  return configs;
}

// Adds to the sample what tuning asks for from outside it: the start configurations (proposed first) and the stored
// ones (which resume() counts against the budget and tells the strategy).
void ShapeRun::add_outside_sample() {
  std::vector<Config> outside = start_configs();
  for (const auto& [text, r] : stored_) {
    try {
      outside.push_back(spec_.parse_config(text));
    } catch (const InputError&) {  // a stored row of another version's parameters: resume() leaves it out as well
    }
  }
  const std::size_t added = growth_->add(space_, index_of_, outside);
  if (added > 0) logger()->info("{} configurations from outside the sample added: asked for first or stored", added);
}

// Measures what the budget leaves (fewer when the strategy runs out or a rule stops the shape). A sampled space is
// measured in rounds (growth_plan()): after each, the sample grows around the best results and a fresh strategy, told
// every outcome so far, goes on over it. Each round ends when its last result arrived, so the GPUs wait for the first
// compiles of the next; the configurations keep their indices (the space only grows), so a compile started ahead in
// one round is still the same configuration's in the next.
void ShapeRun::search_rounds(Dispatcher& dispatcher, const std::shared_ptr<const ShapeTask>& task,
                             std::vector<std::future<CompileOutput>>& setup) {
  const GrowthPlan plan = growth_ ? growth_plan(budget_.to_measure()) : GrowthPlan{budget_.to_measure(), 0};
  budget_.open_round(plan.first);
  for (;;) {
    RoundInputs round{.dispatcher = dispatcher, .strategy = *strategy_, .pool = tuner_.compile_pool(),
                      .cache = cache_, .arch = arch_, .task = task, .space = space_, .options = options_,
                      .budget = budget_, .stop = stop_, .events = *this, .clock = &clock_, .ask_ahead = {},
                      .compile_beyond = 0};
    if (!growth_ && compile_ahead_ > 0) {  // a sample's search is not kept for a later call
      round.ask_ahead = [this](std::size_t n) { return strategy_->ask_ahead(n); };
      round.compile_beyond = compile_ahead_;
    }
    run_round(round, setup, report_);
    if (!growth_ || budget_.left() == 0) return;
    const bool ran_out = budget_.may_ask() > 0;  // the strategy stopped proposing before the round's share was asked
    budget_.open_round(plan.round);
    // Another rule that ends asking (the time budget, a verification stop) ends the shape, not only the round.
    if (stop_.check(StopEffect::Asking) != nullptr || stop_.check(StopEffect::GivingUp) != nullptr) return;
    if (!regrow() && ran_out) return;  // and nothing new is left to grow into
  }
}

// Grows the space around the kGrowthCentres best results (those not grown around before), and puts a fresh strategy
// over it that is told every outcome so far; returns whether the space grew.
bool ShapeRun::regrow() {
  std::vector<const Result*> ranked;
  for (const auto& [config, r] : results_)
    if (usable(r.status)) ranked.push_back(&r);
  const std::size_t centres = std::min(kGrowthCentres, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(centres), ranked.end(),
                    [](const Result* a, const Result* b) { return faster(*a, *b); });
  std::vector<Config> around;
  for (std::size_t i = 0; i < centres; ++i) around.push_back(spec_.parse_config(ranked[i]->config));
  std::size_t added = 0;
  {
    const PhaseScope searching(&clock_, Phase::Search);
    added = growth_->grow(space_, index_of_, around);
  }
  if (added == 0) return false;
  logger()->info("{} {}: the sample grows by {} neighbours of the {} best configurations ({} in all)", spec_.name,
                 shape_key_, added, centres, space_.size());
  strategy_ = std::make_unique<KeptSearch>(fresh_strategy(read_prior()), space_.size());
  if (compiled_) strategy_->prefer_ready(compiled_);
  const PhaseScope searching(&clock_, Phase::Search);
  for (const auto& [config, r] : results_) {
    const auto it = index_of_.find(config);
    if (it != index_of_.end() && r.status != Status::Interrupted) strategy_->observe(it->second, outcome(r));
  }
  return true;
}

}  // namespace cutune::detail
