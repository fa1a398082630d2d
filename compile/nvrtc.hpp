// NVRTC for any source and several kernels at once: what the spec compiles and the tuner's own support code share.
#pragma once

#include <string>
#include <vector>

namespace cutune::detail {

struct NvrtcOutput {
  bool ok = false;
  std::string cubin;
  std::string log;
  std::vector<std::string> lowered_names;  ///< one per requested name, in order
};

/// Compiles `source` for `arch` ("sm_90"), asking for each of `names` (kernel names or template instances
/// such as "fill_random<float>"). Compile failures are in the output; only NVRTC misuse throws CudaError.
NvrtcOutput nvrtc_compile(const std::string& source, const std::string& source_name,
                          const std::vector<std::string>& names, const std::vector<std::string>& options,
                          const std::string& arch);

}  // namespace cutune::detail
