// The default strategy on a space whose optimum is a needle at a rare edge value: the widest block, valid with a
// block height of one only (1 in 24 of the configurations), and fast only with shared memory and the smallest tile,
// which are slower everywhere else.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "cutune/replay.hpp"
#include "cutune/strategy.hpp"
#include "hashed_noise.hpp"
#include "search/rare_edges.hpp"

namespace cutune {
namespace {

// A deterministic factor in [0.93, 1.07) per configuration: the spread of real measurements.
double noise(std::uint64_t k) { return test::hashed_noise(k, 0.93, 0.14); }

// Block width 16-1024 and height 1-32 with 64-1024 threads, tiles of 1-8 by 1-8 of at most 32 elements, shared
// memory or not, four unroll factors: 9,792 configurations. Times form a bowl around 370 threads, a tile of 3.4 by
// 5.4, no shared memory and unroll 1, except for the needle: 1024 wide (so one row high, 1 in 24 configurations),
// with shared memory and a tile width of 2, 22% below the bowl there, which puts a handful within 5% of the optimum.
RecordedSpace needle_space() {
  const std::vector<int> widths = {16, 32, 64, 128, 256, 512, 1024}, heights = {1, 2, 4, 8, 16, 32};
  const std::vector<int> unrolls = {0, 1, 2, 4};
  std::vector<std::vector<Value>> values(6);
  for (int w : widths) values[0].push_back(w);
  for (int h : heights) values[1].push_back(h);
  for (int t = 1; t <= 8; ++t) values[2].push_back(t), values[3].push_back(t);
  values[4] = {0, 1};
  for (int u : unrolls) values[5].push_back(u);
  std::vector<Config> configs;
  RecordedSpace recorded;
  for (int w : widths)
    for (int h : heights) {
      if (w * h < 64 || w * h > 1024) continue;
      for (int tx = 1; tx <= 8; ++tx)
        for (int ty = 1; ty * tx <= 32 && ty <= 8; ++ty)
          for (int shmem = 0; shmem <= 1; ++shmem)
            for (int unroll : unrolls) {
              configs.push_back(Config{{w, h, tx, ty, shmem, unroll}});
              const double threads = std::log2(static_cast<double>(w * h)) - 8.53;
              double t = 1.0 + 0.04 * threads * threads + 0.03 * std::abs(tx - 3.4) + 0.03 * std::abs(ty - 5.4) +
                         0.05 * shmem + 0.02 * std::abs(unroll - 1);
              if (w == 1024 && shmem == 1 && tx == 2) t *= 0.78;
              recorded.times_ms.push_back(t * noise(configs.size()));
            }
    }
  recorded.space = Space::from_configs(values, configs);
  return recorded;
}

TEST(RareEdges, AreTheEdgeValuesFewConfigurationsTake) {
  const RecordedSpace recorded = needle_space();
  ASSERT_EQ(recorded.space.size(), 9792u);
  const detail::SpaceIndex index(recorded.space);
  // Below one in 12 (the default's initial design for six parameters): 1024 wide (408 configurations), tiles 8 wide
  // or 8 high (768 each); a block height of 32 is taken by 816, exactly one in 12, and is not rare.
  const auto rare = detail::rare_edges(index, 9792.0 / 12.0);
  ASSERT_EQ(rare.size(), 3u);
  const std::vector<std::pair<std::size_t, std::size_t>> expected = {{0, 6}, {2, 7}, {3, 7}};
  const std::vector<std::size_t> sizes = {408, 768, 768};
  for (std::size_t k = 0; k < rare.size(); ++k) {
    EXPECT_EQ(rare[k].parameter, expected[k].first);
    EXPECT_EQ(rare[k].level, expected[k].second);
    ASSERT_EQ(rare[k].configs.size(), sizes[k]);
    for (std::uint32_t c : rare[k].configs) EXPECT_EQ(index.code(c)[rare[k].parameter], rare[k].level);
  }
  EXPECT_EQ(detail::rare_edges(index, 408.0).size(), 0u) << "fewer than the limit, not as many";
}

TEST(RareEdges, TheDefaultFindsANeedleThere) {
  const RecordedSpace recorded = needle_space();
  ReplayOptions options;
  options.budgets = {300};
  options.seeds = 60;
  const ReplayResult r = replay("portfolio", recorded, options);
  // Within 5% of the optimum by 300 evaluations in 22 of these 60 seeds; without the draws from the rare edge values,
  // 5: the model alone seldom asks for the widest block with shared memory. (Whether a run finds the needle is close
  // to a coin's throw, so 20 seeds move by half: the same strategy found it in 4 of seeds 1-20 and 18 of 21-60.)
  std::size_t found = 0;
  for (double evals : r.evals_to_5pct) found += evals <= 300.0;
  EXPECT_GE(found, 15u) << "median evaluations to within 5%: " << r.median_evals_to_5pct;
}

}  // namespace
}  // namespace cutune
