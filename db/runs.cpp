// Runs as whole records (for export, merge and import) and the counts behind `tune db stats`.
#include <map>
#include <utility>

#include "store.hpp"

namespace cutune {
namespace detail {

void bind_run(SQLite::Statement& insert, const RunRecord& run, std::int64_t device_id, std::int64_t kernel_id) {
  insert.bind(1, run.uid);
  insert.bind(2, device_id);
  insert.bind(3, kernel_id);
  insert.bind(4, run.started_at);
  insert.bind(5, run.host);
  insert.bind(6, run.cutune_version);
  insert.bind(7, run.command);
  insert.bind(8, run.device.driver_version);
  insert.bind(9, run.device.nvrtc_version);
  insert.bind(10, run.device.uuid);
  insert.bind(11, run.device.memory_clock_khz);
  insert.bind(12, run.device.memory_bus_bits);
  insert.bind(13, run.device.total_memory);
  insert.bind(14, std::string(to_string(run.flush)));
  insert.bind(":library_version", run.device.library_version);
  bind_run_times(insert, run.times);
}

void bind_run_times(SQLite::Statement& statement, const std::optional<PhaseTimes>& times) {
  for (const auto& [name, field] : kPhaseTimeFields) {
    std::string parameter(1, ':');  // appended: GCC 12 warns falsely (-Wrestrict) on ":" + std::string
    parameter += name;
    if (times) {
      statement.bind(parameter, (*times).*field);
    } else {
      statement.bind(parameter);  // NULL: unknown
    }
  }
}

namespace {

// ", ru.wall_s, ..." in kPhaseTimeFields' order.
std::string run_time_columns() {
  std::string out;
  for (const auto& [name, field] : kPhaseTimeFields) (out += ", ru.") += name;
  return out;
}

}  // namespace

std::vector<RunRecord> read_runs(SQLite::Database& db, const fs::path& path) {
  return guarded(path, "reading its runs", [&] {
    std::vector<RunRecord> runs;
    std::map<std::int64_t, std::size_t> index;
    SQLite::Statement select(db,
        "SELECT " + std::string(kDeviceColumns) + ", ru.id, ru.uid, k.name, k.hash, ru.started_at, ru.host, "
        "ru.cutune_version, ru.command, ru.flush" + run_time_columns() + " FROM runs ru "
        "JOIN devices d ON d.id = ru.device_id "
        "JOIN kernels k ON k.id = ru.kernel_id ORDER BY ru.started_at, ru.uid");
    while (select.executeStep()) {
      RunRecord run;
      run.device = read_device(select, 0);
      const int c = kDeviceColumnCount;
      index[select.getColumn(c).getInt64()] = runs.size();
      run.uid = select.getColumn(c + 1).getString();
      run.kernel.name = select.getColumn(c + 2).getString();
      run.kernel.hash = select.getColumn(c + 3).getString();
      run.started_at = select.getColumn(c + 4).getString();
      run.host = select.getColumn(c + 5).getString();
      run.cutune_version = select.getColumn(c + 6).getString();
      run.command = select.getColumn(c + 7).getString();
      run.flush = read_flush(select.getColumn(c + 8), path);
      if (!select.getColumn(c + 9).isNull()) {  // wall_s: NULL for a run without times
        PhaseTimes& t = run.times.emplace();
        int column = c + 9;
        for (const auto& [name, field] : kPhaseTimeFields) t.*field = real(select.getColumn(column++));
      }
      runs.push_back(std::move(run));
    }
    SQLite::Statement results(db,
        "SELECT " + result_columns() + ", r.run_id, r.shape, r.measured_at FROM results r "
        "ORDER BY r.run_id, r.measured_at, r.shape, r.config");
    while (results.executeStep()) {
      Measurement m;
      m.result = read_result(results, path);
      m.shape = results.getColumn(result_column_count() + 1).getString();
      m.measured_at = results.getColumn(result_column_count() + 2).getString();
      runs[index.at(results.getColumn(result_column_count()).getInt64())].measurements.push_back(std::move(m));
    }
    return runs;
  });
}


void bind_result(SQLite::Statement& statement, const Measurement& m) {
  const Result& r = m.result;
  statement.bind(":shape", m.shape);
  statement.bind(":config", r.config);
  statement.bind(":status", std::string(to_string(r.status)));
  statement.bind(":message", r.message);
  statement.bind(":samples", samples_to_json(r.samples_ms));
  statement.bind(":measured_at", m.measured_at);
  for (const ResultField& f : kResultFields) {
    std::string parameter(1, ':');  // appended: GCC 12 warns falsely (-Wrestrict) on ":" + std::string
    parameter += f.column;
    if (is_integer(f)) {
      statement.bind(parameter, integer_value(r, f));
    } else {
      statement.bind(parameter, field_value(r, f));
    }
  }
}

}  // namespace detail

std::vector<RunRecord> Database::runs() { return detail::read_runs(detail::connection(db_, path_), path_); }

ImportSummary Database::add_runs(const std::vector<RunRecord>& runs, std::string_view source) {
  for (const auto& run : runs) detail::check_record(run, source);
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "adding runs", [&] {
    return detail::write_transaction(db, [&] {
      ImportSummary summary;
      SQLite::Statement insert_run(db, detail::kInsertRun);
      SQLite::Statement find_run(db, "SELECT id, device_id, kernel_id, flush FROM runs WHERE uid = ?");
      // A copy of a run taken while it was under way has no times; the finished run's copy brings them.
      SQLite::Statement set_times(db, detail::kSetRunTimes);
      SQLite::Statement insert_result(db,
          detail::insert_measurement_sql("ON CONFLICT(run_id, shape, config) DO NOTHING"));
      // The same run's later copy of a measurement (it was re-recorded within the run) replaces an older one.
      SQLite::Statement update_result(db,
          "UPDATE results SET " + detail::measurement_updates() +
          " WHERE run_id = :run AND shape = :shape AND config = :config AND measured_at < :measured_at");
      for (const RunRecord& run : runs) {
        const std::int64_t device_id = *detail::device_id(db, run.device, true);
        const std::int64_t kernel_id = *detail::kernel_id(db, run.kernel, true);
        insert_run.reset();
        detail::bind_run(insert_run, run, device_id, kernel_id);
        ++summary.runs;
        std::int64_t run_id = 0;
        if (insert_run.exec() == 1) {
          ++summary.new_runs;
          run_id = db.getLastInsertRowid();
        } else {
          find_run.reset();
          find_run.bind(1, run.uid);
          find_run.executeStep();
          run_id = find_run.getColumn(0).getInt64();
          if (find_run.getColumn(1).getInt64() != device_id || find_run.getColumn(2).getInt64() != kernel_id ||
              find_run.getColumn(3).getString() != to_string(run.flush)) {
            throw DatabaseError("run '" + run.uid + "' is stored in " + detail::quoted(path_) +
                                " for another device, kernel version or L2 convention: the runs cannot be the same");
          }
          if (run.times) {
            set_times.reset();
            set_times.bind(":run", run_id);
            detail::bind_run_times(set_times, run.times);
            set_times.exec();
          }
        }
        for (const Measurement& m : run.measurements) {
          ++summary.measurements;
          insert_result.reset();
          insert_result.bind(":run", run_id);
          insert_result.bind(":device", device_id);
          insert_result.bind(":kernel", kernel_id);
          detail::bind_result(insert_result, m);
          if (insert_result.exec() == 1) {
            ++summary.new_measurements;
            continue;
          }
          update_result.reset();
          update_result.bind(":run", run_id);
          detail::bind_result(update_result, m);
          update_result.exec();
        }
      }
      detail::refresh_current(db);
      return summary;
    });
  });
}

