// Tests of the SQLite store on temporary files: round trips, queries, resume, reopening, concurrency (opening foreign
// or damaged files: database_file_test.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cutune/database.hpp"
#include "cutune/error.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

DeviceIdentity h200() {
  DeviceIdentity d;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.memory_clock_khz = 3'201'000;
  d.memory_bus_bits = 6144;
  d.total_memory = 150'110'011'392;
  d.uuid = "GPU-1f0e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
  d.driver_version = 13000;
  d.nvrtc_version = 12090;
  return d;
}

Result ok(const std::string& config, double median) {
  Result r;
  r.config = config;
  r.status = Status::Ok;
  r.samples_ms = {median * 1.01, median, median * 0.99};
  r.median_ms = median;
  r.min_ms = median * 0.99;
  r.max_ms = median * 1.01;
  r.spread = 0.02;
  r.metric = 1000.0 / median;
  r.registers = 32;
  r.compile_ms = 150.0;
  return r;
}

Result failed(const std::string& config, Status status, const std::string& message) {
  Result r;
  r.config = config;
  r.status = status;
  r.message = message;
  return r;
}

class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device random;
    dir_ = fs::temp_directory_path() /
           ("cutune_db_test_" + std::to_string(::getpid()) + "_" + std::to_string(random()));
    fs::create_directories(dir_);
    path_ = dir_ / "tune.db";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path dir_;
  fs::path path_;
  DeviceIdentity device_ = h200();
  KernelIdentity kernel_{"gemm", "abc123"};
  std::string shape_ = "4096x4096x4096";
};

TEST(StatusNames, RoundTripEveryStatus) {
  const std::vector<std::pair<Status, std::string>> names = {
      {Status::Ok, "ok"},
      {Status::CompileError, "compile_error"},
      {Status::LaunchError, "launch_error"},
      {Status::RuntimeError, "runtime_error"},
      {Status::WrongResult, "wrong_result"},
      {Status::Timeout, "timeout"},
      {Status::Unverified, "unverified"}};
  for (const auto& [status, name] : names) {
    EXPECT_EQ(to_string(status), name);
    EXPECT_EQ(status_from_string(name), status);
  }
  EXPECT_THROW(status_from_string("OK"), DatabaseError);
  EXPECT_THROW(status_from_string(""), DatabaseError);
}

TEST(ConfigItems, SplitTheCanonicalFormInOrder) {
  using Items = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(config_items("BM=128,BN=64,SCALE=0.5"), (Items{{"BM", "128"}, {"BN", "64"}, {"SCALE", "0.5"}}));
  EXPECT_EQ(config_items("FLAG,X="), (Items{{"FLAG", ""}, {"X", ""}}));
  EXPECT_EQ(config_items(""), Items{});
}

