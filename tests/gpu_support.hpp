// What the GPU tests share: skipping, with the reason, on machines without a CUDA device.
#pragma once

#include <gtest/gtest.h>

#include "cutune/device.hpp"

/// Skips the current test when there is no GPU, saying why (no driver, no device, ...).
#define REQUIRE_GPU() \
  if (::cutune::Device::count() == 0) GTEST_SKIP() << ::cutune::Device::unavailable_reason()
