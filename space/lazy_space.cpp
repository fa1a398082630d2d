// LazySpace: counts, uniform draws, checks and neighbours of a spec's valid configurations through SpaceRules, without
// holding the configurations.
#include "cutune/lazy_space.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "cutune/space_rules.hpp"

namespace cutune {
namespace {

// Whether the configuration bound up to `depth` passes the checks placed there (at the last depth, the launch too).
bool passes(SpaceRules& rules, std::size_t depth) {
  if (!rules.holds_at(depth)) return false;
  return depth < rules.parameters() || rules.launchable() == SpaceRules::Launchable::Ok;
}

// Depth-first walk over the valid configurations below the bound prefix of `depth`, in enumeration order, calling
// `leaf()` at each (with every parameter bound); false once `leaf` says stop or `visits` runs out.
template <typename Leaf>
bool walk(SpaceRules& rules, std::size_t depth, std::uint64_t& visits, Leaf&& leaf) {
  if (visits == 0) return false;
  --visits;
  if (!passes(rules, depth)) return true;
  if (depth == rules.parameters()) return leaf();
  for (const Value& v : rules.spec().parameters[depth].values) {
    rules.set(depth, v);
    if (!walk(rules, depth + 1, visits, leaf)) return false;
  }
  return true;
}

// One random descent: at each depth the values whose checks pass are counted and one of them taken; the product of
// the counts (0 at a dead end) estimates the number of valid configurations without bias.
double descend(SpaceRules& rules, std::mt19937_64& rng, std::vector<std::size_t>& ok) {
  if (!passes(rules, 0)) return 0.0;
  double product = 1.0;
  for (std::size_t depth = 0; depth < rules.parameters(); ++depth) {
    const auto& values = rules.spec().parameters[depth].values;
    ok.clear();
    for (std::size_t i = 0; i < values.size(); ++i) {
      rules.set(depth, values[i]);
      if (passes(rules, depth + 1)) ok.push_back(i);
    }
    if (ok.empty()) return 0.0;
    product *= static_cast<double>(ok.size());
    rules.set(depth, values[ok[std::uniform_int_distribution<std::size_t>(0, ok.size() - 1)(rng)]]);
  }
  return product;
}

}  // namespace

std::string count_text(double count) {
  char text[32];
  std::snprintf(text, sizeof text, count < 1e6 ? "%.0f" : "%.3g", count);
  return text;
}

LazySpace::LazySpace(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits)
    : rules_(std::make_unique<SpaceRules>(spec, shape, limits)) {}
LazySpace::~LazySpace() = default;
LazySpace::LazySpace(LazySpace&&) noexcept = default;
LazySpace& LazySpace::operator=(LazySpace&&) noexcept = default;

const KernelSpec& LazySpace::spec() const { return rules_->spec(); }
std::uint64_t LazySpace::cartesian_size() const { return rules_->subtree(0); }

SpaceCount LazySpace::count(std::uint64_t visits, std::size_t probes, std::uint64_t seed) const {
  std::uint64_t found = 0;
  if (walk(*rules_, 0, visits, [&] { return ++found, true; })) {
    const double n = static_cast<double>(found);
    return {true, n, n, n, 0};
  }
  std::mt19937_64 rng(seed);
  std::vector<std::size_t> ok;
  double sum = 0.0, squares = 0.0;
  for (std::size_t i = 0; i < probes; ++i) {
    const double x = descend(*rules_, rng, ok);
    sum += x;
    squares += x * x;
  }
  const double n = static_cast<double>(std::max<std::size_t>(probes, 1));
  const double mean = sum / n, variance = std::max(0.0, squares / n - mean * mean);
  const double half = 1.96 * std::sqrt(variance / n), total = static_cast<double>(cartesian_size());
  // What the interrupted walk found is a floor: those configurations exist.
  return {false, mean, std::max(static_cast<double>(found), mean - half), std::min(total, mean + half), probes};
}

std::optional<Config> LazySpace::draw(std::mt19937_64& rng, std::uint64_t tries, std::uint64_t* starts) const {
  SpaceRules& rules = *rules_;
  if (starts) *starts = 0;
  if (!passes(rules, 0)) return std::nullopt;
  for (std::uint64_t t = 0; t < tries; ++t) {
    if (starts) ++*starts;
    std::size_t depth = 0;
    for (; depth < rules.parameters(); ++depth) {
      const auto& values = rules.spec().parameters[depth].values;
      rules.set(depth, values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)]);
      if (!passes(rules, depth + 1)) break;
    }
    if (depth == rules.parameters()) return rules.config();
  }
  return std::nullopt;
}

bool LazySpace::valid(const Config& c) const { return rules_->valid(c); }

std::vector<Config> LazySpace::neighbours(const Config& c) const {
  std::vector<Config> out;
  Config other = c;
  for (std::size_t p = 0; p < rules_->parameters(); ++p) {
    for (const Value& v : rules_->spec().parameters[p].values) {
      if (v == c.values[p]) continue;
      other.values[p] = v;
      if (rules_->valid(other)) out.push_back(other);
    }
    other.values[p] = c.values[p];
  }
  return out;
}

std::uint64_t LazySpace::for_each(const std::function<void(const Config&)>& visit) const {
  std::uint64_t visits = std::numeric_limits<std::uint64_t>::max(), found = 0;
  walk(*rules_, 0, visits, [&] {
    visit(rules_->config());
    return ++found, true;
  });
  return found;
}

std::optional<Config> LazySpace::first() const {
  std::uint64_t visits = std::numeric_limits<std::uint64_t>::max();
  bool found = false;
  walk(*rules_, 0, visits, [&] { return !(found = true); });  // stops at the first
  if (!found) return std::nullopt;
  return rules_->config();
}

Space tuning_space(const KernelSpec& spec, const std::optional<Shape>& shape, const DeviceLimits& limits) {
  const LazySpace lazy(spec, shape, limits);
  if (lazy.cartesian_size() <= kTunedSample) return Space::enumerate(spec, shape, limits);
  const SpaceCount count = lazy.count(30'000'000, 20'000, 1);
  if (count.high <= static_cast<double>(kEnumerateUpTo)) return Space::enumerate(spec, shape, limits);
  // Distinct draws, ordered by their place in the cartesian product (mixed radix, last parameter fastest).
  std::vector<std::vector<Value>> values;
  for (const auto& p : spec.parameters) values.push_back(p.values);
  std::map<std::uint64_t, Config> drawn;  // by place in the grid: distinct, in enumeration order
  std::mt19937_64 rng(1);
  // Fresh starts of all draws together: a space where few starts are valid leaves a smaller sample, never a long wait.
  std::uint64_t starts_left = kSampleStarts;
  for (std::size_t misses = 0; drawn.size() < kTunedSample && misses < 100 && starts_left > 0;) {
    std::uint64_t starts = 0;
    const auto c = lazy.draw(rng, starts_left, &starts);
    starts_left -= starts;
    if (!c) break;
    misses = drawn.emplace(*grid_position(values, *c), *c).second ? 0 : misses + 1;
  }
  if (drawn.empty()) return Space::enumerate(spec, shape, limits);
  std::vector<Config> configs;
  configs.reserve(drawn.size());
  for (auto& [place, c] : drawn) configs.push_back(std::move(c));
  Space sample = Space::from_configs(values, std::move(configs));
  sample.set_sample_of(count.value);
  return sample;
}

}  // namespace cutune
