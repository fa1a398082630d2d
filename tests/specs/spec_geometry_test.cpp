// Tests of a spec's launch geometry in numbers: block, grid (SM_COUNT included), shared memory and the metric.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "spec_sample.hpp"

namespace {

using cutune::Config;
using cutune::KernelSpec;
using cutune::Shape;
using cutune::SpecError;
using cutune::Value;
using namespace cutune::testing::spec_sample;

TEST(SpecGeometry, ResolveAndMetric) {
  const KernelSpec s = parse(kSpec);
  const Shape shape{{1000, 2000}};
  const auto launch = s.resolve(s.launch, s.parse_config("TILE=32,ROWS=8,PAD=1"), shape, 132);
  EXPECT_EQ(launch.block, (std::array<std::int64_t, 3>{32, 8, 1}));
  EXPECT_EQ(launch.grid, (std::array<std::int64_t, 3>{63, 32, 1}));
  EXPECT_EQ(launch.shared_memory, 32 * 33 * 4);
  EXPECT_EQ(launch.threads(), 256);
  const auto reference = s.resolve(s.reference_launch, s.default_config(), shape, 132);
  EXPECT_EQ(reference.grid, (std::array<std::int64_t, 3>{63, 125, 1}));
  EXPECT_EQ(reference.shared_memory, 0);
  EXPECT_DOUBLE_EQ(s.metric_amount(shape), 8.0 * 1000 * 2000);
  const auto scope = s.scope(s.default_config(), nullptr);
  EXPECT_EQ(scope, (std::vector<Value>{32, 8, 0, 0, 0}));
}

// A persistent kernel's grid: about one block per multiprocessor of the GPU it runs on.
TEST(SpecGeometry, GridMayNameTheMultiprocessorCount) {
  Json j = Json::parse(kSpec);
  j["grid"][0] = "min(ceil_div(N, TILE) * ceil_div(M, TILE), SM_COUNT)";
  j["grid"][1] = 1;
  const KernelSpec s = parse(j.dump());
  const Config c = s.parse_config("TILE=32,ROWS=8,PAD=1");
  EXPECT_EQ(s.resolve(s.launch, c, Shape{{1000, 2000}}, 132).grid[0], 132);
  EXPECT_EQ(s.resolve(s.launch, c, Shape{{1000, 2000}}, 114).grid[0], 114);
  EXPECT_EQ(s.resolve(s.launch, c, Shape{{64, 64}}, 132).grid[0], 4);
  // Only the grid's expressions know it: the space is the same on every GPU of an architecture.
  EXPECT_EQ(error_after([](Json& e) { e["constraints"][0] = "TILE <= SM_COUNT"; }),
            "spec transpose: constraints[0]: unknown name 'SM_COUNT' in 'TILE <= SM_COUNT'");
  EXPECT_EQ(error_after([](Json& e) { e["block"][0] = "SM_COUNT"; }),
            "spec transpose: block[0]: unknown name 'SM_COUNT' in 'SM_COUNT'");
  EXPECT_EQ(error_after([](Json& e) { e["parameters"]["SM_COUNT"] = Json::array({1, 2}); }),
            "spec transpose: parameters: SM_COUNT is the GPU's multiprocessor count in grid expressions, not a name a "
            "parameter or shape dimension may take");
}

TEST(SpecGeometry, NonIntegerGeometryIsAnError) {
  Json j = Json::parse(kSpec);
  j["block"][0] = "TILE / 3";
  const KernelSpec s = parse(j.dump());
  EXPECT_EQ(message_of<SpecError>([&] {
              s.resolve(s.launch, s.default_config(), Shape{{64, 64}}, 132);
            }),
            "spec transpose: block[0] 'TILE / 3' is 10.666666666666666 at TILE=32,ROWS=8,PAD=0, not an integer");
  j["block"][0] = "TILE / 2";  // a float with an integral value is accepted
  const KernelSpec t = parse(j.dump());
  EXPECT_EQ(t.resolve(t.launch, t.default_config(), Shape{{64, 64}}, 132).block[0], 16);
}

}  // namespace
