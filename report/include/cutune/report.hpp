// The HTML report: one self-contained page (Vega plots inlined, no network) that shows why configurations are fast.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <string>
#include <vector>

#include "cutune/database.hpp"
#include "cutune/replay.hpp"

namespace cutune {

/// What a database report covers; an empty field does not narrow it.
struct ReportOptions {
  std::string kernel;  ///< kernel name, e.g. "gemm"
  std::string shape;   ///< canonical shape, e.g. "4096x4096x4096"
  std::string gpu;     ///< device name as stored (white space normalised), e.g. "NVIDIA H100 80GB HBM3"
  std::string title;   ///< the page's title; empty: "cutune report of <database file>"
};

/// Writes the report of `db` to `out`: per device, kernel version and shape the best configuration with its
/// resources, convergence of every run, the distribution of times, time against each parameter's values and
/// against occupancy and waves, failures with their messages, and the kernel across devices and shapes. Throws
/// InputError when the database holds no results, or none of the kernel, shape or GPU asked for (naming those
/// it holds).
void write_report(Database& db, const ReportOptions& options, std::ostream& out);

/// The same into a file, all or nothing: the page is written beside it and renamed into place, so that a failure
/// leaves no file (and an existing one unchanged). Throws InputError when the file cannot be written.
void write_report_file(Database& db, const ReportOptions& options, const std::filesystem::path& file);

/// Throws InputError when a page could not be written to `file`: its folder is missing or not writable, or it
/// names a folder. For callers that would otherwise find out only after long work (a replay).
void check_report_path(const std::filesystem::path& file);

/// What a replay report shows besides the results: the recorded space it ran on.
struct ReplayReportInfo {
  std::string title;   ///< e.g. "replay of convolution on NVIDIA A100"
  std::string source;  ///< the cache file
};

/// A page of the strategies' convergence curves (median best found / optimum against evaluations, with random
/// sampling's exact curve) and their evaluations to within 5% and 1% of the optimum. Throws InputError when
/// `results` is empty.
void write_replay_report(const std::vector<ReplayResult>& results, const ReplayReportInfo& info, std::ostream& out);
void write_replay_report_file(const std::vector<ReplayResult>& results, const ReplayReportInfo& info,
                              const std::filesystem::path& file);

}  // namespace cutune
