// The SQLite store: schema, opening checks, and the queries behind Database (DESIGN.md, decision 7).
#include "cutune/database.hpp"

#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>
#include <system_error>
#include <utility>
#include <optional>

#include "cutune/error.hpp"

#ifndef CUTUNE_VERSION
#define CUTUNE_VERSION "unknown"
#endif

namespace cutune {
namespace detail {

namespace fs = std::filesystem;

// Long enough for a checkpoint or a concurrent writer on another GPU's worker, short enough to report a stuck lock.
constexpr int kBusyTimeoutMs = 10'000;
constexpr std::string_view kApplication = "cutune";

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS devices(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL, cc_major INTEGER NOT NULL, cc_minor INTEGER NOT NULL, sm_count INTEGER NOT NULL,
  UNIQUE(name, cc_major, cc_minor, sm_count));
CREATE TABLE IF NOT EXISTS kernels(
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL, hash TEXT NOT NULL,
  UNIQUE(name, hash));
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  started_at TEXT NOT NULL, host TEXT NOT NULL, cutune_version TEXT NOT NULL, command TEXT NOT NULL,
  driver_version INTEGER NOT NULL, nvrtc_version INTEGER NOT NULL, device_uuid TEXT NOT NULL,
  memory_clock_khz INTEGER NOT NULL, memory_bus_bits INTEGER NOT NULL, total_memory INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS results(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  shape TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL,
  samples TEXT NOT NULL,
  median_ms REAL, min_ms REAL, max_ms REAL, spread REAL, metric REAL, max_error REAL,
  registers INTEGER NOT NULL, compile_ms REAL, measured_at TEXT NOT NULL,
  UNIQUE(device_id, kernel_id, shape, config));
CREATE INDEX IF NOT EXISTS results_best ON results(device_id, kernel_id, shape, status, median_ms);
CREATE INDEX IF NOT EXISTS results_recent ON results(device_id, measured_at);
INSERT OR IGNORE INTO meta(key, value) VALUES('application', 'cutune');
INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '1');
)sql";

// Every query that reads a Result selects these columns first, in this order (see read_result).
constexpr const char* kResultColumns =
    "r.config, r.status, r.message, r.samples, r.median_ms, r.min_ms, r.max_ms, r.spread, r.metric, "
    "r.max_error, r.registers, r.compile_ms";
constexpr int kResultColumnCount = 12;

std::string quoted(const fs::path& path) {
  // Appending rather than "'" + s + "'" sidesteps GCC 12's false -Wrestrict on that expression.
  std::string text(1, '\'');
  text += path.string();
  text += '\'';
  return text;
}

