// The store's schema and its versions: the tables, reading the version of a file, and migrating older files.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "cutune/spec.hpp"
#include "store.hpp"

namespace cutune {
namespace detail {
namespace {

constexpr std::string_view kApplication = "cutune";

// Version 2: runs carry a uid (their identity across machines) and results keep every measurement, one per
// (run, shape, configuration); `current` marks the latest of each (device, kernel version, shape, configuration).
// Version 3: results carry the configuration's resources (Result's last fields); the columns come last, as
// migrating a version-2 file appends them.
// Version 4: runs carry the L2 convention they were measured under (l2_flush.hpp), and so do their results (a copy
// of the run's, which the indexes need): `current` and `tuned` are per convention, as times of different
// conventions are never compared. Older rows were measured reading a buffer larger than L2: 'read'.
// Version 5: a result may be 'unverified' (measured under --verify none), which counts like 'ok' for the best
// configuration (after 'ok' ones): results_best and `tuned` include it. Older cutune versions would not read it.
// Version 6: results carry where their evaluation's time went besides compiling (verify_ms ... search_ms), and runs
// where their wall time went (wall_s ... compile_cpu_s, PhaseTimes); NULL where unknown, as in every older row.
// Version 7: results_best orders by status ('ok' before 'unverified', as the text sorts), so that a lookup reads one
// row instead of sorting every configuration of the shape; `wanted` lists the shapes lookups found no result for; a
// result may be 'interrupted' (its process was killed from outside: tried again, never the best).
constexpr const char* kTables = R"sql(
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
  uid TEXT NOT NULL UNIQUE,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  started_at TEXT NOT NULL, host TEXT NOT NULL, cutune_version TEXT NOT NULL, command TEXT NOT NULL,
  driver_version INTEGER NOT NULL, nvrtc_version INTEGER NOT NULL, device_uuid TEXT NOT NULL,
  memory_clock_khz INTEGER NOT NULL, memory_bus_bits INTEGER NOT NULL, total_memory INTEGER NOT NULL,
  flush TEXT NOT NULL DEFAULT 'read' CHECK(flush IN ('read', 'write', 'none')),
  wall_s REAL, startup_s REAL, compile_wait_s REAL, measure_s REAL, search_s REAL, store_s REAL, other_s REAL,
  compile_cpu_s REAL, library_version INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS results(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  shape TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL,
  samples TEXT NOT NULL,
  median_ms REAL, min_ms REAL, max_ms REAL, spread REAL, metric REAL, max_error REAL,
  registers INTEGER NOT NULL, compile_ms REAL, measured_at TEXT NOT NULL,
  current INTEGER NOT NULL DEFAULT 0,
  spill_bytes INTEGER NOT NULL DEFAULT 0, static_smem INTEGER NOT NULL DEFAULT 0,
  dynamic_smem INTEGER NOT NULL DEFAULT 0, threads_per_block INTEGER NOT NULL DEFAULT 0,
  blocks INTEGER NOT NULL DEFAULT 0, blocks_per_sm INTEGER NOT NULL DEFAULT 0, peak REAL DEFAULT 0,
  flush TEXT NOT NULL DEFAULT 'read' CHECK(flush IN ('read', 'write', 'none')),
  verify_ms REAL, benchmark_ms REAL, framework_ms REAL, search_ms REAL,
  UNIQUE(run_id, shape, config));
)sql";

// `tuned` lists the (device, kernel version, L2 convention, shape) keys with a current Ok result: the candidates of
// the fallback chain, kept apart so that a lookup reads a few rows instead of every configuration's.
constexpr const char* kIndexes = R"sql(
CREATE TABLE IF NOT EXISTS tuned(
  device_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL, flush TEXT NOT NULL, shape TEXT NOT NULL,
  PRIMARY KEY(kernel_id, device_id, flush, shape)) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS results_current ON results(device_id, kernel_id, flush, shape, config)
  WHERE current = 1;
CREATE INDEX IF NOT EXISTS results_best ON results(device_id, kernel_id, flush, shape, status, median_ms, config)
  WHERE current = 1 AND status IN ('ok', 'unverified');
CREATE INDEX IF NOT EXISTS results_recent ON results(device_id, measured_at);
)sql";

// `wanted`: the (kernel version, device, L2 convention, shape) keys a runtime lookup found no result of its own for,
// how often and when; `tune --wanted` tunes them (wanted.cpp).
constexpr const char* kWanted = R"sql(
CREATE TABLE IF NOT EXISTS wanted(
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  flush TEXT NOT NULL CHECK(flush IN ('read', 'write', 'none')),
  shape TEXT NOT NULL,
  count INTEGER NOT NULL, first_at TEXT NOT NULL, last_at TEXT NOT NULL,
  PRIMARY KEY(kernel_id, device_id, flush, shape)) WITHOUT ROWID;
)sql";

