// Host-only tests of the `tune` command line: its answers and its errors (one line, non-zero exit, no data lost).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/templates.hpp"
#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;

using cutune::test::CommandOutput;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

int count_lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cutune_cli_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CommandOutput tune(const std::string& args) { return cutune::test::run_tune(dir_, args); }

  fs::path dir_;
};

TEST_F(Cli, ListShowsTranspose) {
  const CommandOutput r = tune("list");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("transpose"), std::string::npos);
}

TEST_F(Cli, SpaceCountsAndLists) {
  CommandOutput r = tune("space --kernel transpose");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("160 valid configurations of transpose", 0), 0u) << r.out;
  r = tune("space --kernel transpose --list");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(count_lines(r.out), 161);
  EXPECT_NE(r.out.find("TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0\n"), std::string::npos);
}

TEST_F(Cli, WhereRestrictsTheSpace) {
  CommandOutput r = tune("space --kernel transpose --where \"TILE == 32\" --where \"SMEM == 1\" --list");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.find("TILE=16"), std::string::npos);
  EXPECT_EQ(r.out.find("SMEM=0"), std::string::npos);
  EXPECT_NE(r.out.find("TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0\n"), std::string::npos);
  const int restricted = count_lines(r.out) - 1;
  EXPECT_GT(restricted, 0);
  EXPECT_LT(restricted, 160);
  // Mistakes are one line each, before anything else happens (no database is created).
  r = tune("--kernel transpose --shapes 64x64 --where \"TILE = 32\"");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: --where 'TILE = 32': invalid expression 'TILE = 32': unexpected character '=' at column 6\n");
  EXPECT_FALSE(fs::exists(dir_ / "cutune.db"));
  r = tune("space --kernel transpose --where \"TILES == 32\"");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: --where 'TILES == 32': unknown name 'TILES' in 'TILES == 32'\n");
}

TEST_F(Cli, UnknownKernel) {
  for (const char* cmd : {"--kernel nope --shapes 8x8", "space --kernel nope", "compile --kernel nope"}) {
    const CommandOutput r = tune(cmd);
    EXPECT_EQ(r.code, 1) << cmd;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("unknown kernel 'nope'"), std::string::npos) << r.err;
  }
}

TEST_F(Cli, MalformedShapes) {
  for (const char* shape : {"8192x", "-1x5", "axb", "0x10", "8x8,", "8x8x8"}) {
    const CommandOutput r = tune(std::string("--kernel transpose --shapes=") + shape);
    EXPECT_EQ(r.code, 1) << shape;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("shape"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "cutune.db")) << "a failed command left a database behind";
  }
}

TEST_F(Cli, UnwritableDatabasePath) {
  const CommandOutput r = tune("--kernel transpose --shapes 64x64 --db /nonexistent_dir/x.db");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("/nonexistent_dir/x.db"), std::string::npos) << r.err;
}

TEST_F(Cli, FileThatIsNotADatabaseIsLeftAlone) {
  const fs::path text = dir_ / "notes.db";
  std::ofstream(text) << "these are my notes, not a database\n";
  const std::string before = slurp(text);
  for (const std::string& cmd : {"--kernel transpose --shapes 64x64 --db notes.db",
                                 "best --kernel transpose --shape 64x64 --db notes.db"}) {
    const CommandOutput r = tune(cmd);
    EXPECT_EQ(r.code, 1) << cmd;
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("not a cutune database"), std::string::npos) << r.err;
    EXPECT_EQ(slurp(text), before);
  }
}

TEST_F(Cli, NoDeviceIsOneLineAndKeepsTheDatabase) {
  if (cutune::Device::count() > 0) GTEST_SKIP() << "a CUDA device is present: the no-device path cannot be seen here";
  {
    cutune::Database db((dir_ / "keep.db").string());
    const auto run = db.begin_run({"Synthetic GPU", 9, 0, 132}, {"transpose", "0123456789abcdef"}, "test");
    cutune::Result r;
    r.config = "TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
    r.median_ms = 1.0;
    db.record(run, "64x64", r);
  }
  const CommandOutput r = tune("--kernel transpose --shapes 64x64 --db keep.db");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(count_lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("no CUDA device"), std::string::npos) << r.err;
  cutune::Database db((dir_ / "keep.db").string());
  EXPECT_EQ(db.measured({"Synthetic GPU", 9, 0, 132}, {"transpose", "0123456789abcdef"}, "64x64").size(), 1u);

  const CommandOutput fresh = tune("--kernel transpose --shapes 64x64");
  EXPECT_EQ(fresh.code, 1);
  EXPECT_FALSE(fs::exists(dir_ / "cutune.db")) << "a run that measured nothing left an empty database behind";
}

TEST_F(Cli, TuningNeedsKernelAndShapes) {
  const CommandOutput r = tune("--kernel transpose");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--shapes"), std::string::npos) << r.err;
}

TEST_F(Cli, SeedIsANonNegativeInteger) {
  const CommandOutput r = tune("--kernel transpose --shapes 64x64 --seed twelve");
  EXPECT_NE(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("--seed"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "cutune.db")) << "a refused command creates no database";
  EXPECT_NE(tune("--help").out.find("--seed"), std::string::npos);
}

