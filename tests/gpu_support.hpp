// What the GPU tests share: skipping, with the reason, on machines without a CUDA device; a quick measurement.
#pragma once

#include <gtest/gtest.h>

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

}  // namespace cutune::testing
