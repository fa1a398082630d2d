// The "t4" exchange format: cutune's runs written as T4 1.0.0 results, and T4 files of other tools read as runs.
//
// T4 has no place for a device, kernel, problem size or L2 convention, so a file written here carries them in fields
// the schema allows besides its own: "metadata.cutune_runs" (each run's provenance, identity and L2 convention, a run
// without one being 'read', and where its wall time went) and a "cutune" object per result (run index, shape,
// canonical configuration, message, and the timed runs' wall time, which T4's "times" has no field for).
// Reading such a file gives back its runs; a T4 file of another tool (Kernel Tuner's dialect: metadata.timeunit,
// times.compilation; KTT's: no metadata, times.compilation_time, the objective's unit in its measurement) becomes one
// foreign run (foreign.hpp).
#include <cmath>
#include <istream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cutune/error.hpp"
#include "cutune/result_fields.hpp"
#include "cutune/spec.hpp"
#include "foreign_formats.hpp"
#include "base/json_depth.hpp"


namespace cutune::detail {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kSchemaVersion = "1.0.0";

// What an absent object reads as, without copying the one that is there.
const Json kNoObject = Json::object();

// Invalidity values of T4, one per status: the inverse of foreign_status() on them.
std::string_view invalidity(Status s) {
  switch (s) {
    case Status::Ok:
    case Status::Unverified: return "correct";  // it ran; "correctness" says whether it was checked
    case Status::CompileError: return "compile";
    case Status::LaunchError: return "constraints";
    case Status::RuntimeError: return "runtime";
    case Status::WrongResult: return "correctness";
    case Status::Timeout: return "timeout";
    case Status::Interrupted: return "runtime";  // T4's nearest; cutune's own "status" field says which
    case Status::NoReference: return "correctness";  // not checkable, so not correct; "status" says which
  }
  return "runtime";
}

// A failed result's objective value: Kernel Tuner's name for the failure where it has one, so its tools read it.
std::string failure_name(Status s) {
  const std::string_view kt = kt_failure_name(s);
  return std::string(kt.empty() ? to_string(s) : kt);
}

// Time units as T4 writers spell them (Kernel Tuner writes "miliseconds"), as a factor to milliseconds.
std::optional<double> unit_to_ms(std::string unit) {
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit == "ms" || unit.starts_with("mil")) return 1.0;
  if (unit == "us" || unit == "\xc2\xb5s" || unit.starts_with("micro")) return 1e-3;
  if (unit == "ns" || unit.starts_with("nano")) return 1e-6;
  if (unit == "s" || unit.starts_with("second")) return 1e3;
  return std::nullopt;
}

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw InputError("'" + source + "' " + what);
}

// The objective's entry of a result's measurements: the first objective named, else "time".
const Json* objective_measurement(const Json& result) {
  std::string name = "time";
  if (const auto it = result.find("objectives"); it != result.end() && it->is_array() && !it->empty() &&
                                                 it->front().is_string()) {
    name = it->front().get<std::string>();
  }
  const auto m = result.find("measurements");
  if (m == result.end() || !m->is_array()) return nullptr;
  for (const auto& entry : *m) {
    if (!entry.is_object() || !entry.contains("value")) continue;
    if (const auto it = entry.find("name"); it != entry.end() && it->is_string() && *it == name) return &entry;
  }
  return nullptr;
}

std::optional<double> number(const Json& object, const char* key, double factor) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number()) return std::nullopt;
  return it->get<double>() * factor;
}

Value config_value(const Json& v, const std::string& name, const std::string& where, const std::string& source) {
  if (v.is_boolean()) return Value(std::int64_t{v.get<bool>() ? 1 : 0});
  if (v.is_number_integer()) return Value(v.get<std::int64_t>());
  if (v.is_number_float()) return Value(v.get<double>());
  fail(source, where + " gives " + name + " = " + v.dump() + "; cutune parameter values are numbers");
}

// Fields cutune adds to T4 ("metadata.cutune_runs", each result's "cutune"): an absent one takes the fallback, one of
// another type is an error naming it (nlohmann::json's own exception would name neither the file nor the field,
// and converting 1e300 to an int is undefined).
std::string own_text(const Json& object, const char* key, const std::string& where, const std::string& source) {
  const auto it = object.find(key);
  if (it == object.end()) return "";
  if (!it->is_string()) fail(source, where + "." + key + " is " + it->dump() + ", not a string");
  return it->get<std::string>();
}

