// Tests of merge, export and import between databases, and of migrating version-1 files on open.
#include <SQLiteCpp/SQLiteCpp.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

const KernelIdentity kGemm{"gemm", "1111111111111111"};
const std::string kShape = "4096x4096";

std::string export_text(const fs::path& db_path, const std::string& format = "json") {
  Database db(db_path);
  std::ostringstream out;
  export_runs(db, format, out);
  return out.str();
}

class MergeTest : public TempDirTest {
 protected:
  // A on an H200: two configurations; B on an A100: one configuration and a failure.
  void SetUp() override {
    TempDirTest::SetUp();
    Database a(path("a.db"));
    const auto run_a = a.begin_run(h200_, kGemm, "tune on node-a");
    a.record(run_a, kShape, ok_result("BM=128", 1.0));
    a.record(run_a, kShape, ok_result("BM=64", 1.5));
    Database b(path("b.db"));
    const auto run_b = b.begin_run(a100_, kGemm, "tune on node-b");
    b.record(run_b, kShape, ok_result("BM=64", 2.0));
    b.record(run_b, kShape, failed_result("BM=256", Status::LaunchError, "too many resources"));
  }

  DeviceIdentity h200_ = synthetic_device("NVIDIA H200", 9, 0, 132, "GPU-a");
  DeviceIdentity a100_ = synthetic_device("NVIDIA A100-SXM4-80GB", 8, 0, 108, "GPU-b");
};