DatabaseError sqlite_error(const fs::path& path, std::string_view action, const SQLite::Exception& e) {
  switch (e.getErrorCode() & 0xff) {
    case SQLITE_CORRUPT:
      return DatabaseError("database " + quoted(path) + " is corrupt or truncated (" + e.what() + ")");
    case SQLITE_NOTADB:
      return DatabaseError(quoted(path) + " is not a cutune database (not SQLite)");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return DatabaseError("database " + quoted(path) + " stayed locked by another process while " +
                           std::string(action));
    default:
      return DatabaseError("database " + quoted(path) + ": " + std::string(action) + " failed: " + e.what());
  }
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

SQLite::Database& connection(const std::unique_ptr<SQLite::Database>& db, const fs::path& path) {
  if (!db) throw DatabaseError("database " + quoted(path) + " was used after being moved from");
  return *db;
}

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

// Looks at the file header before SQLite does: a foreign non-SQLite file is refused untouched, and a
// truncated database is caught here because SQLite only notices missing pages when a query reaches them.
void check_header(const fs::path& path, std::uintmax_t size) {
  std::array<unsigned char, 100> header{};
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DatabaseError("cannot open database " + quoted(path) + ": " + std::strerror(errno));
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  constexpr std::string_view kMagic{"SQLite format 3\0", 16};
  if (in.gcount() != static_cast<std::streamsize>(header.size()) ||
      std::string_view(reinterpret_cast<const char*>(header.data()), kMagic.size()) != kMagic) {
    throw DatabaseError(quoted(path) + " is not a cutune database (not SQLite)");
  }
  std::uintmax_t page_size = (std::uintmax_t{header[16]} << 8) | header[17];
  if (page_size == 1) page_size = 65536;
  const std::uint32_t pages = big_endian(&header[28]);
  // SQLite trusts the in-header page count only when the change counter matches "version valid for".
  const bool count_valid = pages != 0 && big_endian(&header[24]) == big_endian(&header[92]);
  // With a non-empty write-ahead log, the main file may legitimately lag behind the header's count.
  std::error_code ec;
  fs::path wal = path;
  wal += "-wal";
  const bool has_wal = fs::exists(wal, ec) && fs::file_size(wal, ec) > 0;
  if (page_size < 512 || (page_size & (page_size - 1)) != 0) {
    throw DatabaseError("database " + quoted(path) + " is corrupt (invalid page size)");
  }
  if (!has_wal && (size % page_size != 0 || (count_valid && size < page_size * pages))) {
    throw DatabaseError("database " + quoted(path) + " is corrupt or truncated (" + std::to_string(size) +
                        " bytes, its header describes " + std::to_string(page_size * pages) + ")");
  }
}

// Returns whether the file is new (missing or empty), after refusing what cannot become a cutune database.
bool inspect_file(const fs::path& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::exists(status)) {
    if (fs::is_directory(status)) throw DatabaseError("cannot open database " + quoted(path) + ": it is a directory");
    const auto size = fs::file_size(path, ec);
    if (ec) throw DatabaseError("cannot open database " + quoted(path) + ": " + ec.message());
    if (size == 0) return true;
    check_header(path, size);
    return false;
  }
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) {
    throw DatabaseError("cannot create database " + quoted(path) + ": directory " + quoted(parent) +
                        " does not exist");
  }
  if (::access(parent.c_str(), W_OK) != 0) {
    throw DatabaseError("cannot create database " + quoted(path) + ": " + std::strerror(errno));
  }
  return true;
}

std::unique_ptr<SQLite::Database> open_connection(const fs::path& path, bool fresh) {
  const int flags = SQLite::OPEN_READWRITE | (fresh ? SQLite::OPEN_CREATE : 0);
  try {
    return std::make_unique<SQLite::Database>(path.string(), flags, kBusyTimeoutMs);
  } catch (const SQLite::Exception& e) {
    const std::string verb = fresh ? "cannot create database " : "cannot open database ";
    throw DatabaseError(verb + quoted(path) + ": " + e.what());
  }
}

