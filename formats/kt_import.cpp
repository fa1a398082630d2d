// The "kt-cache" format's reader: a Kernel Tuner cache file (kt_cache.hpp) as one run of foreign results; its writer
// is formats/kt_export.cpp.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "cutune/error.hpp"
#include "cutune/kt_cache.hpp"
#include "foreign_formats.hpp"

namespace cutune::detail {
namespace {

using Json = nlohmann::json;

bool looks_like_kt_cache(std::string_view raw_head) {
  const std::string head = inflate_head(raw_head);
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || head[first] != '{') return false;
  return head.find("\"tune_params_keys\"") != std::string::npos ||
         (head.find("\"cache\"") != std::string::npos && head.find("\"kernel_name\"") != std::string::npos);
}

// KtRecord keeps no timestamps; the document's records, keyed as the cache's, have them. A truncated file does not
// parse again, and its records keep the run's time.
std::vector<std::optional<std::string>> record_times(const std::string& text, std::size_t count) {
  std::vector<std::optional<std::string>> times(count);
  const Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.contains("cache") || !doc["cache"].is_object() || doc["cache"].size() != count) {
    return times;
  }
  // nlohmann::json keeps objects ordered by key, as KtCache::records are.
  std::size_t i = 0;
  for (const auto& [key, record] : doc["cache"].items()) {
    if (record.is_object() && record.contains("timestamp") && record["timestamp"].is_string()) {
      times[i] = utc_from_foreign(record["timestamp"].get<std::string>());
    }
    ++i;
  }
  return times;
}

std::string shape_text(const KtCache& cache, const ForeignContext& context, const std::string& source) {
  if (!context.shape.empty()) return context.shape;
  if (cache.problem_size.empty()) {
    throw InputError(source + ": the cache gives no integer problem size (" +
                     (cache.problem_size_text.empty() ? std::string("none") : cache.problem_size_text) +
                     "); pass --shape");
  }
  std::string out;
  for (const auto d : cache.problem_size) {
    if (!out.empty()) out += 'x';
    out += std::to_string(d);
  }
  return out;
}

// Kernel Tuner's verdict, or the status cutune wrote beside it where Kernel Tuner has no name for it (kt_export.cpp),
// as long as the two agree on whether the configuration has a time.
Status record_status(const KtRecord& record) {
  const Status kt = record.time_ms ? Status::Ok : foreign_status(record.failure);
  if (record.cutune_status.empty()) return kt;
  try {
    const Status own = status_from_string(record.cutune_status);
    return usable(own) == usable(kt) ? own : kt;
  } catch (const Error&) {
    return kt;  // a name of a later cutune: Kernel Tuner's verdict stands
  }
}

std::vector<RunRecord> read_kt_cache_runs(std::istream& in, const std::string& source, const ForeignContext& context) {
  const std::string text = read_maybe_gzip(in, source);
  const KtCache cache = parse_kt_cache(text, source);
  if (cache.objective != "time") {
    throw InputError(source + ": the cache's objective is '" + cache.objective +
                     "'; cutune imports time measurements only");
  }
  const std::string device = context.device.empty() ? cache.device_name : context.device;
  const std::string kernel = context.kernel.empty() ? cache.kernel_name : context.kernel;
  if (device.empty()) throw InputError(source + ": the cache names no device; pass --device");
  if (kernel.empty()) throw InputError(source + ": the cache names no kernel; pass --kernel");
  const std::string shape = shape_text(cache, context, source);
  const std::vector<std::string> names = cache.parameter_names();

  RunRecord run = foreign_run("kt-cache", source, text, device, kernel, names);
  if (cache.truncated) run.command += "; the file was cut off and its complete records were read";
  const auto times = record_times(text, cache.records.size());
  std::string earliest;
  for (const auto& t : times)
    if (t && (earliest.empty() || *t < earliest)) earliest = *t;
  // Without any timestamp the measurement time is unknown; the epoch says so and keeps re-imports identical.
  run.started_at = earliest.empty() ? "1970-01-01T00:00:00.000000Z" : earliest;

  for (std::size_t i = 0; i < cache.records.size(); ++i) {
    const KtRecord& record = cache.records[i];
    std::string config;
    for (std::size_t p = 0; p < names.size(); ++p) {
      if (p) config += ',';
      config += names[p];
      config += '=';
      config += record.config.values[p].str();
    }
    const Status status = record_status(record);
    Measurement m;
    m.shape = shape;
    m.result = foreign_result(std::move(config), status, record.failure, record.time_ms, record.times_ms,
                              {record.compile_time_ms, record.verification_time_ms, record.benchmark_time_ms,
                               record.framework_time_ms, record.strategy_time_ms});
    m.measured_at = times[i].value_or(run.started_at);
    run.measurements.push_back(std::move(m));
  }
  return {std::move(run)};
}

}  // namespace

ExchangeFormat kt_cache_exchange_format(const ForeignContext& context) {
  return {"kt-cache",
          "Kernel Tuner cache file of one kernel, device, shape and flush (read plain or gzip, written plain; on "
          "import --device, --kernel, --shape override the file's)",
          write_kt_cache,
          [context](std::istream& in, const std::string& source) { return read_kt_cache_runs(in, source, context); },
          looks_like_kt_cache};
}

}  // namespace cutune::detail