TEST_F(MergeTest, UnionOfTwoDevicesKeepsProvenanceAndBests) {
  const MergeSummary s = merge_databases({path("a.db"), path("b.db")}, path("out.db"));
  EXPECT_EQ(s.inputs, 2u);
  EXPECT_EQ(s.added.runs, 2u);
  EXPECT_EQ(s.added.new_runs, 2u);
  EXPECT_EQ(s.added.measurements, 4u);
  EXPECT_EQ(s.added.new_measurements, 4u);

  Database out(path("out.db"));
  const auto on_h200 = out.best({"gemm", kGemm.hash, h200_, kShape});
  ASSERT_TRUE(on_h200);
  EXPECT_EQ(on_h200->result.config, "BM=128");
  EXPECT_EQ(on_h200->device.uuid, "GPU-a");
  const auto on_a100 = out.best({"gemm", kGemm.hash, a100_, kShape});
  ASSERT_TRUE(on_a100);
  EXPECT_EQ(on_a100->result.config, "BM=64");
  EXPECT_EQ(on_a100->result.median_ms, 2.0);
  EXPECT_EQ(on_a100->device.uuid, "GPU-b");
  EXPECT_EQ(out.results(a100_, kGemm, kShape).size(), 2u);

  const DatabaseStats stats = out.stats();
  EXPECT_EQ(stats.runs, 2);
  EXPECT_EQ(stats.measurements, 4);
  EXPECT_EQ(stats.ok, 3);
  ASSERT_EQ(stats.devices.size(), 2u);
  EXPECT_EQ(stats.devices[0].device.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(stats.devices[1].device.name, "NVIDIA H200");
  ASSERT_EQ(stats.kernels.size(), 1u);
  EXPECT_EQ(stats.kernels[0].devices, 2);
  EXPECT_EQ(stats.kernels[0].shapes, std::vector<std::string>{kShape});

  const auto runs = out.runs();
  ASSERT_EQ(runs.size(), 2u);
  for (const auto& run : runs) {
    EXPECT_EQ(run.command, run.device.name == "NVIDIA H200" ? "tune on node-a" : "tune on node-b");
    EXPECT_FALSE(run.host.empty());
    EXPECT_EQ(run.uid.size(), 32u);
  }
}

TEST_F(MergeTest, MergingTwiceOrIntoACopyChangesNothing) {
  merge_databases({path("a.db"), path("b.db")}, path("out.db"));
  const std::string before = export_text(path("out.db"));

  const MergeSummary again = merge_databases({path("a.db"), path("b.db"), path("a.db")}, path("out.db"));
  EXPECT_EQ(again.added.new_runs, 0u);
  EXPECT_EQ(again.added.new_measurements, 0u);
  EXPECT_EQ(export_text(path("out.db")), before);

  // The output merged into itself, and A into a copy of A.
  merge_databases({path("out.db")}, path("out.db"));
  EXPECT_EQ(export_text(path("out.db")), before);
  fs::copy_file(path("a.db"), path("a_copy.db"));
  const std::string a_before = export_text(path("a.db"));
  const MergeSummary copy = merge_databases({path("a.db")}, path("a_copy.db"));
  EXPECT_EQ(copy.added.new_runs, 0u);
  EXPECT_EQ(copy.added.new_measurements, 0u);
  EXPECT_EQ(export_text(path("a_copy.db")), a_before);
}

TEST_F(MergeTest, SameModelOnTwoMachinesKeepsBothAndTheLatestCounts) {
  // Another H200 (another card, same model) re-measures BM=128 later and finds it slower.
  const DeviceIdentity other_card = synthetic_device("NVIDIA  H200 ", 9, 0, 132, "GPU-c");
  {
    Database c(path("c.db"));
    c.record(c.begin_run(other_card, kGemm, "tune on node-c"), kShape, ok_result("BM=128", 3.0));
  }
  merge_databases({path("a.db"), path("c.db")}, path("out.db"));
  Database out(path("out.db"));
  EXPECT_EQ(out.stats().measurements, 3);
  EXPECT_EQ(out.stats().devices.size(), 1u);  // white space in the name does not make another device
  const auto best = out.best({"gemm", kGemm.hash, h200_, kShape});
  ASSERT_TRUE(best);
  EXPECT_EQ(best->result.config, "BM=64");  // BM=128's latest measurement is 3.0 ms
  EXPECT_EQ(out.results(h200_, kGemm, kShape).size(), 2u);

  // Merged the other way round, the answer is the same: it depends on the data, not on the order.
  merge_databases({path("c.db"), path("a.db")}, path("reverse.db"));
  Database reverse(path("reverse.db"));
  EXPECT_EQ(reverse.best({"gemm", kGemm.hash, h200_, kShape})->result.config, "BM=64");
}

TEST_F(MergeTest, KernelVersionsAreNeverMixed) {
  const KernelIdentity v2{"gemm", "2222222222222222"};
  {
    Database b(path("b.db"));
    b.record(b.begin_run(h200_, v2, "tune new source"), kShape, ok_result("BM=32", 5.0));
  }
  merge_databases({path("a.db"), path("b.db")}, path("out.db"));
  Database out(path("out.db"));
  const auto newest = out.best({"gemm", v2.hash, h200_, kShape});
  ASSERT_TRUE(newest);
  EXPECT_EQ(newest->result.config, "BM=32");  // slower than v1's BM=128, but v1 is another kernel
  EXPECT_EQ(out.results(h200_, v2, kShape).size(), 1u);
  EXPECT_EQ(out.best_with_fallback({"gemm", "3333333333333333", h200_, kShape}), std::nullopt);
  // The old version stays visible as history.
  EXPECT_EQ(out.best({"gemm", kGemm.hash, h200_, kShape})->result.config, "BM=128");
  EXPECT_EQ(out.stats().kernels.size(), 2u);
}

TEST_F(MergeTest, UnknownSchemaVersionIsRefused) {
  {
    SQLite::Database raw(path("b.db").string(), SQLite::OPEN_READWRITE);
    raw.exec("UPDATE meta SET value = '" + std::to_string(Database::kSchemaVersion + 1) + "' WHERE key = 'schema_version'");
  }
  const std::string message = error_of([&] { merge_databases({path("a.db"), path("b.db")}, path("out.db")); });
  EXPECT_NE(message.find("cannot merge"), std::string::npos) << message;
  EXPECT_NE(message.find("schema version " + std::to_string(Database::kSchemaVersion + 1)), std::string::npos)
      << message;
  EXPECT_FALSE(fs::exists(path("out.db")));  // nothing is written before every input was read
}

TEST_F(MergeTest, DamagedOrForeignInputIsRefused) {
  const std::string whole = read_bytes(path("b.db"));
  write_bytes(path("truncated.db"), whole.substr(0, whole.size() / 2 + 100));
  std::string message = error_of([&] { merge_databases({path("a.db"), path("truncated.db")}, path("out.db")); });
  EXPECT_NE(message.find("truncated.db"), std::string::npos) << message;
  write_bytes(path("notes.db"), "not a database, just notes\n" + std::string(200, '-'));
  message = error_of([&] { merge_databases({path("notes.db")}, path("out.db")); });
  EXPECT_EQ(message, "'" + path("notes.db").string() + "' is not a cutune database (not SQLite)");
  message = error_of([&] { merge_databases({path("missing.db")}, path("out.db")); });
  EXPECT_NE(message.find("no such file"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(path("out.db")));
}

TEST_F(MergeTest, Version1InputIsReadWithoutChangingIt) {
  write_version1_database(path("v1.db"));
  const std::string bytes = read_bytes(path("v1.db"));
  merge_databases({path("v1.db"), path("a.db")}, path("out.db"));
  EXPECT_EQ(read_bytes(path("v1.db")), bytes);
  // Two copies of one version-1 file give the same run uids: merging both doubles nothing.
  fs::copy_file(path("v1.db"), path("v1_copy.db"));
  { Database migrated(path("v1_copy.db")); }
  const MergeSummary again = merge_databases({path("v1_copy.db")}, path("out.db"));
  EXPECT_EQ(again.added.new_runs, 0u);
  EXPECT_EQ(again.added.new_measurements, 0u);
  Database out(path("out.db"));
  const auto h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  EXPECT_EQ(out.best({"gemm", "abc123", h100, "1024x1024"})->result.config, "BM=128");
}

class DbMigrationTest : public TempDirTest {};

TEST_F(DbMigrationTest, FromVersion1KeepsEverything) {
  write_version1_database(path("v1.db"), "NVIDIA  H100 80GB HBM3 ");
  {
    Database db(path("v1.db"));
    const auto h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
    const KernelIdentity gemm{"gemm", "abc123"};
    const auto results = db.results(h100, gemm, "1024x1024");
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].config, "BM=128");
    EXPECT_EQ(results[0].samples_ms, std::vector<double>{1.0});
    EXPECT_EQ(results[2].status, Status::CompileError);
    EXPECT_TRUE(std::isnan(results[2].max_error));
    const auto best = db.best({"gemm", "abc123", h100, "1024x1024"});
    ASSERT_TRUE(best);
    EXPECT_EQ(best->device.uuid, "GPU-aaaa");
    // The migrated file takes new runs like any other.
    db.record(db.begin_run(h100, gemm, "tune again"), "1024x1024", ok_result("BM=32", 0.5));
    EXPECT_EQ(db.best({"gemm", "abc123", h100, "1024x1024"})->result.config, "BM=32");
    const auto runs = db.runs();
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].uid.rfind("v1-", 0), 0u);
    EXPECT_EQ(runs[0].device.name, "NVIDIA H100 80GB HBM3");
  }
  SQLite::Database raw(path("v1.db").string());
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(), std::to_string(Database::kSchemaVersion));
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM results WHERE current = 1").getInt(), 4);
}