template <typename Int>
Int own_integer(const Json& object, const char* key, const std::string& where, const std::string& source) {
  const auto it = object.find(key);
  if (it == object.end()) return 0;
  const bool fits = it->is_number_unsigned()
                        ? it->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<Int>::max())
                        : it->is_number_integer() && it->get<std::int64_t>() >= std::numeric_limits<Int>::min() &&
                              it->get<std::int64_t>() <= std::numeric_limits<Int>::max();
  if (!fits) fail(source, where + "." + key + " is " + it->dump() + ", not an integer in range");
  return static_cast<Int>(it->get<std::int64_t>());
}

double own_real(const Json& object, const char* key, const std::string& where, const std::string& source) {
  const auto it = object.find(key);
  if (it == object.end()) return 0.0;
  if (!it->is_number()) fail(source, where + "." + key + " is " + it->dump() + ", not a number");
  return it->get<double>();
}

struct FileUnits {
  double times = 1.0;  // times.* and runtimes, to ms
};

// Kernel Tuner's dialect names its unit in metadata.timeunit; KTT's gives it only with the objective measurement.
FileUnits file_units(const Json& doc, const Json& results) {
  if (const auto meta = doc.find("metadata"); meta != doc.end() && meta->is_object()) {
    if (const auto unit = meta->find("timeunit"); unit != meta->end() && unit->is_string()) {
      if (const auto f = unit_to_ms(unit->get<std::string>())) return {*f};
    }
  }
  for (const auto& r : results) {
    if (const Json* m = r.is_object() ? objective_measurement(r) : nullptr; m && m->contains("unit") &&
                                                                           (*m)["unit"].is_string()) {
      if (const auto f = unit_to_ms((*m)["unit"].get<std::string>())) return {*f};
    }
  }
  return {};
}

// The result's configuration text: cutune's own, else the parameters in the first result's order.
std::string result_config(const Json& cfg, const Json* own, const std::vector<std::string>& names,
                          const std::string& where, const std::string& source) {
  if (own && own->contains("config") && (*own)["config"].is_string()) return (*own)["config"].get<std::string>();
  if (cfg.size() != names.size()) fail(source, where + " has other parameters than the first result");
  std::string config;
  for (const auto& name : names) {
    const auto v = cfg.find(name);
    if (v == cfg.end()) fail(source, where + " lacks parameter " + name);
    if (!config.empty()) config += ',';
    config += name;
    config += '=';
    config += config_value(*v, name, where, source).str();
  }
  return config;
}

// What became of a configuration: its status, message and objective value (ms).
struct Outcome {
  Status status = Status::Ok;
  std::string message;
  std::optional<double> objective;
};

Outcome read_outcome(const Json& r, const std::string& invalidity, const Json* own, FileUnits units,
                     const std::string& where, const std::string& source) {
  Outcome out;
  out.status = foreign_status(invalidity);
  if (const Json* m = objective_measurement(r)) {
    const Json& value = (*m)["value"];
    double factor = units.times;
    if (m->contains("unit") && (*m)["unit"].is_string()) factor = unit_to_ms((*m)["unit"].get<std::string>()).value_or(factor);
    if (value.is_number()) {
      out.objective = value.get<double>() * factor;
    } else if (value.is_string()) {
      out.message = value.get<std::string>();
      if (out.status == Status::Ok) out.status = foreign_status(out.message);
    }
  }
  // The statuses T4 has no name for, written as its nearest one and cutune's own "status" field.
  for (const auto& [t4, own_status] : {std::pair{Status::Ok, Status::Unverified},
                                      std::pair{Status::RuntimeError, Status::Interrupted},
                                      std::pair{Status::WrongResult, Status::NoReference}}) {
    if (out.status == t4 && own && own->contains("status") && (*own)["status"] == to_string(own_status)) {
      out.status = own_status;
    }
  }
  if (usable(out.status) && !out.objective) fail(source, where + " is correct but has no objective value");
  if (own && own->contains("message") && (*own)["message"].is_string()) out.message = (*own)["message"].get<std::string>();
  return out;
}

