// The arithmetic of resources: per-architecture SM figures, waves, occupancy and the fraction of the peak.
#include "cutune/resources.hpp"

#include <cmath>
#include <limits>

namespace cutune {
namespace {

constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();

struct SmFigures {
  int cc_major;
  int cc_minor;  // -1: every minor version of the major one not listed before it
  int max_warps;
  int fp32_lanes;
};

// The CUDA Programming Guide's tables (resident warps per SM; FP32 results per clock per SM). The Ampere and later
// consumer parts (8.6, 8.9, 12.x) hold 48 warps but issue 128 FP32 lanes; Volta, Turing and A100 have 64.
constexpr SmFigures kSmFigures[] = {
    {5, -1, 64, 128}, {6, 0, 64, 64},  {6, -1, 64, 128}, {7, 5, 32, 64},  {7, -1, 64, 64},
    {8, 0, 64, 64},   {8, -1, 48, 128}, {9, -1, 64, 128}, {10, -1, 64, 128}, {12, -1, 48, 128},
};

const SmFigures* sm_figures(int cc_major, int cc_minor) {
  for (const auto& f : kSmFigures) {
    if (f.cc_major == cc_major && (f.cc_minor == cc_minor || f.cc_minor == -1)) return &f;
  }
  return nullptr;
}

}  // namespace

int max_warps_per_sm(int cc_major, int cc_minor) {
  const SmFigures* f = sm_figures(cc_major, cc_minor);
  return f ? f->max_warps : 0;
}

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  const SmFigures* f = sm_figures(cc_major, cc_minor);
  return f ? f->fp32_lanes : 0;
}

double fp32_peak_gflops(int cc_major, int cc_minor, int sm_count, int clock_khz) {
  const int lanes = fp32_lanes_per_sm(cc_major, cc_minor);
  if (lanes <= 0 || sm_count <= 0 || clock_khz <= 0) return 0.0;
  return 2.0 * lanes * sm_count * (clock_khz * 1e3) / 1e9;
}

double flop_peak_gflops(Metric::Peak peak, int cc_major, int cc_minor, int sm_count, int clock_khz) {
  if (peak == Metric::Peak::Fp32) return fp32_peak_gflops(cc_major, cc_minor, sm_count, clock_khz);
  // FLOP per clock per SM: FP64 lanes × 2 (V100, A100: 32 lanes; H100: 64); dense tensor-core rates: A100 1024
  // (TF32) and 2048 (FP16/BF16, FP32 accumulation), H100 2048, 4096 and 8192 (FP8; A100 has none).
  int per_clock = 0;
  if (peak == Metric::Peak::Fp64) {
    if ((cc_major == 7 && cc_minor == 0) || (cc_major == 8 && cc_minor == 0)) per_clock = 64;
    if (cc_major == 9 && cc_minor == 0) per_clock = 128;
  } else if (cc_major == 8 && cc_minor == 0) {
    per_clock = peak == Metric::Peak::Tf32Tensor ? 1024 : peak == Metric::Peak::F16Tensor ? 2048 : 0;
  } else if (cc_major == 9 && cc_minor == 0) {
    per_clock = peak == Metric::Peak::Tf32Tensor ? 2048 : peak == Metric::Peak::F16Tensor ? 4096 : 8192;
  }
  if (per_clock <= 0 || sm_count <= 0 || clock_khz <= 0) return 0.0;
  return static_cast<double>(per_clock) * sm_count * (clock_khz * 1e3) / 1e9;
}

double waves(std::int64_t blocks, int sm_count, int blocks_per_sm) {
  if (blocks <= 0 || sm_count <= 0 || blocks_per_sm <= 0) return kUnknown;
  return static_cast<double>(blocks) / (static_cast<double>(sm_count) * blocks_per_sm);
}

double occupancy(int threads_per_block, int blocks_per_sm, int cc_major, int cc_minor) {
  const int most = max_warps_per_sm(cc_major, cc_minor);
  if (threads_per_block <= 0 || blocks_per_sm <= 0 || most <= 0) return kUnknown;
  const int warps_per_block = (threads_per_block + 31) / 32;
  return static_cast<double>(warps_per_block) * blocks_per_sm / most;
}

double fraction_of_peak(double metric, double peak) {
  if (!(peak > 0.0) || !std::isfinite(metric) || metric <= 0.0) return kUnknown;
  return metric / peak;
}

DerivedResources derived_resources(const Result& r, const DeviceIdentity& device) {
  return {waves(r.blocks, device.sm_count, r.blocks_per_sm),
          occupancy(r.threads_per_block, r.blocks_per_sm, device.cc_major, device.cc_minor),
          fraction_of_peak(r.metric, r.peak)};
}

}  // namespace cutune
