// Budget: the one place that decides how many configurations a shape may hold and how many are still to be asked of
// its strategy, in this call and in the current round.
#pragma once

#include <algorithm>
#include <cstddef>

namespace cutune::detail {

/// A shape holds at most `budget` configurations (TuneOptions::budget; 0: the whole space), at most its space, those
/// stored before included. What that leaves is this call's to measure, asked of the strategy in rounds: one over a
/// whole space; over a sampled space, a first round and then one per growth of the sample (growth_plan()), each asking
/// at most its own share. The stop rule of the budget (budget_rule()) holds when nothing more may be asked, and the
/// measure loop asks for no more than may_ask().
class Budget {
 public:
  Budget() = default;
  Budget(std::size_t budget, std::size_t space_size) : limit_(budget > 0 ? std::min(budget, space_size) : space_size) {}

  /// Configurations the shape may hold.
  std::size_t limit() const { return limit_; }
  /// Counts `stored` configurations against the limit: what is left is this call's to measure.
  void count_stored(std::size_t stored) { to_measure_ = limit_ > stored ? limit_ - stored : 0; }
  /// Configurations this call measures at most.
  std::size_t to_measure() const { return to_measure_; }
  /// Of to_measure(), those not asked yet.
  std::size_t left() const { return to_measure_ - asked_; }

  /// Starts a round that asks at most `most` of what is left.
  void open_round(std::size_t most) {
    round_ = std::min(most, left());
    round_asked_ = 0;
  }
  /// What the current round may still ask.
  std::size_t may_ask() const { return round_ - round_asked_; }
  /// How many the current round asked.
  std::size_t round_asked() const { return round_asked_; }
  /// The strategy was asked for `n` more (at most may_ask()).
  void asked(std::size_t n) {
    n = std::min(n, may_ask());
    round_asked_ += n;
    asked_ += n;
  }

 private:
  std::size_t limit_ = 0;
  std::size_t to_measure_ = 0;
  std::size_t asked_ = 0;
  std::size_t round_ = 0;
  std::size_t round_asked_ = 0;
};

}  // namespace cutune::detail
