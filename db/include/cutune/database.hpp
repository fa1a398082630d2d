// Store: the SQLite database of every configuration tried, the product's memory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/l2_flush.hpp"
#include "cutune/phase_times.hpp"
#include "cutune/result.hpp"
#include "cutune/wanted.hpp"

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
  L2Flush flush = L2Flush::Read;  ///< only results measured under this L2 convention count, at every rule
};

/// Which rule of the fallback chain answered a query, from the most to the least specific.
enum class Match {
  Exact,             ///< this device, this shape
  NearestShape,      ///< this device, the tuned shape nearest by distance on the log of each dimension
  SameArchitecture,  ///< another device of the same compute capability, its nearest tuned shape
  Predicted,         ///< this device, the measured configuration predicted fastest at the shape (runtime's model)
  Default,           ///< nothing tuned: the spec's default configuration
};
/// "exact shape", "nearest tuned shape", "same compute capability", "predicted", "spec default".
std::string_view to_string(Match m);

/// A stored best configuration and where it came from.
struct BestConfig {
  Result result;              ///< Ok, or Unverified (measured under --verify none) where the key has no Ok result
  KernelIdentity kernel;
  DeviceIdentity device;      ///< the device whose measurement it is (differs from the query's for SameArchitecture)
  std::string shape;          ///< the shape that was measured (differs from the query's unless Exact)
  Match match = Match::Exact;
  double distance = 0.0;      ///< Euclidean distance between the logs of the query's and `shape`'s dimensions
  L2Flush flush = L2Flush::Read;  ///< the L2 convention of the measurement (the query's)
};

/// A device, kernel version, shape and L2 convention with measurements in the database.
struct TunedEntry {
  DeviceIdentity device;
  KernelIdentity kernel;
  std::string shape;
  L2Flush flush = L2Flush::Read;
  int results = 0;  ///< configurations measured (the latest measurement of each counts)
  int ok = 0;
};

/// The fastest results of one tuned shape (Database::top_results): what the runtime's fallback model learns from.
struct TunedResults {
  std::string shape;
  std::vector<Result> results;  ///< fastest first: Ok ones, then Unverified ones
};

/// One measurement of a run, as it moves between databases and files.
struct Measurement {
  std::string shape;
  Result result;
  std::string measured_at;  ///< UTC, "2025-01-31T12:00:00.123456Z"
};

/// A tuning run with its provenance and measurements: the unit of merge, export and import.
struct RunRecord {
  std::string uid;             ///< identifies the run on every machine: the same uid is the same run
  DeviceIdentity device;       ///< key (name, cc, SM count) and this run's provenance (UUID, clocks, versions)
  KernelIdentity kernel;
  std::string started_at;      ///< UTC, same form as measured_at
  std::string host;
  std::string cutune_version;
  std::string command;
  L2Flush flush = L2Flush::Read;  ///< the L2 state before each timed launch of the run (what its times mean)
  /// Where the run's wall time went, stored when it ended; none for a run that was interrupted, stored by an older
  /// cutune, or imported from another tool.
  std::optional<PhaseTimes> times;
  std::vector<Measurement> measurements;
};

/// What adding runs changed: a run or measurement already present is counted but not added again.
struct ImportSummary {
  std::size_t runs = 0;
  std::size_t new_runs = 0;
  std::size_t measurements = 0;
  std::size_t new_measurements = 0;
};

/// Counts over a database, for `tune db stats`.
struct DatabaseStats {
  struct DeviceCount {
    DeviceIdentity device;  ///< key only
    std::int64_t kernels = 0, shapes = 0, configurations = 0, ok = 0, unverified = 0;
  };
  struct KernelCount {
    KernelIdentity kernel;
    std::int64_t devices = 0, configurations = 0, ok = 0, unverified = 0;
    std::vector<std::string> shapes;
    std::string last_measured;
  };
  std::int64_t runs = 0;
  std::int64_t hosts = 0;
  std::int64_t measurements = 0;    ///< every stored measurement, history included
  std::int64_t configurations = 0;  ///< (device, kernel version, L2 convention, shape, configuration) keys
  std::int64_t ok = 0;              ///< keys whose latest measurement is Ok
  std::int64_t unverified = 0;      ///< keys whose latest measurement is Unverified (--verify none)
  std::vector<DeviceCount> devices;
  std::vector<KernelCount> kernels;
};

/// "NVIDIA  H200 " -> "NVIDIA H200": device names are compared after trimming and collapsing white space, so
/// that the same GPU model matches across drivers and machines.
std::string normalized_device_name(std::string_view name);