TEST_F(DatabaseTest, RoundTripKeepsEveryField) {
  Result r;
  r.config = "BM=128,BN=64,PAD=1";
  r.status = Status::Ok;
  r.samples_ms = {0.1, 1.0 / 3.0, 2.5e-7, 12345.678901234567};
  r.median_ms = 1.0 / 3.0;
  r.min_ms = 2.5e-7;
  r.max_ms = 12345.678901234567;
  r.spread = 0.0123;
  r.metric = 987.654;
  r.max_error = 1.5e-6;
  r.registers = 96;
  r.compile_ms = 171.25;
  r.spill_bytes = 24;
  r.static_smem_bytes = 16384;
  r.dynamic_smem_bytes = 49152;
  r.threads_per_block = 256;
  r.blocks = 5'000'000'000;  // beyond 32 bits: a 1-D grid may have 2^31 - 1 blocks, a 3-D one more
  r.blocks_per_sm = 3;
  r.peak = 3012.5;
  {
    Database db(path_);
    db.record(db.begin_run(device_, kernel_, "tune gemm"), shape_, r);
  }
  Database db(path_);
  const auto all = db.results(device_, kernel_, shape_);
  ASSERT_EQ(all.size(), 1u);
  const Result& back = all[0];
  EXPECT_EQ(back.config, r.config);
  EXPECT_EQ(back.status, Status::Ok);
  EXPECT_EQ(back.message, "");
  EXPECT_EQ(back.samples_ms, r.samples_ms);  // exact: doubles must survive the JSON text
  EXPECT_EQ(back.median_ms, r.median_ms);
  EXPECT_EQ(back.min_ms, r.min_ms);
  EXPECT_EQ(back.max_ms, r.max_ms);
  EXPECT_EQ(back.spread, r.spread);
  EXPECT_EQ(back.metric, r.metric);
  EXPECT_EQ(back.max_error, r.max_error);
  EXPECT_EQ(back.registers, 96);
  EXPECT_EQ(back.compile_ms, r.compile_ms);
  EXPECT_EQ(back.spill_bytes, 24);
  EXPECT_EQ(back.static_smem_bytes, 16384);
  EXPECT_EQ(back.dynamic_smem_bytes, 49152);
  EXPECT_EQ(back.threads_per_block, 256);
  EXPECT_EQ(back.blocks, 5'000'000'000);
  EXPECT_EQ(back.blocks_per_sm, 3);
  EXPECT_EQ(back.peak, 3012.5);
}

TEST_F(DatabaseTest, FailureKeepsMessageAndNanError) {
  Database db(path_);
  Result wrong = failed("BM=8", Status::WrongResult, "mismatch at index 17");
  wrong.max_error = std::numeric_limits<double>::quiet_NaN();
  db.record(db.begin_run(device_, kernel_, "tune"), shape_, wrong);
  const auto all = db.results(device_, kernel_, shape_);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].status, Status::WrongResult);
  EXPECT_EQ(all[0].message, "mismatch at index 17");
  EXPECT_TRUE(std::isnan(all[0].max_error));
  EXPECT_TRUE(all[0].samples_ms.empty());
}

TEST_F(DatabaseTest, ResultsAreFastestOkFirstThenFailuresByConfig) {
  Database db(path_);
  const auto run = db.begin_run(device_, kernel_, "tune");
  db.record(run, shape_, failed("C=3", Status::Timeout, "deadline"));
  db.record(run, shape_, ok("B=2", 3.0));
  db.record(run, shape_, failed("A=9", Status::CompileError, "error: x"));
  db.record(run, shape_, ok("Z=1", 1.0));
  db.record(run, shape_, ok("M=5", 2.0));
  std::vector<std::string> order;
  for (const auto& r : db.results(device_, kernel_, shape_)) order.push_back(r.config);
  EXPECT_EQ(order, (std::vector<std::string>{"Z=1", "M=5", "B=2", "A=9", "C=3"}));
}

TEST_F(DatabaseTest, RecordingAgainReplaces) {
  Database db(path_);
  const auto first = db.begin_run(device_, kernel_, "tune");
  db.record(first, shape_, failed("BM=64", Status::RuntimeError, "illegal address"));
  const auto second = db.begin_run(device_, kernel_, "tune --resume");
  EXPECT_GT(second, first);
  db.record(second, shape_, ok("BM=64", 0.75));
  const auto all = db.results(device_, kernel_, shape_);
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].status, Status::Ok);
  EXPECT_EQ(all[0].median_ms, 0.75);
  EXPECT_EQ(all[0].message, "");
}

// Whichever run records a configuration last holds its current result, and a run that measures it again takes it
// back; earlier measurements stay as history.
TEST_F(DatabaseTest, TheLatestMeasurementIsCurrentWhicheverRunRecordsIt) {
  Database db(path_);
  const auto first = db.begin_run(device_, kernel_, "tune");
  const auto second = db.begin_run(device_, kernel_, "tune");
  const auto current = [&] {
    const auto all = db.results(device_, kernel_, shape_);
    EXPECT_EQ(all.size(), 1u);
    return all.empty() ? 0.0 : all[0].median_ms;
  };
  const auto record = [&](std::int64_t run, double ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // measured_at is in microseconds
    db.record(run, shape_, ok("BM=64", ms));
  };
  record(first, 0.5);
  EXPECT_EQ(current(), 0.5);
  record(second, 0.75);
  EXPECT_EQ(current(), 0.75);
  record(first, 0.25);
  EXPECT_EQ(current(), 0.25);
  record(second, 0.9);
  EXPECT_EQ(current(), 0.9);
  record(second, 0.8);
  EXPECT_EQ(current(), 0.8);
}

