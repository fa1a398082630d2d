// Host-only tests of --verify, --atol, --rtol and --follow on the command line, and of `tune best` showing an
// unverified result.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_support.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/templates.hpp"

namespace {

using cutune::test::CommandOutput;
using VerifyCli = cutune::test::TuneCommandTest;

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST_F(VerifyCli, BadValuesAreOneErrorAndNoDatabase) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--verify sometimes", "--verify: sometimes not in {reference,default,none}"},
      {"--verify", "--verify"},
      {"--atol -1", "--atol: '-1' is not a number >= 0"},
      {"--rtol abc", "--rtol: 'abc' is not a number >= 0"},
      {"--rtol nan", "--rtol: 'nan' is not a number >= 0"},
      {"--verify none --atol 1e-3", "error: --atol and --rtol bound the comparison that --verify none leaves out"},
  };
  for (const auto& [args, message] : cases) {
    const CommandOutput r = tune("--kernel transpose --shapes 64x64 " + args);
    EXPECT_NE(r.code, 0) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "cutune.db")) << args;
  }
  EXPECT_EQ(lines(tune("--kernel transpose --shapes 64x64 --verify none --rtol 0").err), 1u);
  const std::string help = tune("--help").out;
  for (const char* option : {"--verify", "--atol", "--rtol"}) EXPECT_NE(help.find(option), std::string::npos) << option;
}

TEST_F(VerifyCli, GoodValuesParse) {
  if (cutune::Device::count() > 0) GTEST_SKIP() << "a CUDA device is present: these would tune";
  for (const char* args : {"--verify reference", "--verify default", "--verify none", "--atol 1e-3 --rtol 0.01",
                           "--verify default --atol 0"}) {
    const CommandOutput r = tune(std::string("--kernel transpose --shapes 64x64 ") + args);
    EXPECT_EQ(r.code, 1) << args;  // past the options: no GPU here
    EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << args << ": " << r.err;
  }
}

TEST_F(VerifyCli, FollowMistakesAreOneErrorAndNoDatabase) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--kernel transpose --shapes 64x64 --follow TILE",
       "error: --follow TILE: transpose's reference is the kernel 'transpose_reference', which computes one output "
       "for every configuration; --follow needs a reference configuration (\"reference\": {\"configuration\": ...})\n"},
      {"--kernel transpose --shapes 64x64 --follow TILES",
       "error: --follow 'TILES': transpose has no such parameter (its parameters: TILE, VEC, ROWS, SMEM, PAD, "
       "COALESCE)\n"},
      {"--kernel gemm_bf16 --shapes 64x64x64 --budget 1 --follow BM --follow SPLITK", "error: --follow BM: "},
  };
  for (const auto& [args, message] : cases) {
    const CommandOutput r = tune(args);
    EXPECT_EQ(r.code, 1) << args;
    EXPECT_EQ(r.err.rfind(message, 0), 0u) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_ / "cutune.db")) << args;
  }
  EXPECT_NE(tune("--help").out.find("--follow"), std::string::npos);
}

TEST_F(VerifyCli, FollowOfASpecWithAReferenceConfigurationParses) {
  if (cutune::Device::count() > 0) GTEST_SKIP() << "a CUDA device is present: this would tune";
  std::ofstream(dir_ / "box.cu") << "extern \"C\" __global__ void box(float* out, const float* in, int n) {}\n";
  std::ofstream(dir_ / "box.json") << R"json({"name": "box", "source": "box.cu", "kernel": "box", "shape": ["N"],
    "parameters": {"B": [64, 128], "W": [1, 3, 5]}, "block": ["B"], "grid": ["ceil_div(N, B)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true},
                  {"name": "in", "type": "const float*", "size": "N"}, {"name": "n", "type": "int", "value": "N"}],
    "reference": {"configuration": {"B": 64, "W": 1}}})json";
  for (const char* follow : {"--follow W", "--follow W --follow B", "--follow W --follow W"}) {
    const CommandOutput r = tune(std::string("--spec box.json --shapes 1024 ") + follow);
    EXPECT_EQ(r.code, 1) << follow;  // past the options and the spec: no GPU here
    EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << follow << ": " << r.err;
  }
}

TEST_F(VerifyCli, BestSaysWhenTheResultWasNotVerified) {
  if (cutune::Device::count() > 0) GTEST_SKIP() << "`best` would look up this machine's GPU, not the synthetic one";
  const cutune::DeviceIdentity gpu{"Synthetic GPU", 9, 0, 132};
  const cutune::KernelIdentity transpose{"transpose", cutune::load_kernel("transpose").hash};
  {
    cutune::Database db((dir_ / "r.db").string());
    cutune::Result r;
    r.config = "TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
    r.status = cutune::Status::Unverified;
    r.median_ms = 0.125;
    r.samples_ms = {0.125};
    db.record(db.begin_run(gpu, transpose, "tune --verify none"), "8192x8192", r);
  }
  const CommandOutput best = tune("best --kernel transpose --shape 8192x8192 --db r.db");
  EXPECT_EQ(best.code, 0) << best.err;
  EXPECT_NE(best.out.find("config   TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0\nverified no: measured with "
                          "--verify none"),
            std::string::npos)
      << best.out;
  const CommandOutput stats = tune("db stats --db r.db");
  EXPECT_EQ(stats.code, 0) << stats.err;
  EXPECT_NE(stats.out.find("1 configurations (0 ok, 1 unverified)"), std::string::npos) << stats.out;
}

}  // namespace
