// Tests of the lazy space: exact counts against enumeration, estimates of a 4^24-point space against its known count,
// uniform draws, validity and neighbours through the constraints, without enumerating.
#include "cutune/lazy_space.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cutune/space.hpp"

namespace cutune {
namespace {

// A one-dimensional spec (shape ["N"]) around the given parameters, constraints and block (JSON fragments).
KernelSpec make_spec(const std::string& parameters, const std::string& constraints, const std::string& block) {
  const std::string text = R"json({"name": "k", "source": "k.cu", "kernel": "k", "shape": ["N"], "parameters": )json" +
                           parameters + R"json(, "constraints": )json" + constraints + R"json(, "block": )json" + block +
                           R"json(, "grid": ["ceil_div(N, 256)"], "shared_memory": "0",
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
    "reference": {"kernel": "k_reference", "block": [256], "grid": ["ceil_div(N, 256)"]},
    "metric": {"bytes": "4 * N"}})json";
  return KernelSpec::from_json(text, "", "k.cu");
}

// 24 parameters of 4 values (2.8e14 combinations) in 12 pairs, each pair ordered: 10 of its 16 value pairs are valid,
// 10^12 configurations in all.
KernelSpec pairs_spec() {
  std::string parameters = "{", constraints = "[";
  for (int p = 0; p < 24; ++p) {
    parameters += std::string(p ? ", " : "") + "\"P" + std::to_string(p) + "\": [1, 2, 3, 4]";
    if (p % 2 == 1) {
      constraints += std::string(p > 1 ? ", " : "") + "\"P" + std::to_string(p - 1) + " <= P" + std::to_string(p) + "\"";
    }
  }
  return make_spec(parameters + "}", constraints + "]", "[32]");
}

const char* kSmallParameters = R"json({"A": [1, 2, 3, 4], "B": [32, 64, 128, 256, 512], "C": [1, 2, 3]})json";
const char* kSmallConstraints = R"json(["A <= C", "B * C <= 1024 or A == 1"])json";

TEST(LazySpace, ExactCountIsTheEnumeratedSize) {
  const KernelSpec spec = make_spec(kSmallParameters, kSmallConstraints, "[\"B * C\"]");
  const Shape shape = spec.parse_shape("4096");
  const Space space = Space::enumerate(spec, shape, DeviceLimits{});
  const LazySpace lazy(spec, shape, DeviceLimits{});
  const SpaceCount count = lazy.count(1000, 100, 1);
  EXPECT_TRUE(count.exact);
  EXPECT_EQ(count.value, static_cast<double>(space.size()));
  EXPECT_GT(space.removed_by_device(), 0u);  // B * C threads above 1024 count as removed there and here
  EXPECT_EQ(lazy.cartesian_size(), 60u);
}

TEST(LazySpace, EstimatesAHugeSpaceWithinItsInterval) {
  const LazySpace lazy(pairs_spec(), std::nullopt, DeviceLimits{});
  EXPECT_EQ(lazy.cartesian_size(), std::uint64_t{1} << 48);
  const SpaceCount count = lazy.count(100000, 20000, 7);
  EXPECT_FALSE(count.exact);
  EXPECT_LE(count.low, 1e12);
  EXPECT_GE(count.high, 1e12);
  EXPECT_NEAR(count.value / 1e12, 1.0, 0.1);
  EXPECT_GE(count.low, 100000.0 / 24);  // the interrupted walk's finds are a floor
  EXPECT_EQ(count.probes, 20000u);
  EXPECT_EQ(count_text(1.234e12), "1.23e+12");
  EXPECT_EQ(count_text(123456), "123456");
}

TEST(LazySpace, DrawsEveryValidConfigurationAlike) {
  const KernelSpec spec = make_spec(kSmallParameters, kSmallConstraints, "[\"B * C\"]");
  const Shape shape = spec.parse_shape("4096");
  const std::vector<Config> all = Space::enumerate(spec, shape, DeviceLimits{}).configs();
  const LazySpace lazy(spec, shape, DeviceLimits{});
  std::mt19937_64 rng(3);
  std::map<std::string, int> seen;
  const int draws = 400 * static_cast<int>(all.size());
  for (int i = 0; i < draws; ++i) {
    const auto c = lazy.draw(rng, 1000);
    ASSERT_TRUE(c.has_value());
    ++seen[spec.format(*c)];
  }
  ASSERT_EQ(seen.size(), all.size());
  for (const Config& c : all) EXPECT_NEAR(seen[spec.format(c)], 400, 80) << spec.format(c);
}

