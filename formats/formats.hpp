// The built-in exchange formats' readers and writers, listed in the table of formats/exchange.cpp.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "cutune/database.hpp"

namespace cutune::detail {

/// The first `bytes` of a stream, which is left at its start again: what format detection looks at.
std::string read_head(std::istream& in, std::size_t bytes = 4096);

/// One kernel version on one device (by name) at one shape under one L2 convention: what a Kernel Tuner cache holds.
struct RunGroup {
  std::string kernel;
  std::string version;
  std::string device;  ///< normalised
  std::string shape;
  L2Flush flush = L2Flush::Read;
  bool operator<(const RunGroup& o) const;
};
/// The groups that runs' measurements fall in, each with its count of measurements.
std::map<RunGroup, std::size_t> run_groups(const std::vector<RunRecord>& runs);

/// The json document described in exchange.hpp; read_json throws InputError naming `source` and the field at fault.
void write_json(const std::vector<RunRecord>& runs, std::ostream& out);
std::vector<RunRecord> read_json(std::istream& in, const std::string& source);
/// One RFC 4180 row per measurement, with its run's provenance.
void write_csv(const std::vector<RunRecord>& runs, std::ostream& out);

}  // namespace cutune::detail
