// The "kt-cache" export format: one kernel version's measurements on one device at one shape and L2 convention as a
// Kernel Tuner cache file, which Kernel Tuner's tune_cache() (simulation mode) and `tune replay` read.
//
// The document has Kernel Tuner 1.5's layout (util.process_cache and store_cache there):
//   device_name, kernel_name, problem_size (the shape's integers; one integer for a 1-D shape; the shape's text when
//   it is not integers joined by 'x'), tune_params_keys (the configurations' parameter order), tune_params (each
//   parameter's values: the sorted union of those measured, as the database keeps no grid), objective "time", and
//   cache: one record per configuration, keyed by its values joined by commas, each as Python's str() prints it
//   (Kernel Tuner looks records up by ",".join(str(v) for v in config), so the key must be exactly that).
// A record holds every parameter as a field, time (cutune's median in ms, where Kernel Tuner writes its mean; for a
// failure, Kernel Tuner's name for it), times (the samples, ms), compile_time, verification_time, benchmark_time,
// strategy_time and framework_time (ms; 0 where unknown, as Kernel Tuner writes them) and timestamp (Kernel Tuner's
// form). Where Kernel Tuner has no name for the status (wrong_result and timeout are written RuntimeFailedConfig, as
// Kernel Tuner stops at either; unverified has a time like ok), "cutune_status" names it: Kernel Tuner ignores the
// field and cutune's reader restores the status from it, so an export imports back to the same statuses.
// A configuration measured more than once (finalists re-timed, several runs) is written once: its newest ok
// measurement, else its newest unverified one, else its newest. Interrupted measurements (the process was killed
// from outside) are left out: Kernel Tuner would take them for the configuration's failure, and a configuration
// without a record is one it measures again, as cutune's resume does.
// The file ends in "}\n}" as Kernel Tuner's closed caches do: a file that does not, it takes for an interrupted one.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <ostream>

#include "cutune/error.hpp"
#include "foreign_formats.hpp"
#include "formats.hpp"

namespace cutune::detail {
namespace {

using Json = nlohmann::ordered_json;

// A record's fields besides the parameters: a parameter of one of these names would be overwritten.
constexpr std::string_view kRecordFields[] = {"time",          "times",          "compile_time", "verification_time",
                                              "benchmark_time", "strategy_time", "framework_time", "timestamp",
                                              "cutune_status"};

// Python's str() of a float (its repr): the shortest digits that read back to it, positional for decimal exponents
// from -5 up to 15, else scientific with a signed exponent of at least two digits; ".0" on integral values.
std::string python_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[64];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(v), std::chars_format::scientific).ptr;
  const std::string shortest(buffer, end);  // "1.2345e-05"
  const std::size_t e = shortest.find('e');
  std::string digits = shortest.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  const int exponent = std::atoi(shortest.c_str() + e + 1);
  const auto count = static_cast<int>(digits.size());
  std::string out;
  if (exponent < -4 || exponent >= 16) {
    out = digits;
    if (count > 1) out.insert(1, 1, '.');
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += suffix;
  } else if (exponent < 0) {
    out.assign(static_cast<std::size_t>(-exponent), '0');
    out.insert(1, 1, '.');
    out += digits;
  } else if (count <= exponent + 1) {
    out = digits;
    out.append(static_cast<std::size_t>(exponent + 1 - count), '0');
    out += ".0";
  } else {
    out = digits;
    out.insert(static_cast<std::size_t>(exponent + 1), 1, '.');
  }
  return std::signbit(v) ? "-" + out : out;
}

