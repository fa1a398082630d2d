// Fixtures shared by the database tests: synthetic devices and results, a temporary folder, a version-1 file.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <utility>

#include "cutune/database.hpp"
#include "cutune/error.hpp"

namespace cutune::testing {

namespace fs = std::filesystem;

inline DeviceIdentity synthetic_device(const std::string& name, int cc_major, int cc_minor, int sm_count,
                                       const std::string& uuid = "GPU-00000000-0000-0000-0000-000000000000") {
  DeviceIdentity d;
  d.name = name;
  d.cc_major = cc_major;
  d.cc_minor = cc_minor;
  d.sm_count = sm_count;
  d.memory_clock_khz = 2'619'000;
  d.memory_bus_bits = 5120;
  d.total_memory = 85'000'000'000;
  d.uuid = uuid;
  d.driver_version = 13000;
  d.nvrtc_version = 13000;
  return d;
}

inline Result ok_result(const std::string& config, double median) {
  Result r;
  r.config = config;
  r.status = Status::Ok;
  r.samples_ms = {median * 1.02, median, median * 0.98};
  r.median_ms = median;
  r.min_ms = median * 0.98;
  r.max_ms = median * 1.02;
  r.spread = 0.01;
  r.metric = 100.0 / median;
  r.registers = 40;
  r.compile_ms = 120.0;
  r.verify_ms = 0.4;
  r.benchmark_ms = 2.5;
  r.framework_ms = 0.75;
  r.search_ms = 0.125;
  r.spill_bytes = 8;
  r.static_smem_bytes = 8192;
  r.dynamic_smem_bytes = 1024;
  r.threads_per_block = 128;
  r.blocks = 1056;
  r.blocks_per_sm = 4;
  r.peak = 3000.0;
  return r;
}

/// A run's time accounting: `wall_s` in phases that add up to it exactly (binary fractions of it).
inline PhaseTimes synthetic_run_times(double wall_s) {
  PhaseTimes t;
  t.wall_s = wall_s;
  t.startup_s = 0.125 * wall_s;
  t.compile_wait_s = 0.25 * wall_s;
  t.measure_s = 0.5 * wall_s;
  t.search_s = 0.0625 * wall_s;
  t.store_s = 0.03125 * wall_s;
  t.other_s = 0.03125 * wall_s;
  t.compile_cpu_s = 8 * wall_s;
  return t;
}

/// Expects a result's times besides its runtimes to be `expected`'s, unknown (NaN) where those are.
inline void expect_same_times(const Result& actual, const Result& expected) {
  for (const auto [a, e] : {std::pair{actual.compile_ms, expected.compile_ms}, std::pair{actual.verify_ms, expected.verify_ms},
                            std::pair{actual.benchmark_ms, expected.benchmark_ms},
                            std::pair{actual.framework_ms, expected.framework_ms},
                            std::pair{actual.search_ms, expected.search_ms}}) {
    EXPECT_TRUE(a == e || (std::isnan(a) && std::isnan(e))) << actual.config << ": " << a << " instead of " << e;
  }
}

inline void expect_same_times(const PhaseTimes& actual, const PhaseTimes& expected) {
  for (const auto& [name, field] : kPhaseTimeFields) EXPECT_DOUBLE_EQ(actual.*field, expected.*field) << name;
}

inline Result failed_result(const std::string& config, Status status, const std::string& message) {
  Result r;
  r.config = config;
  r.status = status;
  r.message = message;
  return r;
}

inline std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The message of the cutune::Error that `body` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

/// A fresh folder under the system's temporary directory, removed after the test.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device random;
    dir_ = fs::temp_directory_path() / ("cutune_dbx_" + std::to_string(::getpid()) + "_" + std::to_string(random()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path path(const std::string& name) const { return dir_ / name; }

  fs::path dir_;
};

/// Writes a database as cutune's schema version 1 stored it (one result per key, runs without a uid): the
/// fixture of the migration tests. Two runs of `kernel` on `device`, three results for "1024x1024".
inline void write_version1_database(const fs::path& path, const std::string& device_name = "NVIDIA H100 80GB HBM3") {
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec(R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE devices(id INTEGER PRIMARY KEY, name TEXT NOT NULL, cc_major INTEGER NOT NULL,
  cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL, UNIQUE(name, cc_major, cc_minor, sm_count));
CREATE TABLE kernels(id INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, UNIQUE(name, hash));
CREATE TABLE runs(id INTEGER PRIMARY KEY, device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel_id INTEGER NOT NULL REFERENCES kernels(id), started_at TEXT NOT NULL, host TEXT NOT NULL,
  cutune_version TEXT NOT NULL, command TEXT NOT NULL, driver_version INTEGER NOT NULL,
  nvrtc_version INTEGER NOT NULL, device_uuid TEXT NOT NULL, memory_clock_khz INTEGER NOT NULL,
  memory_bus_bits INTEGER NOT NULL, total_memory INTEGER NOT NULL);
CREATE TABLE results(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  device_id INTEGER NOT NULL REFERENCES devices(id), kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  shape TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL, samples TEXT NOT NULL,
  median_ms REAL, min_ms REAL, max_ms REAL, spread REAL, metric REAL, max_error REAL,
  registers INTEGER NOT NULL, compile_ms REAL, measured_at TEXT NOT NULL,
  UNIQUE(device_id, kernel_id, shape, config));
CREATE INDEX results_best ON results(device_id, kernel_id, shape, status, median_ms);
CREATE INDEX results_recent ON results(device_id, measured_at);
INSERT INTO meta VALUES('application', 'cutune');
INSERT INTO meta VALUES('schema_version', '1');
INSERT INTO kernels VALUES(1, 'gemm', 'abc123');
INSERT INTO runs VALUES(1, 1, 1, '2025-01-01T10:00:00.000001Z', 'node1', '0.1.0', 'tune gemm', 12080, 12080,
  'GPU-aaaa', 2619000, 5120, 85000000000);
INSERT INTO runs VALUES(2, 1, 1, '2025-01-02T10:00:00.000001Z', 'node1', '0.1.0', 'tune gemm', 12080, 12080,
  'GPU-aaaa', 2619000, 5120, 85000000000);
INSERT INTO results VALUES(1, 1, 1, 1, '1024x1024', 'BM=64', 'ok', '', '[2.0,2.1]', 2.0, 2.0, 2.1, 0.01, 50.0, 0.0,
  64, 100.0, '2025-01-01T10:00:01.000000Z');
INSERT INTO results VALUES(2, 2, 1, 1, '1024x1024', 'BM=128', 'ok', '', '[1.0]', 1.0, 1.0, 1.0, 0.0, 100.0, 0.0,
  96, 100.0, '2025-01-02T10:00:01.000000Z');
INSERT INTO results VALUES(3, 2, 1, 1, '1024x1024', 'BM=256', 'compile_error', 'too many registers', '[]', NULL,
  NULL, NULL, NULL, NULL, NULL, 0, 50.0, '2025-01-02T10:00:02.000000Z');
)sql");
  SQLite::Statement device(db, "INSERT INTO devices VALUES(1, ?, 9, 0, 132)");
  device.bind(1, device_name);
  device.exec();
}

/// Writes a database as cutune's schema version 2 stored it (every measurement per run, no resources): the
/// fixture of the version-2 migration tests. One run of gemm "abc123" on an H100, two results for "1024x1024",
/// BM=64 measured twice (the later one current).
inline void write_version2_database(const fs::path& path) {
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec(R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE devices(id INTEGER PRIMARY KEY, name TEXT NOT NULL, cc_major INTEGER NOT NULL,
  cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL, UNIQUE(name, cc_major, cc_minor, sm_count));
CREATE TABLE kernels(id INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, UNIQUE(name, hash));
CREATE TABLE runs(id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel_id INTEGER NOT NULL REFERENCES kernels(id), started_at TEXT NOT NULL, host TEXT NOT NULL,
  cutune_version TEXT NOT NULL, command TEXT NOT NULL, driver_version INTEGER NOT NULL,
  nvrtc_version INTEGER NOT NULL, device_uuid TEXT NOT NULL, memory_clock_khz INTEGER NOT NULL,
  memory_bus_bits INTEGER NOT NULL, total_memory INTEGER NOT NULL);
CREATE TABLE results(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),
  device_id INTEGER NOT NULL REFERENCES devices(id), kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  shape TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL, samples TEXT NOT NULL,
  median_ms REAL, min_ms REAL, max_ms REAL, spread REAL, metric REAL, max_error REAL,
  registers INTEGER NOT NULL, compile_ms REAL, measured_at TEXT NOT NULL, current INTEGER NOT NULL DEFAULT 0,
  UNIQUE(run_id, shape, config));
CREATE TABLE tuned(device_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL, shape TEXT NOT NULL,
  PRIMARY KEY(kernel_id, device_id, shape)) WITHOUT ROWID;
CREATE UNIQUE INDEX results_current ON results(device_id, kernel_id, shape, config) WHERE current = 1;
CREATE INDEX results_best ON results(device_id, kernel_id, shape, median_ms, config)
  WHERE current = 1 AND status = 'ok';
CREATE INDEX results_recent ON results(device_id, measured_at);
INSERT INTO meta VALUES('application', 'cutune');
INSERT INTO meta VALUES('schema_version', '2');
INSERT INTO devices VALUES(1, 'NVIDIA H100 80GB HBM3', 9, 0, 132);
INSERT INTO kernels VALUES(1, 'gemm', 'abc123');
INSERT INTO runs VALUES(1, 'run-one', 1, 1, '2025-03-01T10:00:00.000001Z', 'node1', '0.1.0', 'tune gemm', 13000, 13000,
  'GPU-aaaa', 2619000, 5120, 85000000000);
INSERT INTO runs VALUES(2, 'run-two', 1, 1, '2025-03-02T10:00:00.000001Z', 'node1', '0.1.0', 'tune gemm', 13000, 13000,
  'GPU-aaaa', 2619000, 5120, 85000000000);
INSERT INTO results VALUES(1, 1, 1, 1, '1024x1024', 'BM=64', 'ok', '', '[2.0,2.1]', 2.0, 2.0, 2.1, 0.01, 50.0, 0.0,
  64, 100.0, '2025-03-01T10:00:01.000000Z', 0);
INSERT INTO results VALUES(2, 2, 1, 1, '1024x1024', 'BM=64', 'ok', '', '[1.5]', 1.5, 1.5, 1.5, 0.0, 66.0, 0.0,
  64, 100.0, '2025-03-02T10:00:01.000000Z', 1);
INSERT INTO results VALUES(3, 2, 1, 1, '1024x1024', 'BM=256', 'launch_error', 'too many resources', '[]', NULL,
  NULL, NULL, NULL, NULL, NULL, 0, 50.0, '2025-03-02T10:00:02.000000Z', 1);
INSERT INTO tuned VALUES(1, 1, '1024x1024');
)sql");
}

/// Writes a database as cutune's schema version 3 stored it (resources, no L2 convention): the version-2 file above
/// with the columns that migrating it appended, as a version-3 file has them, and resources on its Ok results.
inline void write_version3_database(const fs::path& path) {
  write_version2_database(path);
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE);
  for (const char* column : {"spill_bytes", "static_smem", "dynamic_smem", "threads_per_block", "blocks",
                             "blocks_per_sm"}) {
    db.exec(std::string("ALTER TABLE results ADD COLUMN ") + column + " INTEGER NOT NULL DEFAULT 0");
  }
  db.exec("ALTER TABLE results ADD COLUMN peak REAL DEFAULT 0");
  db.exec("UPDATE results SET threads_per_block = 256, blocks = 1024, blocks_per_sm = 2, peak = 3000.0 "
          "WHERE status = 'ok'");
  db.exec("UPDATE meta SET value = '3' WHERE key = 'schema_version'");
}

/// Turns a database of the current schema into one as version 5 stored it: runs without their time accounting,
/// results without times besides compiling. The fixture of the version-5 (and, further back, version-4) migrations.
inline void downgrade_to_version5(const fs::path& path) {
  SQLite::Database db(path.string(), SQLite::OPEN_READWRITE);
  for (const auto& [name, field] : kPhaseTimeFields) db.exec("ALTER TABLE runs DROP COLUMN " + std::string(name));
  for (const char* column : {"verify_ms", "benchmark_ms", "framework_ms", "search_ms"}) {
    db.exec(std::string("ALTER TABLE results DROP COLUMN ") + column);
  }
  db.exec("UPDATE meta SET value = '5' WHERE key = 'schema_version'");
}

}  // namespace cutune::testing