// Reads meta without writing anything, so that a foreign SQLite file is left exactly as it was.
void check_identity(SQLite::Database& db, const fs::path& path) {
  std::string application;
  std::string version;
  try {
    SQLite::Statement has_meta(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'");
    has_meta.executeStep();
    if (has_meta.getColumn(0).getInt() == 1) {
      SQLite::Statement query(db, "SELECT key, value FROM meta WHERE key IN ('application', 'schema_version')");
      while (query.executeStep()) {
        const std::string key = query.getColumn(0).getString();
        (key == "application" ? application : version) = query.getColumn(1).getString();
      }
    }
  } catch (const SQLite::Exception& e) {
    // A plain SQL error means a meta table of another shape: someone else's database, not a damaged one.
    if ((e.getErrorCode() & 0xff) != SQLITE_ERROR) throw sqlite_error(path, "reading its schema", e);
  }
  if (application != kApplication) throw DatabaseError(quoted(path) + " is not a cutune database");
  int schema = 0;
  try {
    std::size_t used = 0;
    schema = std::stoi(version, &used);
    if (used != version.size()) schema = 0;
  } catch (const std::exception&) {
    schema = 0;
  }
  if (schema < 1) {
    throw DatabaseError("database " + quoted(path) + " has an invalid schema version '" + version + "'");
  }
  if (schema > Database::kSchemaVersion) {
    throw DatabaseError("database " + quoted(path) + " has schema version " + std::to_string(schema) +
                        ", written by a newer cutune; this one reads up to version " +
                        std::to_string(Database::kSchemaVersion));
  }
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const auto seconds = std::chrono::time_point_cast<std::chrono::seconds>(now);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now - seconds).count();
  const std::time_t t = std::chrono::system_clock::to_time_t(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> date{};
  std::strftime(date.data(), date.size(), "%Y-%m-%dT%H:%M:%S", &tm);
  // Microseconds keep the text order equal to the time order for results committed in quick succession.
  std::array<char, 48> text{};
  std::snprintf(text.data(), text.size(), "%s.%06lldZ", date.data(), static_cast<long long>(micros));
  return text.data();
}

std::string host_name() {
  std::array<char, HOST_NAME_MAX + 1> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

// SQLite stores NaN as NULL; reading NULL back as NaN keeps a NaN error or metric from turning into 0.
double real(const SQLite::Column& column) {
  return column.isNull() ? std::numeric_limits<double>::quiet_NaN() : column.getDouble();
}

std::string samples_to_json(const std::vector<double>& samples) { return nlohmann::json(samples).dump(); }

std::vector<double> samples_from_json(const std::string& text, const fs::path& path) {
  std::vector<double> samples;
  try {
    const auto array = nlohmann::json::parse(text);
    if (!array.is_array()) throw DatabaseError("database " + quoted(path) + " holds malformed samples: " + text);
    for (const auto& value : array) {
      samples.push_back(value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>());
    }
  } catch (const nlohmann::json::exception& e) {
    throw DatabaseError("database " + quoted(path) + " holds malformed samples: " + e.what());
  }
  return samples;
}

Result read_result(const SQLite::Statement& row, const fs::path& path) {
  Result r;
  r.config = row.getColumn(0).getString();
  r.status = status_from_string(row.getColumn(1).getString());
  r.message = row.getColumn(2).getString();
  r.samples_ms = samples_from_json(row.getColumn(3).getString(), path);
  r.median_ms = real(row.getColumn(4));
  r.min_ms = real(row.getColumn(5));
  r.max_ms = real(row.getColumn(6));
  r.spread = real(row.getColumn(7));
  r.metric = real(row.getColumn(8));
  r.max_error = real(row.getColumn(9));
  r.registers = row.getColumn(10).getInt();
  r.compile_ms = real(row.getColumn(11));
  return r;
}

// Reads the device key and run provenance starting at column `first`:
// name, cc_major, cc_minor, sm_count, driver, nvrtc, uuid, memory clock, bus width, total memory.
DeviceIdentity read_device(const SQLite::Statement& row, int first) {
  DeviceIdentity d;
  d.name = row.getColumn(first).getString();
  d.cc_major = row.getColumn(first + 1).getInt();
  d.cc_minor = row.getColumn(first + 2).getInt();
  d.sm_count = row.getColumn(first + 3).getInt();
  d.driver_version = row.getColumn(first + 4).getInt();
  d.nvrtc_version = row.getColumn(first + 5).getInt();
  d.uuid = row.getColumn(first + 6).getString();
  d.memory_clock_khz = row.getColumn(first + 7).getInt();
  d.memory_bus_bits = row.getColumn(first + 8).getInt();
  d.total_memory = row.getColumn(first + 9).getInt64();
  return d;
}

constexpr const char* kDeviceColumns =
    "d.name, d.cc_major, d.cc_minor, d.sm_count, ru.driver_version, ru.nvrtc_version, ru.device_uuid, "
    "ru.memory_clock_khz, ru.memory_bus_bits, ru.total_memory";

void bind_device_key(SQLite::Statement& statement, const DeviceIdentity& device) {
  statement.bind(":device", device.name);
  statement.bind(":cc_major", device.cc_major);
  statement.bind(":cc_minor", device.cc_minor);
  statement.bind(":sm_count", device.sm_count);
}

constexpr const char* kDeviceKeyMatch =
    "d.name = :device AND d.cc_major = :cc_major AND d.cc_minor = :cc_minor AND d.sm_count = :sm_count";

// Selects the row id of a device key; adds the row first when `add` is set.
std::optional<std::int64_t> device_id(SQLite::Database& db, const DeviceIdentity& device, bool add) {
  if (add) {
    SQLite::Statement insert(db,
        "INSERT INTO devices(name, cc_major, cc_minor, sm_count) VALUES(:device, :cc_major, :cc_minor, :sm_count) "
        "ON CONFLICT(name, cc_major, cc_minor, sm_count) DO NOTHING");
    bind_device_key(insert, device);
    insert.exec();
  }
  SQLite::Statement find(db, "SELECT d.id FROM devices d WHERE " + std::string(kDeviceKeyMatch));
  bind_device_key(find, device);
  if (!find.executeStep()) return std::nullopt;
  return find.getColumn(0).getInt64();
}

std::optional<std::int64_t> kernel_id(SQLite::Database& db, const KernelIdentity& kernel, bool add) {
  if (add) {
    SQLite::Statement insert(db, "INSERT INTO kernels(name, hash) VALUES(?, ?) ON CONFLICT(name, hash) DO NOTHING");
    insert.bind(1, kernel.name);
    insert.bind(2, kernel.hash);
    insert.exec();
  }
  SQLite::Statement find(db, "SELECT id FROM kernels WHERE name = ? AND hash = ?");
  find.bind(1, kernel.name);
  find.bind(2, kernel.hash);
  if (!find.executeStep()) return std::nullopt;
  return find.getColumn(0).getInt64();
}

}  // namespace detail

Database::Database(const std::filesystem::path& path) : path_(path) {
  const bool in_memory = path.native() == ":memory:";
  const bool fresh = in_memory || detail::inspect_file(path);
  db_ = detail::open_connection(path, fresh);
  if (fresh) {
    try {
      SQLite::Transaction transaction(*db_, SQLite::TransactionBehavior::IMMEDIATE);
      db_->exec(detail::kSchema);
      transaction.commit();
    } catch (const SQLite::Exception& e) {
      throw DatabaseError("cannot create database " + detail::quoted(path) + ": " + e.what());
    }
  }
  detail::check_identity(*db_, path);
  detail::guarded(path_, "opening", [&] {
    // A read-only copy (an installed database) still answers queries; only writes will be refused.
    if (!in_memory && sqlite3_db_readonly(db_->getHandle(), "main") == 0) {
      db_->execAndGet("PRAGMA journal_mode = WAL");
    }
    db_->exec("PRAGMA foreign_keys = ON");
  });
}

Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;

std::int64_t Database::begin_run(const DeviceIdentity& device, const KernelIdentity& kernel,
                                 const std::string& command) {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "starting a run", [&] {
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t device_id = *detail::device_id(db, device, true);
    const std::int64_t kernel_id = *detail::kernel_id(db, kernel, true);
    SQLite::Statement insert(db,
        "INSERT INTO runs(device_id, kernel_id, started_at, host, cutune_version, command, driver_version, "
        "nvrtc_version, device_uuid, memory_clock_khz, memory_bus_bits, total_memory) "
        "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, device_id);
    insert.bind(2, kernel_id);
    insert.bind(3, detail::utc_now());
    insert.bind(4, detail::host_name());
    insert.bind(5, CUTUNE_VERSION);
    insert.bind(6, command);
    insert.bind(7, device.driver_version);
    insert.bind(8, device.nvrtc_version);
    insert.bind(9, device.uuid);
    insert.bind(10, device.memory_clock_khz);
    insert.bind(11, device.memory_bus_bits);
    insert.bind(12, device.total_memory);
    insert.exec();
    const std::int64_t run_id = db.getLastInsertRowid();
    transaction.commit();
    return run_id;
  });
}

void Database::record(std::int64_t run_id, const std::string& shape, const Result& result) {
  auto& db = detail::connection(db_, path_);
  const int changed = detail::guarded(path_, "recording a result", [&] {
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    // The key comes from the run, so a result cannot be filed under another device or kernel version.
    SQLite::Statement upsert(db,
        "INSERT INTO results(run_id, device_id, kernel_id, shape, config, status, message, samples, median_ms, "
        "min_ms, max_ms, spread, metric, max_error, registers, compile_ms, measured_at) "
        "SELECT id, device_id, kernel_id, :shape, :config, :status, :message, :samples, :median, :min, :max, "
        ":spread, :metric, :max_error, :registers, :compile, :measured_at FROM runs WHERE id = :run "
        "ON CONFLICT(device_id, kernel_id, shape, config) DO UPDATE SET run_id = excluded.run_id, "
        "status = excluded.status, message = excluded.message, samples = excluded.samples, "
        "median_ms = excluded.median_ms, min_ms = excluded.min_ms, max_ms = excluded.max_ms, "
        "spread = excluded.spread, metric = excluded.metric, max_error = excluded.max_error, "
        "registers = excluded.registers, compile_ms = excluded.compile_ms, measured_at = excluded.measured_at");
    upsert.bind(":run", run_id);
    upsert.bind(":shape", shape);
    upsert.bind(":config", result.config);
    upsert.bind(":status", std::string(to_string(result.status)));
    upsert.bind(":message", result.message);
    upsert.bind(":samples", detail::samples_to_json(result.samples_ms));
    upsert.bind(":median", result.median_ms);
    upsert.bind(":min", result.min_ms);
    upsert.bind(":max", result.max_ms);
    upsert.bind(":spread", result.spread);
    upsert.bind(":metric", result.metric);
    upsert.bind(":max_error", result.max_error);
    upsert.bind(":registers", result.registers);
    upsert.bind(":compile", result.compile_ms);
    upsert.bind(":measured_at", detail::utc_now());
    const int rows = upsert.exec();
    transaction.commit();
    return rows;
  });
  if (changed == 0) {
    throw DatabaseError("database " + detail::quoted(path_) + " has no run " + std::to_string(run_id));
  }
}

std::set<std::string> Database::measured(const DeviceIdentity& device, const KernelIdentity& kernel,
                                         const std::string& shape) {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "reading measured configurations", [&] {
    SQLite::Statement query(db,
        "SELECT r.config FROM results r JOIN devices d ON d.id = r.device_id JOIN kernels k ON k.id = r.kernel_id "
        "WHERE " + std::string(detail::kDeviceKeyMatch) + " AND k.name = :kernel AND k.hash = :hash "
        "AND r.shape = :shape");
    detail::bind_device_key(query, device);
    query.bind(":kernel", kernel.name);
    query.bind(":hash", kernel.hash);
    query.bind(":shape", shape);
    std::set<std::string> configs;
    while (query.executeStep()) configs.insert(query.getColumn(0).getString());
    return configs;
  });
}

