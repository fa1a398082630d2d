// Internals shared by the T4 and Kernel Tuner cache formats (formats/t4.cpp, formats/kt_import.cpp, formats/kt_export.cpp,
// formats/foreign.cpp).
#pragma once

#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/exchange.hpp"
#include "cutune/foreign.hpp"

namespace cutune::detail {

/// The "t4" and "kt-cache" entries of the format table, their readers bound to `context`.
ExchangeFormat t4_exchange_format(const ForeignContext& context = {});
ExchangeFormat kt_cache_exchange_format(const ForeignContext& context = {});

/// Runs as a Kernel Tuner cache (formats/kt_export.cpp); throws InputError unless they hold exactly one RunGroup.
void write_kt_cache(const std::vector<RunRecord>& runs, std::ostream& out);

/// A whole stream, inflated when it is gzip.
std::string read_maybe_gzip(std::istream& in, const std::string& source);
/// As much of a file's first bytes as can be inflated when they are gzip, else the bytes themselves: what format
/// detection looks at.
std::string inflate_head(std::string_view head);

/// A foreign timestamp ("2023-12-22 09:54:05.502007+00:00", "2024-08-12 11:26:23 UTC", ISO 8601) in cutune's form
/// "2023-12-22T09:54:05.502007Z"; nullopt when it is none of those.
std::optional<std::string> utc_from_foreign(std::string_view text);

/// A foreign record's times besides its runtimes, ms, as far as it gives them.
struct ForeignTimes {
  std::optional<double> compile;    ///< absent: 0
  std::optional<double> verify;     ///< this and the others, absent: unknown (NaN)
  std::optional<double> benchmark;
  std::optional<double> framework;
  std::optional<double> search;
};

/// Kernel Tuner's name of a failure status: "CompilationFailedConfig", "InvalidConfig" or "RuntimeFailedConfig", the
/// inverse of foreign_status() on them; empty for the statuses it has no name for (wrong_result, timeout) and for
/// ok and unverified.
std::string_view kt_failure_name(Status s);

/// A configuration's values with JSON types, in its order: "BM=128,SCALE=0.5,MODE=fast" -> {"BM": 128, "SCALE": 0.5,
/// "MODE": "fast"} (integers as integers, other finite numbers as floats, anything else as text).
nlohmann::ordered_json configuration_object(const std::string& config);

/// A result from a foreign record: the objective value (ms) as median_ms, extremes and spread from the samples.
Result foreign_result(std::string config, Status status, std::string message, std::optional<double> objective_ms,
                      std::vector<double> samples_ms, const ForeignTimes& times);

/// A run for foreign results: device (table-completed), kernel (foreign hash), provenance and a uid that is a hash
/// of `content` and the identity, so the same file imported twice is the same run.
RunRecord foreign_run(std::string_view format, const std::string& source, std::string_view content,
                      const std::string& device_name, const std::string& kernel_name,
                      const std::vector<std::string>& parameter_names);

}  // namespace cutune::detail