constexpr const char* kMeta = R"sql(
INSERT OR IGNORE INTO meta(key, value) VALUES('application', 'cutune');
INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', '8');
)sql";

// A version-1 run had no uid. Its fields make one, so that two copies of the same version-1 file migrate to
// the same uids and merging them still does not double anything.
std::string v1_run_uid(const SQLite::Statement& row) {
  std::string text;
  for (int i = 1; i < row.getColumnCount(); ++i) {
    text += row.getColumn(i).getString();
    text += '\x1f';
  }
  return "v1-" + hash_hex(text) + hash_hex(text + "\x1e");
}

// Runs of devices whose names differ only in white space are filed under one normalised device.
void normalize_devices(SQLite::Database& db) {
  struct Row {
    std::int64_t id;
    DeviceIdentity device;
  };
  std::vector<Row> rows;
  SQLite::Statement select(db, "SELECT id, name, cc_major, cc_minor, sm_count FROM devices ORDER BY id");
  while (select.executeStep()) {
    Row row{select.getColumn(0).getInt64(), {}};
    row.device.name = select.getColumn(1).getString();
    row.device.cc_major = select.getColumn(2).getInt();
    row.device.cc_minor = select.getColumn(3).getInt();
    row.device.sm_count = select.getColumn(4).getInt();
    rows.push_back(std::move(row));
  }
  for (const Row& row : rows) {
    const std::string name = normalized_device_name(row.device.name);
    if (name == row.device.name) continue;
    SQLite::Statement rename(db, "UPDATE devices SET name = ? WHERE id = ?");
    rename.bind(1, name);
    rename.bind(2, row.id);
    try {
      rename.exec();
    } catch (const SQLite::Exception& e) {
      if ((e.getErrorCode() & 0xff) != SQLITE_CONSTRAINT) throw;
      DeviceIdentity key = row.device;
      key.name = name;
      const std::int64_t target = *device_id(db, key, false);
      for (const char* table : {"runs", "results"}) {
        SQLite::Statement move(db, std::string("UPDATE ") + table + " SET device_id = ? WHERE device_id = ?");
        move.bind(1, target);
        move.bind(2, row.id);
        move.exec();
      }
      SQLite::Statement remove(db, "DELETE FROM devices WHERE id = ?");
      remove.bind(1, row.id);
      remove.exec();
    }
  }
}

// Version 1 kept one result per (device, kernel version, shape, configuration) and runs without a uid.
void migrate_from_v1(SQLite::Database& db) {
  db.exec(R"sql(
CREATE TABLE runs_v2(
  id INTEGER PRIMARY KEY,
  uid TEXT NOT NULL UNIQUE,
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  started_at TEXT NOT NULL, host TEXT NOT NULL, cutune_version TEXT NOT NULL, command TEXT NOT NULL,
  driver_version INTEGER NOT NULL, nvrtc_version INTEGER NOT NULL, device_uuid TEXT NOT NULL,
  memory_clock_khz INTEGER NOT NULL, memory_bus_bits INTEGER NOT NULL, total_memory INTEGER NOT NULL);
CREATE TABLE results_v2(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  device_id INTEGER NOT NULL REFERENCES devices(id),
  kernel_id INTEGER NOT NULL REFERENCES kernels(id),
  shape TEXT NOT NULL, config TEXT NOT NULL, status TEXT NOT NULL, message TEXT NOT NULL,
  samples TEXT NOT NULL,
  median_ms REAL, min_ms REAL, max_ms REAL, spread REAL, metric REAL, max_error REAL,
  registers INTEGER NOT NULL, compile_ms REAL, measured_at TEXT NOT NULL,
  current INTEGER NOT NULL DEFAULT 0,
  UNIQUE(run_id, shape, config));
)sql");
  constexpr const char* kRunFields =
      "ru.started_at, ru.host, ru.cutune_version, ru.command, d.name, d.cc_major, d.cc_minor, d.sm_count, k.name, "
      "k.hash, ru.driver_version, ru.nvrtc_version, ru.device_uuid";
  SQLite::Statement runs(db, std::string("SELECT ru.id, ") + kRunFields +
                                 " FROM runs ru JOIN devices d ON d.id = ru.device_id "
                                 "JOIN kernels k ON k.id = ru.kernel_id ORDER BY ru.id");
  SQLite::Statement copy(db,
      "INSERT INTO runs_v2 SELECT id, ?, device_id, kernel_id, started_at, host, cutune_version, command, "
      "driver_version, nvrtc_version, device_uuid, memory_clock_khz, memory_bus_bits, total_memory "
      "FROM runs WHERE id = ?");
  while (runs.executeStep()) {
    copy.bind(1, v1_run_uid(runs));
    copy.bind(2, runs.getColumn(0).getInt64());
    copy.exec();
    copy.reset();
  }
  db.exec(R"sql(
INSERT INTO results_v2 SELECT id, run_id, device_id, kernel_id, shape, config, status, message, samples, median_ms,
  min_ms, max_ms, spread, metric, max_error, registers, compile_ms, measured_at, 0 FROM results;
DROP TABLE results;
DROP TABLE runs;
ALTER TABLE runs_v2 RENAME TO runs;
ALTER TABLE results_v2 RENAME TO results;
)sql");
  normalize_devices(db);
}

