// StartFirst: proposes given configurations (a spec's known-good ones, `tune --start`) before anything the wrapped
// strategy proposes, and hands their outcomes to the wrapped strategy as observations it learns from.
#include <limits>
#include <unordered_set>
#include <utility>

#include "cutune/error.hpp"
#include "cutune/strategy.hpp"

namespace cutune {
namespace {

class StartFirst final : public Strategy {
 public:
  StartFirst(std::unique_ptr<Strategy> inner, std::vector<std::size_t> first)
      : inner_(std::move(inner)), first_(std::move(first)) {}

  std::vector<std::size_t> ask(std::size_t n) override {
    std::vector<std::size_t> out;
    while (out.size() < n && next_ < first_.size()) {
      const std::size_t index = first_[next_++];
      if (known_.insert(index).second) out.push_back(index), pending_.insert(index);
    }
    while (out.size() < n) {
      const std::vector<std::size_t> more = inner_->ask(n - out.size());
      if (more.empty()) break;
      for (std::size_t index : more) {
        if (!known_.count(index)) {
          out.push_back(index);
          continue;
        }
        // A start configuration that the wrapped strategy proposes while its outcome is still out (once the outcome
        // is in, the wrapped strategy has observed it and never proposes it): it hears the outcome as its own.
        inner_asked_.insert(index);
      }
    }
    return out;
  }

  void tell(std::size_t index, std::optional<double> time_ms) override {
    if (pending_.erase(index) == 0) return inner_->tell(index, time_ms);
    if (inner_asked_.erase(index) > 0) return inner_->tell(index, time_ms);
    inner_->observe(index, time_ms);
  }

  void observe(std::size_t index, std::optional<double> time_ms) override {
    if (!known_.insert(index).second) throw InputError("configuration " + std::to_string(index) + " was already asked");
    inner_->observe(index, time_ms);
  }

  void prefer_ready(std::function<bool(std::size_t)> ready) override { inner_->prefer_ready(std::move(ready)); }

  // The start configurations still to come are proposed whatever the outcomes: as far ahead as they reach, and then
  // as far as the wrapped strategy goes; they are also what comes next.
  std::size_t ahead() const override {
    const std::size_t left = first_.size() - next_, inner = inner_->ahead();
    return inner > std::numeric_limits<std::size_t>::max() - left ? inner : left + inner;
  }

  std::vector<std::size_t> upcoming(std::size_t n) const override {
    std::vector<std::size_t> out;
    for (std::size_t k = next_; k < first_.size() && out.size() < n; ++k)
      if (!known_.count(first_[k])) out.push_back(first_[k]);
    if (out.size() < n)
      for (std::size_t index : inner_->upcoming(n - out.size()))
        if (!known_.count(index)) out.push_back(index);
    return out;
  }

 private:
  std::unique_ptr<Strategy> inner_;
  std::vector<std::size_t> first_;
  std::size_t next_ = 0;
  std::unordered_set<std::size_t> known_;        // start configurations asked, and everything observed
  std::unordered_set<std::size_t> pending_;      // start configurations asked and not yet told
  std::unordered_set<std::size_t> inner_asked_;  // pending ones that the wrapped strategy proposed as well
};

}  // namespace

std::unique_ptr<Strategy> start_first(std::unique_ptr<Strategy> inner, std::vector<std::size_t> first) {
  if (first.empty()) return inner;
  return std::make_unique<StartFirst>(std::move(inner), std::move(first));
}

}  // namespace cutune
