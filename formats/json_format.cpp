// The json exchange format: every run and measurement with its provenance, written and read back losslessly.
#include <algorithm>
#include <cmath>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cutune/error.hpp"
#include "cutune/result_fields.hpp"
#include "formats.hpp"


namespace cutune::detail {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kFormat = "cutune-runs";
// Raised when a field changes meaning or is removed; readers refuse documents newer than they know.
// Version 2: runs carry "flush", their L2 convention. A reader of version 1 would take every run for 'read', so a
// document is written as version 2 only when a run is of another convention; without "flush" a run is 'read'.
constexpr int kFormatVersion = 2;

// NaN has no JSON spelling: null stands for it, both ways.
Json number(double value) { return std::isnan(value) ? Json(nullptr) : Json(value); }

Json to_json(const Measurement& m) {
  const Result& r = m.result;
  Json samples = Json::array();
  for (const double s : r.samples_ms) samples.push_back(number(s));
  Json out{{"shape", m.shape},     {"config", r.config},     {"status", to_string(r.status)},
           {"message", r.message}, {"samples_ms", samples}, {"measured_at", m.measured_at}};
  for (const ResultField& f : kResultFields) {
    out[std::string(f.name)] = is_integer(f) ? Json(integer_value(r, f)) : number(field_value(r, f));
  }
  return out;
}

Json to_json(const RunRecord& run) {
  const DeviceIdentity& d = run.device;
  Json measurements = Json::array();
  for (const auto& m : run.measurements) measurements.push_back(to_json(m));
  Json times = nullptr;
  if (run.times) {
    times = Json::object();
    for (const auto& [name, field] : kPhaseTimeFields) times[std::string(name)] = number((*run.times).*field);
  }
  return Json{{"uid", run.uid},
              {"started_at", run.started_at},
              {"host", run.host},
              {"cutune_version", run.cutune_version},
              {"command", run.command},
              {"flush", to_string(run.flush)},
              {"kernel", Json{{"name", run.kernel.name}, {"hash", run.kernel.hash}}},
              {"device", Json{{"name", d.name}, {"cc_major", d.cc_major}, {"cc_minor", d.cc_minor},
                              {"sm_count", d.sm_count}, {"uuid", d.uuid}, {"driver_version", d.driver_version},
                              {"nvrtc_version", d.nvrtc_version}, {"memory_clock_khz", d.memory_clock_khz},
                              {"memory_bus_bits", d.memory_bus_bits}, {"total_memory", d.total_memory},
                              {"library_version", d.library_version}}},
              {"measurements", measurements},
              {"times", times}};
}

// Reads fields of one object, naming the document and the object's path in every error.
class Reader {
 public:
  Reader(const Json& object, std::string where) : object_(object), where_(std::move(where)) {
    if (!object_.is_object()) fail("is not an object");
  }
  [[noreturn]] void fail(const std::string& what) const { throw InputError(where_ + " " + what); }
  const Json& at(const char* key) const {
    const auto it = object_.find(key);
    if (it == object_.end()) fail("lacks \"" + std::string(key) + "\"");
    return *it;
  }
  std::string text(const char* key) const {
    const Json& v = at(key);
    if (!v.is_string()) fail("has a \"" + std::string(key) + "\" that is not a string");
    return v.get<std::string>();
  }
  template <typename Int>
  Int integer(const char* key) const {
    const Json& v = at(key);
    if (!v.is_number_integer()) fail("has a \"" + std::string(key) + "\" that is not an integer");
    return v.get<Int>();
  }
  // A field added after format version 1 was published: documents written before it lack it (unknown, 0).
  template <typename Int>
  Int optional_integer(const char* key) const {
    return object_.contains(key) ? integer<Int>(key) : Int{0};
  }
  double optional_real(const char* key) const { return object_.contains(key) ? real(key) : 0.0; }
  // A time added after format version 2 was published: documents written before it lack it (unknown, NaN).
  double optional_time(const char* key) const {
    return object_.contains(key) ? real(key) : std::numeric_limits<double>::quiet_NaN();
  }
  // A figure of result_fields.hpp's table, as old as its WhenAbsent says.
  void figure(const ResultField& f, Result& r) const {
    const std::string key(f.name);
    const char* name = key.c_str();
    double value = 0.0;
    if (is_integer(f)) {
      value = static_cast<double>(f.absent == WhenAbsent::Required ? integer<std::int64_t>(name)
                                                                   : optional_integer<std::int64_t>(name));
    } else {
      value = f.absent == WhenAbsent::Required ? real(name)
              : f.absent == WhenAbsent::Zero   ? optional_real(name)
                                               : optional_time(name);
    }
    set_field(r, f, value);
  }
  bool has(const char* key) const { return object_.contains(key) && !object_.at(key).is_null(); }
  // An L2 convention (format version 2); absent in documents of version 1, whose runs all read a buffer.
  L2Flush flush(const char* key) const {
    if (!object_.contains(key)) return L2Flush::Read;
    const std::string name = text(key);
    if (const auto flush = parse_l2_flush(name)) return *flush;
    fail("has an unknown L2 convention \"" + std::string(key) + "\": \"" + name + "\" (known: " +
         std::string(kL2FlushNames) + ")");
  }
  double real(const char* key) const { return real_value(at(key), key); }
  double real_value(const Json& v, const char* key) const {
    if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();
    if (!v.is_number()) fail("has a \"" + std::string(key) + "\" that is not a number");
    return v.get<double>();
  }
  Reader child(const char* key) const { return Reader(at(key), where_ + "." + key); }
  const std::string& where() const { return where_; }