TEST_F(DbMigrationTest, FromVersion2AddsResourcesAsUnknown) {
  write_version2_database(path("v2.db"));
  const std::string bytes = read_bytes(path("v2.db"));
  // Read for a merge, the file stays as it was; opened, it is migrated in place.
  merge_databases({path("v2.db")}, path("out.db"));
  EXPECT_EQ(read_bytes(path("v2.db")), bytes);
  const auto h100 = synthetic_device("NVIDIA H100 80GB HBM3", 9, 0, 132);
  const KernelIdentity gemm{"gemm", "abc123"};
  {
    Database db(path("v2.db"));
    const auto results = db.results(h100, gemm, "1024x1024");
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[0].config, "BM=64");
    EXPECT_EQ(results[0].median_ms, 1.5);  // the later measurement stays the current one
    EXPECT_EQ(results[0].registers, 64);
    EXPECT_EQ(results[0].threads_per_block, 0);
    EXPECT_EQ(results[0].blocks, 0);
    EXPECT_EQ(results[0].blocks_per_sm, 0);
    EXPECT_EQ(results[0].peak, 0.0);
    EXPECT_EQ(results[1].status, Status::LaunchError);
    EXPECT_EQ(db.runs().size(), 2u);
    EXPECT_EQ(db.stats().measurements, 3);
    // New results keep their resources.
    db.record(db.begin_run(h100, gemm, "tune again"), "1024x1024", ok_result("BM=32", 0.5));
    const auto best = db.best({"gemm", "abc123", h100, "1024x1024"});
    ASSERT_TRUE(best);
    EXPECT_EQ(best->result.config, "BM=32");
    EXPECT_EQ(best->result.blocks_per_sm, 4);
    EXPECT_EQ(best->result.dynamic_smem_bytes, 1024);
  }
  SQLite::Database raw(path("v2.db").string());
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(), std::to_string(Database::kSchemaVersion));
  Database out(path("out.db"));
  EXPECT_EQ(out.results(h100, gemm, "1024x1024").size(), 2u);
}