// The timed runs and where the rest of the time went (times.*), in ms.
void read_times(const Json& r, FileUnits units, std::vector<double>& samples, ForeignTimes& spent) {
  const auto times = r.find("times");
  if (times == r.end() || !times->is_object()) return;
  if (const auto runtimes = times->find("runtimes"); runtimes != times->end() && runtimes->is_array()) {
    for (const auto& t : *runtimes)
      if (t.is_number()) samples.push_back(t.get<double>() * units.times);
  }
  spent.compile = number(*times, "compilation_time", units.times);
  if (!spent.compile) spent.compile = number(*times, "compilation", units.times);
  spent.verify = number(*times, "validation", units.times);
  spent.framework = number(*times, "framework", units.times);
  spent.search = number(*times, "search_algorithm", units.times);
}

// What only cutune's own object carries (result_fields.hpp's T4Place::Own figures); one it lacks keeps its value.
void read_own_fields(const Json& own, const std::string& where, const std::string& source, Result& result) {
  const std::string at = where + ".cutune";
  for (const ResultField& f : kResultFields) {
    const std::string key(f.name);
    if (f.t4 != T4Place::Own || !own.contains(key)) continue;
    set_field(result, f, is_integer(f) ? static_cast<double>(own_integer<std::int64_t>(own, key.c_str(), at, source))
                                       : own_real(own, key.c_str(), at, source));
  }
}

Measurement read_result(const Json& r, const std::string& where, const std::string& source, FileUnits units,
                        const std::vector<std::string>& names) {
  if (!r.is_object()) fail(source, where + " is not an object");
  const auto cfg = r.find("configuration");
  if (cfg == r.end() || !cfg->is_object()) fail(source, where + " has no \"configuration\" object");
  const auto inv = r.find("invalidity");
  if (inv == r.end() || !inv->is_string()) fail(source, where + " has no \"invalidity\"");
  const Json* own = r.contains("cutune") && r["cutune"].is_object() ? &r["cutune"] : nullptr;

  std::string config = result_config(*cfg, own, names, where, source);
  Outcome outcome = read_outcome(r, inv->get<std::string>(), own, units, where, source);
  std::vector<double> samples;
  ForeignTimes spent;
  read_times(r, units, samples, spent);

  Measurement out;
  out.result = foreign_result(std::move(config), outcome.status, std::move(outcome.message), outcome.objective,
                              std::move(samples), spent);
  if (own) read_own_fields(*own, where, source, out.result);
  if (const auto ts = r.find("timestamp"); ts != r.end() && ts->is_string()) {
    out.measured_at = utc_from_foreign(ts->get<std::string>()).value_or("");
  }
  return out;
}

