// Tests of `tune db merge|export|import|stats` through the real binary: outputs, exit codes, one-line errors.
#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdlib>

#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

struct Output {
  int code = 0;
  std::string out;
  std::string err;
};

class DbCliTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    const KernelIdentity kernel{"gemm", "1111111111111111"};
    Database a(path("a.db"));
    const auto run = a.begin_run(synthetic_device("NVIDIA H200", 9, 0, 132), kernel, "tune a");
    a.record(run, "1024x1024", ok_result("BM=64,BN=32", 1.0));
    a.record(run, "2048x2048", failed_result("BM=128,BN=32", Status::CompileError, "error: too big"));
    Database b(path("b.db"));
    b.record(b.begin_run(synthetic_device("NVIDIA L4", 8, 9, 58), kernel, "tune b"), "1024x1024",
             ok_result("BM=32,BN=32", 3.0));
  }

  Output tune(const std::string& args) {
    const std::string command = "cd '" + dir_.string() + "' && '" + CUTUNE_TUNE_EXE + "' " + args + " >stdout.txt 2>stderr.txt";
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_bytes(path("stdout.txt")), read_bytes(path("stderr.txt"))};
  }
};

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST_F(DbCliTest, MergeStatsExportImport) {
  Output r = tune("db merge a.db b.db -o all.db");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "merged 2 databases into all.db: 2 of 2 runs and 3 of 3 measurements were new\n");
  r = tune("db merge a.db -o all.db");
  EXPECT_EQ(r.out, "merged 1 database into all.db: 0 of 1 runs and 0 of 2 measurements were new\n");

  r = tune("db stats --db all.db");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("2 runs from 1 host, 3 measurements, 3 configurations (2 ok)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  NVIDIA H200 (sm_90, 132 SMs): 1 kernel versions, 2 shapes, 2 configurations (1 ok)"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  NVIDIA L4 (sm_89, 58 SMs)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    shapes 1024x1024 2048x2048"), std::string::npos) << r.out;

  r = tune("db export --db all.db -o all.json");
  ASSERT_EQ(r.code, 0) << r.err;
  r = tune("db import all.json --db copy.db");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "imported all.json into copy.db: 2 of 2 runs and 3 of 3 measurements were new\n");
  r = tune("db export --db copy.db --format json");
  EXPECT_EQ(r.out, read_bytes(path("all.json")));

  r = tune("db export --db copy.db --format csv");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.out), 4);
  EXPECT_NE(r.out.find(",\"BM=128,BN=32\",compile_error,"), std::string::npos) << r.out;
}

TEST_F(DbCliTest, ErrorsAreOneLine) {
  {
    SQLite::Database raw(path("b.db").string(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE meta SET value = '" + std::to_string(Database::kSchemaVersion + 1) + "' WHERE key = 'schema_version'");
  }
  Output r = tune("db merge a.db b.db -o out.db");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot merge database '" + path("b.db").filename().string()), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("out.db")));
  r = tune("db stats --db missing.db");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: database 'missing.db' does not exist\n");
  EXPECT_FALSE(fs::exists(path("missing.db")));
  r = tune("db export --db a.db --format yaml");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: unknown format 'yaml' (known: json, csv, t4, kt-cache)\n");
}

TEST_F(DbCliTest, KtCacheExportOfOneGroupReplays) {
  {
    Database space(path("space.db"));
    const auto run = space.begin_run(synthetic_device("NVIDIA H200", 9, 0, 132), {"gemm", "1111111111111111"}, "tune");
    for (int bm = 16; bm <= 256; bm += 16) space.record(run, "1024x1024", ok_result("BM=" + std::to_string(bm), 1.0 + bm / 256.0));
    space.record(run, "1024x1024", failed_result("BM=512", Status::CompileError, "too big"));
    space.record(run, "2048x2048", ok_result("BM=16", 4.0));
  }
  // Two shapes: a cache holds one, and a refused export leaves no file behind.
  Output r = tune("db export --db space.db --format kt-cache -o space.json");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("gemm (version 1111111111111111) on NVIDIA H200 at 2048x2048, flush read: 1 measurement"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pick one with --kernel, --device, --shape and --flush"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("space.json")));

  r = tune("db export --db space.db --format kt-cache --shape 1024x1024 --device 'NVIDIA H200' --flush read "
           "--kernel gemm -o space.json");
  ASSERT_EQ(r.code, 0) << r.err;
  r = tune("replay --cache space.json --valid-only --strategy random --budget 10 --seeds 2");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("replay of gemm on NVIDIA H200 (space.json): 16 configurations, 0 failed"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("strategy random"), std::string::npos) << r.out;

  r = tune("db export --db space.db --kernel transpose");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("error: nothing matches kernel transpose; the database holds gemm (version 1111111111111111) on "
                        "NVIDIA H200 at 1024x1024, flush read: 17 measurements; ", 0), 0u) << r.err;
  r = tune("db export --db space.db --flush dirty");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("dirty not in {read,write,none}"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cutune::testing