TEST_F(Cli, MeasurementNumbersAreOptionsWithTheirRanges) {
  const std::string help = tune("--help").out;
  for (const auto* option : {"--repeats", "--warmup", "--min-repeats", "--max-measure-ms", "--early-stop-ratio",
                             "--final-candidates", "--final-repeats"}) {
    EXPECT_NE(help.find(option), std::string::npos) << option;
  }
  for (const auto* bad : {"--repeats 0", "--warmup -1", "--min-repeats 1.5", "--max-measure-ms -2",
                          "--final-repeats 0", "--final-candidates -1"}) {
    const CommandOutput r = tune(std::string("--kernel transpose --shapes 64x64 ") + bad);
    EXPECT_NE(r.code, 0) << bad;
    EXPECT_NE(r.err.find(std::string(bad).substr(0, std::string(bad).find(' '))), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "cutune.db")) << "a refused command creates no database";
}

TEST_F(Cli, BestWithoutResults) {
  cutune::Database((dir_ / "empty.db").string());
  const CommandOutput r = tune("best --kernel transpose --shape 64x64 --db empty.db");
  if (cutune::Device::count() > 0) {
    // This machine's GPU is known, so the last fallback rule answers: the spec's default configuration.
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("spec default"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0"), std::string::npos) << r.out;
  } else {
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(count_lines(r.err), 1) << r.err;
    EXPECT_NE(r.err.find("no results"), std::string::npos) << r.err;
  }
}

TEST_F(Cli, BestPrintsTheStoredBestOfThisKernelVersion) {
  if (cutune::Device::count() > 0) GTEST_SKIP() << "`best` would look up this machine's GPU, not the synthetic one";
  const cutune::DeviceIdentity gpu{"Synthetic GPU", 9, 0, 132};
  const std::string hash = cutune::load_kernel("transpose").hash;
  {
    cutune::Database db((dir_ / "r.db").string());
    const auto run = db.begin_run(gpu, {"transpose", hash}, "test");
    const auto old = db.begin_run(gpu, {"transpose", "0000000000000000"}, "test");
    cutune::Result fast, slow, wrong, stale, killed;
    fast.config = "TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
    fast.median_ms = 0.125;
    fast.samples_ms = {0.125, 0.125, 0.126};
    fast.compile_ms = 171.25;
    fast.verify_ms = 0.5;
    fast.benchmark_ms = 3.25;
    fast.framework_ms = 1.5;
    fast.search_ms = std::nan("");  // unknown
    slow.config = "TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
    slow.median_ms = 0.25;
    wrong.config = "TILE=16,VEC=1,ROWS=2,SMEM=1,PAD=1,COALESCE=0";
    wrong.median_ms = 0.01;
    wrong.status = cutune::Status::WrongResult;
    stale.config = "TILE=16,VEC=1,ROWS=4,SMEM=1,PAD=1,COALESCE=0";
    stale.median_ms = 0.001;
    killed.config = "TILE=32,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
    killed.median_ms = 0.001;  // whatever it says, its worker was killed from outside: it never ran to the end
    killed.status = cutune::Status::Interrupted;
    for (const auto& r : {fast, slow, wrong, killed}) db.record(run, "8192x8192", r);
    db.record(old, "8192x8192", stale);  // another kernel version: history, never the answer
  }
  const CommandOutput r = tune("best --kernel transpose --shape 8192x8192 --db r.db");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("config   TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Synthetic GPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rule     exact shape"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("spent    compile 171.25 ms, verify 0.50 ms, benchmark 3.25 ms, framework 1.50 ms, search "
                       "unknown\n"),
            std::string::npos)
      << r.out;
  const CommandOutput other = tune("best --kernel transpose --shape 4096x4096 --db r.db --exact");
  EXPECT_EQ(other.code, 1);
  EXPECT_NE(other.err.find("no correct configuration"), std::string::npos) << other.err;
  // Without --exact the configuration predicted fastest among those measured answers, and says where it was.
  const CommandOutput nearest = tune("best --kernel transpose --shape 4096x4096 --db r.db");
  EXPECT_EQ(nearest.code, 0) << nearest.err;
  EXPECT_NE(nearest.out.find("rule     predicted fastest of this GPU's measured configurations (measured at "
                             "8192x8192, log distance 0.98)"), std::string::npos)
      << nearest.out;
  EXPECT_NE(nearest.out.find("config   TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0"), std::string::npos);
  const CommandOutput gpu_named = tune("best --kernel transpose --shape 8192x8192 --db r.db --gpu 'Other GPU'");
  EXPECT_EQ(gpu_named.code, 1);
  EXPECT_EQ(count_lines(gpu_named.err), 1) << gpu_named.err;
}

TEST_F(Cli, CompileReportsFailures) {
  std::ofstream(dir_ / "k.cu") << "extern \"C\" __global__ void k(float* out, int n) {\n"
                                  "#if X == 3\n  this does not compile;\n#endif\n"
                                  "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = X; }\n"
                                  "extern \"C\" __global__ void k_ref(float* out, int n) {"
                                  " int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 1; }\n";
  std::ofstream(dir_ / "k.json") << R"json({"name": "k", "source": "k.cu", "kernel": "k", "shape": ["N"],
    "parameters": {"X": [1, 2, 3], "B": [32, 64]}, "block": ["B"], "grid": ["ceil_div(N, B)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}, {"name": "n", "type": "int", "value": "N"}],
    "reference": {"kernel": "k_ref", "block": [32], "grid": ["ceil_div(N, 32)"]}, "metric": {"bytes": "4 * N"}})json";
  const CommandOutput r = tune("compile --kernel k.json");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("4 of 6 configurations of k compiled for sm_90"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED X=3,B=32"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED X=3,B=64"), std::string::npos) << r.out;
}

}  // namespace
