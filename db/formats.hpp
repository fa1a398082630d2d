// The built-in exchange formats' readers and writers, listed in the table of db/exchange.cpp.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "cutune/database.hpp"

namespace cutune::detail {

/// The first `bytes` of a stream, which is left at its start again: what format detection looks at.
std::string read_head(std::istream& in, std::size_t bytes = 4096);

/// The json document described in exchange.hpp; read_json throws InputError naming `source` and the field at fault.
void write_json(const std::vector<RunRecord>& runs, std::ostream& out);
std::vector<RunRecord> read_json(std::istream& in, const std::string& source);
/// One RFC 4180 row per measurement, with its run's provenance.
void write_csv(const std::vector<RunRecord>& runs, std::ostream& out);

}  // namespace cutune::detail
