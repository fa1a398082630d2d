// The generator, level codes, neighbourhoods and ask/tell record that every search strategy builds on.
#include "search_state.hpp"

#include <algorithm>
#include <cmath>

#include "cutune/error.hpp"

namespace cutune::detail {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::size_t Rng::below(std::size_t n) {
  // Rejecting the lowest 2^64 mod n draws leaves a multiple of n outcomes, so the remainder is exactly uniform.
  const std::uint64_t bound = static_cast<std::uint64_t>(n);
  const std::uint64_t threshold = (0 - bound) % bound;
  std::uint64_t r = next();
  while (r < threshold) r = next();
  return static_cast<std::size_t>(r % bound);
}

double Rng::unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

SpaceIndex::SpaceIndex(const Space& space) : size_(space.size()) {
  if (size_ > std::numeric_limits<std::uint32_t>::max()) throw InputError("a space of more than 2^32 configurations cannot be searched");
  const auto& configs = space.configs();
  const std::size_t d = configs.empty() ? 0 : configs.front().values.size();
  std::vector<std::vector<double>> distinct(d);
  for (const auto& c : configs) {
    for (std::size_t p = 0; p < d; ++p) distinct[p].push_back(c.values[p].as_double());
  }
  levels_.resize(d);
  for (std::size_t p = 0; p < d; ++p) {
    std::sort(distinct[p].begin(), distinct[p].end());
    distinct[p].erase(std::unique(distinct[p].begin(), distinct[p].end()), distinct[p].end());
    if (distinct[p].size() > std::numeric_limits<std::uint16_t>::max()) {
      throw InputError("a parameter with more than 65535 values cannot be searched");
    }
    levels_[p] = distinct[p].size();
  }
  std::uint64_t product = 1;
  for (std::size_t l : levels_) {
    if (__builtin_mul_overflow(product, l, &product)) throw InputError("a space of more than 2^64 points cannot be searched");
  }
  codes_.resize(size_ * d);
  by_key_.reserve(size_);
  for (std::size_t i = 0; i < size_; ++i) {
    for (std::size_t p = 0; p < d; ++p) {
      const double v = configs[i].values[p].as_double();
      codes_[i * d + p] = static_cast<std::uint16_t>(std::lower_bound(distinct[p].begin(), distinct[p].end(), v) - distinct[p].begin());
    }
    by_key_.emplace(key(code(i)), static_cast<std::uint32_t>(i));
  }
}

std::uint64_t SpaceIndex::key(std::span<const std::uint16_t> code) const {
  std::uint64_t k = 0;
  for (std::size_t p = 0; p < code.size(); ++p) k = k * levels_[p] + code[p];
  return k;
}

std::optional<std::size_t> SpaceIndex::find(std::span<const std::uint16_t> code) const {
  const auto it = by_key_.find(key(code));
  if (it == by_key_.end()) return std::nullopt;
  return it->second;
}

void SpaceIndex::hamming_neighbours(std::size_t config, std::vector<std::uint32_t>& out) const {
  const auto here = code(config);
  const std::uint64_t k = key(here);
  std::uint64_t weight = 1;  // the key's weight of parameter p, last parameter first
  for (std::size_t p = dimensions(); p-- > 0;) {
    const std::uint64_t base = k - here[p] * weight;
    for (std::size_t l = 0; l < levels_[p]; ++l) {
      if (l == here[p]) continue;
      const auto it = by_key_.find(base + l * weight);
      if (it != by_key_.end()) out.push_back(it->second);
    }
    weight *= levels_[p];
  }
}

void SpaceIndex::adjacent_neighbours(std::size_t config, std::vector<std::uint32_t>& out) const {
  const auto here = code(config);
  const std::uint64_t k = key(here);
  std::uint64_t weight = 1;
  for (std::size_t p = dimensions(); p-- > 0;) {
    const std::uint64_t base = k - here[p] * weight;
    for (std::size_t l = here[p]; l-- > 0;) {
      const auto it = by_key_.find(base + l * weight);
      if (it != by_key_.end()) {
        out.push_back(it->second);
        break;
      }
    }
    for (std::size_t l = here[p] + 1u; l < levels_[p]; ++l) {
      const auto it = by_key_.find(base + l * weight);
      if (it != by_key_.end()) {
        out.push_back(it->second);
        break;
      }
    }
    weight *= levels_[p];
  }
}

History::History(std::size_t size)
    : value_(size, std::numeric_limits<double>::quiet_NaN()), asked_(size, 0), told_(size, 0), pool_(size), pool_pos_(size),
      pending_pos_(size) {
  for (std::size_t i = 0; i < size; ++i) pool_[i] = pool_pos_[i] = static_cast<std::uint32_t>(i);
}

void History::mark_asked(std::size_t i) {
  asked_[i] = 1;
  // Swap-remove from the pool keeps random_unasked() O(1).
  const std::uint32_t pos = pool_pos_[i];
  pool_[pos] = pool_.back();
  pool_pos_[pool_[pos]] = pos;
  pool_.pop_back();
  pending_pos_[i] = static_cast<std::uint32_t>(pending_.size());
  pending_.push_back(static_cast<std::uint32_t>(i));
}

std::optional<std::size_t> History::random_unasked(Rng& rng) const {
  if (pool_.empty()) return std::nullopt;
  return pool_[rng.below(pool_.size())];
}

void History::tell(std::size_t i, std::optional<double> time_ms) {
  if (i >= size()) throw InputError("told configuration " + std::to_string(i) + " of a space of " + std::to_string(size()));
  if (!asked(i)) throw InputError("told configuration " + std::to_string(i) + ", which was never asked");
  if (told(i)) throw InputError("told configuration " + std::to_string(i) + " twice");
  told_[i] = 1;
  told_order_.push_back(static_cast<std::uint32_t>(i));
  const std::uint32_t pos = pending_pos_[i];
  pending_[pos] = pending_.back();
  pending_pos_[pending_[pos]] = pos;
  pending_.pop_back();
  // A NaN or negative time is no measurement either: it counts as a failure.
  const bool ok = time_ms && *time_ms >= 0.0 && std::isfinite(*time_ms);
  value_[i] = ok ? *time_ms : std::numeric_limits<double>::infinity();
  if (ok && (!best_ || value_[i] < value_[*best_])) best_ = i;
}

std::optional<std::size_t> SearchStrategy::random_walk(std::size_t from, std::size_t steps) {
  std::size_t at = from;
  for (std::size_t s = 0; s < steps; ++s) {
    scratch_.clear();
    index_.hamming_neighbours(at, scratch_);
    if (scratch_.empty()) break;
    at = scratch_[rng_.below(scratch_.size())];
  }
  if (history_.asked(at)) return std::nullopt;
  return at;
}

double log_time(double value) {
  // A time of zero is a (suspicious) measurement, not a failure: clamp it instead of producing -infinity.
  return std::isfinite(value) ? std::log(std::max(value, 1e-12)) : std::numeric_limits<double>::infinity();
}

}  // namespace cutune::detail
