// What the GPU tests share: skipping, with the reason, on machines without a CUDA device; a quick measurement; a
// configuration as its own reference (determinism).
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cutune/device.hpp"
#include "cutune/measure.hpp"

/// Skips the current test when there is no GPU, saying why (no driver, no device, ...).
#define REQUIRE_GPU() \
  if (::cutune::Device::count() == 0) GTEST_SKIP() << ::cutune::Device::unavailable_reason()

namespace cutune::testing {

/// For correctness tests: one timed run per configuration, no warm-up, no L2 flush.
inline MeasureOptions quick_measure() {
  MeasureOptions o;
  o.warmup = 0;
  o.repeats = 1;
  o.flush = cutune::L2Flush::None;
  return o;
}

/// `family` with `config` as its reference and a tolerance of 0: a later run of the configuration verifies only if it
/// gives the same bits as the first (the reference's own run).
inline KernelSpec self_referenced(const KernelSpec& family, const Config& config) {
  auto j = nlohmann::ordered_json::parse(family.json);
  auto reference = nlohmann::ordered_json::object();
  for (std::size_t p = 0; p < family.parameters.size(); ++p) {
    reference[family.parameters[p].name] = config.values[p].as_int();
  }
  j["reference"] = {{"configuration", reference}};
  j["tolerance"] = {{"atol", 0}, {"rtol", 0}};
  return KernelSpec::from_json(j.dump(), family.source, family.source_name);
}

}  // namespace cutune::testing