TEST_F(DatabaseTest, RecordForUnknownRunIsRefused) {
  Database db(path_);
  EXPECT_THROW(db.record(42, shape_, ok("A=1", 1.0)), DatabaseError);
  EXPECT_TRUE(db.entries().empty());
}

TEST_F(DatabaseTest, MeasuredListsEveryStoredConfigForResume) {
  Database db(path_);
  const auto run = db.begin_run(device_, kernel_, "tune");
  db.record(run, shape_, ok("A=1", 1.0));
  db.record(run, shape_, failed("A=2", Status::LaunchError, "too many resources"));
  db.record(run, "1024x1024x1024", ok("A=3", 1.0));
  EXPECT_EQ(db.measured(device_, kernel_, shape_), (std::set<std::string>{"A=1", "A=2"}));
  EXPECT_EQ(db.measured(device_, kernel_, "1024x1024x1024"), (std::set<std::string>{"A=3"}));
  EXPECT_TRUE(db.measured(device_, kernel_, "1x1x1").empty());
  EXPECT_TRUE(db.measured(device_, KernelIdentity{"gemm", "other"}, shape_).empty());
  DeviceIdentity other = device_;
  other.sm_count = 114;
  EXPECT_TRUE(db.measured(other, kernel_, shape_).empty());
}

TEST_F(DatabaseTest, BestIsFastestOkWithProvenance) {
  Database db(path_);
  const auto run = db.begin_run(device_, kernel_, "tune gemm");
  db.record(run, shape_, ok("BM=64", 2.0));
  db.record(run, shape_, ok("BM=128", 1.5));
  // A wrong result is never best, however fast it looked.
  Result wrong = failed("BM=256", Status::WrongResult, "mismatch");
  wrong.median_ms = 0.01;
  db.record(run, shape_, wrong);

  BestQuery query{"gemm", "abc123", device_, shape_};
  query.device.driver_version = 0;  // provenance in the query is ignored
  query.device.uuid = "";
  const auto best = db.best(query);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->result.config, "BM=128");
  EXPECT_EQ(best->result.median_ms, 1.5);
  EXPECT_EQ(best->kernel.name, "gemm");
  EXPECT_EQ(best->kernel.hash, "abc123");
  EXPECT_EQ(best->shape, shape_);
  EXPECT_EQ(best->device.name, "NVIDIA H200");
  EXPECT_EQ(best->device.cc_major, 9);
  EXPECT_EQ(best->device.cc_minor, 0);
  EXPECT_EQ(best->device.sm_count, 132);
  EXPECT_EQ(best->device.driver_version, 13000);
  EXPECT_EQ(best->device.nvrtc_version, 12090);
  EXPECT_EQ(best->device.uuid, device_.uuid);
  EXPECT_EQ(best->device.memory_clock_khz, 3'201'000);
  EXPECT_EQ(best->device.memory_bus_bits, 6144);
  EXPECT_EQ(best->device.total_memory, 150'110'011'392);

  // A later run on a newer driver that finds a faster config carries its own provenance.
  DeviceIdentity updated = device_;
  updated.driver_version = 13010;
  db.record(db.begin_run(updated, kernel_, "tune gemm"), shape_, ok("BM=32", 1.0));
  const auto again = db.best(query);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->result.config, "BM=32");
  EXPECT_EQ(again->device.driver_version, 13010);
}

TEST_F(DatabaseTest, BestIsNulloptWithoutAnExactOkMatch) {
  Database db(path_);
  const auto run = db.begin_run(device_, kernel_, "tune");
  db.record(run, shape_, ok("A=1", 1.0));
  db.record(run, "512x512x512", failed("A=1", Status::CompileError, "log"));
  db.record(run, "512x512x512", failed("A=2", Status::Timeout, ""));

  const BestQuery exact{"gemm", "abc123", device_, shape_};
  ASSERT_TRUE(db.best(exact).has_value());

  BestQuery query = exact;
  query.shape = "4096x4096x4095";
  EXPECT_FALSE(db.best(query).has_value());
  query = exact;
  query.shape = "512x512x512";  // only failures there
  EXPECT_FALSE(db.best(query).has_value());
  query = exact;
  query.kernel_hash = "def456";
  EXPECT_FALSE(db.best(query).has_value());
  query = exact;
  query.kernel = "transpose";
  EXPECT_FALSE(db.best(query).has_value());
  query = exact;
  query.device.sm_count = 114;
  EXPECT_FALSE(db.best(query).has_value());
  query = exact;
  query.device.cc_minor = 1;
  EXPECT_FALSE(db.best(query).has_value());
  query = exact;
  query.device.name = "NVIDIA H100";
  EXPECT_FALSE(db.best(query).has_value());
}

