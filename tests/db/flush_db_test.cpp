// Host-only tests of the L2 convention in the database: migrating a version-3 file, results, resume and best queries
// per convention (never mixed), and the convention's trip through merge, json, csv and t4.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <sstream>

#include "cutune/database.hpp"
#include "cutune/exchange.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

const KernelIdentity kGemm{"gemm", "1111111111111111"};
const std::string kShape = "4096x4096";

class FlushDbTest : public TempDirTest {
 protected:
  DeviceIdentity h100_ = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132, "GPU-a");
  DeviceIdentity h100_pcie_ = synthetic_device("NVIDIA H100 PCIe", 9, 0, 114, "GPU-b");

  // The same configurations under two conventions, as the H100 measured bf16 GEMMs: BM=64 wins after a read flush,
  // BM=128 after a written one; a third run without flush measures only BM=32 (which would win if mixed in).
  void fill(Database& db) {
    const auto read = db.begin_run(h100_, kGemm, "tune --flush read", L2Flush::Read);
    db.record(read, kShape, ok_result("BM=64", 1.0));
    db.record(read, kShape, ok_result("BM=128", 1.1));
    const auto write = db.begin_run(h100_, kGemm, "tune --flush write", L2Flush::Write);
    db.record(write, kShape, ok_result("BM=64", 1.3));
    db.record(write, kShape, ok_result("BM=128", 1.2));
    db.record(write, kShape, failed_result("BM=256", Status::LaunchError, "too many resources"));
    const auto none = db.begin_run(h100_, kGemm, "tune --flush none", L2Flush::None);
    db.record(none, kShape, ok_result("BM=32", 0.2));
  }
};

TEST_F(FlushDbTest, ResultsAndResumeSeeOneConventionEach) {
  Database db(path("f.db"));
  fill(db);
  // A later run under another convention leaves each convention's latest measurement current.
  EXPECT_EQ(db.results(h100_, kGemm, kShape).size(), 2u);
  EXPECT_EQ(db.results(h100_, kGemm, kShape, L2Flush::Read).front().median_ms, 1.0);
  const auto written = db.results(h100_, kGemm, kShape, L2Flush::Write);
  ASSERT_EQ(written.size(), 3u);
  EXPECT_EQ(written.front().config, "BM=128");
  EXPECT_EQ(written.back().status, Status::LaunchError);
  EXPECT_EQ(db.measured(h100_, kGemm, kShape), (std::set<std::string>{"BM=128", "BM=64"}));
  EXPECT_EQ(db.measured(h100_, kGemm, kShape, L2Flush::Write), (std::set<std::string>{"BM=128", "BM=256", "BM=64"}));
  EXPECT_EQ(db.measured(h100_, kGemm, kShape, L2Flush::None), (std::set<std::string>{"BM=32"}));

  const auto entries = db.entries();
  ASSERT_EQ(entries.size(), 3u);  // one per convention
  EXPECT_EQ(entries[0].flush, L2Flush::None);
  EXPECT_EQ(entries[1].flush, L2Flush::Read);
  EXPECT_EQ(entries[2].flush, L2Flush::Write);
  EXPECT_EQ(entries[2].results, 3);
  EXPECT_EQ(entries[2].ok, 2);

  const auto runs = db.runs();
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].flush, L2Flush::Read);
  EXPECT_EQ(runs[1].flush, L2Flush::Write);
  EXPECT_EQ(runs[2].flush, L2Flush::None);
}

