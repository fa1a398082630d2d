// Internals shared by the store's sources: error translation, write transactions, schema, row readers.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/result_fields.hpp"

namespace cutune::detail {

namespace fs = std::filesystem;

// Long enough for a checkpoint or a concurrent writer on another GPU's worker, short enough to report a stuck lock.
constexpr int kBusyTimeoutMs = 10'000;
// A transaction still locked out after the busy timeout is tried again this many times in all.
constexpr int kWriteAttempts = 4;

std::string quoted(const fs::path& path);
DatabaseError sqlite_error(const fs::path& path, std::string_view action, const SQLite::Exception& e);

inline bool is_busy(const SQLite::Exception& e) {
  const int code = e.getErrorCode() & 0xff;
  return code == SQLITE_BUSY || code == SQLITE_LOCKED;
}

// Runs one database operation, turning SQLite's exceptions into cutune's with the file named.
template <typename Body>
auto guarded(const fs::path& path, std::string_view action, Body&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const SQLite::Exception& e) {
    throw sqlite_error(path, action, e);
  }
}

// Runs `body`, again after a pause while SQLite reports the database locked. The busy timeout covers most waits;
// some lock conflicts (a WAL being recovered or switched on, a checkpoint racing a begin) come back as SQLITE_BUSY
// at once. `body` must only touch the database: it may run more than once.
template <typename Body>
auto retry_busy(Body&& body) -> decltype(body()) {
  for (int attempt = 1;; ++attempt) {
    try {
      return body();
    } catch (const SQLite::Exception& e) {
      if (!is_busy(e) || attempt == kWriteAttempts) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(20 * attempt));
    }
  }
}

// Runs `body` in a BEGIN IMMEDIATE transaction and commits, the whole transaction retried while locked.
template <typename Body>
auto write_transaction(SQLite::Database& db, Body&& body) -> decltype(body()) {
  return retry_busy([&] {
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      transaction.commit();
    } else {
      auto value = body();
      transaction.commit();
      return value;
    }
  });
}

SQLite::Database& connection(const std::unique_ptr<SQLite::Database>& db, const fs::path& path);

// Opening (open.cpp).
/// Opens or creates a cutune database at the current schema version, migrating an older one in place.
std::unique_ptr<SQLite::Database> open_store(const fs::path& path);
/// Opens a cutune database only to read it: an older schema version is migrated in a copy in memory, the file is
/// never written. Refuses unknown schema versions, naming `purpose` ("merge", ...).
std::unique_ptr<SQLite::Database> open_source(const fs::path& path, std::string_view purpose);

// Schema (schema.cpp).
/// Creates the tables, indexes and meta rows of the current schema version in an empty database.
void create_schema(SQLite::Database& db);
/// The schema version of an open file, after refusing foreign files and invalid versions; writes nothing.
int schema_version(SQLite::Database& db, const fs::path& path);
/// Refuses a file of a newer schema version than this cutune reads; `verb` starts the message ("cannot merge ").
void refuse_newer(int schema, const fs::path& path, std::string_view verb);
/// Migrates a file of schema version `from` to the current one, in one transaction.
void migrate(SQLite::Database& db, const fs::path& path, int from);
/// Makes the latest measurement of every (device, kernel version, shape, configuration) the current one.
void refresh_current(SQLite::Database& db);
/// The columns of result_fields.hpp's table that the file's results table lacks (figures added since it was made).
std::vector<std::string> missing_result_columns(SQLite::Database& db);
/// Adds them (NULL, an unknown figure, in the rows there are; 0 for integers). Refuses a read-only file, naming them.
void add_result_columns(SQLite::Database& db, const fs::path& path);
/// Updates whether one (device, kernel version, L2 convention, shape) has a current Ok result (the `tuned` table).
void refresh_tuned(SQLite::Database& db, std::int64_t device_id, std::int64_t kernel_id, L2Flush flush,
                   const std::string& shape);

// Untrusted rows (row_checks.cpp).
/// Refuses a run that cannot be stored as it is (InputError naming `source`, the run, the row and the value): texts
/// too long or of the wrong form (a configuration must be NAME=VALUE,... of plain tokens), times that are not
/// finite or negative, and for a kernel version built into this cutune, a configuration that is not one of its
/// valid configurations at the row's shape.
void check_record(const RunRecord& run, std::string_view source);

// Provenance (provenance.cpp).
std::string utc_now();
std::string host_name();
/// 32 random hex digits: a run's uid.
std::string random_uid();

// Rows (rows.cpp).
/// NULL reads back as NaN: SQLite stores NaN as NULL.
double real(const SQLite::Column& column);
std::string samples_to_json(const std::vector<double>& samples);
std::vector<double> samples_from_json(const std::string& text, const fs::path& path);