// Version 2 had no resources: they read as unknown (0), as for results that failed before they were known.
void migrate_from_v2(SQLite::Database& db) {
  db.exec(R"sql(
ALTER TABLE results ADD COLUMN spill_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN static_smem INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN dynamic_smem INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN threads_per_block INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN blocks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN blocks_per_sm INTEGER NOT NULL DEFAULT 0;
ALTER TABLE results ADD COLUMN peak REAL DEFAULT 0;
)sql");
}

// Version 3 knew one convention, reading a buffer larger than L2 before each timed launch. The indexes and `tuned`
// gain the convention: kIndexes builds them again and refresh_current() fills them.
void migrate_from_v3(SQLite::Database& db) {
  db.exec(R"sql(
ALTER TABLE runs ADD COLUMN flush TEXT NOT NULL DEFAULT 'read' CHECK(flush IN ('read', 'write', 'none'));
ALTER TABLE results ADD COLUMN flush TEXT NOT NULL DEFAULT 'read' CHECK(flush IN ('read', 'write', 'none'));
DROP INDEX IF EXISTS results_current;
DROP INDEX IF EXISTS results_best;
DROP TABLE IF EXISTS tuned;
)sql");
}

// Version 4 knew only verified results: results_best is built again with 'unverified' rows (none yet).
void migrate_from_v4(SQLite::Database& db) { db.exec("DROP INDEX IF EXISTS results_best"); }

// Version 5 kept no time but compiling: every other figure of its rows reads as unknown (NULL).
void migrate_from_v5(SQLite::Database& db) {
  for (const char* column : {"wall_s", "startup_s", "compile_wait_s", "measure_s", "search_s", "store_s", "other_s",
                             "compile_cpu_s"}) {
    db.exec(std::string("ALTER TABLE runs ADD COLUMN ") + column + " REAL");
  }
  for (const char* column : {"verify_ms", "benchmark_ms", "framework_ms", "search_ms"}) {
    db.exec(std::string("ALTER TABLE results ADD COLUMN ") + column + " REAL");
  }
}

// Version 6's results_best did not order by status: kIndexes builds it again.
void migrate_from_v6(SQLite::Database& db) {
  db.exec("DROP INDEX IF EXISTS results_best");
  db.exec(kWanted);
}

// Version 7's runs did not say which vendor library a library family's run called.
void migrate_from_v7(SQLite::Database& db) {
  SQLite::Statement info(db, "PRAGMA table_info(runs)");
  while (info.executeStep()) {
    if (info.getColumn(1).getString() == "library_version") return;  // a file that only says it is older
  }
  db.exec("ALTER TABLE runs ADD COLUMN library_version INTEGER NOT NULL DEFAULT 0");
}

}  // namespace

void migrate(SQLite::Database& db, const fs::path& path, int from) {
  if (sqlite3_db_readonly(db.getHandle(), "main") == 1) {
    throw DatabaseError("database " + quoted(path) + " has schema version " + std::to_string(from) +
                        " and is read-only: open it once with write access to migrate it to version " +
                        std::to_string(Database::kSchemaVersion));
  }
  guarded(path, "migrating it to schema version " + std::to_string(Database::kSchemaVersion), [&] {
    // Foreign keys would forbid dropping the old tables; the pragma is a no-op inside a transaction.
    db.exec("PRAGMA foreign_keys = OFF");
    write_transaction(db, [&] {
      // Another process may have migrated the file while this one waited for the lock.
      const int version = schema_version(db, path);
      if (version >= Database::kSchemaVersion) return;
      if (version == 1) migrate_from_v1(db);
      if (version <= 2) migrate_from_v2(db);
      if (version <= 3) migrate_from_v3(db);
      if (version <= 4) migrate_from_v4(db);
      if (version <= 5) migrate_from_v5(db);
      if (version <= 6) migrate_from_v6(db);
      if (version <= 7) migrate_from_v7(db);
      db.exec(kIndexes);
      refresh_current(db);
      db.exec("UPDATE meta SET value = '" + std::to_string(Database::kSchemaVersion) +
              "' WHERE key = 'schema_version'");
    });
  });
}

