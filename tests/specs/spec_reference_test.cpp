// Tests of a spec's reference that is a configuration of the kernel itself: its parsing, the parameters it follows
// from the configuration it checks ("follow"), and each field error.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "cutune/spec.hpp"
#include "spec_sample.hpp"

namespace {

using cutune::Config;
using cutune::KernelSpec;
using cutune::Shape;

using namespace cutune::testing::spec_sample;

TEST(SpecReference, AConfigurationOfTheKernelItself) {
  Json j = Json::parse(kSpec);
  j["reference"] = {{"configuration", {{"TILE", 16}, {"ROWS", 4}}}};
  const KernelSpec s = parse(j.dump());
  ASSERT_TRUE(s.reference_config.has_value());
  EXPECT_EQ(s.format(*s.reference_config), "TILE=16,ROWS=4,PAD=0");  // PAD, not named, takes its default
  EXPECT_TRUE(s.reference_kernel.empty());
  // The reference launches with the spec's own geometry, resolved at the reference configuration.
  const cutune::Launch l = s.resolve(s.reference_launch, *s.reference_config, Shape{{64, 64}}, 132);
  EXPECT_EQ(l.block, (std::array<std::int64_t, 3>{16, 4, 1}));
  EXPECT_EQ(l.grid, (std::array<std::int64_t, 3>{4, 4, 1}));
  EXPECT_EQ(l.shared_memory, 16 * 16 * 4);
  EXPECT_FALSE(parse(kSpec).reference_config.has_value());

  // Constraints that need a shape cannot be checked without one, so they do not reject the reference.
  j["constraints"].push_back("TILE <= M");
  j["reference"]["configuration"]["TILE"] = 64;
  EXPECT_EQ(parse(j.dump()).format(*parse(j.dump()).reference_config), "TILE=64,ROWS=4,PAD=0");
}

TEST(SpecReference, ConfigurationErrorsNameTheField) {
  const auto with_reference = [](Json reference) {
    return [reference](Json& j) { j["reference"] = reference; };
  };
  EXPECT_EQ(error_after(with_reference({{"configuration", {{"DEPTH", 1}}}})),
            "spec transpose: reference.configuration.DEPTH: 'DEPTH' is not a parameter");
  EXPECT_EQ(error_after(with_reference({{"configuration", {{"TILE", 48}}}})),
            "spec transpose: reference.configuration.TILE: must be one of the values of TILE (16, 32, 64)");
  EXPECT_EQ(error_after(with_reference({{"configuration", {{"TILE", "16"}}}})),
            "spec transpose: reference.configuration.TILE: must be one of the values of TILE (16, 32, 64)");
  EXPECT_EQ(error_after(with_reference({{"configuration", Json::array({16})}})),
            "spec transpose: reference.configuration: must be an object of parameter name: value");
  EXPECT_EQ(error_after(with_reference({{"configuration", Json::object()}, {"kernel", "transpose_reference"}})),
            "spec transpose: reference: unknown field 'kernel' (allowed: configuration, follow)");
  EXPECT_EQ(error_after([](Json& j) {
              j["constraints"].push_back("TILE >= 32");
              j["reference"] = {{"configuration", {{"TILE", 16}}}};
            }),
            "spec transpose: reference.configuration: TILE=16,ROWS=8,PAD=0 violates constraint 'TILE >= 32'");
  EXPECT_EQ(error_after(with_reference(Json::array())),
            "spec transpose: reference: must be an object with kernel, block and grid, or with configuration");
}

// "follow": parameters of the problem, which the reference takes from the configuration it checks.
TEST(SpecReference, FollowTakesTheCheckedConfigurationsValues) {
  Json j = Json::parse(kSpec);
  j["reference"] = {{"configuration", {{"TILE", 16}, {"ROWS", 4}}}, {"follow", {"PAD", "TILE"}}};
  const KernelSpec s = parse(j.dump());
  EXPECT_EQ(s.reference_follow, (std::vector<std::size_t>{2, 0}));  // in the spec's order, as parameter indices
  const Config checked = s.parse_config("TILE=64,ROWS=8,PAD=1");
  EXPECT_EQ(s.format(s.following(*s.reference_config, checked)), "TILE=64,ROWS=4,PAD=1");
  EXPECT_EQ(s.format(s.following(*s.reference_config, s.parse_config("TILE=16,ROWS=2,PAD=0"))), "TILE=16,ROWS=4,PAD=0");

  // Without "follow" the reference is the same for every configuration; the field is part of the kernel's version.
  j["reference"].erase("follow");
  const KernelSpec fixed = parse(j.dump());
  EXPECT_TRUE(fixed.reference_follow.empty());
  EXPECT_EQ(fixed.format(fixed.following(*fixed.reference_config, checked)), "TILE=16,ROWS=4,PAD=0");
  EXPECT_NE(fixed.hash, s.hash);
}

TEST(SpecReference, FollowErrorsNameTheField) {
  const auto with_follow = [](Json follow) {
    return [follow](Json& j) { j["reference"] = {{"configuration", {{"TILE", 16}}}, {"follow", follow}}; };
  };
  EXPECT_EQ(error_after(with_follow({"DEPTH"})), "spec transpose: reference.follow: 'DEPTH' is not a parameter");
  EXPECT_EQ(error_after(with_follow({"PAD", "PAD"})), "spec transpose: reference.follow: names PAD twice");
  EXPECT_EQ(error_after(with_follow("PAD")), "spec transpose: reference.follow: must be a list of parameter names");
  EXPECT_EQ(error_after(with_follow({1})), "spec transpose: reference.follow: must be a list of parameter names");
  EXPECT_EQ(error_after([](Json& j) { j["reference"]["follow"] = {"PAD"}; }),
            "spec transpose: reference.follow: needs a reference configuration: a reference kernel computes one "
            "output for every configuration");
}

}  // namespace