// The runs a cutune export describes in metadata.cutune_runs.
std::vector<RunRecord> own_runs(const Json& doc, const std::string& source) {
  std::vector<RunRecord> runs;
  const auto meta = doc.find("metadata");
  if (meta == doc.end() || !meta->is_object() || !meta->contains("cutune_runs")) return runs;
  const Json& list = (*meta)["cutune_runs"];
  if (!list.is_array()) fail(source, "has a metadata.cutune_runs that is not a list");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& j = list[i];
    const std::string where = "metadata.cutune_runs[" + std::to_string(i) + "]";
    if (!j.is_object()) fail(source, where + " is not an object");
    RunRecord run;
    run.uid = own_text(j, "uid", where, source);
    run.started_at = own_text(j, "started_at", where, source);
    run.host = own_text(j, "host", where, source);
    run.cutune_version = own_text(j, "cutune_version", where, source);
    run.command = own_text(j, "command", where, source);
    if (const std::string flush = own_text(j, "flush", where, source); !flush.empty()) {  // absent: older exports
      const auto parsed = parse_l2_flush(flush);
      if (!parsed) {
        fail(source, where + ".flush is \"" + flush + "\", not one of " + std::string(kL2FlushNames));
      }
      run.flush = *parsed;
    }
    run.kernel = {own_text(j, "kernel", where, source), own_text(j, "kernel_hash", where, source)};
    const Json& d = j.contains("device") ? j["device"] : kNoObject;
    const std::string device = where + ".device";
    if (!d.is_object()) fail(source, device + " is not an object");
    run.device.name = own_text(d, "name", device, source);
    run.device.cc_major = own_integer<int>(d, "cc_major", device, source);
    run.device.cc_minor = own_integer<int>(d, "cc_minor", device, source);
    run.device.sm_count = own_integer<int>(d, "sm_count", device, source);
    run.device.uuid = own_text(d, "uuid", device, source);
    run.device.driver_version = own_integer<int>(d, "driver_version", device, source);
    run.device.nvrtc_version = own_integer<int>(d, "nvrtc_version", device, source);
    if (const auto times = j.find("times"); times != j.end() && !times->is_null()) {
      const std::string where_times = where + ".times";
      if (!times->is_object()) fail(source, where_times + " is not an object");
      PhaseTimes& t = run.times.emplace();
      for (const auto& [name, field] : kPhaseTimeFields) t.*field = own_real(*times, std::string(name).c_str(), where_times, source);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

// The document, checked to be a T4 file with results.
Json parse_t4(const std::string& text, const std::string& source) {
  if (json_too_deep(text)) fail(source, "is nested more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::exception& e) {
    fail(source, std::string("is not valid JSON (") + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array()) {
    fail(source, "is not a T4 results file (no \"results\" list)");
  }
  if (doc["results"].empty()) fail(source, "holds no results");
  return doc;
}

// The parameter names in the first result's order: every result of a foreign file must have the same.
std::vector<std::string> parameter_names(const Json& results) {
  std::vector<std::string> names;
  const Json& first = results.front();
  if (first.is_object() && first.contains("configuration") && first["configuration"].is_object()) {
    for (const auto& [name, value] : first["configuration"].items()) names.push_back(name);
  }
  return names;
}

// A foreign file names no device, kernel or shape: the context must.
void require_context(const ForeignContext& context, const std::string& source) {
  if (context.device.empty()) fail(source, "names no device (T4 has no field for it); pass --device");
  if (context.kernel.empty()) fail(source, "names no kernel (T4 has no field for it); pass --kernel");
  if (context.shape.empty()) fail(source, "names no problem size (T4 has no field for it); pass --shape");
}

// Which of a cutune export's runs a result belongs to; its shape too, unless the context gives one.
std::size_t own_run_of(const Json& result, const std::string& where, const std::string& source, std::size_t runs,
                       Measurement& m) {
  const Json& mine = result.contains("cutune") ? result["cutune"] : kNoObject;
  if (!mine.is_object()) fail(source, where + ".cutune is not an object");
  const auto index = own_integer<std::int64_t>(mine, "run", where + ".cutune", source);
  if (index < 0 || static_cast<std::size_t>(index) >= runs) {
    fail(source, where + " names run " + std::to_string(index) + ", which is not listed");
  }
  if (m.shape.empty()) m.shape = own_text(mine, "shape", where + ".cutune", source);
  return static_cast<std::size_t>(index);
}

// The context's names win over an export's; a run starts with its earliest result, and a result without a time
// takes the run's.
void settle_run(RunRecord& run, const ForeignContext& context, bool own) {
  if (!context.device.empty() && own) run.device.name = context.device;
  if (!context.kernel.empty() && own) run.kernel.name = context.kernel;
  std::string earliest;
  for (const auto& m : run.measurements)
    if (!m.measured_at.empty() && (earliest.empty() || m.measured_at < earliest)) earliest = m.measured_at;
  // Results without a timestamp have an unknown time; the epoch says so and keeps re-imports identical.
  if (earliest.empty()) earliest = "1970-01-01T00:00:00.000000Z";
  if (run.started_at.empty()) run.started_at = earliest;
  for (auto& m : run.measurements)
    if (m.measured_at.empty()) m.measured_at = run.started_at;
}

std::vector<RunRecord> read_t4(std::istream& in, const std::string& source, const ForeignContext& context) {
  const std::string text = read_maybe_gzip(in, source);
  const Json doc = parse_t4(text, source);
  const Json& results = doc["results"];
  const FileUnits units = file_units(doc, results);
  std::vector<RunRecord> runs = own_runs(doc, source);
  const bool own = !runs.empty();
  const std::vector<std::string> names = parameter_names(results);
  if (!own) {
    require_context(context, source);
    runs.push_back(foreign_run("t4", source, text, context.device, context.kernel, names));
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::string where = "results[" + std::to_string(i) + "]";
    Measurement m = read_result(results[i], where, source, units, names);
    m.shape = context.shape;
    const std::size_t run = own ? own_run_of(results[i], where, source, runs.size(), m) : 0;
    runs[run].measurements.push_back(std::move(m));
  }
  for (auto& run : runs) settle_run(run, context, own);
  return runs;
}

bool looks_like_t4(std::string_view raw_head) {
  const std::string head = inflate_head(raw_head);
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || head[first] != '{' || head.find("\"results\"") == std::string::npos) return false;
  return head.find("\"schema_version\"") != std::string::npos || head.find("\"invalidity\"") != std::string::npos ||
         head.find("\"configuration\"") != std::string::npos;
}

Json runtimes(const std::vector<double>& samples) {
  Json out = Json::array();
  for (const double s : samples)
    if (std::isfinite(s)) out.push_back(s);
  return out;
}

void write_t4(const std::vector<RunRecord>& runs, std::ostream& out) {
  Json cutune_runs = Json::array();
  Json results = Json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& run = runs[i];
    const DeviceIdentity& d = run.device;
    Json own_run{{"uid", run.uid}, {"started_at", run.started_at}, {"host", run.host},
                 {"cutune_version", run.cutune_version}, {"command", run.command},
                 {"flush", to_string(run.flush)}, {"kernel", run.kernel.name},
                 {"kernel_hash", run.kernel.hash},
                 {"device", Json{{"name", d.name}, {"cc_major", d.cc_major}, {"cc_minor", d.cc_minor},
                                 {"sm_count", d.sm_count}, {"uuid", d.uuid},
                                 {"driver_version", d.driver_version},
                                 {"nvrtc_version", d.nvrtc_version}}}};
    if (run.times) {
      Json& times = own_run["times"] = Json::object();
      for (const auto& [name, field] : kPhaseTimeFields) times[std::string(name)] = (*run.times).*field;
    }
    cutune_runs.push_back(std::move(own_run));
    for (const auto& m : run.measurements) {
      const Result& r = m.result;
      // Every time T4 has a field for, where it is known (NaN: a result of an older cutune or another tool).
      Json times{{"runtimes", runtimes(r.samples_ms)}};
      for (const auto& [name, ms] : {std::pair{"compilation_time", r.compile_ms}, std::pair{"validation", r.verify_ms},
                                     std::pair{"framework", r.framework_ms}, std::pair{"search_algorithm", r.search_ms}}) {
        if (std::isfinite(ms)) times[name] = ms;
      }
      const bool ok = r.status == Status::Ok;
      const Json value =
          usable(r.status) && std::isfinite(r.median_ms) ? Json(r.median_ms) : Json(failure_name(r.status));
      Json mine{{"run", i}, {"shape", m.shape}, {"config", r.config}, {"message", r.message}};
      // T4 has no "not checked": an unverified result is valid with correctness 0, and cutune's own field says why.
      // Nor "killed from outside": an interrupted result is a runtime failure there, and the same field says so.
      if (r.status == Status::Unverified || r.status == Status::Interrupted || r.status == Status::NoReference) {
        mine["status"] = to_string(r.status);
      }
      // The figures T4 has no field for (an unknown real one is left out).
      for (const ResultField& f : kResultFields) {
        if (f.t4 != T4Place::Own) continue;
        if (is_integer(f)) {
          mine[std::string(f.name)] = integer_value(r, f);
        } else if (std::isfinite(field_value(r, f))) {
          mine[std::string(f.name)] = field_value(r, f);
        }
      }
      results.push_back(Json{{"timestamp", m.measured_at},
                             {"configuration", configuration_object(r.config)},
                             {"objectives", Json::array({"time"})},
                             {"times", times},
                             {"invalidity", invalidity(r.status)},
                             {"correctness", ok ? 1 : 0},
                             {"measurements", Json::array({Json{{"name", "time"}, {"value", value}, {"unit", "ms"}}})},
                             {"cutune", mine}});
    }
  }
  const Json doc{{"schema_version", kSchemaVersion},
                 {"metadata", Json{{"timeunit", "milliseconds"},
                                   {"exported_by", std::string("cutune ") + CUTUNE_VERSION},
                                   {"cutune_runs", cutune_runs}}},
                 {"results", results}};
  out << doc.dump(1) << "\n";
}

}  // namespace

ExchangeFormat t4_exchange_format(const ForeignContext& context) {
  return {"t4",
          "T4 1.0.0 results (Kernel Tuner's and KTT's dialects in; --device, --kernel, --shape say what T4 cannot)",
          write_t4, [context](std::istream& in, const std::string& source) { return read_t4(in, source, context); },
          looks_like_t4};
}

}  // namespace cutune::detail
