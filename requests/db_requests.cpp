// The database requests (`tune db merge|export|import`, cutune.db) and the wanted shapes `tune --wanted` tunes.
#include <filesystem>
#include <optional>
#include <fstream>
#include <set>
#include <sstream>

#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/exchange.hpp"
#include "cutune/foreign.hpp"
#include "cutune/lookup_keys.hpp"
#include "cutune/requests.hpp"

namespace cutune {
namespace {

// A shape of another rank (a spec file that changed its shape names, say) is not this kernel's to tune.
bool parses(const KernelSpec& spec, const std::string& shape) {
  try {
    spec.parse_shape(shape);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// The built-in operation named `name`, if there is one.
std::optional<OperationSpec> builtin_operation(const std::string& name) {
  for (const std::string& op : builtin_operations()) {
    if (op == name) return load_operation(name);
  }
  return std::nullopt;
}

}  // namespace

bool operation_tuned_at(Database& db, const OperationSpec& operation, const DeviceIdentity& device,
                        const std::string& shape, L2Flush flush) {
  for (const KernelSpec& spec : operation.implementations) {
    if (db.measured(device, {spec.name, spec.hash}, shape, flush).empty()) return false;
  }
  return true;
}

bool wanted_shape_tuned(Database& db, const WantedShape& w) {
  if (const std::optional<OperationSpec> operation = builtin_operation(w.kernel.name)) {
    return operation_tuned_at(db, *operation, w.device, w.shape, w.flush);
  }
  return db.best({w.kernel.name, w.kernel.hash, w.device, w.shape, w.flush}).has_value();
}

namespace {

// The wanted shapes of `name` on `device` under `flush` that parse for `spec` and `tuned` says are not tuned, each once.
template <typename Tuned>
std::vector<std::string> untuned_wanted(Database& db, const std::string& name, const KernelSpec& spec,
                                        const DeviceIdentity& device, L2Flush flush, const Tuned& tuned) {
  std::vector<std::string> shapes;
  std::set<std::string> seen;
  for (const auto& w : db.wanted()) {
    if (w.kernel.name != name || w.flush != flush || !same_device_key(w.device, device)) continue;
    if (!parses(spec, w.shape) || tuned(w) || !seen.insert(w.shape).second) continue;
    shapes.push_back(w.shape);
  }
  return shapes;
}

}  // namespace

Database open_existing(const std::string& path) {
  if (!std::filesystem::exists(path)) throw InputError("database '" + path + "' does not exist");
  return Database(path);
}

MergeSummary merge_command(const std::vector<std::string>& inputs, const std::string& output) {
  const bool existed = std::filesystem::exists(output);
  try {
    return merge_databases(std::vector<std::filesystem::path>(inputs.begin(), inputs.end()), output);
  } catch (...) {
    // A refused merge leaves no half-made output behind.
    if (!existed) {
      std::error_code ignored;
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(output + suffix, ignored);
    }
    throw;
  }
}

void export_command(const std::string& db, const std::string& format, const std::string& output, std::ostream& out,
                    const ExportSelection& selection) {
  Database database = open_existing(db);
  if (output.empty()) {
    export_runs(database, format, out, selection);
    return;
  }
  // Written to text first, so that a refused export (a selection of nothing, several groups for one cache) neither
  // creates nor truncates the file.
  std::ostringstream text;
  export_runs(database, format, text, selection);
  std::ofstream file(output, std::ios::binary | std::ios::trunc);
  if (!file) throw InputError("cannot write '" + output + "'");
  file << text.view();
  file.close();
  if (!file) throw InputError("writing '" + output + "' failed");
}

ImportSummary import_command(const std::string& file, const std::string& db, const std::string& format,
                             const ForeignContext& foreign) {
  if (!std::filesystem::exists(file)) throw InputError("'" + file + "' does not exist");
  Database database(db);
  return foreign.empty() ? import_file(database, file, format) : import_foreign_file(database, file, format, foreign);
}

std::vector<std::string> untuned_wanted_shapes(Database& db, const KernelSpec& spec, const DeviceIdentity& device,
                                               L2Flush flush) {
  // Asked for by any version of the kernel; tuned means a result of the version that tunes now.
  return untuned_wanted(db, spec.name, spec, device, flush, [&](const WantedShape& w) {
    WantedShape now = w;
    now.kernel.hash = spec.hash;
    return db.best({now.kernel.name, now.kernel.hash, now.device, now.shape, now.flush}).has_value();
  });
}

std::vector<std::string> untuned_wanted_shapes(Database& db, const OperationSpec& operation,
                                               const DeviceIdentity& device, L2Flush flush) {
  return untuned_wanted(db, operation.name, operation.implementations.front(), device, flush,
                        [&](const WantedShape& w) { return operation_tuned_at(db, operation, w.device, w.shape, w.flush); });
}

}  // namespace cutune
