// A tiny kernel for host tests whose GPU is the stand-in worker: NVRTC compiles it for real, nothing runs it.
#pragma once

#include <string>

#include "cutune/spec.hpp"

namespace cutune::test {

/// Kernel `name` over a shape N, tuned over `parameters` (a JSON object, e.g. {"A": [1, 2], "B": [1, 2, 3]}), whose
/// output element is the expression `value` of those parameters.
inline KernelSpec stand_in_kernel(const std::string& name, const std::string& parameters, const std::string& value) {
  const std::string spec = R"json({"name": ")json" + name + R"json(", "source": "k.cu", "kernel": "k", "shape": ["N"],
    "parameters": )json" + parameters + R"json(, "block": [32], "grid": ["ceil_div(N, 32)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}, {"name": "n", "type": "int", "value": "N"}],
    "reference": {"kernel": "k_ref", "block": [32], "grid": ["ceil_div(N, 32)"]}, "metric": {"bytes": "4 * N"}})json";
  const std::string source =
      "extern \"C\" __global__ void k(float* out, int n) { int i = blockIdx.x * 32 + threadIdx.x; if (i < n) out[i] = " +
      value + "; }\n"
      "extern \"C\" __global__ void k_ref(float* out, int n) { int i = blockIdx.x * 32 + threadIdx.x; if (i < n) out[i] = 1; }\n";
  return KernelSpec::from_json(spec, source, "k.cu");
}

}  // namespace cutune::test