TEST_F(DbMigrationTest, OfAReadOnlyFileSaysHowToFixIt) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can write read-only files";
  write_version1_database(path("v1.db"));
  fs::permissions(path("v1.db"), fs::perms::owner_read);
  const std::string message = error_of([&] { Database db(path("v1.db")); });
  EXPECT_NE(message.find("schema version 1 and is read-only"), std::string::npos) << message;
}

class ExchangeTest : public MergeTest {};

TEST_F(ExchangeTest, JsonRoundTripsExactly) {
  {
    Database a(path("a.db"));
    // Quotes, commas and newlines go through the message and the command; a configuration holds plain tokens only
    // (merge and import refuse anything else).
    Result odd = failed_result("BM=8,NOTE=x_1.5e-3", Status::WrongResult, "line one\nline two, with \"comma\"");
    odd.max_error = std::numeric_limits<double>::quiet_NaN();
    odd.samples_ms = {0.1, 1.0 / 3.0};
    a.record(a.begin_run(h200_, kGemm, "tune \"quoted\""), "17x5", odd);
  }
  merge_databases({path("a.db"), path("b.db")}, path("ab.db"));
  const std::string exported = export_text(path("ab.db"));
  write_bytes(path("ab.json"), exported);

  Database fresh(path("fresh.db"));
  const ImportSummary first = import_file(fresh, path("ab.json"));
  EXPECT_EQ(first.new_runs, 3u);
  EXPECT_EQ(first.new_measurements, 5u);
  const ImportSummary second = import_file(fresh, path("ab.json"), "json");
  EXPECT_EQ(second.new_runs, 0u);
  EXPECT_EQ(second.new_measurements, 0u);
  std::ostringstream again;
  export_runs(fresh, "json", again);
  EXPECT_EQ(again.str(), exported);

  const auto fast = fresh.best({"gemm", kGemm.hash, h200_, kShape});
  ASSERT_TRUE(fast);
  EXPECT_EQ(fast->result.spill_bytes, 8);
  EXPECT_EQ(fast->result.static_smem_bytes, 8192);
  EXPECT_EQ(fast->result.dynamic_smem_bytes, 1024);
  EXPECT_EQ(fast->result.threads_per_block, 128);
  EXPECT_EQ(fast->result.blocks, 1056);
  EXPECT_EQ(fast->result.blocks_per_sm, 4);
  EXPECT_EQ(fast->result.peak, 3000.0);
  EXPECT_NE(exported.find("\"blocks_per_sm\": 4"), std::string::npos);

  const auto odd = fresh.results(h200_, kGemm, "17x5");
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_TRUE(std::isnan(odd[0].max_error));
  EXPECT_EQ(odd[0].samples_ms, (std::vector<double>{0.1, 1.0 / 3.0}));
  EXPECT_EQ(odd[0].message, "line one\nline two, with \"comma\"");
  EXPECT_NE(exported.find("\"format\": \"cutune-runs\""), std::string::npos);
}

TEST_F(ExchangeTest, JsonWrittenBeforeResourcesReadsThemAsUnknown) {
  // A measurement as cutune wrote it before the resource fields existed (format version 1 all along).
  write_bytes(path("old.json"), R"({"format": "cutune-runs", "format_version": 1, "runs": [{"uid": "old-run",
    "started_at": "2025-01-01T00:00:00.000000Z", "host": "h", "cutune_version": "0.1.0", "command": "tune",
    "kernel": {"name": "gemm", "hash": "1111111111111111"},
    "device": {"name": "NVIDIA H200", "cc_major": 9, "cc_minor": 0, "sm_count": 132, "uuid": "GPU-a",
               "driver_version": 13000, "nvrtc_version": 13000, "memory_clock_khz": 1, "memory_bus_bits": 2,
               "total_memory": 3},
    "measurements": [{"shape": "4096x4096", "config": "BM=16", "status": "ok", "message": "", "samples_ms": [0.5],
                      "median_ms": 0.5, "min_ms": 0.5, "max_ms": 0.5, "spread": 0, "metric": 200, "max_error": 0,
                      "registers": 30, "compile_ms": 100, "measured_at": "2025-01-01T00:00:01.000000Z"}]}]})");
  Database db(path("x.db"));
  EXPECT_EQ(import_file(db, path("old.json")).new_measurements, 1u);
  const auto best = db.best({"gemm", kGemm.hash, h200_, kShape});
  ASSERT_TRUE(best);
  EXPECT_EQ(best->result.registers, 30);
  EXPECT_EQ(best->result.threads_per_block, 0);
  EXPECT_EQ(best->result.blocks, 0);
  EXPECT_EQ(best->result.peak, 0.0);
  // A resource field of the wrong type is still an error.
  write_bytes(path("bad_blocks.json"), read_bytes(path("old.json")).replace(
      read_bytes(path("old.json")).find("\"registers\""), 0, "\"blocks\": \"many\", "));
  const std::string message = error_of([&] { import_file(db, path("bad_blocks.json")); });
  EXPECT_NE(message.find("\"blocks\" that is not an integer"), std::string::npos) << message;
}

