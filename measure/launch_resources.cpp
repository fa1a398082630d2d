// Reads what a loaded kernel asks of the GPU at its launch geometry, from the spec's launch and the driver.
#include "workbench.hpp"

namespace cutune::detail {

void record_launch_resources(Result& r, CUfunction f, const Launch& launch) {
  r.threads_per_block = static_cast<int>(launch.threads());
  r.blocks = launch.grid[0] * launch.grid[1] * launch.grid[2];
  r.dynamic_smem_bytes = static_cast<int>(launch.shared_memory);
  const DriverApi& api = driver();
  // Figures only: a driver that does not answer leaves them unknown, and the launch itself says whether it runs.
  if (int bytes = 0; api.cuFuncGetAttribute(&bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS) {
    r.static_smem_bytes = bytes;
  }
  if (int blocks = 0; api.cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, r.threads_per_block,
                                                                     static_cast<size_t>(launch.shared_memory)) ==
                      CUDA_SUCCESS) {
    r.blocks_per_sm = blocks;
  }
}

}  // namespace cutune::detail
