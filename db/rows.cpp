// Reading and writing the store's rows: results, device keys with their run's provenance, kernel versions.
#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>

#include "store.hpp"

namespace cutune::detail {

double real(const SQLite::Column& column) {
  return column.isNull() ? std::numeric_limits<double>::quiet_NaN() : column.getDouble();
}

std::string samples_to_json(const std::vector<double>& samples) { return nlohmann::json(samples).dump(); }

namespace {

// The form samples_to_json writes ("[1.5,2,null]"), read without building a JSON tree: it is on the path of
// every lookup. Anything else is left to the JSON parser.
std::optional<std::vector<double>> read_samples_directly(std::string_view text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return std::nullopt;
  text = text.substr(1, text.size() - 2);
  std::vector<double> samples;
  while (!text.empty()) {
    if (text.starts_with("null")) {
      samples.push_back(std::numeric_limits<double>::quiet_NaN());
      text.remove_prefix(4);
    } else {
      double value = 0.0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || end == text.data()) return std::nullopt;
      samples.push_back(value);
      text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    }
    if (text.empty()) break;
    if (text.front() != ',' || text.size() == 1) return std::nullopt;
    text.remove_prefix(1);
  }
  return samples;
}

}  // namespace

std::vector<double> samples_from_json(const std::string& text, const fs::path& path) {
  if (auto direct = read_samples_directly(text)) return std::move(*direct);
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
  int index = 4;
  for (const ResultField& f : kResultFields) {
    const SQLite::Column column = row.getColumn(index++);
    set_field(r, f, is_integer(f) ? static_cast<double>(column.getInt64()) : real(column));
  }
  return r;
}

namespace {

// The table's columns joined: "prefix column suffix, ..." (or "column = :column, ..." for the assignments).
std::string joined(std::string_view fixed, std::string_view prefix, bool assign) {
  std::string out(fixed);
  for (const ResultField& f : kResultFields) {
    out += ", ";
    if (assign) {
      out += f.column;
      out += " = :";
      out += f.column;
    } else {
      out += prefix;
      out += f.column;
    }
  }
  return out;
}

}  // namespace

const std::string& result_columns() {
  static const std::string columns = joined("r.config, r.status, r.message, r.samples", "r.", false);
  return columns;
}

int result_column_count() { return 4 + static_cast<int>(std::size(kResultFields)); }

const std::string& measurement_columns() {
  static const std::string columns = joined("shape, config, status, message, samples, measured_at", "", false);
  return columns;
}

const std::string& measurement_values() {
  static const std::string values = joined(":shape, :config, :status, :message, :samples, :measured_at", ":", false);
  return values;
}

const std::string& measurement_updates() {
  static const std::string updates = joined(
      "status = :status, message = :message, samples = :samples, measured_at = :measured_at", "", true);
  return updates;
}

std::string insert_measurement_sql(std::string_view on_conflict) {
  std::string sql = "INSERT INTO results(run_id, device_id, kernel_id, flush, ";
  for (const std::string_view part : {std::string_view(measurement_columns()),
                                      std::string_view(") VALUES(:run, :device, :kernel, "
                                                       "(SELECT flush FROM runs WHERE id = :run), "),
                                      std::string_view(measurement_values()), std::string_view(") "), on_conflict}) {
    sql += part;
  }
  return sql;
}

L2Flush read_flush(const SQLite::Column& column, const fs::path& path) {
  const std::string text = column.getString();
  if (const auto flush = parse_l2_flush(text)) return *flush;
  throw DatabaseError("database " + quoted(path) + " holds an unknown L2 convention '" + text + "' (known: " +
                      std::string(kL2FlushNames) + ")");
}

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
  d.library_version = row.getColumn(first + 10).getInt();
  return d;
}

void bind_device_key(SQLite::Statement& statement, const DeviceIdentity& device) {
  statement.bind(":device", normalized_device_name(device.name));
  statement.bind(":cc_major", device.cc_major);
  statement.bind(":cc_minor", device.cc_minor);
  statement.bind(":sm_count", device.sm_count);
}

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

}  // namespace cutune::detail