/// The results whose time may count (usable() in result.hpp): verified ones, and those measured without verification.
/// Where both exist for a key, verified ones come first (kUsableOrder).
constexpr const char* kUsableStatus = "status IN ('ok', 'unverified')";
constexpr const char* kUsableOrder = "CASE status WHEN 'ok' THEN 0 WHEN 'unverified' THEN 1 ELSE 2 END";

// Every query that reads a Result selects these columns first, in this order (see read_result): config, status,
// message, samples, then the columns of result_fields.hpp's table.
const std::string& result_columns();
/// How many columns result_columns() selects.
int result_column_count();

// The columns a measurement writes (the key, its time of measuring and the result's columns), their parameters
// (bind_result binds each under its column's name) and the assignments that overwrite a stored measurement with them.
const std::string& measurement_columns();
const std::string& measurement_values();
const std::string& measurement_updates();
Result read_result(const SQLite::Statement& row, const fs::path& path);

/// The statement that adds a measurement of run :run (device :device, kernel :kernel) with the run's L2
/// convention, followed by `on_conflict` ("ON CONFLICT(run_id, shape, config) DO ..."); bind_result binds the rest.
std::string insert_measurement_sql(std::string_view on_conflict);
/// A stored convention ('read', 'write', 'none'); DatabaseError naming the file for anything else.
L2Flush read_flush(const SQLite::Column& column, const fs::path& path);

// The device key and run provenance, read by read_device from its first column on.
constexpr const char* kDeviceColumns =
    "d.name, d.cc_major, d.cc_minor, d.sm_count, ru.driver_version, ru.nvrtc_version, ru.device_uuid, "
    "ru.memory_clock_khz, ru.memory_bus_bits, ru.total_memory, ru.library_version";
constexpr int kDeviceColumnCount = 11;
DeviceIdentity read_device(const SQLite::Statement& row, int first);

constexpr const char* kDeviceKeyMatch =
    "d.name = :device AND d.cc_major = :cc_major AND d.cc_minor = :cc_minor AND d.sm_count = :sm_count";
void bind_device_key(SQLite::Statement& statement, const DeviceIdentity& device);

/// Checks of untrusted texts (row_checks.cpp): a value as an error message may show it (short, control characters
/// escaped); whether it holds control characters; whether it reads as a shape ("8192x4096").
std::string shown(std::string_view text);
bool has_control(std::string_view text, bool allow_newlines);
bool is_shape_text(std::string_view s);

/// The row id of a device key (normalised name); adds the row first when `add` is set.
std::optional<std::int64_t> device_id(SQLite::Database& db, const DeviceIdentity& device, bool add);
std::optional<std::int64_t> kernel_id(SQLite::Database& db, const KernelIdentity& kernel, bool add);

/// Every run of a connection at the current schema, with its measurements (runs.cpp).
/// Binds a measurement's fields (measurement_values()) to a results statement.
void bind_result(SQLite::Statement& statement, const Measurement& m);

/// The statement that stores a run row; `ON CONFLICT(uid) DO NOTHING` makes re-adding a known run a no-op.
inline constexpr const char* kInsertRun =
    "INSERT INTO runs(uid, device_id, kernel_id, started_at, host, cutune_version, command, driver_version, "
    "nvrtc_version, device_uuid, memory_clock_khz, memory_bus_bits, total_memory, flush, wall_s, startup_s, "
    "compile_wait_s, measure_s, search_s, store_s, other_s, compile_cpu_s, library_version) "
    "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, :wall_s, :startup_s, :compile_wait_s, :measure_s, :search_s, "
    ":store_s, :other_s, :compile_cpu_s, :library_version) ON CONFLICT(uid) DO NOTHING";
/// The statement that stores where run :run's time went (bind_run_times binds the rest), unless it is known already.
inline constexpr const char* kSetRunTimes =
    "UPDATE runs SET wall_s = :wall_s, startup_s = :startup_s, compile_wait_s = :compile_wait_s, "
    "measure_s = :measure_s, search_s = :search_s, store_s = :store_s, other_s = :other_s, "
    "compile_cpu_s = :compile_cpu_s WHERE id = :run AND wall_s IS NULL";

/// Binds a run (its provenance, with the device's provenance fields, and its times) to a kInsertRun statement.
void bind_run(SQLite::Statement& insert, const RunRecord& run, std::int64_t device_id, std::int64_t kernel_id);
/// Binds where a run's time went (:wall_s ... :compile_cpu_s), NULL for none.
void bind_run_times(SQLite::Statement& statement, const std::optional<PhaseTimes>& times);

std::vector<RunRecord> read_runs(SQLite::Database& db, const fs::path& path);

}  // namespace cutune::detail
