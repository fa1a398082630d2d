// The vendor library's version kept with a library family's runs (runs.library_version, schema 8): stored, read back,
// exported and imported as JSON, 0 for a kernel's run, and 0 in runs migrated from schema 7.
#include <SQLiteCpp/SQLiteCpp.h>

#include <sstream>

#include "cutune/exchange.hpp"
#include "db_test_support.hpp"

namespace cutune {
namespace {

using testing::ok_result;
using testing::synthetic_device;

class LibraryVersionDbTest : public testing::TempDirTest {};

TEST_F(LibraryVersionDbTest, StoredWithALibraryFamilysRunAndExported) {
  DeviceIdentity h200 = synthetic_device("NVIDIA H200", 9, 0, 132);
  DeviceIdentity with_library = h200;
  with_library.library_version = 130100;
  {
    Database db(path("runs.db"));
    db.record(db.begin_run(h200, {"gemm_bf16", "aaaa"}, "tune"), "64x64x64", ok_result("BM=64", 1.0));
    db.record(db.begin_run(with_library, {"gemm_bf16_cublaslt_config", "bbbb"}, "tune"), "64x64x64",
              ok_result("ALGO=66", 0.5));
    const auto runs = db.runs();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].device.library_version, 0);
    EXPECT_EQ(runs[1].device.library_version, 130100);
    const auto best = db.best({"gemm_bf16_cublaslt_config", "bbbb", h200, "64x64x64"});
    ASSERT_TRUE(best);
    EXPECT_EQ(best->device.library_version, 130100);
  }
  Database db(path("runs.db"));
  std::ostringstream json;
  export_runs(db, "json", json);
  EXPECT_NE(json.str().find("\"library_version\""), std::string::npos);
  std::istringstream in(json.str());
  const auto read = exchange_format("json").read(in, "runs.json");
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[1].device.library_version, 130100);
  Database copy(path("copy.db"));
  copy.add_runs(read);
  EXPECT_EQ(copy.runs()[1].device.library_version, 130100);
}

// A file of schema 7 (no library_version column) is migrated: its runs read 0, and new runs keep their version.
TEST_F(LibraryVersionDbTest, SchemaSevenMigratesWithUnknownVersions) {
  const DeviceIdentity h200 = synthetic_device("NVIDIA H200", 9, 0, 132);
  {
    Database db(path("v7.db"));
    db.record(db.begin_run(h200, {"gemm_bf16_cublaslt", "cccc"}, "tune"), "64x64x64", ok_result("RANK=0", 0.5));
  }
  {
    SQLite::Database raw(path("v7.db").string(), SQLite::OPEN_READWRITE);
    raw.exec("ALTER TABLE runs DROP COLUMN library_version");
    raw.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
  }
  Database db(path("v7.db"));
  EXPECT_EQ(db.runs().at(0).device.library_version, 0);
  DeviceIdentity with_library = h200;
  with_library.library_version = 120900;
  db.record(db.begin_run(with_library, {"gemm_bf16_cublaslt", "cccc"}, "tune"), "64x64x64", ok_result("RANK=1", 0.4));
  EXPECT_EQ(db.runs().at(1).device.library_version, 120900);
  SQLite::Database raw(path("v7.db").string());
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(),
            std::to_string(Database::kSchemaVersion));
}

}  // namespace
}  // namespace cutune
