// What the T4 and Kernel Tuner cache fuzz targets share: one input through a foreign format's detection, its
// reader (with and without the context the command line gives) and the database's import of the runs read.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "cutune/database.hpp"
#include "cutune/error.hpp"
#include "cutune/foreign.hpp"
#include "formats/foreign_formats.hpp"

namespace cutune::fuzz {

using FormatFor = ExchangeFormat (*)(const ForeignContext&);

inline void import_one(FormatFor format_for, const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  (void)format_for({}).detect(std::string_view(bytes).substr(0, 4096));
  for (const ForeignContext& context : {ForeignContext{}, ForeignContext{"NVIDIA A100-PCIE-40GB", "fuzz", "64x64"}}) {
    try {
      std::istringstream in(bytes);
      const auto runs = format_for(context).read(in, "fuzz.json");
      Database db(":memory:");  // a fresh one each time, so that every input runs alone
      db.add_runs(runs);
    } catch (const Error&) {
      // A malformed file, reported with its name and field.
    }
  }
}

}  // namespace cutune::fuzz
