// Host tests of `tune report`, `tune replay --report` and the resources `tune best` prints: answers, and bad
// input as one line, a non-zero exit and nothing written.
#include <gtest/gtest.h>

#include <fstream>

#include "cli_support.hpp"
#include "cutune/device.hpp"
#include "cutune/templates.hpp"
#include "report_test_support.hpp"

namespace cutune::testing {
namespace {

using cutune::test::CommandOutput;

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

class ReportCli : public TempDirTest {
 protected:
  CommandOutput tune(const std::string& args) { return cutune::test::run_tune(dir_, args); }
  // The command failed with one line on stderr and wrote no page.
  void expect_refused(const CommandOutput& r, const std::string& message, const std::string& page = "r.html") {
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err, "error: " + message + "\n");
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(fs::exists(path(page)));
  }
};

TEST_F(ReportCli, WritesThePageAndSaysWhere) {
  write_report_database(path("tune.db"));
  CommandOutput r = tune("report --db tune.db -o r.html");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("report of tune.db written to r.html (", 0), 0u) << r.out;
  const std::string page = read_bytes(path("r.html"));
  EXPECT_NE(page.find("NVIDIA A100-SXM4-80GB"), std::string::npos);
  // Narrowed: only the H100's gemm at 4096x4096.
  r = tune("report --db tune.db -o narrow.html --kernel gemm --shape 4096x4096 --gpu 'NVIDIA H100 80GB HBM3' "
           "--title 'gemm at 4096'");
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string narrow = read_bytes(path("narrow.html"));
  EXPECT_EQ(narrow.find("NVIDIA A100-SXM4-80GB"), std::string::npos);
  EXPECT_NE(narrow.find("<title>gemm at 4096</title>"), std::string::npos);
}

TEST_F(ReportCli, BadInputIsOneLineAndWritesNothing) {
  write_report_database(path("tune.db"));
  { Database empty(path("empty.db")); }
  expect_refused(tune("report --db missing.db -o r.html"), "database 'missing.db' does not exist");
  EXPECT_FALSE(fs::exists(path("missing.db")));  // not created by asking
  expect_refused(tune("report --db empty.db -o r.html"), "database 'empty.db' holds no results");
  expect_refused(tune("report --db tune.db -o r.html --kernel nope"),
                 "database 'tune.db' holds no results of kernel 'nope' (it holds copy, gemm)");
  expect_refused(tune("report --db tune.db -o r.html --kernel gemm --shape 3x3"),
                 "database 'tune.db' holds no results at shape '3x3' (it holds 1024x1024, 4096x4096)");
  expect_refused(tune("report --db tune.db -o no/such/dir/r.html"),
                 "cannot write 'no/such/dir/r.html': directory 'no/such/dir' does not exist", "no/such/dir/r.html");
  fs::create_directories(path("adir"));
  expect_refused(tune("report --db tune.db -o adir"), "cannot write 'adir': it is a directory", "adir/r.html");
  const CommandOutput r = tune("report --db tune.db");  // -o is required
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("--output"), std::string::npos) << r.err;
}

TEST_F(ReportCli, ReplayWritesTheStrategiesCurves) {
  std::ofstream(path("cache.json")) << R"json({"device_name": "NVIDIA Test GPU", "kernel_name": "scale",
"tune_params_keys": ["a", "b"], "tune_params": {"a": [1, 2, 3, 4], "b": [1, 2, 3, 4]}, "objective": "time",
"cache": {
"1,1": {"a": 1, "b": 1, "time": 4.0}, "1,2": {"a": 1, "b": 2, "time": 3.0}, "1,3": {"a": 1, "b": 3, "time": 2.5},
"1,4": {"a": 1, "b": 4, "time": 2.0}, "2,1": {"a": 2, "b": 1, "time": 3.5}, "2,2": {"a": 2, "b": 2, "time": 2.2},
"2,3": {"a": 2, "b": 3, "time": 1.5}, "2,4": {"a": 2, "b": 4, "time": 1.2}, "3,1": {"a": 3, "b": 1, "time": 3.2},
"3,2": {"a": 3, "b": 2, "time": 2.1}, "3,3": {"a": 3, "b": 3, "time": 1.1}, "3,4": {"a": 3, "b": 4, "time": "RuntimeFailedConfig"},
"4,1": {"a": 4, "b": 1, "time": 3.0}, "4,2": {"a": 4, "b": 2, "time": 2.0}, "4,3": {"a": 4, "b": 3, "time": 1.0},
"4,4": {"a": 4, "b": 4, "time": 1.05}}})json";
  CommandOutput r = tune("replay --cache cache.json --strategy random --budget 8 --seeds 5 --report replay.html");
  EXPECT_EQ(r.code, 0) << r.err;
  const std::string page = read_bytes(path("replay.html"));
  EXPECT_NE(page.find("<title>replay of scale on NVIDIA Test GPU</title>"), std::string::npos);
  EXPECT_NE(page.find("\"strategy\":\"random\""), std::string::npos);
  // A page that cannot be written is refused before the replay runs.
  r = tune("replay --cache cache.json --strategy random --budget 8 --seeds 5 --report gone/replay.html");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: cannot write 'gone/replay.html': directory 'gone' does not exist\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(ReportCli, BestPrintsTheResourcesOfTheChosenConfiguration) {
  if (Device::count() > 0) GTEST_SKIP() << "`best` would look up this machine's GPU, not the synthetic one";
  const DeviceIdentity gpu = synthetic_device("Synthetic GPU", 9, 0, 132);
  {
    Database db(path("r.db"));
    const auto run = db.begin_run(gpu, {"transpose", load_kernel("transpose").hash}, "test");
    Result r = ok_result("TILE=64,VEC=4,ROWS=8,SMEM=1,PAD=1,COALESCE=0", 0.125);
    r.registers = 38;
    r.spill_bytes = 0;
    r.static_smem_bytes = 16640;
    r.dynamic_smem_bytes = 0;
    r.threads_per_block = 512;
    r.blocks = 16384;
    r.blocks_per_sm = 3;
    r.metric = 4294.97;
    r.peak = 3000.0 * 1.2;
    db.record(run, "8192x8192", r);
  }
  const CommandOutput r = tune("best --kernel transpose --shape 8192x8192 --db r.db");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("resource 38 registers per thread (0 bytes spilled), 16640 B static + 0 B dynamic shared "
                       "memory per block\n"), std::string::npos) << r.out;
  // 512 threads are 16 warps, 3 blocks 48 of Hopper's 64; 16384 blocks over 132 × 3 are 41.37 waves.
  EXPECT_NE(r.out.find("launch   16384 blocks of 512 threads; 3 blocks per SM (occupancy 75.0%), 41.37 waves on 132 SMs\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("peak     119.3% of 3600 GB/s\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cutune::testing
