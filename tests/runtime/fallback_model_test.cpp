// The runtime's fallback model: of the configurations this GPU measured, the one predicted fastest at an untuned
// shape and valid there. Waves matter: at a small-M,N long-K shape, a split-K configuration that was second at a big
// shape is predicted faster than the big shape's winner, which would leave most SMs idle.
#include <gtest/gtest.h>

#include "cutune/runtime.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "db_test_support.hpp"
#include "runtime/fallback_model.hpp"

namespace cutune::testing {
namespace {

std::int64_t value_of(const KernelSpec& spec, const Config& c, const std::string& name) {
  for (std::size_t p = 0; p < spec.parameters.size(); ++p)
    if (spec.parameters[p].name == name) return c.values[p].as_int();
  return -1;
}

// The configuration of the largest block tile valid at both shapes with SPLITK == `split` (the first such in
// enumeration order).
std::string config_with_split(const KernelSpec& spec, const Shape& a, const Shape& b, std::int64_t split) {
  std::string best;
  std::int64_t best_tile = 0;
  for (const Config& c : Space::enumerate(spec, a, DeviceLimits{}).configs()) {
    const std::int64_t tile = value_of(spec, c, "BM") * value_of(spec, c, "BN");
    if (value_of(spec, c, "SPLITK") != split || tile <= best_tile) continue;
    const std::string text = spec.format(c);
    if (!invalid_config(spec, text, b.str())) best = text, best_tile = tile;
  }
  return best;
}

Result measured(const std::string& config, double ms) {
  Result r = ok_result(config, ms);
  r.blocks_per_sm = 1;
  return r;
}

TEST(FallbackModel, SplitKWinsWhereTheWinnersGridWouldLeaveTheSmsIdle) {
  const KernelSpec spec = load_kernel("gemm");
  const DeviceIdentity h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  const Shape big = spec.parse_shape("1024x1024x8192"), skinny = spec.parse_shape("128x128x16384");
  const std::string whole = config_with_split(spec, big, skinny, 1), split = config_with_split(spec, big, skinny, 8);
  ASSERT_FALSE(whole.empty());
  ASSERT_FALSE(split.empty());
  const std::vector<TunedResults> tuned{{big.str(), {measured(whole, 1.0), measured(split, 1.1)}}};

  const auto at_skinny = detail::predict_best(spec, h100, skinny, tuned, L2Flush::Read);
  ASSERT_TRUE(at_skinny);
  EXPECT_EQ(at_skinny->result.config, split);
  EXPECT_EQ(at_skinny->match, Match::Predicted);
  EXPECT_EQ(at_skinny->shape, big.str());  // where its measurement came from
  // Near the tuned shape the winner stays the winner.
  const auto near = detail::predict_best(spec, h100, spec.parse_shape("1024x1024x6144"), tuned, L2Flush::Read);
  ASSERT_TRUE(near);
  EXPECT_EQ(near->result.config, whole);
  // Predictions follow each block's work: the same grid over half the K, about half the time (a little more: the
  // evidence is from another shape).
  const double half = detail::predict_ms(spec, spec.parse_config(whole), tuned[0].results[0], big,
                                         spec.parse_shape("1024x1024x4096"), h100.sm_count);
  EXPECT_GT(half, 0.5);
  EXPECT_LT(half, 0.55);
}

TEST(FallbackModel, OnlyConfigurationsValidAtTheShapeCompete) {
  const KernelSpec spec = load_kernel("gemm");
  const DeviceIdentity h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  const Shape big = spec.parse_shape("1024x1024x8192"), shallow = spec.parse_shape("1024x1024x64");
  const std::string whole = config_with_split(spec, big, shallow, 1), split = config_with_split(spec, big, big, 8);
  ASSERT_FALSE(split.empty());
  // Splitting K = 64 eight ways leaves each part less than two of its K tiles: not valid there, however fast it was.
  ASSERT_TRUE(invalid_config(spec, split, shallow.str()));
  const std::vector<TunedResults> tuned{{big.str(), {measured(split, 0.5), measured(whole, 1.0)}}};
  const auto chosen = detail::predict_best(spec, h100, shallow, tuned, L2Flush::Read);
  ASSERT_TRUE(chosen);
  EXPECT_EQ(chosen->result.config, whole);
  const std::vector<TunedResults> only_split{{big.str(), {measured(split, 0.5)}}};
  EXPECT_FALSE(detail::predict_best(spec, h100, shallow, only_split, L2Flush::Read));
}

// Through choose_config(): the database's fastest few of every tuned shape compete; nothing measured valid at the
// shape leaves the spec's default, never an invalid configuration.
class FallbackModelDb : public TempDirTest {};

TEST_F(FallbackModelDb, ChooseConfigPredictsFromEveryTunedShape) {
  const KernelSpec spec = load_kernel("gemm");
  const DeviceIdentity h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  const Shape big = spec.parse_shape("1024x1024x8192"), skinny = spec.parse_shape("128x128x16384");
  const std::string whole = config_with_split(spec, big, skinny, 1), split = config_with_split(spec, big, skinny, 8);
  Database db(path("m.db"));
  const auto run = db.begin_run(h100, {spec.name, spec.hash}, "tune");
  for (const auto& [config, ms] : {std::pair{whole, 1.0}, std::pair{split, 1.1}}) {
    Result r = measured(config, ms);
    db.record(run, big.str(), r);
  }
  const BestConfig chosen = choose_config(&db, spec, h100, skinny);
  EXPECT_EQ(chosen.match, Match::Predicted);
  EXPECT_EQ(chosen.result.config, split);
  EXPECT_EQ(choose_config(&db, spec, h100, big).result.config, whole);
  EXPECT_EQ(choose_config(&db, spec, h100, big).match, Match::Exact);
}

}  // namespace
}  // namespace cutune::testing

namespace cutune::testing {
namespace {

TEST_F(FallbackModelDb, TopResultsAreTheFastestUsableOfEachTunedShape) {
  const DeviceIdentity h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  const KernelIdentity kernel{"k", "0123456789abcdef"};
  Database db(path("top.db"));
  const auto run = db.begin_run(h100, kernel, "tune");
  for (int c = 0; c < 12; ++c) db.record(run, "64x64", ok_result("A=" + std::to_string(c), 12.0 - c));
  db.record(run, "64x64", failed_result("A=99", Status::WrongResult, "mismatch"));
  Result unverified = ok_result("A=98", 0.1);  // faster, but verified results come first
  unverified.status = Status::Unverified;
  db.record(run, "64x64", unverified);
  db.record(run, "8x8", ok_result("B=1", 1.0));
  db.record(run, "9x9", failed_result("B=2", Status::CompileError, "no"));  // not tuned: no shape of its own
  const auto written = db.begin_run(h100, kernel, "tune", L2Flush::Write);
  db.record(written, "64x64", ok_result("W=1", 0.01));  // another convention

  const auto top = db.top_results(h100, kernel, L2Flush::Read, 3);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].shape, "64x64");
  ASSERT_EQ(top[0].results.size(), 3u);
  EXPECT_EQ(top[0].results[0].config, "A=11");
  EXPECT_EQ(top[0].results[2].config, "A=9");
  EXPECT_EQ(top[1].shape, "8x8");
  EXPECT_EQ(db.top_results(h100, kernel, L2Flush::Read, 20)[0].results.back().config, "A=98");
  EXPECT_TRUE(db.top_results(synthetic_device("Other", 9, 0, 132), kernel, L2Flush::Read, 3).empty());
}

}  // namespace
}  // namespace cutune::testing
