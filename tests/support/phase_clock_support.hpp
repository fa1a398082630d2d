// What the tests of the tuner's clock check of every run, whether a stand-in worker or a GPU measured it.
#pragma once

#include <gtest/gtest.h>

#include "cutune/tuner.hpp"

namespace cutune::testing {

/// The phases of a shape add up to its wall time, up to rounding, and none is negative.
inline void expect_accounted(const ShapeReport& r) {
  const PhaseTimes& t = r.phases;
  EXPECT_DOUBLE_EQ(r.seconds, t.wall_s);
  EXPECT_NEAR(t.phase_sum(), t.wall_s, 1e-6 * t.wall_s)
      << "start-up " << t.startup_s << " s, waiting for compiles " << t.compile_wait_s << " s, measuring "
      << t.measure_s << " s, searching " << t.search_s << " s, storing " << t.store_s << " s, other " << t.other_s
      << " s; wall " << t.wall_s << " s";
  for (const auto& [name, s] : t.phases()) EXPECT_GE(s, 0.0) << name;
}

/// A configuration measured in this run keeps where its time went: compiling, verifying and timing took some, and
/// the rest of its evaluation (loading, the worker's round trip) and the strategy none below zero.
inline void expect_result_times(const Result& r) {
  EXPECT_GT(r.compile_ms, 0.0) << r.config;
  EXPECT_GT(r.verify_ms, 0.0) << r.config;
  EXPECT_GT(r.benchmark_ms, 0.0) << r.config;
  EXPECT_GE(r.framework_ms, 0.0) << r.config;
  EXPECT_GE(r.search_ms, 0.0) << r.config;
}

}  // namespace cutune::testing
