// Tests of follow_parameters() (the command line's --follow): parameters named by the user join the reference's
// "follow" as if the spec named them, and names it cannot follow are refused with the reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cutune/error.hpp"
#include "cutune/spec_follow.hpp"
#include "spec_sample.hpp"

namespace {

using cutune::InputError;
using cutune::KernelSpec;
using cutune::follow_parameters;

using namespace cutune::testing::spec_sample;

KernelSpec with_reference_configuration(const Json& follow = Json()) {
  Json j = Json::parse(kSpec);
  j["reference"] = {{"configuration", {{"TILE", 16}, {"ROWS", 4}}}};
  if (!follow.is_null()) j["reference"]["follow"] = follow;
  return parse(j.dump());
}

TEST(SpecFollow, NamedParametersAreFollowedAsIfTheSpecNamedThem) {
  const KernelSpec plain = with_reference_configuration();
  const KernelSpec followed = follow_parameters(plain, {"PAD", "TILE"});
  EXPECT_EQ(followed.reference_follow, (std::vector<std::size_t>{2, 0}));
  const auto checked = followed.parse_config("TILE=64,ROWS=8,PAD=1");
  EXPECT_EQ(followed.format(followed.following(*followed.reference_config, checked)), "TILE=64,ROWS=4,PAD=1");
  // What is verified changes, so the version does: the same as a spec that names them itself.
  EXPECT_NE(followed.hash, plain.hash);
  const KernelSpec written = with_reference_configuration(Json::array({"PAD", "TILE"}));
  EXPECT_EQ(followed.reference_follow, written.reference_follow);
  EXPECT_EQ(follow_parameters(followed, {}).hash, followed.hash);
  // The rest of the spec is kept: its parameters, constraints, tolerance, source and folder.
  EXPECT_EQ(followed.parameters.size(), plain.parameters.size());
  EXPECT_EQ(followed.constraints.size(), plain.constraints.size());
  EXPECT_EQ(followed.tolerance.atol.text(), plain.tolerance.atol.text());
  EXPECT_EQ(followed.source, plain.source);
  EXPECT_EQ(followed.reference_config, plain.reference_config);
}

TEST(SpecFollow, ParametersFollowedAlreadyChangeNothing) {
  const KernelSpec spec = with_reference_configuration(Json::array({"PAD"}));
  const KernelSpec again = follow_parameters(spec, {"PAD", "PAD"});
  EXPECT_EQ(again.hash, spec.hash);  // the same spec, and the same version
  EXPECT_EQ(again.reference_follow, spec.reference_follow);
  // A new one joins those the spec follows.
  const KernelSpec more = follow_parameters(spec, {"ROWS", "PAD", "ROWS"});
  EXPECT_EQ(more.reference_follow, (std::vector<std::size_t>{2, 1}));
}

TEST(SpecFollow, WhatCannotBeFollowedIsRefusedWithTheReason) {
  const KernelSpec spec = with_reference_configuration();
  EXPECT_EQ(message_of<InputError>([&] { follow_parameters(spec, {"DEPTH"}); }),
            "--follow 'DEPTH': transpose has no such parameter (its parameters: TILE, ROWS, PAD)");
  EXPECT_EQ(message_of<InputError>([&] { follow_parameters(parse(kSpec), {"PAD"}); }),
            "--follow PAD: transpose's reference is the kernel 'transpose_reference', which computes one output for "
            "every configuration; --follow needs a reference configuration (\"reference\": {\"configuration\": ...})");
}

}  // namespace
