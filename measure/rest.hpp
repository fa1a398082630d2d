// How long the GPU rests between the measurements of two configurations, so that each starts at the same power state.
//
// A compute-bound kernel that runs back to back for tens of milliseconds draws the GPU to its power limit, and its
// clocks fall: on an H200 cuBLASLt's 4096x14336x4096 BF16 GEMM timed 0.595 ms for its first configurations of a
// shape and 0.62-0.69 ms for the later ones, each measured right after the last (15 runs each). A tuning run
// measures a template's configurations between compiles, with the GPU idle in between, but a library family's
// configurations (nothing to compile) back to back: without a rest the library was timed 5-8% slow at the large
// shapes, and an operation launched a template that cuBLAS beat.
#pragma once

#include <chrono>
#include <vector>

namespace cutune::detail {

/// Measurements that kept the GPU busy for less than this (ms, their timed runs summed) need no rest.
inline constexpr double kRestAbove = 1.0;

/// The rest after a measurement whose timed runs took `samples_ms`: as long as they kept the GPU busy (at most half
/// the time busy), or nothing below kRestAbove.
std::chrono::microseconds rest_after(const std::vector<double>& samples_ms);

}  // namespace cutune::detail
