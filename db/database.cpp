// The Database facade: opening, runs and their results, and the per-key queries behind resume and `tune list`.
#include "cutune/database.hpp"

#include <utility>

#include "lookup.hpp"
#include "store.hpp"


namespace cutune {

Database::Database(const std::filesystem::path& path) : path_(path), db_(detail::open_store(path)) {
  statements_ = detail::guarded(path_, "preparing queries", [&] { return std::make_unique<Statements>(*db_); });
}

Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&& other) noexcept {
  statements_.reset();  // prepared statements are finalised before their connection closes
  path_ = std::move(other.path_);
  db_ = std::move(other.db_);
  statements_ = std::move(other.statements_);
  return *this;
}

std::int64_t Database::begin_run(const DeviceIdentity& device, const KernelIdentity& kernel,
                                 const std::string& command, L2Flush flush) {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "starting a run", [&] {
    return detail::write_transaction(db, [&] {
      const std::int64_t device_id = *detail::device_id(db, device, true);
      const std::int64_t kernel_id = *detail::kernel_id(db, kernel, true);
      RunRecord run;
      run.uid = detail::random_uid();
      run.device = device;
      run.kernel = kernel;
      run.started_at = detail::utc_now();
      run.host = detail::host_name();
      run.cutune_version = CUTUNE_VERSION;
      run.command = command;
      run.flush = flush;
      SQLite::Statement insert(db, detail::kInsertRun);
      detail::bind_run(insert, run, device_id, kernel_id);
      insert.exec();
      return db.getLastInsertRowid();
    });
  });
}

void Database::record(std::int64_t run_id, const std::string& shape, const Result& result) {
  auto& db = detail::connection(db_, path_);
  detail::guarded(path_, "recording a result", [&] {
    detail::write_transaction(db, [&] {
      // The key comes from the run, so a result cannot be filed under another device or kernel version.
      SQLite::Statement run(db, "SELECT device_id, kernel_id, flush FROM runs WHERE id = ?");
      run.bind(1, run_id);
      if (!run.executeStep()) {
        throw DatabaseError("database " + detail::quoted(path_) + " has no run " + std::to_string(run_id));
      }
      const std::int64_t device_id = run.getColumn(0).getInt64();
      const std::int64_t kernel_id = run.getColumn(1).getInt64();
      const L2Flush flush = detail::read_flush(run.getColumn(2), path_);
      SQLite::Statement upsert(db, detail::insert_measurement_sql(
                                       "ON CONFLICT(run_id, shape, config) DO UPDATE SET " +
                                       detail::measurement_updates()));
      upsert.bind(":run", run_id);
      upsert.bind(":device", device_id);
      upsert.bind(":kernel", kernel_id);
      detail::bind_result(upsert, Measurement{shape, result, detail::utc_now()});
      upsert.exec();
      // The latest measurement of the configuration under this convention becomes current. The current one was the
      // latest of the others, so only it and this run's can be: two index searches, however long the history (a
      // search of the whole history made each record slower than the last, 5 ms after 3,000 of one shape).
      constexpr const char* kKey =
          "device_id = :device AND kernel_id = :kernel AND flush = :flush AND shape = :shape AND config = :config";
      SQLite::Statement latest(db,
          "SELECT r.id FROM results r JOIN runs u ON u.id = r.run_id WHERE (r.current = 1 AND r.device_id = :device AND "
          "r.kernel_id = :kernel AND r.flush = :flush AND r.shape = :shape AND r.config = :config) OR "
          "(r.run_id = :run AND r.shape = :shape AND r.config = :config) ORDER BY r.measured_at DESC, u.uid DESC LIMIT 1");
      SQLite::Statement clear(db, std::string("UPDATE results SET current = 0 WHERE current = 1 AND ") + kKey);
      for (SQLite::Statement* statement : {&latest, &clear}) {
        statement->bind(":device", device_id);
        statement->bind(":kernel", kernel_id);
        statement->bind(":flush", std::string(to_string(flush)));
        statement->bind(":shape", shape);
        statement->bind(":config", result.config);
      }
      latest.bind(":run", run_id);
      latest.executeStep();  // this run's row exists: it was just written
      const std::int64_t current = latest.getColumn(0).getInt64();
      clear.exec();
      SQLite::Statement mark(db, "UPDATE results SET current = 1 WHERE id = ?");
      mark.bind(1, current);
      mark.exec();
      detail::refresh_tuned(db, device_id, kernel_id, flush, shape);
    });
  });
}

void Database::finish_run(std::int64_t run_id, const PhaseTimes& times) {
  auto& db = detail::connection(db_, path_);
  detail::guarded(path_, "storing a run's times", [&] {
    detail::write_transaction(db, [&] {
      SQLite::Statement update(db, detail::kSetRunTimes);
      update.bind(":run", run_id);
      detail::bind_run_times(update, times);
      if (update.exec() != 1) {
        throw DatabaseError("database " + detail::quoted(path_) + " has no run " + std::to_string(run_id) +
                            " without times");
      }
    });
  });
}

