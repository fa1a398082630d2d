// The division of an operation's budget among its implementations (operation_budget.hpp).
#include "cutune/operation_budget.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "cutune/library.hpp"
#include "cutune/operation.hpp"

namespace cutune {

OperationBudget::OperationBudget(std::vector<std::size_t> order, std::size_t budget, std::vector<std::size_t> groups)
    : order_(std::move(order)), budget_(budget), groups_(std::move(groups)) {
  std::size_t size = 0;
  for (const std::size_t i : order_) size = std::max(size, i + 1);
  states_.resize(size);
  if (groups_.empty()) {
    for (std::size_t i = 0; i < size; ++i) groups_.push_back(i);
  }
  if (groups_.size() < size) throw std::invalid_argument("OperationBudget: a group for every implementation");
}

// The group's part of half the budget, split evenly among its members in `order`; the first members get what does not
// divide evenly.
std::size_t OperationBudget::first_share(std::size_t implementation) const {
  std::vector<std::size_t> seen, members;
  for (const std::size_t i : order_) {
    if (std::find(seen.begin(), seen.end(), groups_[i]) == seen.end()) seen.push_back(groups_[i]);
    if (groups_[i] == groups_[implementation]) members.push_back(i);
  }
  const std::size_t group = budget_ / (kFirstSharesDivisor * seen.size());
  const std::size_t place = static_cast<std::size_t>(std::find(members.begin(), members.end(), implementation) -
                                                     members.begin());
  const std::size_t share = group / members.size() + (place < group % members.size() ? 1 : 0);
  return std::max<std::size_t>(1, share);
}

std::size_t OperationBudget::round_size() const { return std::max<std::size_t>(1, budget_ / kRoundDivisor); }

std::size_t OperationBudget::left() const {
  std::size_t given = 0;
  for (const State& s : states_) given += s.share;
  return budget_ > given ? budget_ - given : 0;
}

std::size_t OperationBudget::next_round_size() const { return std::min(round_size(), left()); }

std::optional<double> OperationBudget::best_ms() const {
  std::optional<double> best;
  for (const State& s : states_) {
    if (s.best_ms && (!best || *s.best_ms < *best)) best = s.best_ms;
  }
  return best;
}

double OperationBudget::pay(std::size_t implementation) const {
  const State& s = states_.at(implementation);
  const std::optional<double> best = best_ms();
  if (s.turns == 0 || !s.best_ms || !best) return 0.0;
  const auto size = static_cast<double>(round_size());
  const double gain = *best - (*s.best_ms - s.lowering_per_config * size);
  if (!(gain > 0.0)) return 0.0;
  const double seconds_per_config = s.seconds / static_cast<double>(std::max<std::size_t>(1, s.measured));
  return gain / std::max(seconds_per_config * size, 1e-6);
}

std::optional<BudgetTurn> OperationBudget::next() {
  if (pending_) throw std::logic_error("OperationBudget::next() before the turn it gave was recorded");
  if (first_turns_ < order_.size()) {
    const std::size_t i = order_[first_turns_++];
    const std::size_t share = budget_ == 0 ? 0 : first_share(i);
    states_[i].share = share;
    pending_ = i;
    return BudgetTurn{i, share, budget_ == 0 ? "its whole space" : "first share"};
  }
  if (budget_ == 0) return std::nullopt;
  return next_round();
}

std::optional<BudgetTurn> OperationBudget::next_round() {
  const std::size_t size = next_round_size();
  if (size == 0) return std::nullopt;
  std::optional<std::size_t> chosen;
  double chosen_pay = 0.0;
  for (const std::size_t i : order_) {
    if (states_[i].exhausted) continue;
    const double p = pay(i);
    if (p > chosen_pay) chosen = i, chosen_pay = p;
  }
  std::ostringstream why;
  if (chosen) {
    why << "lowers the best time by " << chosen_pay * 1e3 << " us per second of tuning";
  } else {
    // Nothing is expected to lower the best: the round refines the leader (the implementation whose best is the
    // fastest; one without a correct result last, in `order`).
    for (const std::size_t i : order_) {
      const State& s = states_[i];
      if (s.exhausted) continue;
      const State* current = chosen ? &states_[*chosen] : nullptr;
      if (!current || (s.best_ms && (!current->best_ms || *s.best_ms < *current->best_ms))) chosen = i;
    }
    if (!chosen) return std::nullopt;
    why << "nothing is expected to lower the best: the fastest goes on";
  }
  states_[*chosen].share += size;
  pending_ = *chosen;
  return BudgetTurn{*chosen, states_[*chosen].share, why.str()};
}

void OperationBudget::record(std::size_t implementation, const TurnOutcome& outcome) {
  if (pending_ != implementation) throw std::logic_error("OperationBudget::record() of a turn it did not give");
  pending_.reset();
  State& s = states_[implementation];
  // The lowering per configuration: from the best before the turn, or in a first turn from its first measurement.
  const bool before = s.turns > 0 && s.best_ms.has_value();
  const std::optional<double> from = before ? s.best_ms : outcome.first_ms;
  const std::size_t steps = before ? outcome.measured : (outcome.measured > 0 ? outcome.measured - 1 : 0);
  s.lowering_per_config = from && outcome.best_ms && steps > 0 ? std::max(0.0, (*from - *outcome.best_ms) / steps) : 0.0;
  ++s.turns;
  s.measured += outcome.measured;
  s.seconds += outcome.seconds;
  if (outcome.best_ms) s.best_ms = outcome.best_ms;
  // Fewer held than its share: nothing left to propose (or the whole space asked for); the rest goes back.
  if (s.share == 0 || outcome.held < s.share) {
    s.exhausted = true;
    s.share = std::min(s.share, outcome.held);
  }
}

std::vector<std::size_t> operation_share_groups(const OperationSpec& operation) {
  std::vector<std::size_t> groups;
  for (std::size_t i = 0; i < operation.implementations.size(); ++i) {
    const KernelSpec& spec = operation.implementations[i];
    std::size_t group = i;
    for (std::size_t j = 0; j < i && spec.library; ++j) {
      const auto& other = operation.implementations[j].library;
      if (other && other->name == spec.library->name) {
        group = groups[j];
        break;
      }
    }
    groups.push_back(group);
  }
  return groups;
}

}  // namespace cutune
