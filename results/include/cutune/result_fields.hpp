// The figures a Result carries, described once. The database's columns, the worker's messages, the json, csv and T4
// files, the HTML report and the Python package all go through this table: a new figure is a member of Result
// (result.hpp) and a row here, and every one of them stores, sends, reads and checks it.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <variant>

#include "cutune/result.hpp"

namespace cutune {

/// What a reader assumes when a file or message written before the figure existed lacks it.
enum class WhenAbsent {
  Required,  ///< the figure has been there from the start: a document without it is refused
  Zero,      ///< 0, which means unknown (the kernel's resources)
  Unknown,   ///< NaN (the times besides compiling)
};

/// Where a T4 file carries the figure: in cutune's own object of each result, or in a field of T4's own (the
/// timed runs, the times), which t4.cpp maps.
enum class T4Place { Own, Native };

struct ResultField {
  std::string_view name;    ///< in worker messages, json and csv, T4's "cutune" object, the report, Python
  std::string_view column;  ///< in the database's results table
  std::variant<double Result::*, int Result::*, std::int64_t Result::*> member;
  WhenAbsent absent = WhenAbsent::Required;
  T4Place t4 = T4Place::Own;
  /// The values a result from an untrusted file may hold (NaN always passes: an unknown figure); `what` names the
  /// figure in the refusal; empty: not checked.
  std::string_view what = {};
  double least = -std::numeric_limits<double>::infinity();
  double most = std::numeric_limits<double>::infinity();
};

namespace detail {
inline constexpr double kMostBytes = double(std::int64_t{1} << 30);
inline constexpr double kLargest = std::numeric_limits<double>::max();
}  // namespace detail

/// Result's figures in their stored order (config, status, message and samples are each format's own business).
/// Bounds of resources lie far beyond today's GPUs (1024 threads and 228 KiB of shared memory per block, 32
/// resident blocks per SM), so that a future GPU's real figures pass while negative and absurd ones do not.
inline constexpr ResultField kResultFields[] = {
    {"median_ms", "median_ms", &Result::median_ms, WhenAbsent::Required, T4Place::Native},
    {"min_ms", "min_ms", &Result::min_ms, WhenAbsent::Required, T4Place::Native},
    {"max_ms", "max_ms", &Result::max_ms, WhenAbsent::Required, T4Place::Native},
    {"spread", "spread", &Result::spread, WhenAbsent::Required, T4Place::Native},
    {"metric", "metric", &Result::metric, WhenAbsent::Required, T4Place::Own, "metric", 0.0, detail::kLargest},
    {"max_error", "max_error", &Result::max_error, WhenAbsent::Required, T4Place::Own},
    {"registers", "registers", &Result::registers, WhenAbsent::Required, T4Place::Own},
    {"compile_ms", "compile_ms", &Result::compile_ms, WhenAbsent::Required, T4Place::Native},
    {"spill_bytes", "spill_bytes", &Result::spill_bytes, WhenAbsent::Zero, T4Place::Own, "spill size", 0.0,
     detail::kMostBytes},
    {"static_smem_bytes", "static_smem", &Result::static_smem_bytes, WhenAbsent::Zero, T4Place::Own,
     "static shared memory size", 0.0, detail::kMostBytes},
    {"dynamic_smem_bytes", "dynamic_smem", &Result::dynamic_smem_bytes, WhenAbsent::Zero, T4Place::Own,
     "dynamic shared memory size", 0.0, detail::kMostBytes},
    {"threads_per_block", "threads_per_block", &Result::threads_per_block, WhenAbsent::Zero, T4Place::Own,
     "block size", 0.0, 65536.0},
    {"blocks", "blocks", &Result::blocks, WhenAbsent::Zero, T4Place::Own, "block count", 0.0},
    {"blocks_per_sm", "blocks_per_sm", &Result::blocks_per_sm, WhenAbsent::Zero, T4Place::Own,
     "count of blocks per SM", 0.0, 4096.0},
    {"peak", "peak", &Result::peak, WhenAbsent::Zero, T4Place::Own, "peak", 0.0, 1e12},
    {"verify_ms", "verify_ms", &Result::verify_ms, WhenAbsent::Unknown, T4Place::Native},
    {"benchmark_ms", "benchmark_ms", &Result::benchmark_ms, WhenAbsent::Unknown, T4Place::Own},
    {"framework_ms", "framework_ms", &Result::framework_ms, WhenAbsent::Unknown, T4Place::Native},
    {"search_ms", "search_ms", &Result::search_ms, WhenAbsent::Unknown, T4Place::Native},
};

/// Whether the figure is an integer (stored as INTEGER, written without a fraction).
inline bool is_integer(const ResultField& f) { return !std::holds_alternative<double Result::*>(f.member); }
/// A figure's value as a double (the integers are far below 2^53), or as an integer.
inline double field_value(const Result& r, const ResultField& f) {
  return std::visit([&r](auto member) { return static_cast<double>(r.*member); }, f.member);
}
inline std::int64_t integer_value(const Result& r, const ResultField& f) {
  return std::visit([&r](auto member) { return static_cast<std::int64_t>(r.*member); }, f.member);
}
/// Sets a figure (an integer one from a whole number).
inline void set_field(Result& r, const ResultField& f, double value) {
  std::visit([&](auto member) { r.*member = static_cast<std::decay_t<decltype(r.*member)>>(value); }, f.member);
}

}  // namespace cutune
