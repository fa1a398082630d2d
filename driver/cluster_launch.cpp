// Launches kernels with clusters and checks beforehand that a cluster of the kernel fits on the GPU.
#include "cluster_launch.hpp"

namespace cutune::detail {
namespace {

constexpr std::int64_t kPortableClusterSize = 8;

// The launch configuration of cuLaunchKernelEx and cuOccupancyMaxActiveClusters, pointing at `attribute`.
CUlaunchConfig launch_config(const Launch& l, CUstream stream, CUlaunchAttribute& attribute) {
  attribute = {};
  attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attribute.value.clusterDim.x = static_cast<unsigned>(l.cluster[0]);
  attribute.value.clusterDim.y = static_cast<unsigned>(l.cluster[1]);
  attribute.value.clusterDim.z = static_cast<unsigned>(l.cluster[2]);
  CUlaunchConfig config{};
  config.gridDimX = static_cast<unsigned>(l.grid[0]);
  config.gridDimY = static_cast<unsigned>(l.grid[1]);
  config.gridDimZ = static_cast<unsigned>(l.grid[2]);
  config.blockDimX = static_cast<unsigned>(l.block[0]);
  config.blockDimY = static_cast<unsigned>(l.block[1]);
  config.blockDimZ = static_cast<unsigned>(l.block[2]);
  config.sharedMemBytes = static_cast<unsigned>(l.shared_memory);
  config.hStream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return config;
}

}  // namespace

CUresult launch_kernel(CUfunction f, const Launch& l, CUstream stream, void** params) {
  if (l.cluster_size() == 1) {
    return driver().cuLaunchKernel(f, static_cast<unsigned>(l.grid[0]), static_cast<unsigned>(l.grid[1]),
                                   static_cast<unsigned>(l.grid[2]), static_cast<unsigned>(l.block[0]),
                                   static_cast<unsigned>(l.block[1]), static_cast<unsigned>(l.block[2]),
                                   static_cast<unsigned>(l.shared_memory), stream, params, nullptr);
  }
  CUlaunchAttribute attribute;
  const CUlaunchConfig config = launch_config(l, stream, attribute);
  return driver().cuLaunchKernelEx(&config, f, params, nullptr);
}

std::optional<std::string> prepare_cluster_launch(CUfunction f, const Launch& l) {
  if (l.cluster_size() == 1) return std::nullopt;
  const DriverApi& api = driver();
  if (l.cluster_size() > kPortableClusterSize) {
    const CUresult e = api.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
    if (e != CUDA_SUCCESS) return describe(e, "cuFuncSetAttribute(non-portable cluster size)");
  }
  CUlaunchAttribute attribute;
  const CUlaunchConfig config = launch_config(l, nullptr, attribute);
  int clusters = 0;
  if (api.cuOccupancyMaxActiveClusters(&clusters, f, &config) == CUDA_SUCCESS && clusters == 0) {
    return "cuOccupancyMaxActiveClusters: no cluster of " + std::to_string(l.cluster_size()) +
           " blocks of this kernel fits on the GPU at once (threads, registers or shared memory per block)";
  }
  return std::nullopt;
}

}  // namespace cutune::detail