DatabaseStats Database::stats() {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "counting", [&] {
    DatabaseStats s;
    SQLite::Statement totals(db,
        "SELECT (SELECT COUNT(*) FROM runs), (SELECT COUNT(DISTINCT host) FROM runs), COUNT(*), "
        "COALESCE(SUM(current), 0), COALESCE(SUM(current = 1 AND status = 'ok'), 0), "
        "COALESCE(SUM(current = 1 AND status = 'unverified'), 0) FROM results");
    totals.executeStep();
    s.runs = totals.getColumn(0).getInt64();
    s.hosts = totals.getColumn(1).getInt64();
    s.measurements = totals.getColumn(2).getInt64();
    s.configurations = totals.getColumn(3).getInt64();
    s.ok = totals.getColumn(4).getInt64();
    s.unverified = totals.getColumn(5).getInt64();
    SQLite::Statement devices(db,
        "SELECT d.name, d.cc_major, d.cc_minor, d.sm_count, COUNT(DISTINCT r.kernel_id), "
        "COUNT(DISTINCT r.shape), COUNT(*), SUM(r.status = 'ok'), SUM(r.status = 'unverified') FROM results r "
        "JOIN devices d ON d.id = r.device_id "
        "WHERE r.current = 1 GROUP BY d.id ORDER BY d.name, d.cc_major, d.cc_minor, d.sm_count");
    while (devices.executeStep()) {
      DatabaseStats::DeviceCount c;
      c.device.name = devices.getColumn(0).getString();
      c.device.cc_major = devices.getColumn(1).getInt();
      c.device.cc_minor = devices.getColumn(2).getInt();
      c.device.sm_count = devices.getColumn(3).getInt();
      c.kernels = devices.getColumn(4).getInt64();
      c.shapes = devices.getColumn(5).getInt64();
      c.configurations = devices.getColumn(6).getInt64();
      c.ok = devices.getColumn(7).getInt64();
      c.unverified = devices.getColumn(8).getInt64();
      s.devices.push_back(std::move(c));
    }
    SQLite::Statement kernels(db,
        "SELECT k.id, k.name, k.hash, COUNT(DISTINCT r.device_id), COUNT(*), SUM(r.status = 'ok'), "
        "MAX(r.measured_at), SUM(r.status = 'unverified') FROM results r JOIN kernels k ON k.id = r.kernel_id "
        "WHERE r.current = 1 "
        "GROUP BY k.id ORDER BY k.name, MAX(r.measured_at) DESC");
    SQLite::Statement shapes(db, "SELECT DISTINCT shape FROM results WHERE kernel_id = ? AND current = 1 "
                                 "ORDER BY length(shape), shape");
    while (kernels.executeStep()) {
      DatabaseStats::KernelCount c;
      c.kernel.name = kernels.getColumn(1).getString();
      c.kernel.hash = kernels.getColumn(2).getString();
      c.devices = kernels.getColumn(3).getInt64();
      c.configurations = kernels.getColumn(4).getInt64();
      c.ok = kernels.getColumn(5).getInt64();
      c.last_measured = kernels.getColumn(6).getString();
      c.unverified = kernels.getColumn(7).getInt64();
      shapes.reset();
      shapes.bind(1, kernels.getColumn(0).getInt64());
      while (shapes.executeStep()) c.shapes.push_back(shapes.getColumn(0).getString());
      s.kernels.push_back(std::move(c));
    }
    return s;
  });
}

}  // namespace cutune