TEST_F(FlushDbTest, BestAndEveryFallbackRuleStayWithinTheConvention) {
  Database db(path("f.db"));
  fill(db);
  const auto read = db.best({"gemm", kGemm.hash, h100_, kShape});
  ASSERT_TRUE(read);
  EXPECT_EQ(read->result.config, "BM=64");
  EXPECT_EQ(read->flush, L2Flush::Read);
  const auto write = db.best({"gemm", kGemm.hash, h100_, kShape, L2Flush::Write});
  ASSERT_TRUE(write);
  EXPECT_EQ(write->result.config, "BM=128");
  EXPECT_EQ(write->flush, L2Flush::Write);

  // Nearest shape on this device: only shapes tuned under the convention asked are candidates.
  const auto near_none = db.best_with_fallback({"gemm", kGemm.hash, h100_, "4000x4000", L2Flush::None});
  ASSERT_TRUE(near_none);
  EXPECT_EQ(near_none->match, Match::NearestShape);
  EXPECT_EQ(near_none->result.config, "BM=32");
  const auto closer = db.begin_run(h100_, kGemm, "tune --flush write", L2Flush::Write);
  db.record(closer, "4000x4096", ok_result("BM=16", 0.1));
  const auto near_read = db.best_with_fallback({"gemm", kGemm.hash, h100_, "4000x4000"});
  ASSERT_TRUE(near_read);
  EXPECT_EQ(near_read->shape, kShape);  // 4000x4096 is nearer, but tuned under write only
  EXPECT_EQ(near_read->result.config, "BM=64");

  // Same compute capability on another device: the same.
  const auto other = db.best_with_fallback({"gemm", kGemm.hash, h100_pcie_, kShape, L2Flush::Write});
  ASSERT_TRUE(other);
  EXPECT_EQ(other->match, Match::SameArchitecture);
  EXPECT_EQ(other->result.config, "BM=128");
  EXPECT_EQ(other->flush, L2Flush::Write);

  // Nothing under a convention: no answer, whatever the others hold.
  Database lone(path("lone.db"));
  lone.record(lone.begin_run(h100_, kGemm, "tune", L2Flush::Write), kShape, ok_result("BM=64", 1.0));
  EXPECT_FALSE(lone.best({"gemm", kGemm.hash, h100_, kShape}));
  EXPECT_FALSE(lone.best_with_fallback({"gemm", kGemm.hash, h100_pcie_, "1024x1024", L2Flush::None}));
  EXPECT_TRUE(lone.best_with_fallback({"gemm", kGemm.hash, h100_pcie_, "1024x1024", L2Flush::Write}));
}

TEST_F(FlushDbTest, Version3FileMigratesWithEveryRowRead) {
  write_version3_database(path("v3.db"));
  const std::string bytes = read_bytes(path("v3.db"));
  // Read for a merge, the file stays as it was; the copy's runs are read ones.
  merge_databases({path("v3.db")}, path("out.db"));
  EXPECT_EQ(read_bytes(path("v3.db")), bytes);
  const KernelIdentity gemm{"gemm", "abc123"};
  const auto h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  {
    Database db(path("v3.db"));
    const auto results = db.results(h100, gemm, "1024x1024");
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].median_ms, 1.5);  // the later measurement stays the current one
    EXPECT_EQ(results[0].threads_per_block, 256);
    EXPECT_TRUE(db.results(h100, gemm, "1024x1024", L2Flush::Write).empty());
    const auto best = db.best({"gemm", "abc123", h100, "1024x1024"});
    ASSERT_TRUE(best);
    EXPECT_EQ(best->result.config, "BM=64");
    EXPECT_EQ(best->flush, L2Flush::Read);
    EXPECT_FALSE(db.best({"gemm", "abc123", h100, "1024x1024", L2Flush::None}));
    for (const auto& run : db.runs()) EXPECT_EQ(run.flush, L2Flush::Read);
    // A new convention's results live beside the old ones, which stay current.
    db.record(db.begin_run(h100, gemm, "tune --flush write", L2Flush::Write), "1024x1024", ok_result("BM=64", 3.0));
    EXPECT_EQ(db.best({"gemm", "abc123", h100, "1024x1024", L2Flush::Write})->result.median_ms, 3.0);
    EXPECT_EQ(db.best({"gemm", "abc123", h100, "1024x1024"})->result.median_ms, 1.5);
  }
  SQLite::Database raw(path("v3.db").string(), SQLite::OPEN_READWRITE);
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(), std::to_string(Database::kSchemaVersion));
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM results WHERE flush = 'read'").getInt(), 3);
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM tuned").getInt(), 2);  // read and write
  EXPECT_THROW(raw.exec("UPDATE runs SET flush = 'dirty'"), SQLite::Exception);
  Database out(path("out.db"));
  EXPECT_EQ(out.runs().front().flush, L2Flush::Read);
}

