// Shared machinery of the search strategies: a seeded generator, configurations as per-parameter level codes with
// a lookup and neighbourhoods over the valid configurations only, and the record of what was asked and told.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/strategy.hpp"

namespace cutune::detail {

/// xoshiro256** seeded through splitmix64: the same numbers on every platform and standard library, which the
/// <random> distributions do not promise.
class Rng {
 public:
  explicit Rng(std::uint64_t seed);
  std::uint64_t next();
  /// Uniform in [0, n); n > 0.
  std::size_t below(std::size_t n);
  /// Uniform in [0, 1).
  double unit();
  bool chance(double p) { return unit() < p; }
  template <typename T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

 private:
  std::uint64_t s_[4];
};

/// A space's configurations as level codes: level l of parameter p is its l-th distinct value in numeric order, so
/// that "one step up" means the next larger value that some valid configuration uses.
class SpaceIndex {
 public:
  explicit SpaceIndex(const Space& space);

  std::size_t size() const { return size_; }
  std::size_t dimensions() const { return levels_.size(); }
  std::size_t levels(std::size_t p) const { return levels_[p]; }
  std::span<const std::uint16_t> code(std::size_t config) const {
    return {codes_.data() + config * dimensions(), dimensions()};
  }
  /// Every configuration's code, row after row (size() rows of dimensions() levels).
  const std::vector<std::uint16_t>& codes() const { return codes_; }
  /// The configuration with this code, or nullopt when the code is not a valid configuration.
  std::optional<std::size_t> find(std::span<const std::uint16_t> code) const;
  /// Appends the configurations that differ from `config` in exactly one parameter.
  void hamming_neighbours(std::size_t config, std::vector<std::uint32_t>& out) const;
  /// Appends, per parameter, the valid configurations nearest above and below `config` in that parameter alone.
  void adjacent_neighbours(std::size_t config, std::vector<std::uint32_t>& out) const;

 private:
  std::uint64_t key(std::span<const std::uint16_t> code) const;

  std::size_t size_ = 0;
  std::vector<std::size_t> levels_;
  std::vector<std::uint16_t> codes_;  // size_ rows of dimensions() levels
  std::unordered_map<std::uint64_t, std::uint32_t> by_key_;
};

/// What a strategy asked and was told. Failed configurations hold +infinity, so they are never best and compare
/// worse than every measured one; configurations asked but not yet told hold NaN.
class History {
 public:
  explicit History(std::size_t size);

  std::size_t size() const { return value_.size(); }
  bool asked(std::size_t i) const { return asked_[i] != 0; }
  bool told(std::size_t i) const { return told_[i] != 0; }
  std::size_t unasked_count() const { return pool_.size(); }
  /// Marks `i` asked; it must not have been asked before.
  void mark_asked(std::size_t i);
  /// A uniformly drawn configuration not yet asked (not marked), or nullopt when every one was asked.
  std::optional<std::size_t> random_unasked(Rng& rng) const;
  /// Records an outcome; throws InputError for an index never asked, told twice, or out of range.
  void tell(std::size_t i, std::optional<double> time_ms);
  double value(std::size_t i) const { return value_[i]; }
  /// The fastest measured configuration, or nullopt while none succeeded.
  std::optional<std::size_t> best() const { return best_; }
  /// Told configurations in the order they were told.
  const std::vector<std::uint32_t>& told_order() const { return told_order_; }
  /// Configurations asked and not yet told (being evaluated), in no particular order.
  const std::vector<std::uint32_t>& pending() const { return pending_; }

 private:
  std::vector<double> value_;
  std::vector<std::uint8_t> asked_;
  std::vector<std::uint8_t> told_;
  std::vector<std::uint32_t> pool_;      // configurations not asked, in any order
  std::vector<std::uint32_t> pool_pos_;  // position of each configuration in pool_ while it is there
  std::vector<std::uint32_t> told_order_;
  std::vector<std::uint32_t> pending_;
  std::vector<std::uint32_t> pending_pos_;  // position of each configuration in pending_ while it is there
  std::optional<std::size_t> best_;
};

/// The base of the seeded strategies: the index, the history and the generator, and the bookkeeping of ask/tell
/// that every strategy shares, so that none can propose a configuration twice.
class SearchStrategy : public Strategy {
 public:
  SearchStrategy(const Space& space, std::uint64_t seed) : index_(space), history_(index_.size()), rng_(seed) {}
  void tell(std::size_t index, std::optional<double> time_ms) final {
    history_.tell(index, time_ms);
    on_told(index);
  }
  void observe(std::size_t index, std::optional<double> time_ms) final {
    if (index >= history_.size() || history_.asked(index)) {
      throw InputError("observed configuration " + std::to_string(index) + " was already asked or is out of range");
    }
    history_.mark_asked(index);
    tell(index, time_ms);
  }

 protected:
  /// Called after each outcome is recorded.
  virtual void on_told(std::size_t index) = 0;
  /// Marks `i` asked and appends it to `out`; false (and nothing done) when it was asked before.
  bool take(std::size_t i, std::vector<std::size_t>& out) {
    if (history_.asked(i)) return false;
    history_.mark_asked(i);
    out.push_back(i);
    return true;
  }
  /// Fills `out` with uniformly drawn unasked configurations up to `n` entries.
  void fill_random(std::size_t n, std::vector<std::size_t>& out) {
    while (out.size() < n) {
      const auto i = history_.random_unasked(rng_);
      if (!i) return;
      take(*i, out);
    }
  }
  /// An unasked configuration reached by a random walk of `steps` Hamming moves from `from` (the walk may pass
  /// through asked ones), or nullopt when the walk ends on an asked one.
  std::optional<std::size_t> random_walk(std::size_t from, std::size_t steps);

  SpaceIndex index_;
  History history_;
  Rng rng_;
  std::vector<std::uint32_t> scratch_;
};

/// Natural logarithm of a measured time, or +infinity for a failure: strategies compare times by ratio.
double log_time(double value);

// The strategies, each in its own file.
std::unique_ptr<Strategy> make_random_strategy(const Space& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_annealing_strategy(const Space& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_genetic_strategy(const Space& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_local_search_strategy(const Space& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_bayes_strategy(const Space& space, std::uint64_t seed);
std::unique_ptr<Strategy> make_portfolio_strategy(const Space& space, std::uint64_t seed, const Prior& prior,
                                                  const SearchInputs& inputs);

}  // namespace cutune::detail
