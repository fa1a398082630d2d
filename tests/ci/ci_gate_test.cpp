// The test that CI's self-check makes fail (.ci/gate.sh, gate_selfcheck): it passes unless CUTUNE_CI_SELFCHECK_FAIL is
// set, which only that check does, so that CI proves on every run that a failing test fails it.
#include <gtest/gtest.h>

#include <cstdlib>

namespace {

TEST(CiGate, FailsOnlyWhenAsked) {
  const char* asked = std::getenv("CUTUNE_CI_SELFCHECK_FAIL");
  EXPECT_TRUE(asked == nullptr || *asked == '\0') << "failing on purpose: CUTUNE_CI_SELFCHECK_FAIL is set";
}

}  // namespace
