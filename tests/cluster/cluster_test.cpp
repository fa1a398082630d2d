// Tests of cluster launch geometry: the spec's "cluster", its resolution, and what the space prunes and why.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "spec_json_support.hpp"

#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/spec.hpp"

namespace cutune {
namespace {

using Json = testing::SpecJson;

Json clustered_spec() {
  return Json::parse(R"json({
    "name": "clustered", "source": "c.cu", "kernel": "k", "shape": ["N"],
    "parameters": {"BLOCK": [128, 256], "CX": [1, 2, 4, 16, 32]},
    "block": ["BLOCK"], "grid": ["ceil_div(N, BLOCK)"], "cluster": ["CX", 1, 1],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}],
    "reference": {"configuration": {"CX": 1}},
    "metric": {"bytes": "4 * N"}
  })json");
}

TEST(Cluster, ResolvesWithTheGeometry) {
  const KernelSpec spec = testing::spec_from_json(clustered_spec());
  const Launch l = spec.resolve(spec.launch, spec.parse_config("BLOCK=128,CX=4"), spec.parse_shape("4096"), 132);
  EXPECT_EQ(l.cluster, (std::array<std::int64_t, 3>{4, 1, 1}));
  EXPECT_EQ(l.cluster_size(), 4);
  EXPECT_EQ(l.grid[0], 32);
  // Without "cluster", one block per cluster.
  Json j = clustered_spec();
  j.erase("cluster");
  const KernelSpec plain = testing::spec_from_json(j);
  EXPECT_EQ(plain.resolve(plain.launch, plain.default_config(), plain.parse_shape("8"), 132).cluster_size(), 1);
}

TEST(Cluster, ErrorsNameTheField) {
  Json j = clustered_spec();
  j["cluster"] = {"CX", "N", 1};
  EXPECT_EQ(testing::spec_error(j), "spec clustered: cluster[1]: may use parameter names only, not the shape's N");
  j["cluster"] = {1, 1, 1, 1};
  EXPECT_EQ(testing::spec_error(j), "spec clustered: cluster: must be a list of 1 to 3 expressions");
}

TEST(Cluster, LimitsSizeAndGridDivisibility) {
  const DeviceLimits hopper = limits_of_compute_capability(90);
  Launch l;
  l.grid = {6, 1, 1};
  l.cluster = {4, 1, 1};
  EXPECT_EQ(check_cluster(l, hopper, false), std::nullopt);
  EXPECT_EQ(check_cluster(l, hopper, true), "grid.x = 6 is not a multiple of cluster.x = 4");
  l.cluster = {4, 4, 2};
  EXPECT_EQ(check_cluster(l, hopper, false), "a cluster of 32 blocks > 16");
  l.cluster = {32, 1, 1};
  EXPECT_EQ(check_cluster(l, hopper, false), "cluster.x = 32 > 16 blocks");
  l.cluster = {2, 1, 1};
  EXPECT_EQ(check_cluster(l, limits_of_compute_capability(80), false),
            "cluster.x = 2 > 1 blocks");
  l.cluster = {1, 1, 1};
  EXPECT_EQ(check_cluster(l, limits_of_compute_capability(80), true), std::nullopt);
}

TEST(Cluster, SpaceCountsClustersByTargetAndGridByDevice) {
  const KernelSpec spec = testing::spec_from_json(clustered_spec());
  // Without a shape: CX = 32 exceeds 16 blocks (device limits), on both block sizes.
  const Space hopper = Space::enumerate(spec, std::nullopt, limits_of_compute_capability(90));
  EXPECT_EQ(hopper.size(), 8u);
  EXPECT_EQ(hopper.removed_by_device(), 2u);
  EXPECT_EQ(hopper.removed_by_target(), 0u);
  // Before 9.0, every cluster of several blocks needs what the architecture lacks.
  const Space ampere = Space::enumerate(spec, std::nullopt, limits_of_compute_capability(80));
  EXPECT_EQ(ampere.size(), 2u);
  EXPECT_EQ(ampere.removed_by_target(), 8u);
  // At N = 768: 6 blocks of 128 (clusters of 1 and 2 divide it), 3 of 256 (only 1).
  const Space shaped = Space::enumerate(spec, spec.parse_shape("768"), limits_of_compute_capability(90));
  EXPECT_EQ(shaped.size(), 3u);
  EXPECT_EQ(shaped.removed_by_device(), 7u);
}

}  // namespace
}  // namespace cutune
