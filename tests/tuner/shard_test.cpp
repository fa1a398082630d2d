// Tests of --shard i/n: a space split into interleaved parts that never overlap and together are the whole space.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "cli_support.hpp"
#include "cutune/error.hpp"
#include "cutune/shard.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"

namespace {

namespace fs = std::filesystem;

using cutune::Config;
using cutune::InputError;
using cutune::Shard;
using cutune::Space;
using cutune::Value;

Space grid_space(int a, int b) {
  std::vector<Value> av, bv;
  for (int i = 0; i < a; ++i) av.emplace_back(i);
  for (int i = 0; i < b; ++i) bv.emplace_back(i);
  std::vector<Config> configs;
  for (int i = 0; i < a; ++i)
    for (int j = 0; j < b; ++j)
      if ((i + j) % 5 != 3) configs.push_back(Config{{i, j}});  // a few holes, as constraints leave
  return Space::from_configs({av, bv}, configs);
}

std::string key(const Config& c) {
  std::string out;
  for (const auto& v : c.values) out += v.str() + ",";
  return out;
}

// Every configuration lands in exactly one part, in the space's order; part sizes differ by at most one.
void expect_partition(const Space& space, std::size_t parts) {
  std::map<std::string, std::size_t> owner;
  std::size_t smallest = space.size(), largest = 0;
  for (std::size_t i = 1; i <= parts; ++i) {
    const Space part = space.shard({i, parts});
    smallest = std::min(smallest, part.size());
    largest = std::max(largest, part.size());
    EXPECT_EQ(part.size() + part.removed_by_shard(), space.size());
    EXPECT_EQ(part.cartesian_size(), space.cartesian_size());
    EXPECT_EQ(part.removed_by_constraints(), space.removed_by_constraints());
    for (std::size_t k = 0; k < part.size(); ++k) {
      // Interleaved: the k-th configuration of part i is the space's (k * parts + i - 1)-th.
      EXPECT_EQ(key(part.configs()[k]), key(space.configs()[k * parts + i - 1]));
      EXPECT_TRUE(owner.emplace(key(part.configs()[k]), i).second) << "in two parts of " << parts;
    }
  }
  EXPECT_EQ(owner.size(), space.size()) << parts << " parts miss configurations";
  EXPECT_LE(largest - smallest, 1u);
}

TEST(Shard, PartsAreDisjointAndCoverTheSpace) {
  const Space space = grid_space(7, 9);
  ASSERT_EQ(space.size(), 50u);
  for (std::size_t parts : {1u, 2u, 3u, 4u, 7u, 49u, 50u}) expect_partition(space, parts);
}

TEST(Shard, MorePartsThanConfigurations) {
  const Space space = grid_space(2, 3);
  ASSERT_EQ(space.size(), 5u);
  expect_partition(space, 8);
  EXPECT_EQ(space.shard({6, 8}).size(), 0u);
  EXPECT_EQ(space.shard({6, 8}).removed_by_shard(), 5u);
  EXPECT_EQ(space.shard({5, 8}).size(), 1u);
}

TEST(Shard, OfAnEnumeratedSpace) {
  const auto spec = cutune::load_kernel("transpose");
  const Space space = Space::enumerate(spec, cutune::Shape{{8192, 8192}}, cutune::DeviceLimits{});
  expect_partition(space, 4);
  EXPECT_EQ(space.shard({1, 1}).size(), space.size());
  EXPECT_EQ(space.shard({1, 1}).removed_by_shard(), 0u);
}

TEST(Shard, Parse) {
  const Shard s = Shard::parse("2/4");
  EXPECT_EQ(s.index, 2u);
  EXPECT_EQ(s.count, 4u);
  EXPECT_EQ(s.str(), "2/4");
  EXPECT_TRUE(Shard::parse("1/1").whole());
  EXPECT_EQ(Shard::parse("1048576/1048576").count, 1048576u);
  auto message = [](const char* text) {
    try {
      Shard::parse(text);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("0/3"), "shard '0/3': the part must be from 1 to 3 (parts count from 1, as SLURM_ARRAY_TASK_ID "
                            "with --array=1-3)");
  EXPECT_EQ(message("4/3"), message("0/3").replace(7, 3, "4/3"));
  EXPECT_EQ(message("1/0"), "shard '1/0': the number of parts must be from 1 to 1048576");
  EXPECT_EQ(message("1/2000000"), "shard '1/2000000': the number of parts must be from 1 to 1048576");
  for (const char* bad : {"a/b", "3", "", "/", "1/", "/3", "-1/3", "1/3/5", " 1/3", "1 /3", "+1/3", "1.0/3", "99999999/99999999"}) {
    EXPECT_EQ(message(bad), "shard '" + std::string(bad) + "' is not i/n (e.g. 2/4: the second of 4 parts)") << bad;
  }
  EXPECT_THROW(Space().shard({0, 3}), InputError);
  EXPECT_THROW(Space().shard({4, 3}), InputError);
}

using ShardCli = cutune::test::TuneCommandTest;

TEST_F(ShardCli, SpaceCountsEachPart) {
  std::size_t total = 0;
  for (int i = 1; i <= 3; ++i) {
    const auto r = tune("space --kernel transpose --shard " + std::to_string(i) + "/3");
    ASSERT_EQ(r.code, 0) << r.err;
    const std::size_t part = std::stoul(r.out);
    EXPECT_NE(r.out.find(", " + std::to_string(160 - part) + " in the other parts)"), std::string::npos) << r.out;
    total += part;
  }
  EXPECT_EQ(total, 160u);
}

TEST_F(ShardCli, BadValuesAreOneLineAndCreateNothing) {
  for (const char* bad : {"0/3", "4/3", "a/b", "3"}) {
    for (const std::string& cmd : {std::string("--kernel transpose --shapes 64x64 --db t.db --shard ") + bad,
                                   std::string("space --kernel transpose --shard ") + bad}) {
      const auto r = tune(cmd);
      EXPECT_EQ(r.code, 1) << cmd;
      EXPECT_EQ(r.err.rfind(std::string("error: --shard '") + bad + "'", 0), 0u) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_FALSE(fs::exists(dir_ / "t.db")) << cmd;
    }
  }
}

}  // namespace
