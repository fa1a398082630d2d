// The database requests (`tune db merge|export|import`, cutune.db) and the wanted shapes `tune --wanted` tunes.
#include <filesystem>
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

}  // namespace

bool wanted_shape_tuned(Database& db, const WantedShape& w) {
  return db.best({w.kernel.name, w.kernel.hash, w.device, w.shape, w.flush}).has_value();
}

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
  std::vector<std::string> shapes;
  std::set<std::string> seen;
  for (const auto& w : db.wanted()) {
    if (w.kernel.name != spec.name || w.flush != flush || !same_device_key(w.device, device)) continue;
    // Asked for by any version of the kernel; tuned means a result of the version that tunes now.
    WantedShape now = w;
    now.kernel.hash = spec.hash;
    if (!parses(spec, w.shape) || wanted_shape_tuned(db, now) || !seen.insert(w.shape).second) continue;
    shapes.push_back(w.shape);
  }
  return shapes;
}

}  // namespace cutune