std::vector<Result> Database::results(const DeviceIdentity& device, const KernelIdentity& kernel,
                                      const std::string& shape) {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "reading results", [&] {
    SQLite::Statement query(db,
        "SELECT " + std::string(detail::kResultColumns) +
        " FROM results r JOIN devices d ON d.id = r.device_id JOIN kernels k ON k.id = r.kernel_id "
        "WHERE " + std::string(detail::kDeviceKeyMatch) + " AND k.name = :kernel AND k.hash = :hash "
        "AND r.shape = :shape "
        "ORDER BY r.status <> 'ok', CASE WHEN r.status = 'ok' THEN r.median_ms END, r.config");
    detail::bind_device_key(query, device);
    query.bind(":kernel", kernel.name);
    query.bind(":hash", kernel.hash);
    query.bind(":shape", shape);
    std::vector<Result> found;
    while (query.executeStep()) found.push_back(detail::read_result(query, path_));
    return found;
  });
}

std::optional<BestConfig> Database::best(const BestQuery& query) {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "looking up the best configuration", [&]() -> std::optional<BestConfig> {
    // Without a hash, the version measured last on this device (any shape) is the current one: results of
    // an older source must not win just because the newer one has not been tuned for this shape yet.
    const std::string version =
        query.kernel_hash.empty()
            ? "SELECT r.kernel_id FROM results r JOIN kernels k ON k.id = r.kernel_id "
              "WHERE r.device_id = (SELECT id FROM device) AND k.name = :kernel "
              "ORDER BY r.measured_at DESC, r.id DESC LIMIT 1"
            : "SELECT id FROM kernels WHERE name = :kernel AND hash = :hash";
    SQLite::Statement select(db,
        "WITH device AS (SELECT d.id FROM devices d WHERE " + std::string(detail::kDeviceKeyMatch) + "), "
        "version AS (" + version + ") "
        "SELECT " + std::string(detail::kResultColumns) + ", " + detail::kDeviceColumns + ", k.name, k.hash "
        "FROM results r JOIN devices d ON d.id = r.device_id JOIN kernels k ON k.id = r.kernel_id "
        "JOIN runs ru ON ru.id = r.run_id "
        "WHERE r.device_id = (SELECT id FROM device) AND r.kernel_id = (SELECT * FROM version) "
        "AND r.shape = :shape AND r.status = 'ok' ORDER BY r.median_ms, r.config LIMIT 1");
    detail::bind_device_key(select, query.device);
    select.bind(":kernel", query.kernel);
    if (!query.kernel_hash.empty()) select.bind(":hash", query.kernel_hash);
    select.bind(":shape", query.shape);
    if (!select.executeStep()) return std::nullopt;
    BestConfig best;
    best.result = detail::read_result(select, path_);
    best.device = detail::read_device(select, detail::kResultColumnCount);
    best.kernel.name = select.getColumn(detail::kResultColumnCount + 10).getString();
    best.kernel.hash = select.getColumn(detail::kResultColumnCount + 11).getString();
    best.shape = query.shape;
    return best;
  });
}

