// A shape's search kept between calls: the strategy, and which configurations it knows (kept_search.hpp).
#include "tuner/kept_search.hpp"

#include <algorithm>

namespace cutune::detail {

KeptSearch::KeptSearch(std::unique_ptr<Strategy> inner, std::size_t space_size)
    : inner_(std::move(inner)), known_(space_size, false) {}

std::vector<std::size_t> KeptSearch::ask(std::size_t n) {
  const std::size_t from_ahead = std::min(n, pending_.size());
  std::vector<std::size_t> asked(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(from_ahead));
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(from_ahead));
  if (asked.size() < n) {
    for (const std::size_t index : inner_->ask(n - asked.size())) {
      note(index);
      asked.push_back(index);
    }
  }
  return asked;
}

std::vector<std::size_t> KeptSearch::ask_ahead(std::size_t n) {
  std::vector<std::size_t> asked = inner_->ask(n);
  for (const std::size_t index : asked) note(index);
  pending_.insert(pending_.end(), asked.begin(), asked.end());
  return asked;
}

void KeptSearch::observe(std::size_t index, std::optional<double> time_ms) {
  inner_->observe(index, time_ms);  // throws for an index out of range or asked before
  note(index);
}

void KeptSearch::note(std::size_t index) {
  if (index < known_.size()) known_[index] = true;
}

}  // namespace cutune::detail
