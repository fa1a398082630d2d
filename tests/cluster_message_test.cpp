// Host test of the hello message of an MPI job: a rank's GPU identity and launch limits survive the trip to rank 0.
#include <gtest/gtest.h>

#ifdef CUTUNE_MPIEXEC
#include "cluster/device_message.hpp"
#include "cutune/device_choice.hpp"

namespace cutune {
namespace {

TEST(ClusterMessage, GpuIdentityAndLimitsRoundTrip) {
  cluster::LocalGpu gpu;
  gpu.ordinal = 3;
  gpu.identity = {"NVIDIA H200", 9, 0, 132, 3201000, 6144, 150000000000, "GPU-1234", 13000, 13000};
  gpu.limits.max_threads_per_block = 512;
  gpu.limits.max_block = {512, 256, 32};
  gpu.limits.max_grid = {1000, 2000, 3000};
  gpu.limits.max_shared_per_block = 1000;
  gpu.limits.max_shared_per_block_optin = 2000;
  gpu.limits.compute_capability = 80;
  gpu.limits.max_cluster_size = 8;
  // Through text, as over MPI.
  const cluster::LocalGpu back =
      cluster::local_gpu_from_message(cluster::Message::parse(cluster::to_message(gpu).dump()));
  EXPECT_EQ(back.ordinal, 3);
  EXPECT_EQ(back.identity.name, "NVIDIA H200");
  EXPECT_EQ(back.identity.sm_count, 132);
  EXPECT_EQ(back.identity.total_memory, 150000000000);
  EXPECT_EQ(back.identity.uuid, "GPU-1234");
  EXPECT_EQ(back.identity.nvrtc_version, 13000);
  EXPECT_EQ(back.limits.max_block, gpu.limits.max_block);
  EXPECT_EQ(back.limits.max_grid, gpu.limits.max_grid);
  EXPECT_EQ(back.limits.max_shared_per_block_optin, 2000);
  EXPECT_EQ(back.limits.compute_capability, 80);
  EXPECT_EQ(back.limits.max_cluster_size, 8);
  EXPECT_TRUE(same_model(back.identity, gpu.identity));
  DeviceIdentity other = gpu.identity;
  other.sm_count = 114;
  EXPECT_FALSE(same_model(other, gpu.identity));
}

}  // namespace
}  // namespace cutune
#endif
