// Store: the SQLite database of every configuration tried, the product's memory (DESIGN.md, decision 7).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cutune/result.hpp"

namespace SQLite {
class Database;
}

namespace cutune {

/// What a best-configuration query asks for. The device is matched on (name, cc, SM count).
struct BestQuery {
  std::string kernel;        ///< family name
  std::string kernel_hash;   ///< kernel version; empty matches the most recently measured version
  DeviceIdentity device;     ///< only name, cc_major, cc_minor, sm_count are used
  std::string shape;         ///< canonical "8192x4096"
};

/// A stored best configuration and where it came from.
struct BestConfig {
  Result result;
  KernelIdentity kernel;
  DeviceIdentity device;
  std::string shape;
};

/// A device, kernel version and shape with measurements in the database.
struct TunedEntry {
  DeviceIdentity device;
  KernelIdentity kernel;
  std::string shape;
  int results = 0;
  int ok = 0;
};

/// A cutune database file. Every write commits at once, so an interrupted run keeps what it measured.
/// Safe for several processes on one file (WAL journal, busy timeout).
class Database {
 public:
  static constexpr int kSchemaVersion = 1;

  /// Opens `path`, creating it (and its schema) when it does not exist. Throws DatabaseError when the file
  /// cannot be created or opened, is not a SQLite database, or is a SQLite database that cutune did not
  /// write; a database of a newer schema version is refused. Never modifies an existing foreign file.
  explicit Database(const std::filesystem::path& path);
  ~Database();
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;

  const std::filesystem::path& path() const { return path_; }

  /// Starts a tuning run and returns its id; the run carries the provenance (host, time, cutune version,
  /// driver and NVRTC versions, the card's UUID and clocks).
  std::int64_t begin_run(const DeviceIdentity& device, const KernelIdentity& kernel, const std::string& command);

  /// Stores one result of a run for a shape; replaces an earlier result of the same (device, kernel version,
  /// shape, config). Commits before returning.
  void record(std::int64_t run_id, const std::string& shape, const Result& result);

  /// The configurations already stored for (device, kernel version, shape), whatever their status: resume skips them.
  std::set<std::string> measured(const DeviceIdentity& device, const KernelIdentity& kernel, const std::string& shape);

  /// Every stored result for (device, kernel version, shape), fastest Ok first, failures last.
  std::vector<Result> results(const DeviceIdentity& device, const KernelIdentity& kernel, const std::string& shape);

  /// The fastest Ok result for the query, exact shape match; nullopt when there is none.
  std::optional<BestConfig> best(const BestQuery& query);

  /// What is tuned: one entry per (device, kernel version, shape).
  std::vector<TunedEntry> entries();

 private:
  std::filesystem::path path_;
  std::unique_ptr<SQLite::Database> db_;
};

}  // namespace cutune
