// The report's view of a database: its runs grouped by device, kernel version and shape, narrowed as asked.
#pragma once

#include <string>
#include <vector>

#include "cutune/database.hpp"
#include "cutune/report.hpp"

namespace cutune::detail {

/// One run's measurements of one group, in the order they were measured.
struct RunSeries {
  const RunRecord* run = nullptr;
  std::vector<const Measurement*> measurements;
};

/// Everything stored for one (device, kernel version, shape, L2 convention).
struct ReportGroup {
  DeviceIdentity device;  ///< key and the provenance of the group's latest run
  KernelIdentity kernel;
  std::string shape;
  L2Flush flush = L2Flush::Read;
  std::vector<std::string> parameters;       ///< names, in the order of the configurations' canonical form
  std::vector<const Measurement*> current;   ///< the latest measurement of each configuration, fastest Ok first
  std::vector<RunSeries> runs;               ///< ordered by start time
  std::size_t measurements = 0;              ///< history included
};

struct ReportData {
  std::filesystem::path database;
  std::vector<RunRecord> runs;     ///< owns what the groups point into
  std::vector<ReportGroup> groups; ///< ordered by kernel, shape (short first), device
};

/// Reads the database and groups it. Throws InputError when it holds no results, or none of the kernel, shape
/// or GPU asked for, naming what it holds instead.
ReportData collect_report_data(Database& db, const ReportOptions& options);

}  // namespace cutune::detail