/// A cutune database file. Every write commits at once, so an interrupted run keeps what it measured.
/// Safe for several processes on one file (WAL journal, busy timeout, transactions retried while locked).
///
/// Every measurement is kept with its run (history). For each (device, kernel version, L2 convention, shape,
/// configuration) the latest measurement is the current one: results(), best() and entries() read only current ones.
/// Times of different L2 conventions (l2_flush.hpp) are never compared: every query names one (default Read).
class Database {
 public:
  static constexpr int kSchemaVersion = 8;

  /// Opens `path`, creating it (and its schema) when it does not exist, and migrates an older schema version in
  /// place. Throws DatabaseError when the file cannot be created or opened, is not a SQLite database, or is a
  /// SQLite database that cutune did not write; a database of a newer schema version is refused. Never
  /// modifies an existing foreign file.
  explicit Database(const std::filesystem::path& path);
  ~Database();
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;

  const std::filesystem::path& path() const { return path_; }

  /// Starts a tuning run and returns its id; the run carries the provenance (host, time, cutune version,
  /// driver and NVRTC versions, the card's UUID and clocks) and a uid that stays its identity after a merge; its
  /// results are stored under its L2 convention `flush`.
  std::int64_t begin_run(const DeviceIdentity& device, const KernelIdentity& kernel, const std::string& command,
                         L2Flush flush = L2Flush::Read);

  /// Stores one result of a run for a shape, which becomes the current one of its configuration; earlier
  /// measurements of other runs stay as history, an earlier one of the same run is replaced. Commits before returning.
  void record(std::int64_t run_id, const std::string& shape, const Result& result);

  /// Stores where a run's wall time went, when it ended (RunRecord::times).
  void finish_run(std::int64_t run_id, const PhaseTimes& times);

  /// The configurations already stored for (device, kernel version, shape) under the L2 convention `flush`, whatever
  /// their status: resume skips them.
  std::set<std::string> measured(const DeviceIdentity& device, const KernelIdentity& kernel, const std::string& shape,
                                 L2Flush flush = L2Flush::Read);

  /// The current result of each configuration for (device, kernel version, shape) under the L2 convention `flush`,
  /// fastest Ok first, then fastest Unverified, failures last.
  std::vector<Result> results(const DeviceIdentity& device, const KernelIdentity& kernel, const std::string& shape,
                              L2Flush flush = L2Flush::Read);

  /// The fastest Ok result for the query, exact shape match, else the fastest Unverified one; nullopt when there is
  /// neither.
  std::optional<BestConfig> best(const BestQuery& query);

  /// The fastest Ok (else Unverified) result by the fallback chain: exact shape, then the nearest tuned shape on this
  /// device, then another device of the same compute capability (nearest shape, then nearest SM count). Only results
  /// of the queried kernel version and L2 convention count. Nullopt when none applies: the caller then uses the spec's default
  /// (choose_config() in runtime.hpp does).
  std::optional<BestConfig> best_with_fallback(const BestQuery& query);

  /// For every tuned shape of (device, kernel version, L2 convention), its `per_shape` fastest usable results.
  std::vector<TunedResults> top_results(const DeviceIdentity& device, const KernelIdentity& kernel, L2Flush flush,
                                        int per_shape);

  /// What is tuned: one entry per (device, kernel version, shape, L2 convention).
  std::vector<TunedEntry> entries();

  /// Devices, kernel versions, shapes and counts.
  DatabaseStats stats();

  /// Every run with every measurement (history included), ordered by start time: what export and merge carry.
  std::vector<RunRecord> runs();

  /// Adds runs from another database or a file (named by `source` in errors), all or nothing. Every run is checked
  /// first as untrusted input (bounded texts, NAME=VALUE configurations, finite times; valid configurations of a
  /// built-in kernel version): InputError names the file, the run, the row and the value. A run whose uid is stored
  /// already is not added
  /// again, and its measurements are added only where newer, so adding the same runs twice changes nothing.
  /// The current measurement of every configuration is then recomputed over all runs.
  ImportSummary add_runs(const std::vector<RunRecord>& runs, std::string_view source = {});

  /// Adds shapes that lookups found no result of their own for (`source` names them in errors), all or nothing:
  /// counts add up, first and last times widen. Each is checked first as untrusted input (InputError).
  void add_wanted(const std::vector<WantedShape>& shapes, std::string_view source = {});
  /// Every wanted shape, by kernel, device and convention, the most recently looked up first.
  std::vector<WantedShape> wanted();

  struct Statements;

 private:
  std::filesystem::path path_;
  std::unique_ptr<SQLite::Database> db_;
  std::unique_ptr<Statements> statements_;  // after db_: prepared statements are finalised before the connection closes
};

}  // namespace cutune
