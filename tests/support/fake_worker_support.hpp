// What the tests of worker and compiler processes share: a tiny spec whose MODE parameter tells tests/support/fake_worker.cpp
// what to do (crash, hang, exit, ...), a kernel for real compiles, the worker client started against the fake worker,
// and a compiled binary the fake worker accepts.
#pragma once

#include <memory>
#include <string>

#include "cutune/compiler.hpp"
#include "cutune/spec.hpp"
#include "worker/worker_client.hpp"

namespace cutune::testing {

/// A spec of one kernel `k` over N elements, with parameters `parameters` (JSON object members, e.g.
/// `"MODE": [0, 1], "X": [1, 2]`) and `reference` as its reference kernel.
inline std::string tiny_spec_json(const std::string& parameters, const std::string& reference = "k_ref") {
  return R"json({"name": "k", "source": "k.cu", "kernel": "k", "shape": ["N"], "parameters": {)json" + parameters +
         R"json(}, "block": [32], "grid": ["ceil_div(N, 32)"],
  "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true}, {"name": "n", "type": "int", "value": "N"}],
  "reference": {"kernel": ")json" + reference + R"json(", "block": [32], "grid": ["ceil_div(N, 32)"]},
  "metric": {"bytes": "4 * N"}})json";
}

/// `k` for NVRTC: out[i] = X * i.
inline constexpr const char* kTinySource =
    "extern \"C\" __global__ void k(float* out, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = X * i;\n"
    "}\n";

/// The worker client against tests/support/fake_worker.cpp, prepared for `spec` at N = 1000.
inline std::unique_ptr<detail::Evaluator> start_fake_worker(const KernelSpec& spec, double floor_s, int max_failures) {
  detail::WorkerSettings settings;
  settings.executable = CUTUNE_FAKE_WORKER_EXE;
  settings.timeout_floor_s = floor_s;
  settings.max_consecutive_failures = max_failures;
  auto evaluator = detail::make_worker_evaluator(settings);
  evaluator->prepare(spec, Shape{{1000}}, L2Flush::Read);
  return evaluator;
}

/// A compiled binary the fake worker takes (it never loads it).
inline CompileOutput fake_binary() {
  CompileOutput c;
  c.ok = true;
  c.cubin = std::string("\0cubin\0", 7);
  c.lowered_name = "k";
  return c;
}

}  // namespace cutune::testing