TEST(LazySpace, ValidAndNeighboursFollowTheConstraints) {
  const KernelSpec spec = make_spec(kSmallParameters, kSmallConstraints, "[\"B * C\"]");
  const Shape shape = spec.parse_shape("4096");
  const std::vector<Config> all = Space::enumerate(spec, shape, DeviceLimits{}).configs();
  const LazySpace lazy(spec, shape, DeviceLimits{});
  for (const Config& c : all) {
    EXPECT_TRUE(lazy.valid(c));
    std::vector<Config> expected;
    for (std::size_t p = 0; p < c.values.size(); ++p)  // the enumeration's order is parameter-major here too
      for (const Config& d : all) {
        std::size_t differ = 0, at = 0;
        for (std::size_t q = 0; q < c.values.size(); ++q)
          if (!(d.values[q] == c.values[q])) ++differ, at = q;
        if (differ == 1 && at == p) expected.push_back(d);
      }
    EXPECT_EQ(lazy.neighbours(c), expected) << spec.format(c);
  }
  EXPECT_FALSE(lazy.valid(spec.parse_config("A=1,B=512,C=3")));  // 1536 threads
  EXPECT_FALSE(lazy.valid(spec.parse_config("A=3,B=32,C=1")));    // A > C
}

TEST(LazySpace, DrawsFromAHugeSpaceWithoutEnumerating) {
  const KernelSpec spec = pairs_spec();
  const LazySpace lazy(spec, std::nullopt, DeviceLimits{});
  std::mt19937_64 rng(5);
  for (int i = 0; i < 200; ++i) {
    const auto c = lazy.draw(rng, 100000);  // 10^12 / 2^48: about one start in 281 succeeds
    ASSERT_TRUE(c.has_value());
    EXPECT_TRUE(lazy.valid(*c)) << spec.format(*c);
    EXPECT_EQ(lazy.neighbours(*c).size() > 0, true);
  }
}

TEST(LazySpace, ForEachVisitsTheEnumerationInOrder) {
  const KernelSpec spec = make_spec(kSmallParameters, kSmallConstraints, "[\"B * C\"]");
  const Shape shape = spec.parse_shape("4096");
  std::vector<Config> visited;
  const std::uint64_t n = LazySpace(spec, shape, DeviceLimits{}).for_each([&](const Config& c) { visited.push_back(c); });
  EXPECT_EQ(visited, Space::enumerate(spec, shape, DeviceLimits{}).configs());
  EXPECT_EQ(n, visited.size());
}

TEST(LazySpace, FirstIsTheEnumerationsFirst) {
  const KernelSpec spec = make_spec(kSmallParameters, R"json(["A >= 3", "B * C >= 1024"])json", "[\"B * C\"]");
  const Shape shape = spec.parse_shape("4096");
  const LazySpace lazy(spec, shape, DeviceLimits{});
  ASSERT_TRUE(lazy.first().has_value());
  EXPECT_EQ(*lazy.first(), Space::enumerate(spec, shape, DeviceLimits{}).configs().front());
  EXPECT_EQ(spec.format(*lazy.first()), "A=3,B=512,C=2");
}

// Tuning holds a small space whole (the enumeration, unchanged) and a huge one as a fixed uniform sample.
TEST(TuningSpace, SmallSpacesWholeHugeOnesSampled) {
  const KernelSpec small = make_spec(kSmallParameters, kSmallConstraints, "[\"B * C\"]");
  const Shape shape = small.parse_shape("4096");
  const Space whole = tuning_space(small, shape, DeviceLimits{});
  EXPECT_EQ(whole.configs(), Space::enumerate(small, shape, DeviceLimits{}).configs());
  EXPECT_EQ(whole.sample_of(), 0.0);

  const KernelSpec huge = pairs_spec();
  const Space sample = tuning_space(huge, std::nullopt, DeviceLimits{});
  EXPECT_EQ(sample.size(), kTunedSample);
  EXPECT_NEAR(sample.sample_of() / 1e12, 1.0, 0.1);
  EXPECT_EQ(sample.cartesian_size(), std::uint64_t{1} << 48);
  const LazySpace lazy(huge, std::nullopt, DeviceLimits{});
  for (std::size_t i = 0; i < sample.size(); i += 997) EXPECT_TRUE(lazy.valid(sample.configs()[i]));
  EXPECT_EQ(tuning_space(huge, std::nullopt, DeviceLimits{}).configs(), sample.configs());  // the same every time
  EXPECT_EQ(sample.shard({1, 2}).sample_of(), sample.sample_of());
}

TEST(LazySpace, AnEmptySpaceCountsZeroAndDrawsNothing) {
  const KernelSpec spec = make_spec(R"json({"A": [1, 2], "B": [1, 2]})json", R"json(["A + B > 4"])json", "[32]");
  const LazySpace lazy(spec, std::nullopt, DeviceLimits{});
  const SpaceCount count = lazy.count(100, 100, 1);
  EXPECT_TRUE(count.exact);
  EXPECT_EQ(count.value, 0.0);
  std::mt19937_64 rng(1);
  EXPECT_FALSE(lazy.draw(rng, 1000).has_value());
}

}  // namespace
}  // namespace cutune