TEST_F(FlushDbTest, MergeJsonAndT4CarryTheConvention) {
  {
    Database a(path("a.db"));
    fill(a);
  }
  merge_databases({path("a.db")}, path("merged.db"));
  for (const char* format : {"json", "t4"}) {
    std::ostringstream text;
    {
      Database merged(path("merged.db"));
      export_runs(merged, format, text);
    }
    const auto file = path(std::string("runs.") + format);
    write_bytes(file, text.str());
    Database fresh(path(std::string("fresh_") + format + ".db"));
    EXPECT_EQ(import_file(fresh, file, format).new_runs, 3u) << format;
    EXPECT_EQ(fresh.best({"gemm", kGemm.hash, h100_, kShape})->result.config, "BM=64") << format;
    EXPECT_EQ(fresh.best({"gemm", kGemm.hash, h100_, kShape, L2Flush::Write})->result.config, "BM=128") << format;
    EXPECT_EQ(fresh.best({"gemm", kGemm.hash, h100_, kShape, L2Flush::None})->result.config, "BM=32") << format;
    EXPECT_NE(text.str().find("\"flush\": \"write\""), std::string::npos) << format;
  }
  // A run already stored under another convention is not the same run.
  Database a(path("a.db"));
  std::vector<RunRecord> runs = a.runs();
  runs[1].flush = L2Flush::None;
  const std::string message = error_of([&] { a.add_runs({runs[1]}); });
  EXPECT_NE(message.find("L2 convention"), std::string::npos) << message;
}

TEST_F(FlushDbTest, JsonVersionsAndCsvColumn) {
  std::ostringstream read_only, mixed, csv;
  {
    Database r(path("r.db"));
    r.record(r.begin_run(h100_, kGemm, "tune"), kShape, ok_result("BM=64", 1.0));
    export_runs(r, "json", read_only);
    Database m(path("m.db"));
    fill(m);
    export_runs(m, "json", mixed);
    export_runs(m, "csv", csv);
  }
  // Readers of version 1 take every run for a read one: only documents that hold other conventions are version 2.
  EXPECT_NE(read_only.str().find("\"format_version\": 1,"), std::string::npos) << read_only.str();
  EXPECT_NE(mixed.str().find("\"format_version\": 2,"), std::string::npos);
  std::istringstream lines(csv.str());
  std::string header, row;
  std::getline(lines, header);
  EXPECT_NE(header.find(",peak,verify_ms,benchmark_ms,framework_ms,search_ms,samples_ms,measured_at,flush,message"),
            std::string::npos) << header;
  int write_rows = 0;
  while (std::getline(lines, row)) {
    write_rows += row.find(",3000,") != std::string::npos && row.find(",write,") != std::string::npos;
  }
  EXPECT_EQ(write_rows, 2);  // the failed one has no peak

  // A run without "flush" (written before it existed) is a read one; an unknown convention is refused.
  std::string old = read_only.str();
  old.erase(old.find("\"flush\": \"read\","), 16);
  write_bytes(path("old.json"), old);
  Database db(path("x.db"));
  EXPECT_EQ(import_file(db, path("old.json")).new_measurements, 1u);
  EXPECT_TRUE(db.best({"gemm", kGemm.hash, h100_, kShape}));
  std::string bad = mixed.str();
  bad.replace(bad.find("\"flush\": \"write\""), 16, "\"flush\": \"dirty\"");
  write_bytes(path("bad.json"), bad);
  const std::string message = error_of([&] { import_file(db, path("bad.json")); });
  EXPECT_NE(message.find("unknown L2 convention \"flush\": \"dirty\""), std::string::npos) << message;
}

}  // namespace
}  // namespace cutune::testing