TEST_F(DatabaseTest, EmptyHashMeansTheMostRecentlyMeasuredVersion) {
  Database db(path_);
  const KernelIdentity v1{"gemm", "v1"};
  const KernelIdentity v2{"gemm", "v2"};
  const KernelIdentity other{"transpose", "t1"};
  db.record(db.begin_run(device_, v1, "tune"), shape_, ok("OLD=1", 0.5));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  db.record(db.begin_run(device_, v2, "tune"), shape_, ok("NEW=1", 3.0));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  // Another kernel measured later does not count.
  db.record(db.begin_run(device_, other, "tune"), shape_, ok("T=1", 0.1));

  const BestQuery latest{"gemm", "", device_, shape_};
  auto best = db.best(latest);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->kernel.hash, "v2");
  EXPECT_EQ(best->result.config, "NEW=1");

  // Re-measuring the old version (an update of an existing row) makes it the latest again.
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  db.record(db.begin_run(device_, v1, "tune"), shape_, ok("OLD=1", 0.6));
  best = db.best(latest);
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->kernel.hash, "v1");
  EXPECT_EQ(best->result.median_ms, 0.6);

  // The latest version is chosen per device over all shapes: a v3 tuned only elsewhere hides v1 and v2 here.
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  db.record(db.begin_run(device_, KernelIdentity{"gemm", "v3"}, "tune"), "8x8x8", ok("V3=1", 0.01));
  EXPECT_FALSE(db.best(latest).has_value());
  best = db.best(BestQuery{"gemm", "", device_, "8x8x8"});
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->kernel.hash, "v3");

  // On a device where only v1 was measured, v1 is the latest there.
  DeviceIdentity small = device_;
  small.name = "NVIDIA L4";
  small.cc_minor = 9;
  small.cc_major = 8;
  small.sm_count = 58;
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  db.record(db.begin_run(small, v1, "tune"), shape_, ok("OLD=2", 4.0));
  best = db.best(BestQuery{"gemm", "", small, shape_});
  ASSERT_TRUE(best.has_value());
  EXPECT_EQ(best->kernel.hash, "v1");
  EXPECT_EQ(best->device.name, "NVIDIA L4");
}

TEST_F(DatabaseTest, EntriesCountPerDeviceKernelAndShape) {
  Database db(path_);
  DeviceIdentity a100 = device_;
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.cc_major = 8;
  a100.sm_count = 108;
  a100.driver_version = 12040;
  const auto gemm_run = db.begin_run(device_, kernel_, "tune");
  db.record(gemm_run, "64x64x64", ok("A=1", 1.0));
  db.record(gemm_run, "64x64x64", failed("A=2", Status::Timeout, ""));
  db.record(gemm_run, "32x32x32", ok("A=1", 1.0));
  db.record(db.begin_run(a100, kernel_, "tune"), "64x64x64", failed("A=1", Status::LaunchError, ""));
  db.record(db.begin_run(device_, KernelIdentity{"copy", "c1"}, "tune"), "1024", ok("V=4", 0.2));

  const auto entries = db.entries();
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].kernel.name, "copy");
  EXPECT_EQ(entries[0].shape, "1024");
  EXPECT_EQ(entries[0].results, 1);
  EXPECT_EQ(entries[0].ok, 1);
  EXPECT_EQ(entries[1].device.name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(entries[1].device.sm_count, 108);
  EXPECT_EQ(entries[1].device.driver_version, 12040);
  EXPECT_EQ(entries[1].results, 1);
  EXPECT_EQ(entries[1].ok, 0);
  EXPECT_EQ(entries[2].device.name, "NVIDIA H200");
  EXPECT_EQ(entries[2].kernel.hash, "abc123");
  EXPECT_EQ(entries[2].shape, "32x32x32");
  EXPECT_EQ(entries[2].results, 1);
  EXPECT_EQ(entries[3].shape, "64x64x64");
  EXPECT_EQ(entries[3].results, 2);
  EXPECT_EQ(entries[3].ok, 1);
  EXPECT_EQ(entries[3].device.uuid, device_.uuid);
}

