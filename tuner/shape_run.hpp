// ShapeRun: one call of Tuner::tune, a shape taken from its space and stored results to its best configuration.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cutune/sample_growth.hpp"
#include "cutune/tuner.hpp"
#include "tuner/budget.hpp"
#include "tuner/kept_search.hpp"
#include "tuner/measure_loop.hpp"
#include "tuner/phase_clock.hpp"
#include "tuner/stop_rules.hpp"

namespace cutune::detail {

/// The heuristic's answers a cuBLASLt configuration family's tuning starts from at each shape, at most.
inline constexpr std::size_t kHeuristicStart = 8;

/// Database::best's order (verified first, then median, then configuration text): true when `a` ranks before `b`.
bool faster(const Result& a, const Result& b);
/// What a strategy is told of a result: its median, or nothing when it failed.
std::optional<double> outcome(const Result& r);

class TunerResources;

/// Owns what one shape's tuning keeps: its clock, report, progress, the results and the best among them, the strategy,
/// its budget and the rules that end it. Borrows the tuner's resources: database, options, dispatcher, compile pool and
/// cubin cache.
///
/// The steps, outermost first: run() reads what is stored and resumes; tune_on_gpus() opens the database run and the
/// stop rules and borrows the dispatcher; measure_and_retime() measures in rounds, then re-times the finalists;
/// search_rounds() runs one round over a whole space, or several over a growing sample; each round is
/// run_round() (measure_loop.hpp), the loop that keeps the GPUs busy with the strategy's proposals.
class ShapeRun final : private MeasureEvents {
 public:
  /// Checks that the verification region fits `shape` and takes its space (enumerated ahead by Tuner::expect, or now).
  /// `budget`: the most configurations of the shape (TuneOptions::budget's meaning), in place of the options' own.
  /// `compile_ahead`: configurations a later call at the shape may go on to (RoundInputs::compile_beyond).
  ShapeRun(TunerResources& tuner, const KernelSpec& spec, const Shape& shape, std::optional<std::size_t> budget = {},
           std::size_t compile_ahead = 0);
  ShapeRun(const ShapeRun&) = delete;
  ShapeRun& operator=(const ShapeRun&) = delete;

  /// Tunes the shape as Tuner::tune describes; once.
  ShapeReport run();

 private:
  using Clock = std::chrono::steady_clock;
  using IndexOf = std::unordered_map<std::string, std::size_t>;

  Space checked_space();
  void read_stored();
  void plan();
  void add_outside_sample();
  std::vector<Config> start_configs() const;
  Prior read_prior();
  std::unique_ptr<Strategy> fresh_strategy(const Prior& prior);
  void start_strategy();
  void keep_search();
  std::size_t resume();
  void tune_on_gpus();
  void measure_and_retime(Dispatcher& dispatcher);
  void search_rounds(Dispatcher& dispatcher, const std::shared_ptr<const ShapeTask>& task,
                     std::vector<std::future<CompileOutput>>& setup);
  bool regrow();
  std::vector<std::future<CompileOutput>> start_setup(CompilePool& pool);
  void retime_finalists(const std::shared_ptr<const ShapeTask>& task);
  void retime(const Result& finalist, const std::shared_ptr<const ShapeTask>& task);
  void measure_copy_bandwidth(Dispatcher& dispatcher, const std::shared_ptr<const ShapeTask>& task);
  void account(const Result& r, bool resumed);
  void note_lanes_left(const Dispatcher& dispatcher);
  void finish_clock();

  double best_ms() const override;
  void arrived(const Arrival& a) override;
  bool compiled(std::size_t index) const override;

  TunerResources& tuner_;
  const TuneOptions& options_;
  std::size_t budget_limit_;  // the configurations this shape may hold: TuneOptions::budget or the caller's
  std::size_t compile_ahead_;
  Database& database_;
  const KernelSpec& spec_;
  const Shape& shape_;
  Clock::time_point start_;
  PhaseClock clock_;
  ShapeReport report_;
  std::optional<SampleGrowth> growth_;  // a sampled space only; made with space_ (checked_space)
  Space space_;
  KernelIdentity kernel_;
  std::string shape_key_;
  std::string arch_;
  L2Flush flush_;  // times of another L2 convention mean something else: resume and the budget see only this one's
  VerifyMode verify_;
  std::map<std::string, Result> stored_;
  CubinCache* cache_ = nullptr;
  std::optional<Result> best_;
  std::map<std::string, Result> results_;  // stored and new: the finalists come from here
  Progress progress_;
  IndexOf index_of_;
  std::vector<Config> library_start_;  // a cuBLASLt configuration family: the heuristic's answers at the shape
  std::unique_ptr<KeptSearch> strategy_;  // taken from the tuner when an earlier call at the shape left one
  std::function<bool(std::size_t)> compiled_;  // empty without a cache
  Budget budget_;
  StopRules stop_;
  std::int64_t db_run_id_ = 0;  // the database's run of this call, which every new result is recorded in
  Dispatcher* dispatcher_ = nullptr;
};

}  // namespace cutune::detail