std::vector<TunedEntry> Database::entries() {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "listing tuned entries", [&] {
    // Provenance comes from the latest run that contributed to the entry.
    SQLite::Statement query(db,
        "SELECT " + std::string(detail::kDeviceColumns) + ", k.name, k.hash, g.shape, g.results, g.ok "
        "FROM (SELECT device_id, kernel_id, shape, COUNT(*) AS results, SUM(status = 'ok') AS ok, "
        "MAX(run_id) AS last_run FROM results GROUP BY device_id, kernel_id, shape) g "
        "JOIN devices d ON d.id = g.device_id JOIN kernels k ON k.id = g.kernel_id "
        "JOIN runs ru ON ru.id = g.last_run "
        "ORDER BY k.name, d.name, g.shape, k.hash, d.cc_major, d.cc_minor, d.sm_count");
    std::vector<TunedEntry> entries;
    while (query.executeStep()) {
      TunedEntry entry;
      entry.device = detail::read_device(query, 0);
      entry.kernel.name = query.getColumn(10).getString();
      entry.kernel.hash = query.getColumn(11).getString();
      entry.shape = query.getColumn(12).getString();
      entry.results = query.getColumn(13).getInt();
      entry.ok = query.getColumn(14).getInt();
      entries.push_back(std::move(entry));
    }
    return entries;
  });
}

}  // namespace cutune
