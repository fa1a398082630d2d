// What a configuration's resources mean on a device: waves, occupancy and the fraction of the peak it reached.
#pragma once

#include <cstdint>

#include "cutune/result.hpp"
#include "cutune/spec.hpp"

namespace cutune {

/// Warps an SM of this compute capability holds at most (CUDA Programming Guide, "Technical Specifications per
/// Compute Capability"); 0 for one this table does not know.
int max_warps_per_sm(int cc_major, int cc_minor);

/// FP32 lanes per SM (one fused multiply-add each per clock); 0 for an unknown compute capability.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

/// The FP32 FMA peak in GFLOP/s: 2 FLOP × lanes per SM × SMs × clock (kHz); 0 when a figure is unknown.
double fp32_peak_gflops(int cc_major, int cc_minor, int sm_count, int clock_khz);

/// The FLOP rate a spec's metric names (Metric::Peak), in GFLOP/s at the given clock: FP32 as above; FP64 FMA units
/// and the tensor cores' dense rates per SM per clock where NVIDIA's data sheets give them (7.0, 8.0 and 9.0
/// for FP64; 8.0 and 9.0 for tensor cores); 0 (unknown) elsewhere rather than a guess.
double flop_peak_gflops(Metric::Peak peak, int cc_major, int cc_minor, int sm_count, int clock_khz);

/// Full waves of blocks a launch takes: blocks ÷ (SMs × resident blocks per SM), e.g. 1.02 means a second, nearly
/// empty wave. NaN when a figure is unknown (0).
double waves(std::int64_t blocks, int sm_count, int blocks_per_sm);

/// Resident warps per SM over the most the SM holds (0 to 1). NaN when a figure is unknown.
double occupancy(int threads_per_block, int blocks_per_sm, int cc_major, int cc_minor);

/// metric ÷ peak (0 to about 1); NaN when the peak is unknown or the result has no metric.
double fraction_of_peak(double metric, double peak);

/// The derived figures of one result on its device.
struct DerivedResources {
  double waves;
  double occupancy;
  double fraction_of_peak;
};
DerivedResources derived_resources(const Result& r, const DeviceIdentity& device);

}  // namespace cutune