// str() of a value as Python reads it from the JSON it is written as: what Kernel Tuner's keys are made of.
std::string python_str(const Json& v) {
  if (v.is_number_float()) return python_float(v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// Numbers before text; numbers by value, text by its characters; ties by their printed form, so the order is total.
bool value_before(const Json& a, const Json& b) {
  if (a.is_number() != b.is_number()) return a.is_number();
  if (a.is_number() && a.get<double>() != b.get<double>()) return a.get<double>() < b.get<double>();
  return python_str(a) < python_str(b);
}

// "2025-01-31T12:00:00.123456Z" -> "2025-01-31 12:00:00.123456+00:00", Python's str() of a UTC datetime, as Kernel
// Tuner writes it.
std::string kt_timestamp(std::string t) {
  if (t.size() > 11 && t[10] == 'T' && t.back() == 'Z') {
    t[10] = ' ';
    t.back() = '+';
    t += "00:00";
  }
  return t;
}

// "4096x2048" -> [4096, 2048]; "1000000" -> 1000000.
Json problem_size(const std::string& shape) {
  Json dims = Json::array();
  for (std::size_t start = 0; start <= shape.size();) {
    const std::size_t x = std::min(shape.find('x', start), shape.size());
    std::int64_t d = 0;
    const char* first = shape.data() + start;
    const auto [end, ec] = std::from_chars(first, shape.data() + x, d);
    if (ec != std::errc() || end != shape.data() + x || x == start) return shape;
    dims.push_back(d);
    start = x + 1;
  }
  return dims.size() == 1 ? dims.front() : dims;
}

int preference(Status s) { return s == Status::Ok ? 2 : s == Status::Unverified ? 1 : 0; }

// Whether `m` replaces `kept` as its configuration's record: ok over unverified over failures, then the newer.
bool replaces(const Measurement& m, const Measurement& kept) {
  const int a = preference(m.result.status), b = preference(kept.result.status);
  return a != b ? a > b : m.measured_at >= kept.measured_at;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ',';
    out += n;
  }
  return out;
}

Json record(Json values, const Measurement& m) {
  const Result& r = m.result;
  std::string_view failure = kt_failure_name(r.status);
  // Kernel Tuner stops at a wrong result (a RuntimeError) and knows no timeouts: its nearest name for both.
  if (failure.empty()) failure = "RuntimeFailedConfig";
  const bool timed = usable(r.status) && std::isfinite(r.median_ms);
  Json out = std::move(values);
  out["time"] = timed ? Json(r.median_ms) : Json(failure);
  Json samples = Json::array();
  for (const double s : r.samples_ms)
    if (std::isfinite(s)) samples.push_back(s);
  out["times"] = std::move(samples);
  for (const auto& [name, ms] : {std::pair{"compile_time", r.compile_ms}, std::pair{"verification_time", r.verify_ms},
                                 std::pair{"benchmark_time", r.benchmark_ms}, std::pair{"strategy_time", r.search_ms},
                                 std::pair{"framework_time", r.framework_ms}}) {
    out[name] = std::isfinite(ms) ? Json(ms) : Json(0);
  }
  out["timestamp"] = kt_timestamp(m.measured_at);
  // What cutune's reader would make of the record, and the status itself where that differs.
  const Status read_back = timed ? Status::Ok : foreign_status(failure);
  if (read_back != r.status) out["cutune_status"] = std::string(to_string(r.status));
  return out;
}

}  // namespace

void write_kt_cache(const std::vector<RunRecord>& runs, std::ostream& out) {
  const auto groups = run_groups(runs);
  if (groups.empty()) throw InputError("nothing to write as a Kernel Tuner cache: the database holds no measurements");
  if (groups.size() > 1) {
    throw InputError("a Kernel Tuner cache holds one kernel on one device at one shape and L2 convention, and " +
                     std::to_string(groups.size()) + " are selected: " + describe_groups(runs) +
                     "; pick one with --kernel, --device, --shape and --flush");
  }
  const RunGroup& group = groups.begin()->first;

  struct Entry {
    std::string key;
    Json values;
    const Measurement* measurement;
  };
  std::vector<Entry> entries;  // in the order first measured
  std::map<std::string, std::size_t> index;
  std::vector<std::string> names;
  for (const auto& run : runs) {
    for (const auto& m : run.measurements) {
      if (m.result.status == Status::Interrupted) continue;
      Json values = configuration_object(m.result.config);
      std::vector<std::string> these;
      std::string key;
      for (const auto& [name, value] : values.items()) {
        if (!these.empty()) key += ',';
        key += python_str(value);
        these.push_back(name);
      }
      if (names.empty()) names = these;
      if (these != names) {
        throw InputError("the configurations name different parameters ('" + joined(names) + "' and '" +
                         joined(these) + "'), which one Kernel Tuner cache cannot hold");
      }
      const auto [it, added] = index.emplace(key, entries.size());
      if (added) {
        entries.push_back({key, std::move(values), &m});
      } else if (replaces(m, *entries[it->second].measurement)) {
        entries[it->second].measurement = &m;
      }
    }
  }
  for (const auto& name : names) {
    if (std::find(std::begin(kRecordFields), std::end(kRecordFields), name) != std::end(kRecordFields)) {
      throw InputError("parameter '" + name + "' has the name of a field of Kernel Tuner's cache records");
    }
  }

  Json tune_params = Json::object();
  for (const auto& name : names) {
    std::map<std::string, Json> seen;  // by printed form: 1 and 1.0 are different values to Kernel Tuner's keys
    for (const auto& e : entries) seen.emplace(python_str(e.values.at(name)), e.values.at(name));
    Json values = Json::array();
    for (auto& [text, v] : seen) values.push_back(std::move(v));
    std::sort(values.begin(), values.end(), value_before);
    tune_params[name] = std::move(values);
  }

  constexpr auto kReplace = Json::error_handler_t::replace;
  const Json head{{"device_name", group.device},
                  {"kernel_name", group.kernel},
                  {"problem_size", problem_size(group.shape)},
                  {"tune_params_keys", names},
                  {"tune_params", std::move(tune_params)},
                  {"objective", "time"}};
  // One line per list item and one per record, as Kernel Tuner writes its caches.
  std::string text = head.dump(0, ' ', false, kReplace);
  text.resize(text.size() - 2);  // the closing "\n}"
  out << text << ",\n\"cache\": {\n";
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    out << (i ? ",\n" : "") << Json(e.key).dump(-1, ' ', false, kReplace) << ": "
        << record(e.values, *e.measurement).dump(-1, ' ', false, kReplace);
  }
  out << "\n}\n}\n";
}

}  // namespace cutune::detail
