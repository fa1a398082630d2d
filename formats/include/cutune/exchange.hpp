// Moving tuning results between machines: file formats for runs, export, import, and merging databases.
//
// Every format reads or writes the same value, a list of RunRecord (database.hpp), so a format is only a reader
// and/or a writer: json (cutune's own, lossless, reads back), csv (one row per measurement, for spreadsheets).
// Other formats (T4 results and Kernel Tuner caches, both ways) are added the same way, to the built-in table in
// formats/exchange.cpp or at run time with register_exchange_format(). Export writes every run, or those an
// ExportSelection picks.
//
// The json document:
//   {"format": "cutune-runs", "format_version": 2, "exported_by": "cutune 0.1.0",
//    "runs": [{"uid": "...", "started_at": "...Z", "host": "...", "cutune_version": "...", "command": "...",
//              "flush": "read",
//              "kernel": {"name": "transpose", "hash": "16 hex digits"},
//              "device": {"name": "NVIDIA H200", "cc_major": 9, "cc_minor": 0, "sm_count": 132,
//                         "uuid": "GPU-...", "driver_version": 13000, "nvrtc_version": 13000,
//                         "memory_clock_khz": 3201000, "memory_bus_bits": 6144, "total_memory": 150110011392,
//                         "library_version": 0},   (a library family's: cublasLtGetVersion; absent in older files)
//              "measurements": [{"shape": "8192x8192", "config": "TILE=32,...", "status": "ok", "message": "",
//                                "samples_ms": [...], "median_ms": 0.1, "min_ms": ..., "max_ms": ..., "spread": ...,
//                                "metric": ..., "max_error": ..., "registers": 32, "compile_ms": ...,
//                                "measured_at": "...Z", "spill_bytes": 0, "static_smem_bytes": 16384,
//                                "dynamic_smem_bytes": 0, "threads_per_block": 256, "blocks": 4096,
//                                "blocks_per_sm": 4, "peak": 3000.0, "verify_ms": 0.4, "benchmark_ms": 2.5,
//                                "framework_ms": 0.7, "search_ms": 0.1}],
//              "times": {"wall_s": 12.5, "startup_s": ..., "compile_wait_s": ..., "measure_s": ..., "search_s": ...,
//                        "store_s": ..., "other_s": ..., "compile_cpu_s": ...}}]}
// Numbers that are NaN are written as null and read back as NaN. The resource fields (spill_bytes ... peak) came
// after version 1 was published without changing any field's meaning: a document that lacks them reads them as 0.
// "flush" (the run's L2 convention: read, write or none) came with version 2, as a reader of version 1 would take
// every run for 'read': a document whose runs all read is still written as version 1, others as version 2; a run
// without "flush" is 'read'. The csv carries it in its "flush" column; the t4 format in metadata.cutune_runs.
// The measurements' verify_ms ... search_ms and the run's "times" (PhaseTimes; null for a run without) came later
// without changing any field's meaning: a document that lacks them reads them as unknown (NaN, no times).

#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/database.hpp"

namespace cutune {

/// A file format for runs: a writer, a reader, or both.
struct ExchangeFormat {
  std::string name;         ///< as given to --format
  std::string description;  ///< one line, for help texts
  /// Writes runs; empty when the format cannot be written.
  std::function<void(const std::vector<RunRecord>& runs, std::ostream& out)> write;
  /// Reads runs; `source` names the input in error messages (InputError). Empty when the format cannot be read.
  std::function<std::vector<RunRecord>(std::istream& in, const std::string& source)> read;
  /// Whether a file's first bytes look like this format, so that import can do without --format.
  std::function<bool(std::string_view head)> detect;
};

/// The built-in formats, then those registered, in that order.
std::vector<ExchangeFormat> exchange_formats();
/// Adds a format, or replaces a registered one of the same name.
void register_exchange_format(ExchangeFormat format);
/// The format of that name; throws InputError naming the known ones.
ExchangeFormat exchange_format(std::string_view name);

/// Which runs and measurements an export writes: those that match every field given; an empty selection picks all.
struct ExportSelection {
  std::string kernel;  ///< a kernel's name, or one of its versions (16 hex digits)
  std::string device;  ///< a device's name as stored (as `tune report --gpu`), white space normalised
  std::string shape;   ///< exactly as stored, e.g. "4096x4096"
  std::optional<L2Flush> flush;
  bool empty() const { return kernel.empty() && device.empty() && shape.empty() && !flush; }
  /// "kernel gemm, device H100, shape 4096x4096, flush read": the fields given.
  std::string describe() const;
};

/// The runs and measurements of `runs` that `selection` picks: runs of other kernels, devices or L2 conventions go,
/// measurements of other shapes go, and so do runs left without any. Throws InputError listing what `runs` hold
/// (describe_groups()) when a non-empty selection picks no measurement.
std::vector<RunRecord> select_runs(std::vector<RunRecord> runs, const ExportSelection& selection);

/// What runs hold, one entry per kernel version, device, shape and L2 convention, with a count of measurements:
/// "gemm (version 1111111111111111) on NVIDIA H200 at 1024x1024, flush read: 2 measurements; ...", at most
/// `limit` entries and how many more.
std::string describe_groups(const std::vector<RunRecord>& runs, std::size_t limit = 20);

/// Writes the runs of a database that `selection` picks (every run by default) in a format (json, csv, ...).
void export_runs(Database& db, std::string_view format, std::ostream& out, const ExportSelection& selection = {});
/// Reads a file (format by name, or detected from its content when empty) and adds its runs to the database;
/// importing the same file twice changes nothing.
ImportSummary import_file(Database& db, const std::filesystem::path& file, std::string_view format = {});

/// Every run of a database file at any schema version this cutune reads, without changing the file. Throws
/// DatabaseError for a missing, damaged, foreign or newer file, saying it cannot be read for `purpose`.
std::vector<RunRecord> read_database(const std::filesystem::path& path, std::string_view purpose = "read");

/// What merging found in its inputs and added to the output.
struct MergeSummary {
  std::size_t inputs = 0;
  ImportSummary added;
};

/// Merges database files into `output` (created when missing, else added to): the union of every run and
/// measurement, with provenance; runs are identified by uid, so merging a file twice, or a copy of a database
/// into itself, changes nothing. Every input is read before anything is written; an input that cannot be read
/// (unknown schema version, damage) refuses the whole merge.
MergeSummary merge_databases(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& output);

}  // namespace cutune
