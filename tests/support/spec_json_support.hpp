// Specs written as JSON in the tests: parsing one, or the SpecError it gives.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cutune/error.hpp"
#include "cutune/spec.hpp"

namespace cutune::testing {

using SpecJson = nlohmann::ordered_json;

inline KernelSpec spec_from_json(const SpecJson& j, const std::string& source = "") {
  return KernelSpec::from_json(j.dump(), source, j.value("source", "kernel.cu"));
}

/// The SpecError's message, or "(no error)".
inline std::string spec_error(const SpecJson& j) {
  try {
    spec_from_json(j);
  } catch (const SpecError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace cutune::testing