namespace {

// The current results of one key (device, kernel version, shape, convention): `columns` from them, in `order`.
SQLite::Statement key_query(SQLite::Database& db, const std::string& columns, std::string_view order,
                            const DeviceIdentity& device, const KernelIdentity& kernel, const std::string& shape,
                            L2Flush flush) {
  SQLite::Statement query(db,
      "SELECT " + columns + " FROM results r JOIN devices d ON d.id = r.device_id JOIN kernels k ON k.id = r.kernel_id "
      "WHERE " + std::string(detail::kDeviceKeyMatch) + " AND k.name = :kernel AND k.hash = :hash "
      "AND r.shape = :shape AND r.flush = :flush AND r.current = 1 " + std::string(order));
  detail::bind_device_key(query, device);
  query.bind(":kernel", kernel.name);
  query.bind(":hash", kernel.hash);
  query.bind(":shape", shape);
  query.bind(":flush", std::string(to_string(flush)));
  return query;
}

}  // namespace

std::set<std::string> Database::measured(const DeviceIdentity& device, const KernelIdentity& kernel,
                                         const std::string& shape, L2Flush flush) {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "reading measured configurations", [&] {
    SQLite::Statement query = key_query(db, "r.config", "", device, kernel, shape, flush);
    std::set<std::string> configs;
    while (query.executeStep()) configs.insert(query.getColumn(0).getString());
    return configs;
  });
}

std::vector<Result> Database::results(const DeviceIdentity& device, const KernelIdentity& kernel,
                                      const std::string& shape, L2Flush flush) {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "reading results", [&] {
    SQLite::Statement query =
        key_query(db, detail::result_columns(),
                  std::string("ORDER BY ") + detail::kUsableOrder + ", CASE WHEN r." + detail::kUsableStatus +
                      " THEN r.median_ms END, r.config",
                  device,
                  kernel, shape, flush);
    std::vector<Result> found;
    while (query.executeStep()) found.push_back(detail::read_result(query, path_));
    return found;
  });
}

std::vector<TunedResults> Database::top_results(const DeviceIdentity& device, const KernelIdentity& kernel,
                                               L2Flush flush, int per_shape) {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "reading the fastest results", [&] {
    // The tuned shapes (the `tuned` table), then each one's fastest rows by walking results_best: a few rows read per
    // shape, however many configurations each has.
    SQLite::Statement ids(db, "SELECT (SELECT d.id FROM devices d WHERE " + std::string(detail::kDeviceKeyMatch) +
                                  "), (SELECT id FROM kernels WHERE name = :kernel AND hash = :hash)");
    detail::bind_device_key(ids, device);
    ids.bind(":kernel", kernel.name);
    ids.bind(":hash", kernel.hash);
    if (!ids.executeStep() || ids.getColumn(0).isNull() || ids.getColumn(1).isNull()) {
      return std::vector<TunedResults>{};
    }
    const std::int64_t device_id = ids.getColumn(0).getInt64(), kernel_id = ids.getColumn(1).getInt64();
    const std::string convention(to_string(flush));
    SQLite::Statement shapes(db, "SELECT shape FROM tuned WHERE kernel_id = ? AND device_id = ? AND flush = ? "
                                 "ORDER BY shape");
    shapes.bind(1, kernel_id);
    shapes.bind(2, device_id);
    shapes.bind(3, convention);
    SQLite::Statement top(db,
        "SELECT " + detail::result_columns() + " FROM results r WHERE r.device_id = :device AND "
        "r.kernel_id = :kernel AND r.flush = :flush AND r.shape = :shape AND r.current = 1 AND r." +
        detail::kUsableStatus + " AND r.median_ms IS NOT NULL ORDER BY r.status, r.median_ms, r.config LIMIT :n");
    std::vector<TunedResults> out;
    while (shapes.executeStep()) {
      TunedResults t{shapes.getColumn(0).getString(), {}};
      top.bind(":device", device_id);
      top.bind(":kernel", kernel_id);
      top.bind(":flush", convention);
      top.bind(":shape", t.shape);
      top.bind(":n", per_shape);
      while (top.executeStep()) t.results.push_back(detail::read_result(top, path_));
      top.reset();
      if (!t.results.empty()) out.push_back(std::move(t));
    }
    return out;
  });
}

std::vector<TunedEntry> Database::entries() {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "listing tuned entries", [&] {
    // Provenance comes from the latest run that contributed to the entry.
    SQLite::Statement query(db,
        "SELECT " + std::string(detail::kDeviceColumns) + ", k.name, k.hash, g.shape, g.results, g.ok, g.flush "
        "FROM (SELECT device_id, kernel_id, flush, shape, COUNT(*) AS results, SUM(status = 'ok') AS ok, "
        "MAX(run_id) AS last_run FROM results WHERE current = 1 GROUP BY device_id, kernel_id, flush, shape) g "
        "JOIN devices d ON d.id = g.device_id JOIN kernels k ON k.id = g.kernel_id "
        "JOIN runs ru ON ru.id = g.last_run "
        "ORDER BY k.name, d.name, g.shape, k.hash, d.cc_major, d.cc_minor, d.sm_count, g.flush");
    std::vector<TunedEntry> entries;
    while (query.executeStep()) {
      TunedEntry entry;
      entry.device = detail::read_device(query, 0);
      const int c = detail::kDeviceColumnCount;
      entry.kernel.name = query.getColumn(c).getString();
      entry.kernel.hash = query.getColumn(c + 1).getString();
      entry.shape = query.getColumn(c + 2).getString();
      entry.results = query.getColumn(c + 3).getInt();
      entry.ok = query.getColumn(c + 4).getInt();
      entry.flush = detail::read_flush(query.getColumn(c + 5), path_);
      entries.push_back(std::move(entry));
    }
    return entries;
  });
}

}  // namespace cutune