std::vector<std::string> missing_result_columns(SQLite::Database& db) {
  std::set<std::string> have;
  SQLite::Statement info(db, "PRAGMA table_info(results)");
  while (info.executeStep()) have.insert(info.getColumn(1).getString());
  std::vector<std::string> missing;
  for (const ResultField& f : kResultFields) {
    if (!have.contains(std::string(f.column))) missing.emplace_back(f.column);
  }
  return missing;
}

void add_result_columns(SQLite::Database& db, const fs::path& path) {
  const std::vector<std::string> missing = missing_result_columns(db);
  if (missing.empty()) return;
  std::string names;
  for (const std::string& column : missing) names += (names.empty() ? "" : ", ") + column;
  if (sqlite3_db_readonly(db.getHandle(), "main") == 1) {
    throw DatabaseError("database " + quoted(path) + " lacks the result columns " + names +
                        " of this cutune and is read-only: open it once with write access to add them");
  }
  guarded(path, "adding the result columns " + names, [&] {
    write_transaction(db, [&] {
      // Another process may have added them while this one waited for the lock.
      const std::vector<std::string> still = missing_result_columns(db);
      for (const ResultField& f : kResultFields) {
        if (std::find(still.begin(), still.end(), f.column) == still.end()) continue;
        std::string sql = "ALTER TABLE results ADD COLUMN ";  // appended: GCC 12 warns falsely (-Wrestrict) on chains
        sql += f.column;
        sql += is_integer(f) ? " INTEGER NOT NULL DEFAULT 0" : " REAL";
        db.exec(sql);
      }
    });
  });
}

void create_schema(SQLite::Database& db) {
  db.exec(kTables);
  db.exec(kIndexes);
  db.exec(kWanted);
  db.exec(kMeta);
}

// Reads meta without writing anything, so that a foreign SQLite file is left exactly as it was; returns the
// schema version after refusing foreign files and invalid versions (a newer version is the caller's to judge).
int schema_version(SQLite::Database& db, const fs::path& path) {
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
    if (is_busy(e)) throw;  // the caller waits and tries again
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
  return schema;
}

void refuse_newer(int schema, const fs::path& path, std::string_view verb) {
  if (schema <= Database::kSchemaVersion) return;
  throw DatabaseError(std::string(verb) + "database " + quoted(path) + " has schema version " +
                      std::to_string(schema) + ", written by a newer cutune; this one reads up to version " +
                      std::to_string(Database::kSchemaVersion));
}

void refresh_current(SQLite::Database& db) {
  // Two steps: the partial unique index forbids two current rows of a key even for a moment.
  db.exec("UPDATE results SET current = 0 WHERE current = 1");
  db.exec(
      "UPDATE results SET current = 1 WHERE id IN (SELECT id FROM (SELECT r.id, row_number() OVER ("
      "PARTITION BY r.device_id, r.kernel_id, r.flush, r.shape, r.config ORDER BY r.measured_at DESC, u.uid DESC) "
      "AS n FROM results r JOIN runs u ON u.id = r.run_id) WHERE n = 1)");
  db.exec("DELETE FROM tuned");
  db.exec("INSERT INTO tuned SELECT DISTINCT device_id, kernel_id, flush, shape FROM results "
          "WHERE current = 1 AND " + std::string(kUsableStatus) + " AND median_ms IS NOT NULL");
}

void refresh_tuned(SQLite::Database& db, std::int64_t device_id, std::int64_t kernel_id, L2Flush flush,
                   const std::string& shape) {
  SQLite::Statement remove(db, "DELETE FROM tuned WHERE device_id = ? AND kernel_id = ? AND flush = ? AND shape = ?");
  SQLite::Statement add(db,
      "INSERT INTO tuned SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM results WHERE device_id = ?1 AND "
      "kernel_id = ?2 AND flush = ?3 AND shape = ?4 AND current = 1 AND " + std::string(kUsableStatus) +
      " AND median_ms IS NOT NULL)");
  for (SQLite::Statement* statement : {&remove, &add}) {
    statement->bind(1, device_id);
    statement->bind(2, kernel_id);
    statement->bind(3, std::string(to_string(flush)));
    statement->bind(4, shape);
    statement->exec();
  }
}

}  // namespace detail
}  // namespace cutune
