// Tests of the resource arithmetic: waves, occupancy, the FP32 peak and the fraction of it, per architecture.
#include <gtest/gtest.h>

#include <cmath>

#include "cutune/resources.hpp"

namespace cutune {
namespace {

TEST(Resources, WavesCountBlocksOverEverySmsResidentBlocks) {
  // 132 SMs holding 2 blocks each: 264 blocks fill one wave, 265 spill into a second.
  EXPECT_DOUBLE_EQ(waves(264, 132, 2), 1.0);
  EXPECT_DOUBLE_EQ(waves(265, 132, 2), 265.0 / 264.0);
  EXPECT_DOUBLE_EQ(waves(66, 132, 1), 0.5);
  EXPECT_DOUBLE_EQ(waves(4'000'000'000LL, 100, 4), 1e7);
  EXPECT_TRUE(std::isnan(waves(0, 132, 2)));   // unknown grid
  EXPECT_TRUE(std::isnan(waves(264, 0, 2)));   // unknown SM count (an imported device)
  EXPECT_TRUE(std::isnan(waves(264, 132, 0))); // unknown occupancy
}

TEST(Resources, OccupancyIsResidentWarpsOverTheArchitecturesMost) {
  // Hopper holds 64 warps: 4 blocks of 256 threads (8 warps) are half of it.
  EXPECT_DOUBLE_EQ(occupancy(256, 4, 9, 0), 0.5);
  EXPECT_DOUBLE_EQ(occupancy(1024, 2, 9, 0), 1.0);
  // A partial warp still occupies a whole one: 48 threads are 2 warps.
  EXPECT_DOUBLE_EQ(occupancy(48, 8, 9, 0), 16.0 / 64.0);
  // Ada and Ampere consumer parts hold 48 warps, Turing 32, A100 64.
  EXPECT_DOUBLE_EQ(occupancy(256, 6, 8, 9), 1.0);
  EXPECT_DOUBLE_EQ(occupancy(256, 3, 8, 6), 0.5);
  EXPECT_DOUBLE_EQ(occupancy(256, 4, 7, 5), 1.0);
  EXPECT_DOUBLE_EQ(occupancy(256, 4, 8, 0), 0.5);
  EXPECT_TRUE(std::isnan(occupancy(256, 4, 3, 5)));  // an architecture the table does not know
  EXPECT_TRUE(std::isnan(occupancy(0, 4, 9, 0)));
  EXPECT_EQ(max_warps_per_sm(12, 0), 48);
  EXPECT_EQ(max_warps_per_sm(10, 0), 64);
  EXPECT_EQ(max_warps_per_sm(2, 0), 0);
}

TEST(Resources, Fp32PeakFromLanesSmsAndClock) {
  // H100 SXM: 132 SMs × 128 lanes × 2 FLOP × 1.98 GHz = 66.9 TFLOP/s, the figure NVIDIA publishes.
  EXPECT_NEAR(fp32_peak_gflops(9, 0, 132, 1'980'000), 66'908.16, 0.01);
  // A100: 108 SMs × 64 lanes × 2 × 1.41 GHz = 19.5 TFLOP/s.
  EXPECT_NEAR(fp32_peak_gflops(8, 0, 108, 1'410'000), 19'491.84, 0.01);
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);
  EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);
  EXPECT_EQ(fp32_peak_gflops(9, 0, 132, 0), 0.0);
  EXPECT_EQ(fp32_peak_gflops(1, 0, 132, 1'000'000), 0.0);
}

TEST(Resources, Fp64AndTensorCorePeaks) {
  // NVIDIA's dense figures: H100 SXM 989.4 TFLOP/s FP16/BF16 and 494.7 TF32 at 1.83 GHz, 33.5 FP64 at 1.98 GHz;
  // A100 312 FP16/BF16, 156 TF32 and 9.7 FP64 at 1.41 GHz.
  EXPECT_NEAR(flop_peak_gflops(Metric::Peak::F16Tensor, 9, 0, 132, 1'830'000), 989'400, 100);
  EXPECT_NEAR(flop_peak_gflops(Metric::Peak::Tf32Tensor, 9, 0, 132, 1'830'000), 494'700, 100);
  EXPECT_NEAR(flop_peak_gflops(Metric::Peak::F8Tensor, 9, 0, 132, 1'830'000), 1'978'800, 100);
  EXPECT_EQ(flop_peak_gflops(Metric::Peak::F8Tensor, 8, 0, 108, 1'410'000), 0.0);  // A100: no FP8 tensor cores
  EXPECT_NEAR(flop_peak_gflops(Metric::Peak::Fp64, 9, 0, 132, 1'980'000), 33'450, 10);
  EXPECT_NEAR(flop_peak_gflops(Metric::Peak::F16Tensor, 8, 0, 108, 1'410'000), 311'900, 100);
  EXPECT_NEAR(flop_peak_gflops(Metric::Peak::Tf32Tensor, 8, 0, 108, 1'410'000), 155'900, 100);
  EXPECT_NEAR(flop_peak_gflops(Metric::Peak::Fp64, 8, 0, 108, 1'410'000), 9'746, 1);
  EXPECT_EQ(flop_peak_gflops(Metric::Peak::Fp32, 9, 0, 132, 1'980'000), fp32_peak_gflops(9, 0, 132, 1'980'000));
  // No data sheet figure in the table: unknown, not a guess.
  EXPECT_EQ(flop_peak_gflops(Metric::Peak::F16Tensor, 8, 6, 84, 1'700'000), 0.0);
  EXPECT_EQ(flop_peak_gflops(Metric::Peak::Fp64, 12, 0, 84, 1'700'000), 0.0);
}

TEST(Resources, FractionOfPeakNeedsBoth) {
  EXPECT_DOUBLE_EQ(fraction_of_peak(1500.0, 3000.0), 0.5);
  EXPECT_TRUE(std::isnan(fraction_of_peak(1500.0, 0.0)));
  EXPECT_TRUE(std::isnan(fraction_of_peak(std::nan(""), 3000.0)));
  EXPECT_TRUE(std::isnan(fraction_of_peak(0.0, 3000.0)));  // a failed result has no metric
}

TEST(Resources, DerivedFromAResultOnItsDevice) {
  Result r;
  r.metric = 2400.0;
  r.peak = 3000.0;
  r.threads_per_block = 128;
  r.blocks = 1056;
  r.blocks_per_sm = 8;
  DeviceIdentity h100;
  h100.cc_major = 9;
  h100.sm_count = 132;
  const DerivedResources d = derived_resources(r, h100);
  EXPECT_DOUBLE_EQ(d.waves, 1.0);
  EXPECT_DOUBLE_EQ(d.occupancy, 0.5);
  EXPECT_DOUBLE_EQ(d.fraction_of_peak, 0.8);
}

}  // namespace
}  // namespace cutune