TEST_F(DatabaseTest, ReopenKeepsEverythingAndWritesSchema) {
  {
    Database db(path_);
    const auto run = db.begin_run(device_, kernel_, "tune gemm --budget 10");
    for (int i = 0; i < 10; ++i) db.record(run, shape_, ok("A=" + std::to_string(i), 1.0 + i));
  }
  {
    Database db(path_);
    EXPECT_EQ(db.path(), path_);
    EXPECT_EQ(db.measured(device_, kernel_, shape_).size(), 10u);
    EXPECT_EQ(db.best(BestQuery{"gemm", "abc123", device_, shape_})->result.config, "A=0");
  }
  SQLite::Database raw(path_.string());
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'schema_version'").getString(), std::to_string(Database::kSchemaVersion));
  EXPECT_EQ(raw.execAndGet("SELECT value FROM meta WHERE key = 'application'").getString(), "cutune");
  EXPECT_EQ(raw.execAndGet("PRAGMA journal_mode").getString(), "wal");
  SQLite::Statement run(raw, "SELECT command, host, cutune_version, started_at FROM runs");
  ASSERT_TRUE(run.executeStep());
  EXPECT_EQ(run.getColumn(0).getString(), "tune gemm --budget 10");
  EXPECT_FALSE(run.getColumn(1).getString().empty());
  EXPECT_FALSE(run.getColumn(2).getString().empty());
  const std::string started = run.getColumn(3).getString();
  ASSERT_GE(started.size(), 20u);
  EXPECT_EQ(started[4], '-');
  EXPECT_EQ(started[10], 'T');
  EXPECT_EQ(started.back(), 'Z');
}

TEST_F(DatabaseTest, MovedDatabaseKeepsWorking) {
  Database first(path_);
  Database second(std::move(first));
  second.record(second.begin_run(device_, kernel_, "tune"), shape_, ok("A=1", 1.0));
  EXPECT_EQ(second.results(device_, kernel_, shape_).size(), 1u);
  EXPECT_THROW(first.entries(), DatabaseError);  // NOLINT(bugprone-use-after-move): the refusal is the point
}

TEST_F(DatabaseTest, InMemoryDatabaseWorks) {
  Database db(":memory:");
  db.record(db.begin_run(device_, kernel_, "tune"), shape_, ok("A=1", 1.0));
  EXPECT_EQ(db.entries().size(), 1u);
}

TEST_F(DatabaseTest, TwoConnectionsInterleavedLoseNothing) {
  Database a(path_);
  Database b(path_);
  const KernelIdentity other{"gemm", "def456"};
  const auto run_a = a.begin_run(device_, kernel_, "tune a");
  const auto run_b = b.begin_run(device_, other, "tune b");
  for (int i = 0; i < 50; ++i) {
    a.record(run_a, shape_, ok("A=" + std::to_string(i), 1.0 + i));
    b.record(run_b, shape_, ok("B=" + std::to_string(i), 2.0 + i));
    EXPECT_EQ(b.measured(device_, kernel_, shape_).size(), static_cast<std::size_t>(i + 1));
  }
  Database reader(path_);
  EXPECT_EQ(reader.measured(device_, kernel_, shape_).size(), 50u);
  EXPECT_EQ(reader.measured(device_, other, shape_).size(), 50u);
  EXPECT_EQ(reader.entries().size(), 2u);
}

TEST_F(DatabaseTest, ConcurrentWritersFromThreadsLoseNothing) {
  { Database create(path_); }
  constexpr int kWriters = 4;
  constexpr int kEach = 40;
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      try {
        Database db(path_);
        const auto run = db.begin_run(device_, kernel_, "worker " + std::to_string(w));
        for (int i = 0; i < kEach; ++i) {
          db.record(run, shape_, ok("W=" + std::to_string(w) + ",I=" + std::to_string(i), 1.0));
        }
      } catch (const DatabaseError&) {
        ++errors;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 0);
  Database db(path_);
  EXPECT_EQ(db.measured(device_, kernel_, shape_).size(), static_cast<std::size_t>(kWriters * kEach));
}

}  // namespace
}  // namespace cutune