TEST_F(ExchangeTest, CsvHasOneQuotedRowPerMeasurement) {
  const std::string csv = export_text(path("b.db"), "csv");
  std::istringstream lines(csv);
  std::string header, first, second, extra;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  EXPECT_FALSE(std::getline(lines, extra));
  EXPECT_EQ(header.rfind("run_uid,host,started_at,cutune_version,device,cc,sm_count,", 0), 0u);
  EXPECT_NE(header.find(",shape,config,status,median_ms,"), std::string::npos);
  EXPECT_NE(first.find(",NVIDIA A100-SXM4-80GB,8.0,108,GPU-b,13000,13000,gemm,1111111111111111,4096x4096,BM=64,ok,2,"),
            std::string::npos) << first;
  EXPECT_NE(first.find(",2.04 2 1.96,"), std::string::npos) << first;
  EXPECT_NE(header.find(",spill_bytes,static_smem_bytes,dynamic_smem_bytes,threads_per_block,blocks,blocks_per_sm,peak,"),
            std::string::npos) << header;
  EXPECT_NE(first.find(",8,8192,1024,128,1056,4,3000,"), std::string::npos) << first;
  // Every figure 0 (the times too: a failure spent none), then no samples.
  EXPECT_NE(second.find(",BM=256,launch_error,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,,"), std::string::npos) << second;
  EXPECT_EQ(second.substr(second.size() - 19), ",too many resources");

  Database b(path("b.db"));
  std::ostringstream ignored;
  EXPECT_THROW(import_file(b, path("b.db"), "csv"), InputError);  // csv is export only
  EXPECT_THROW(export_runs(b, "yaml", ignored), InputError);
}

TEST_F(ExchangeTest, ImportRefusesWhatItCannotRead) {
  Database db(path("x.db"));
  write_bytes(path("bad.json"), R"({"format": "cutune-runs", "format_version": 1, "runs": [{"uid": "u1"}]})");
  std::string message = error_of([&] { import_file(db, path("bad.json")); });
  EXPECT_NE(message.find("runs[0] lacks \"started_at\""), std::string::npos) << message;
  write_bytes(path("newer.json"), R"({"format": "cutune-runs", "format_version": 9, "runs": []})");
  message = error_of([&] { import_file(db, path("newer.json")); });
  EXPECT_NE(message.find("format version 9"), std::string::npos) << message;
  write_bytes(path("other.txt"), "config,time\nA=1,2.0\n");
  message = error_of([&] { import_file(db, path("other.txt")); });
  EXPECT_NE(message.find("no format cutune can import"), std::string::npos) << message;
  EXPECT_EQ(db.stats().runs, 0);
}

TEST_F(ExchangeTest, RegisteredFormatsPlugIn) {
  // What a later importer (a Kernel Tuner cache, say) does: register a reader; import then finds it by content.
  register_exchange_format({"lines", "test format: one run per line", nullptr,
                            [device = h200_](std::istream& in, const std::string&) {
                              std::vector<RunRecord> runs;
                              std::string config;
                              while (std::getline(in, config)) {
                                RunRecord run;
                                run.uid = "lines-" + config;
                                run.device = device;
                                run.kernel = kGemm;
                                run.started_at = "2025-02-01T00:00:00.000000Z";
                                run.measurements.push_back({kShape, ok_result(config, 0.25), run.started_at});
                                runs.push_back(std::move(run));
                              }
                              return runs;
                            },
                            [](std::string_view head) { return head.rfind("BM=", 0) == 0; }});
  write_bytes(path("runs.lines"), "BM=512\nBM=1024\n");
  Database a(path("a.db"));
  const ImportSummary s = import_file(a, path("runs.lines"));
  EXPECT_EQ(s.new_runs, 2u);
  EXPECT_EQ(a.best({"gemm", kGemm.hash, h200_, kShape})->result.config, "BM=1024");
  EXPECT_EQ(exchange_format("lines").description, "test format: one run per line");
}

}  // namespace
}  // namespace cutune::testing
