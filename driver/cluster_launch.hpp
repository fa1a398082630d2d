// Kernel launches with thread-block clusters (cuLaunchKernelEx), shared by the workbench and the runtime API.
#pragma once

#include <optional>
#include <string>

#include "cuda_driver.hpp"
#include "cutune/spec.hpp"

namespace cutune::detail {

/// Launches `f` with the geometry on `stream`: cuLaunchKernel, or cuLaunchKernelEx with the cluster-dimension
/// attribute when the cluster has several blocks.
CUresult launch_kernel(CUfunction f, const Launch& launch, CUstream stream, void** params);

/// Before the first launch of a kernel with a cluster of several blocks: allows a non-portable cluster size above 8
/// blocks, then asks the driver whether one such cluster fits on the GPU at all (cuOccupancyMaxActiveClusters).
/// Returns why it cannot be launched, or nullopt (also when the driver cannot tell: the launch then decides).
std::optional<std::string> prepare_cluster_launch(CUfunction f, const Launch& launch);

}  // namespace cutune::detail
