// The wanted table (schema.cpp's kWanted) and its JSON file: shapes applications looked up and found no result of
// their own for. A file may come from elsewhere, so every entry is checked as untrusted input before anything is
// added.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <limits>

#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/lookup_keys.hpp"
#include "store.hpp"

namespace cutune {

bool same_key(const WantedShape& a, const WantedShape& b) {
  return a.kernel.name == b.kernel.name && a.kernel.hash == b.kernel.hash && same_device_key(a.device, b.device) &&
         a.flush == b.flush && a.shape == b.shape;
}

namespace {

constexpr std::size_t kMaxName = 256;

// Why `w` cannot be stored, or nullopt.
std::optional<std::string> invalid_wanted(const WantedShape& w) {
  for (const std::string* text : {&w.kernel.name, &w.kernel.hash, &w.device.name, &w.shape, &w.first_at, &w.last_at}) {
    if (text->empty() || text->size() > kMaxName || detail::has_control(*text, false)) {
      return "has an empty, overlong or unprintable text " + detail::shown(*text);
    }
  }
  if (!detail::is_shape_text(w.shape)) return "has the shape " + detail::shown(w.shape) + ", not like 8192x4096";
  if (w.count < 1) return "counts " + std::to_string(w.count) + " lookups";
  if (w.device.cc_major < 1 || w.device.cc_minor < 0 || w.device.sm_count < 1) return "has no valid device";
  if (w.last_at < w.first_at) return "was last looked up before it was first";
  return std::nullopt;
}

}  // namespace

void Database::add_wanted(const std::vector<WantedShape>& shapes, std::string_view source) {
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (auto why = invalid_wanted(shapes[i])) {
      throw InputError(std::string(source.empty() ? "wanted shapes" : source) + ": entry " + std::to_string(i + 1) +
                       " " + *why);
    }
  }
  auto& db = detail::connection(db_, path_);
  detail::guarded(path_, "recording wanted shapes", [&] {
    detail::write_transaction(db, [&] {
      SQLite::Statement upsert(db,
          "INSERT INTO wanted(kernel_id, device_id, flush, shape, count, first_at, last_at) "
          "VALUES(:kernel, :device, :flush, :shape, :count, :first, :last) "
          "ON CONFLICT(kernel_id, device_id, flush, shape) DO UPDATE SET count = min(count + excluded.count, "
          "9223372036854775807 - excluded.count), first_at = min(first_at, excluded.first_at), "
          "last_at = max(last_at, excluded.last_at)");
      for (const WantedShape& w : shapes) {
        upsert.bind(":kernel", *detail::kernel_id(db, w.kernel, true));
        upsert.bind(":device", *detail::device_id(db, w.device, true));
        upsert.bind(":flush", std::string(to_string(w.flush)));
        upsert.bind(":shape", w.shape);
        upsert.bind(":count", w.count);
        upsert.bind(":first", w.first_at);
        upsert.bind(":last", w.last_at);
        upsert.exec();
        upsert.reset();
      }
    });
  });
}

std::vector<WantedShape> Database::wanted() {
  auto& db = detail::connection(db_, path_);
  return detail::guarded(path_, "reading wanted shapes", [&] {
    SQLite::Statement rows(db,
        "SELECT k.name, k.hash, d.name, d.cc_major, d.cc_minor, d.sm_count, w.flush, w.shape, w.count, w.first_at, "
        "w.last_at FROM wanted w JOIN kernels k ON k.id = w.kernel_id JOIN devices d ON d.id = w.device_id "
        "ORDER BY k.name, d.name, w.flush, w.last_at DESC, w.shape");
    std::vector<WantedShape> out;
    while (rows.executeStep()) {
      WantedShape w;
      w.kernel = {rows.getColumn(0).getString(), rows.getColumn(1).getString()};
      w.device.name = rows.getColumn(2).getString();
      w.device.cc_major = rows.getColumn(3).getInt();
      w.device.cc_minor = rows.getColumn(4).getInt();
      w.device.sm_count = rows.getColumn(5).getInt();
      w.flush = detail::read_flush(rows.getColumn(6), path_);
      w.shape = rows.getColumn(7).getString();
      w.count = rows.getColumn(8).getInt64();
      w.first_at = rows.getColumn(9).getString();
      w.last_at = rows.getColumn(10).getString();
      out.push_back(std::move(w));
    }
    return out;
  });
}

void save_wanted(const std::vector<WantedShape>& shapes, const std::filesystem::path& path) {
  nlohmann::json doc = nlohmann::json::array();
  for (const WantedShape& w : shapes) {
    doc.push_back({{"kernel", w.kernel.name}, {"kernel_hash", w.kernel.hash},
                   {"device", {{"name", w.device.name}, {"cc_major", w.device.cc_major},
                               {"cc_minor", w.device.cc_minor}, {"sm_count", w.device.sm_count}}},
                   {"flush", to_string(w.flush)}, {"shape", w.shape}, {"count", w.count},
                   {"first_at", w.first_at}, {"last_at", w.last_at}});
  }
  std::ofstream out(path);
  out << doc.dump(1) << '\n';
  if (!out) throw InputError("cannot write wanted shapes to " + detail::quoted(path));
}

namespace {

WantedShape wanted_from_json(const nlohmann::json& j) {
  WantedShape w;
  w.kernel = {j.at("kernel").get<std::string>(), j.at("kernel_hash").get<std::string>()};
  const auto& d = j.at("device");
  w.device.name = d.at("name").get<std::string>();
  w.device.cc_major = d.at("cc_major").get<int>();
  w.device.cc_minor = d.at("cc_minor").get<int>();
  w.device.sm_count = d.at("sm_count").get<int>();
  const auto flush = parse_l2_flush(j.at("flush").get<std::string>());
  if (!flush) throw InputError("has the L2 convention " + j.at("flush").dump() + ", not one of read, write, none");
  w.flush = *flush;
  w.shape = j.at("shape").get<std::string>();
  w.count = j.at("count").get<std::int64_t>();
  w.first_at = j.at("first_at").get<std::string>();
  w.last_at = j.at("last_at").get<std::string>();
  return w;
}

}  // namespace

std::vector<WantedShape> load_wanted(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read wanted shapes from " + detail::quoted(path));
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(detail::quoted(path) + " is not JSON: " + e.what());
  }
  if (!doc.is_array()) throw InputError(detail::quoted(path) + " is not a list of wanted shapes");
  std::vector<WantedShape> out;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    const std::string where = detail::quoted(path) + ": entry " + std::to_string(i + 1) + " ";
    try {
      out.push_back(wanted_from_json(doc[i]));
    } catch (const nlohmann::json::exception& e) {
      throw InputError(where + "is malformed: " + e.what());
    } catch (const InputError& e) {
      throw InputError(where + e.what());
    }
    if (auto why = invalid_wanted(out.back())) throw InputError(where + *why);
  }
  return out;
}

}  // namespace cutune
