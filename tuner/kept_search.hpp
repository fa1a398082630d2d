// KeptSearch: a shape's search as the tuner keeps it between calls at the same spec and shape.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "cutune/strategy.hpp"

namespace cutune::detail {

/// A strategy with what it knows: every configuration it proposed or was told of before it proposed anything, and the
/// space's configurations by their text. An operation tunes an implementation at a shape in turns (one Tuner::tune
/// call each); the tuner keeps this between them (TunerResources::keep_search), so that a later turn goes on with
/// the same search, told only of results it has not heard, instead of starting another over the same space. A turn
/// may ask ahead for the next one (ask_ahead()), whose compiles then run while it ends.
class KeptSearch final : public Strategy {
 public:
  using IndexOf = std::unordered_map<std::string, std::size_t>;

  /// `space_size`: the size of the space `inner` searches, which a later turn's space must have to go on with it.
  KeptSearch(std::unique_ptr<Strategy> inner, std::size_t space_size);

  /// The proposals asked ahead first (ask_ahead()), in their order, then the strategy's.
  std::vector<std::size_t> ask(std::size_t n) override;
  /// Up to `n` proposals asked now for a later ask() to return first.
  std::vector<std::size_t> ask_ahead(std::size_t n);
  /// How many proposals asked ahead wait for an ask().
  std::size_t ahead_waiting() const { return pending_.size(); }
  void tell(std::size_t index, std::optional<double> time_ms) override { inner_->tell(index, time_ms); }
  void observe(std::size_t index, std::optional<double> time_ms) override;
  void prefer_ready(std::function<bool(std::size_t)> ready) override { inner_->prefer_ready(std::move(ready)); }
  std::size_t ahead() const override { return inner_->ahead(); }
  std::vector<std::size_t> upcoming(std::size_t n) const override { return inner_->upcoming(n); }

  /// Whether the configuration at `index` was proposed or observed: a later turn does not observe its stored result.
  bool knows(std::size_t index) const { return index < known_.size() && known_[index]; }
  std::size_t space_size() const { return known_.size(); }
  /// The configurations' positions by their text (KernelSpec::format), kept with the search for a later turn.
  IndexOf& index_of() { return index_of_; }

 private:
  void note(std::size_t index);

  std::unique_ptr<Strategy> inner_;
  std::vector<std::size_t> pending_;  // asked ahead, not yet handed out
  std::vector<bool> known_;
  IndexOf index_of_;
};

}  // namespace cutune::detail
