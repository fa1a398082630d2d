// The C and C++ standard headers that device code includes, given to NVRTC (which ships none) with every compile.
#pragma once

#include <string>
#include <vector>

namespace cutune::detail {

/// What a compile sees besides its source and options: named in-memory headers and the toolkit's include folders.
struct DeviceHeaders {
  /// Include names ("math.h", "cstdint", "type_traits", ...) and their texts, in the same order: cutune's own C
  /// headers (compile/device_headers/, embedded at build time) and C++ headers that are libcu++'s <cuda/std/...>
  /// (the CUDA toolkit's) with its names in namespace std; "cub/cub.cuh", the toolkit's CUB without its host-only
  /// parts.
  std::vector<std::string> names;
  std::vector<std::string> texts;
  /// --include-path options: the toolkit's include folder (cuda_fp16.h, ...) and its cccl folder (libcu++, CUB), where
  /// they exist (CUDA_PATH, CUDA_HOME, then /usr/local/cuda).
  std::vector<std::string> include_options;
  /// A hash of all the above and of the toolkit's libcu++ and CUB version headers: part of every cubin cache key, so
  /// that another cutune build or toolkit never answers with a cubin compiled against other headers.
  std::string key;
};

/// The process's headers, found and hashed once.
const DeviceHeaders& device_headers();

/// The C++ standard headers that are libcu++'s, in the order device_headers() lists them after the C headers.
const std::vector<std::string>& libcudacxx_header_names();

}  // namespace cutune::detail
