// How an operation's per-shape budget is divided among its implementations (tune_operation()): a first share each,
// then rounds to whichever implementation's measurements pay the most, in how much they lower the operation's best
// time per second of tuning. The rule only; the turns themselves are Tuner::tune calls (docs/applications.md).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cutune {

struct OperationSpec;

/// What one turn of an implementation at a shape (a Tuner::tune call under its share so far) found.
struct TurnOutcome {
  std::size_t measured = 0;        ///< configurations measured in the turn (those resumed from the database not counted)
  std::size_t held = 0;            ///< configurations the shape holds for the implementation after it (resumed included)
  double seconds = 0.0;            ///< the turn's wall time
  std::optional<double> first_ms;  ///< the implementation's best right after the turn's first measurement, ms
  std::optional<double> best_ms;   ///< its best after the turn (stored results included), ms
};

/// One decision: which implementation tunes next, and its share at the shape after the turn.
struct BudgetTurn {
  std::size_t implementation = 0;  ///< an index into the operation's implementations
  std::size_t share = 0;           ///< Tuner::tune's budget: its configurations at the shape, earlier turns' included
  std::string why;                 ///< in words: "first share", "lowers the best by 0.4 us per second", ...
};

class OperationBudget {
 public:
  /// Of a first share, half the budget in all, evenly among the groups of implementations and evenly within a group
  /// (at least one configuration each), in `order` (library families first); then rounds of a quarter of the budget
  /// (at least one), each to the implementation with the highest pay().
  static constexpr std::size_t kFirstSharesDivisor = 2;
  static constexpr std::size_t kRoundDivisor = 4;

  /// `order`: the implementations (indices) in the order of their first turns; `budget`: the operation's per-shape
  /// budget (0: each implementation its whole space, one turn each, in `order`); `groups`: by implementation index,
  /// the group whose first share it splits with the others of the group (operation_share_groups()); empty: each
  /// implementation a group of its own.
  OperationBudget(std::vector<std::size_t> order, std::size_t budget, std::vector<std::size_t> groups = {});

  /// The next turn, or nothing when the budget is spent or every implementation is exhausted (it held fewer
  /// configurations than its share: its space or its search ran out). Each turn returned must be record()ed before
  /// the next call.
  std::optional<BudgetTurn> next();
  void record(std::size_t implementation, const TurnOutcome& outcome);

  /// What one more round could add, as far as the budget leaves one: a round's size, or what is left (0: nothing).
  std::size_t next_round_size() const;
  /// The operation's best time at the shape so far (ms), over every implementation's turns.
  std::optional<double> best_ms() const;
  /// What one more round of `implementation` is expected to lower the operation's best time by, per second of
  /// tuning (ms/s): its best minus the lowering per configuration of its last turn times the round's size, against the
  /// operation's best, over the round's expected seconds (its seconds per configuration so far). 0 when that does not
  /// reach below the operation's best, or before its first turn.
  double pay(std::size_t implementation) const;

 private:
  struct State {
    std::size_t share = 0;
    std::size_t turns = 0;
    std::size_t measured = 0;       // over its turns
    double seconds = 0.0;           // over its turns
    std::optional<double> best_ms;
    double lowering_per_config = 0.0;  // ms, its last turn's
    bool exhausted = false;
  };

  std::size_t round_size() const;
  std::size_t first_share(std::size_t implementation) const;
  std::size_t left() const;
  std::optional<BudgetTurn> next_round();

  std::vector<std::size_t> order_;
  std::size_t budget_ = 0;
  std::size_t first_turns_ = 0;  // of order_, the first shares handed out
  std::vector<State> states_;    // by implementation index
  std::vector<std::size_t> groups_;  // by implementation index
  std::optional<std::size_t> pending_;
};

/// The groups of OperationBudget's first shares, by implementation index: each template a group of its own, and the
/// library families of one library (cuBLASLt's ranked answers and its configuration by attributes, one space offered
/// two ways that meet in the heuristic's first answers) one group, so that a library offered in more families does not
/// shrink the templates' first shares.
std::vector<std::size_t> operation_share_groups(const OperationSpec& operation);

}  // namespace cutune
