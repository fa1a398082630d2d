// Tests of where start configurations land in a space: their own positions, else their nearest configurations'.
#include "cutune/start_positions.hpp"

#include <gtest/gtest.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "cutune/space.hpp"

namespace cutune {
namespace {

KernelSpec grid_spec() {
  const std::string text = R"json({"name": "s", "source": "s.cu", "kernel": "s", "shape": ["N"],
    "parameters": {"A": [1, 2, 3, 4], "B": [1, 2, 3, 4]}, "constraints": ["A * B <= 6 or A * B == 16"],
    "block": [32], "grid": ["ceil_div(N, 32)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
    "reference": {"kernel": "s_ref", "block": [32], "grid": ["ceil_div(N, 32)"]}, "metric": {"bytes": "4 * N"}})json";
  return KernelSpec::from_json(text, "", "s.cu");
}

TEST(StartPositions, OwnPositionElseTheNearestOneParameterChangeElseNothing) {
  const KernelSpec spec = grid_spec();
  const Space space = Space::enumerate(spec, spec.parse_shape("1024"), DeviceLimits{});
  std::unordered_map<std::string, std::size_t> index_of;
  for (std::size_t i = 0; i < space.size(); ++i) index_of.emplace(spec.format(space.configs()[i]), i);
  const auto at = [&](const char* text) { return index_of.at(text); };
  const std::vector<Config> starts = {
      spec.parse_config("A=2,B=3"),  // in the space
      spec.parse_config("A=3,B=3"),  // 9: A one step down (A=2,B=3) before B (A=3,B=2), the earlier parameter first
      spec.parse_config("A=4,B=3"),  // 12: A=2,B=3 (two steps) loses to B one step (A=4,B=4, 16)
      spec.parse_config("A=3,B=4"),  // 12: A=4,B=4 (one step up) and A=3,B=2 (two steps down): the one step
  };
  EXPECT_EQ(start_positions(spec, starts, index_of),
            (std::vector<std::size_t>{at("A=2,B=3"), at("A=2,B=3"), at("A=4,B=4"), at("A=4,B=4")}));
  // Nothing one change away: with every configuration but A=1,B=1 removed, A=3,B=3 is left out.
  std::unordered_map<std::string, std::size_t> only = {{"A=1,B=1", 0}};
  EXPECT_TRUE(start_positions(spec, {spec.parse_config("A=3,B=3")}, only).empty());
  EXPECT_EQ(start_positions(spec, {spec.parse_config("A=3,B=1")}, only), (std::vector<std::size_t>{0}));
}

}  // namespace
}  // namespace cutune
