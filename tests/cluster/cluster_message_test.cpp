// Host tests of the messages of an MPI job: a rank's GPU identity and launch limits survive the trip to rank 0, and a
// job's compiled kernel (binary) the trip to its rank.
#include <gtest/gtest.h>

#ifdef CUTUNE_MPIEXEC
#include "cluster/device_message.hpp"
#include "cluster/transport.hpp"
#include "worker/worker_protocol.hpp"
#include "cutune/device_choice.hpp"
#include "cutune/error.hpp"

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
  // Encoded and decoded, as over MPI.
  const cluster::LocalGpu back = cluster::local_gpu_from_message(cluster::decode(cluster::encode(cluster::to_message(gpu))));
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

TEST(ClusterMessage, ACompiledKernelTravelsWithItsJob) {
  // Rank 0's compile pool sends the binary with the job; its bytes (NULs and all) arrive as they left. As JSON text,
  // the binary value came back as an object, and every job sent with a binary failed on its rank.
  CompileOutput compiled;
  compiled.ok = true;
  compiled.cubin = std::string("\x7f" "ELF\0\x01\xff binary", 16);
  compiled.lowered_name = "gemm";
  compiled.registers = 128;
  const cluster::Message job = {{"seq", 7}, {"config", "BM=128,BN=64"}, {"compiled", detail::to_message(compiled)}};
  const cluster::Message back = cluster::decode(cluster::encode(job));
  EXPECT_EQ(back.at("seq").get<int>(), 7);
  const CompileOutput arrived = detail::compile_output_from_message(back.at("compiled"));
  EXPECT_TRUE(arrived.ok);
  EXPECT_EQ(arrived.cubin, compiled.cubin);
  EXPECT_EQ(arrived.registers, 128);
  EXPECT_THROW(cluster::decode({0xff, 0x00, 0x13}), InputError);
}

}  // namespace
}  // namespace cutune
#endif
