// Tests of growing a sample from outside it: only valid configurations of the whole space, none of the sample or of
// another part, neighbours through the constraints, each centre once.
#include "cutune/sample_growth.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace cutune {
namespace {

// Three parameters, one constraint; shape ["N"].
KernelSpec grid_spec() {
  const std::string text = R"json({"name": "g", "source": "g.cu", "kernel": "g", "shape": ["N"],
    "parameters": {"A": [1, 2, 3, 4], "B": [1, 2, 3, 4], "C": [1, 2, 3, 4]}, "constraints": ["A <= B"],
    "block": [32], "grid": ["ceil_div(N, 32)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
    "reference": {"kernel": "g_ref", "block": [32], "grid": ["ceil_div(N, 32)"]}, "metric": {"bytes": "4 * N"}})json";
  return KernelSpec::from_json(text, "", "g.cu");
}

Config config_of(const KernelSpec& spec, const std::string& text) { return spec.parse_config(text); }

struct Part {
  Space space;
  std::unordered_map<std::string, std::size_t> index_of;
};

// A "sample" of the spec's valid configurations: those with C == 1, split into parts as Space::shard does.
Part sample_part(const KernelSpec& spec, const Space& sample, Shard shard) {
  Part part{sample.shard(shard), {}};
  for (std::size_t i = 0; i < part.space.size(); ++i) part.index_of.emplace(spec.format(part.space.configs()[i]), i);
  return part;
}

Space c_is_one(const KernelSpec& spec, const Shape& shape) {
  std::vector<Config> kept;
  for (const Config& c : Space::enumerate(spec, shape, DeviceLimits{}).configs())
    if (c.values[2] == Value(std::int64_t{1})) kept.push_back(c);
  std::vector<std::vector<Value>> values;
  for (const auto& p : spec.parameters) values.push_back(p.values);
  return Space::from_configs(values, kept);
}

TEST(SampleGrowth, AddsOnlyValidNewConfigurations) {
  const KernelSpec spec = grid_spec();
  const Shape shape = spec.parse_shape("1024");
  const Space sample = c_is_one(spec, shape);
  Part whole = sample_part(spec, sample, {});
  const SampleGrowth growth(spec, shape, DeviceLimits{}, sample, {});
  const std::size_t before = whole.space.size();
  const std::vector<Config> asked = {config_of(spec, "A=1,B=2,C=3"), config_of(spec, "A=3,B=2,C=3"),  // A > B
                                     config_of(spec, "A=1,B=2,C=1"),                                  // in the sample
                                     config_of(spec, "A=1,B=2,C=3")};                                 // twice
  EXPECT_EQ(growth.add(whole.space, whole.index_of, asked), 1u);
  ASSERT_EQ(whole.space.size(), before + 1);
  EXPECT_EQ(spec.format(whole.space.configs().back()), "A=1,B=2,C=3");
  EXPECT_EQ(whole.index_of.at("A=1,B=2,C=3"), before);
}

TEST(SampleGrowth, GrowsByEachCentresValidNeighboursOnce) {
  const KernelSpec spec = grid_spec();
  const Shape shape = spec.parse_shape("1024");
  const Space sample = c_is_one(spec, shape);
  Part whole = sample_part(spec, sample, {});
  SampleGrowth growth(spec, shape, DeviceLimits{}, sample, {});
  // A=2,B=2,C=1: neighbours A=1 (in the sample), A=3,4 (A > B: invalid), B=1 (invalid), B=3,4 (sample), C=2,3,4 (new).
  EXPECT_EQ(growth.grow(whole.space, whole.index_of, {config_of(spec, "A=2,B=2,C=1")}), 3u);
  for (const char* text : {"A=2,B=2,C=2", "A=2,B=2,C=3", "A=2,B=2,C=4"}) EXPECT_EQ(whole.index_of.count(text), 1u) << text;
  EXPECT_EQ(growth.grow(whole.space, whole.index_of, {config_of(spec, "A=2,B=2,C=1")}), 0u);  // grown around already
  // A=2,B=2,C=3 (added above): A=1,B=2,C=3 and A=2,B=3,C=3, A=2,B=4,C=3 are new; C's others are there already.
  EXPECT_EQ(growth.grow(whole.space, whole.index_of, {config_of(spec, "A=2,B=2,C=3")}), 3u);
  LazySpace lazy(spec, shape, DeviceLimits{});
  for (const Config& c : whole.space.configs()) EXPECT_TRUE(lazy.valid(c)) << spec.format(c);
}

TEST(SampleGrowth, PartsNeverAddTheSameConfiguration) {
  const KernelSpec spec = grid_spec();
  const Shape shape = spec.parse_shape("1024");
  const Space sample = c_is_one(spec, shape);
  std::multiset<std::string> measured;  // every configuration any part tunes
  for (std::size_t index = 1; index <= 3; ++index) {
    Part part = sample_part(spec, sample, {index, 3});
    SampleGrowth growth(spec, shape, DeviceLimits{}, sample, {index, 3});
    for (const Config& c : Space::enumerate(spec, shape, DeviceLimits{}).configs()) growth.grow(part.space, part.index_of, {c});
    for (const Config& c : part.space.configs()) measured.insert(spec.format(c));
  }
  // Together the parts hold the whole space, each configuration once.
  const Space whole = Space::enumerate(spec, shape, DeviceLimits{});
  EXPECT_EQ(measured.size(), whole.size());
  for (const Config& c : whole.configs()) EXPECT_EQ(measured.count(spec.format(c)), 1u) << spec.format(c);
}

TEST(SampleGrowth, PlanSpendsHalfOnTheSampleThenRounds) {
  EXPECT_EQ(growth_plan(100).first, 50u);
  EXPECT_EQ(growth_plan(100).round, 10u);
  EXPECT_EQ(growth_plan(7).first, 4u);
  EXPECT_EQ(growth_plan(7).round, 8u);
}

}  // namespace
}  // namespace cutune
