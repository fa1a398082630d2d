// The table of exchange formats, and export, import and merge on top of it.
#include "cutune/exchange.hpp"

#include <fstream>
#include <mutex>
#include <sstream>

#include "foreign_formats.hpp"
#include "formats.hpp"
#include "db/store.hpp"

namespace cutune {

std::string detail::read_head(std::istream& in, std::size_t bytes) {
  std::string head(bytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  in.clear();
  in.seekg(0);
  return head;
}
namespace detail {
namespace {

bool starts_json(std::string_view head) {
  const auto first = head.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && head[first] == '{' && head.find("\"cutune-runs\"") != std::string_view::npos;
}

// The built-in formats. A new file format adds its entry here (its reader and writer live in their own file).
std::vector<ExchangeFormat> builtin_formats() {
  return {
      {"json", "cutune's own format: every run and measurement with provenance; import reads it back",
       write_json, read_json, starts_json},
      {"csv", "one row per measurement, for spreadsheets (export only)", write_csv, nullptr, nullptr},
      t4_exchange_format(),
      kt_cache_exchange_format(),
  };
}

struct Registry {
  std::mutex mutex;
  std::vector<ExchangeFormat> added;
};

Registry& registry() {
  static Registry instance;
  return instance;
}

std::string names(const std::vector<ExchangeFormat>& formats, bool readable) {
  std::string out;
  for (const auto& f : formats) {
    if (readable && !f.read) continue;
    out += (out.empty() ? "" : ", ") + f.name;
  }
  return out;
}

}  // namespace
}  // namespace detail

std::vector<ExchangeFormat> exchange_formats() {
  std::vector<ExchangeFormat> formats = detail::builtin_formats();
  auto& r = detail::registry();
  const std::lock_guard lock(r.mutex);
  formats.insert(formats.end(), r.added.begin(), r.added.end());
  return formats;
}

void register_exchange_format(ExchangeFormat format) {
  auto& r = detail::registry();
  const std::lock_guard lock(r.mutex);
  for (auto& f : r.added) {
    if (f.name == format.name) {
      f = std::move(format);
      return;
    }
  }
  r.added.push_back(std::move(format));
}

ExchangeFormat exchange_format(std::string_view name) {
  const auto formats = exchange_formats();
  // A registered format of a built-in name replaces the built-in one: the last of that name wins.
  for (auto it = formats.rbegin(); it != formats.rend(); ++it) {
    if (it->name == name) return *it;
  }
  throw InputError("unknown format '" + std::string(name) + "' (known: " + detail::names(formats, false) + ")");
}

void export_runs(Database& db, std::string_view format, std::ostream& out, const ExportSelection& selection) {
  const ExchangeFormat f = exchange_format(format);
  if (!f.write) throw InputError("format '" + f.name + "' can only be imported");
  f.write(select_runs(db.runs(), selection), out);
  if (!out) throw InputError("writing the " + f.name + " export failed");
}

ImportSummary import_file(Database& db, const std::filesystem::path& file, std::string_view format) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("cannot read '" + file.string() + "'");
  std::optional<ExchangeFormat> chosen;
  if (!format.empty()) {
    chosen = exchange_format(format);
  } else {
    const std::string head = detail::read_head(in);
    for (const auto& f : exchange_formats()) {
      if (f.read && f.detect && f.detect(head)) chosen = f;
    }
    if (!chosen) {
      throw InputError("'" + file.string() + "' is in no format cutune can import (" +
                       detail::names(exchange_formats(), true) + "); name one with --format");
    }
  }
  if (!chosen->read) throw InputError("format '" + chosen->name + "' can only be exported");
  return db.add_runs(chosen->read(in, file.string()), file.string());
}

std::vector<RunRecord> read_database(const std::filesystem::path& path, std::string_view purpose) {
  auto db = detail::open_source(path, purpose);
  return detail::read_runs(*db, path);
}

MergeSummary merge_databases(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output) {
  if (inputs.empty()) throw InputError("merge needs at least one input database");
  MergeSummary summary;
  std::vector<RunRecord> runs;
  for (const auto& input : inputs) {
    auto more = read_database(input, "merge");
    for (const auto& run : more) detail::check_record(run, input.string());  // before anything is written
    runs.insert(runs.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    ++summary.inputs;
  }
  Database out(output);
  summary.added = out.add_runs(runs);
  return summary;
}

}  // namespace cutune