 private:
  const Json& object_;
  std::string where_;
};

Measurement read_measurement(const Reader& in) {
  Measurement m;
  Result& r = m.result;
  m.shape = in.text("shape");
  r.config = in.text("config");
  try {
    r.status = status_from_string(in.text("status"));
  } catch (const DatabaseError& e) {
    in.fail("has " + std::string(e.what()));
  }
  r.message = in.text("message");
  const Json& samples = in.at("samples_ms");
  if (!samples.is_array()) in.fail("has a \"samples_ms\" that is not an array");
  for (const Json& s : samples) r.samples_ms.push_back(in.real_value(s, "samples_ms"));
  m.measured_at = in.text("measured_at");
  for (const ResultField& f : kResultFields) in.figure(f, r);
  return m;
}

RunRecord read_run(const Reader& in) {
  RunRecord run;
  run.uid = in.text("uid");
  run.started_at = in.text("started_at");
  run.host = in.text("host");
  run.cutune_version = in.text("cutune_version");
  run.command = in.text("command");
  run.flush = in.flush("flush");
  const Reader kernel = in.child("kernel");
  run.kernel.name = kernel.text("name");
  run.kernel.hash = kernel.text("hash");
  const Reader device = in.child("device");
  DeviceIdentity& d = run.device;
  d.name = device.text("name");
  d.cc_major = device.integer<int>("cc_major");
  d.cc_minor = device.integer<int>("cc_minor");
  d.sm_count = device.integer<int>("sm_count");
  d.uuid = device.text("uuid");
  d.driver_version = device.integer<int>("driver_version");
  d.nvrtc_version = device.integer<int>("nvrtc_version");
  d.memory_clock_khz = device.integer<int>("memory_clock_khz");
  d.memory_bus_bits = device.integer<int>("memory_bus_bits");
  d.total_memory = device.integer<std::int64_t>("total_memory");
  if (device.has("library_version")) d.library_version = device.integer<int>("library_version");  // absent before schema 8
  if (in.has("times")) {
    const Reader times = in.child("times");
    PhaseTimes& t = run.times.emplace();
    for (const auto& [name, field] : kPhaseTimeFields) t.*field = times.real(std::string(name).c_str());
  }
  const Json& measurements = in.at("measurements");
  if (!measurements.is_array()) in.fail("has \"measurements\" that are not an array");
  for (std::size_t i = 0; i < measurements.size(); ++i) {
    run.measurements.push_back(
        read_measurement(Reader(measurements[i], in.where() + ".measurements[" + std::to_string(i) + "]")));
  }
  return run;
}

}  // namespace

void write_json(const std::vector<RunRecord>& runs, std::ostream& out) {
  const bool all_read =
      std::all_of(runs.begin(), runs.end(), [](const RunRecord& r) { return r.flush == L2Flush::Read; });
  Json document{{"format", kFormat}, {"format_version", all_read ? 1 : kFormatVersion},
                {"exported_by", std::string("cutune ") + CUTUNE_VERSION}, {"runs", Json::array()}};
  for (const auto& run : runs) document["runs"].push_back(to_json(run));
  out << document.dump(1) << "\n";
}

std::vector<RunRecord> read_json(std::istream& in, const std::string& source) {
  Json document;
  try {
    document = Json::parse(in);
  } catch (const Json::exception& e) {
    throw InputError("'" + source + "' is not valid JSON (" + e.what() + ")");
  }
  const Reader root(document, "'" + source + "'");
  if (!document.is_object() || !document.contains("format") || document["format"] != kFormat) {
    root.fail("is not a cutune export (no \"format\": \"cutune-runs\")");
  }
  const int version = root.integer<int>("format_version");
  if (version > kFormatVersion || version < 1) {
    root.fail("has format version " + std::to_string(version) + "; this cutune reads up to version " +
              std::to_string(kFormatVersion));
  }
  const Json& runs = root.at("runs");
  if (!runs.is_array()) root.fail("has \"runs\" that are not an array");
  std::vector<RunRecord> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    out.push_back(read_run(Reader(runs[i], root.where() + " runs[" + std::to_string(i) + "]")));
  }
  return out;
}

}  // namespace cutune::detail
