// Reading Kernel Tuner cache files: gzip or plain, repaired when an interrupted run left them unclosed.
#include "cutune/kt_cache.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "cutune/error.hpp"
#include "base/json_depth.hpp"

namespace cutune {
namespace {

using Json = nlohmann::json;

std::string read_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw InputError("cannot read " + file.string() + ": no such file");
  if (std::filesystem::is_directory(file, ec)) throw InputError("cannot read " + file.string() + ": it is a directory");
  // gzread passes plain files through unchanged, so one path reads both forms.
  gzFile in = gzopen(file.c_str(), "rb");
  if (!in) throw InputError("cannot read " + file.string() + ": cannot open it");
  std::string text;
  char buffer[1 << 16];
  while (true) {
    const int n = gzread(in, buffer, sizeof buffer);
    if (n < 0) {
      int code = 0;
      const std::string why = gzerror(in, &code);
      gzclose(in);
      throw InputError("cannot read " + file.string() + ": " + why);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  gzclose(in);
  return text;
}

// Kernel Tuner writes a record per line and closes the two objects only when the run ends: an interrupted run
// leaves "...},\n" at the end, or a partly written last line.
std::optional<std::string> close_truncated(std::string_view text) {
  std::size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) return std::nullopt;
  if (text[end] != ',') {
    const std::size_t boundary = text.rfind("},\n");
    if (boundary == std::string_view::npos) return std::nullopt;
    end = boundary + 1;
  }
  if (text.substr(0, end).find("\"cache\"") == std::string_view::npos) return std::nullopt;
  return std::string(text.substr(0, end)) + "}}";
}

Value to_value(const Json& j, const std::string& what, const std::string& source) {
  if (j.is_boolean()) return Value(std::int64_t{j.get<bool>() ? 1 : 0});
  if (j.is_number_integer()) return Value(j.get<std::int64_t>());
  if (j.is_number_float()) return Value(j.get<double>());
  throw InputError(source + ": " + what + " is " + j.dump() + "; cutune parameter values are numbers");
}

// A key is the parameter values joined by commas, each as Python prints it.
Value parse_key_value(const std::string& piece, const std::string& key, const std::string& source) {
  if (piece == "True") return Value(std::int64_t{1});
  if (piece == "False") return Value(std::int64_t{0});
  try {
    std::size_t used = 0;
    if (piece.find_first_of(".eE") == std::string::npos) {
      const long long i = std::stoll(piece, &used);
      if (used == piece.size()) return Value(static_cast<std::int64_t>(i));
    } else {
      const double f = std::stod(piece, &used);
      if (used == piece.size()) return Value(f);
    }
  } catch (const std::exception&) {
  }
  throw InputError(source + ": cache key '" + key + "' holds '" + piece + "', not a number");
}

std::optional<double> number_field(const Json& record, const char* name) {
  const auto it = record.find(name);
  if (it == record.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// The text as JSON: as it is, or closed where an interrupted run left it open (`truncated` then set).
Json parse_document(std::string_view text, const std::string& source, bool& truncated) {
  if (detail::json_too_deep(text)) {
    throw InputError(source + ": not a Kernel Tuner cache: nested more than " + std::to_string(detail::kMaxJsonDepth) +
                     " levels deep");
  }
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    const auto closed = close_truncated(text);
    if (!closed) throw InputError(source + ": not a Kernel Tuner cache: " + e.what());
    try {
      doc = Json::parse(*closed);
      truncated = true;
    } catch (const Json::exception&) {
      throw InputError(source + ": not a Kernel Tuner cache: " + e.what());
    }
  } catch (const Json::exception& e) {  // a number beyond double's range (1e400) is no parse_error
    throw InputError(source + ": not a Kernel Tuner cache: " + e.what());
  }
  if (!doc.is_object()) throw InputError(source + ": not a Kernel Tuner cache: the top level is not a JSON object");
  return doc;
}

void read_string_field(const Json& doc, const char* name, std::string& out) {
  const auto it = doc.find(name);
  if (it != doc.end() && it->is_string()) out = it->get<std::string>();
}

// Device, kernel, objective and problem size: each optional.
void read_description(const Json& doc, KtCache& cache) {
  read_string_field(doc, "device_name", cache.device_name);
  read_string_field(doc, "kernel_name", cache.kernel_name);
  read_string_field(doc, "objective", cache.objective);
  const auto ps = doc.find("problem_size");
  if (ps == doc.end()) return;
  cache.problem_size_text = ps->dump();
  if (ps->is_number_integer()) {
    cache.problem_size.push_back(ps->get<std::int64_t>());
  } else if (ps->is_array() && std::all_of(ps->begin(), ps->end(), [](const Json& d) { return d.is_number_integer(); })) {
    for (const auto& d : *ps) cache.problem_size.push_back(d.get<std::int64_t>());
  }
}

// The parameter names, and their grids where the file has them (`tune_params`).
void read_parameters(const Json& doc, KtCache& cache, const std::string& source) {
  const auto keys = doc.find("tune_params_keys");
  if (keys == doc.end() || !keys->is_array()) {
    throw InputError(source + ": not a Kernel Tuner cache: no tune_params_keys list");
  }
  for (const auto& name : *keys) {
    if (!name.is_string()) throw InputError(source + ": tune_params_keys holds " + name.dump() + ", not a name");
    Parameter p;
    p.name = name.get<std::string>();
    cache.parameters.push_back(std::move(p));
  }
  const auto grid = doc.find("tune_params");
  if (grid == doc.end() || !grid->is_object()) return;
  for (auto& p : cache.parameters) {
    const auto it = grid->find(p.name);
    if (it == grid->end() || !it->is_array() || it->empty()) {
      throw InputError(source + ": tune_params has no list of values for " + p.name);
    }
    for (const auto& v : *it) p.values.push_back(to_value(v, "a value of " + p.name, source));
  }
}

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> pieces;
  for (std::size_t start = 0;;) {
    const std::size_t comma = key.find(',', start);
    pieces.push_back(key.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return pieces;
}

// The record's own fields carry the values with their JSON types; the key is the fallback.
Config read_config(const std::string& key, const Json& record, const std::vector<Parameter>& parameters,
                   const std::string& source) {
  Config config;
  const std::vector<std::string> pieces = split_key(key);
  const std::size_t d = parameters.size();
  for (std::size_t p = 0; p < d; ++p) {
    const std::string& name = parameters[p].name;
    if (const auto it = record.find(name); it != record.end()) {
      config.values.push_back(to_value(*it, "parameter " + name + " of record '" + key + "'", source));
    } else if (pieces.size() == d) {
      config.values.push_back(parse_key_value(pieces[p], key, source));
    } else {
      throw InputError(source + ": cache record '" + key + "' has no value for " + name);
    }
  }
  return config;
}

// Kernel Tuner 1.5 writes a failure as "__error__" and no time; earlier versions write its name as the time.
void read_time(const std::string& key, const Json& record, const std::string& source, KtRecord& r) {
  auto time = record.find("time");
  if (time == record.end()) time = record.find("__error__");
  if (time == record.end()) throw InputError(source + ": cache record '" + key + "' has no time");
  if (time->is_number()) {
    r.time_ms = time->get<double>();
    if (!std::isfinite(*r.time_ms)) r.time_ms.reset(), r.failure = "NonFiniteTime";
  } else if (time->is_string()) {
    r.failure = time->get<std::string>();
  } else {
    throw InputError(source + ": cache record '" + key + "' has time " + time->dump() + ", neither a number nor a failure name");
  }
}

KtRecord read_record(const std::string& key, const Json& record, const std::vector<Parameter>& parameters,
                     const std::string& source) {
  if (!record.is_object()) throw InputError(source + ": cache record '" + key + "' is not an object");
  KtRecord r;
  r.config = read_config(key, record, parameters, source);
  read_time(key, record, source, r);
  if (const auto times = record.find("times"); times != record.end() && times->is_array()) {
    for (const auto& t : *times)
      if (t.is_number()) r.times_ms.push_back(t.get<double>());
  }
  if (const auto own = record.find("cutune_status"); own != record.end() && own->is_string()) {
    r.cutune_status = own->get<std::string>();
  }
  r.compile_time_ms = number_field(record, "compile_time");
  r.verification_time_ms = number_field(record, "verification_time");
  r.benchmark_time_ms = number_field(record, "benchmark_time");
  r.framework_time_ms = number_field(record, "framework_time");
  r.strategy_time_ms = number_field(record, "strategy_time");
  return r;
}

void read_records(const Json& doc, KtCache& cache, const std::string& source) {
  const auto records = doc.find("cache");
  if (records == doc.end() || !records->is_object()) throw InputError(source + ": not a Kernel Tuner cache: no cache object");
  for (const auto& [key, record] : records->items()) cache.records.push_back(read_record(key, record, cache.parameters, source));
}

// Without a grid in the file, a parameter's values are those the records use, ascending. A set, since a search of
// the list for each of 50000 records of distinct values took minutes.
void complete_grids(KtCache& cache) {
  for (std::size_t p = 0; p < cache.parameters.size(); ++p) {
    auto& values = cache.parameters[p].values;
    if (values.empty()) {
      std::unordered_set<Value> seen;
      for (const auto& r : cache.records)
        if (seen.insert(r.config.values[p]).second) values.push_back(r.config.values[p]);
      std::sort(values.begin(), values.end(), [](const Value& a, const Value& b) { return a.as_double() < b.as_double(); });
    }
    if (!values.empty()) cache.parameters[p].default_value = values.front();
  }
}

}  // namespace

std::vector<std::string> KtCache::parameter_names() const {
  std::vector<std::string> names;
  for (const auto& p : parameters) names.push_back(p.name);
  return names;
}

std::vector<std::vector<Value>> KtCache::parameter_values() const {
  std::vector<std::vector<Value>> values;
  for (const auto& p : parameters) values.push_back(p.values);
  return values;
}

KtCache read_kt_cache(const std::filesystem::path& file) { return parse_kt_cache(read_file(file), file.string()); }

KtCache parse_kt_cache(std::string_view text, const std::string& source) {
  KtCache cache;
  const Json doc = parse_document(text, source, cache.truncated);
  try {
    read_description(doc, cache);
    read_parameters(doc, cache, source);
    read_records(doc, cache, source);
  } catch (const Json::exception& e) {
    throw InputError(source + ": malformed Kernel Tuner cache: " + e.what());
  }
  complete_grids(cache);
  return cache;
}

}  // namespace cutune
