// Kernel Tuner cache files (JSON, or gzipped JSON) read into plain values: a kernel's recorded search space with
// every configuration's measured time or failure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/spec.hpp"

namespace cutune {

/// One configuration of a cache.
struct KtRecord {
  Config config;                  ///< a value per parameter, in KtCache::parameters order
  std::optional<double> time_ms;  ///< the mean launch time in ms; nullopt when the configuration failed
  std::string failure;            ///< when it failed, Kernel Tuner's name for why, e.g. "CompilationFailedConfig",
                                  ///< "RuntimeFailedConfig", "InvalidConfig"; empty otherwise
  std::string cutune_status;      ///< the status a cache written by cutune names beside Kernel Tuner's verdict
                                  ///< ("cutune_status": wrong_result, timeout, unverified); empty otherwise
  std::vector<double> times_ms;   ///< the individual launch times in ms, when recorded
  std::optional<double> compile_time_ms;
  std::optional<double> verification_time_ms;  ///< checking the output against the reference
  std::optional<double> benchmark_time_ms;     ///< the timed runs
  std::optional<double> framework_time_ms;     ///< Kernel Tuner's own time for the configuration
  std::optional<double> strategy_time_ms;      ///< the search strategy's time for it
};

/// A whole cache file.
struct KtCache {
  std::string device_name;             ///< empty when absent
  std::string kernel_name;             ///< empty when absent
  std::vector<std::int64_t> problem_size;  ///< when the file gives integers (one number or a list)
  std::string problem_size_text;       ///< the field as written (JSON), empty when absent
  std::string objective = "time";
  /// Names in the file's key order and each one's full grid of values (`tune_params`; when the file has none, the
  /// values the records use, ascending). Booleans read as 0 and 1.
  std::vector<Parameter> parameters;
  std::vector<KtRecord> records;       ///< ordered by their cache key as text
  bool truncated = false;              ///< the file was cut off (an interrupted run) and closed by the reader

  std::vector<std::string> parameter_names() const;
  /// Each parameter's values, for Space::from_configs().
  std::vector<std::vector<Value>> parameter_values() const;
};

/// Reads a cache file, gzipped or not. Throws InputError naming the file and what is wrong with it: unreadable,
/// not JSON, missing fields, non-numeric parameter values, or a record without a time.
KtCache read_kt_cache(const std::filesystem::path& file);
/// Parses a cache's JSON text; `source_name` names it in error messages.
KtCache parse_kt_cache(std::string_view text, const std::string& source_name);

}  // namespace cutune
