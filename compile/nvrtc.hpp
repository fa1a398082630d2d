// NVRTC for any source and several kernels at once: what the spec compiles and the tuner's own support code share.
// A compile runs in this process, or in a compiler process when the calling thread has runners (a CompilePool made
// with them): threads of one process that compile at once wait for each other inside NVRTC, processes do not.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"

namespace cutune::detail {

struct NvrtcRequest {
  std::string source;
  std::string source_name;
  std::vector<std::string> names;    ///< kernel names or template instances such as "fill_random<float>"
  std::vector<std::string> options;  ///< besides cutune's own (architecture, C++17, resource report, -DCUTUNE=1)
  std::string arch;                  ///< "sm_90", "sm_90a"
};

struct NvrtcOutput {
  bool ok = false;
  std::string cubin;
  std::string log;
  std::vector<std::string> lowered_names;  ///< one per requested name, in order
  bool interrupted = false;                ///< the runner's process was killed from outside, twice (log says so)
};

/// Runs NVRTC somewhere other than the calling thread; one per thread, used by one thread at a time.
class NvrtcRunner {
 public:
  virtual ~NvrtcRunner() = default;
  /// As nvrtc_compile_here(); a runner that could not compile (its process died) says so in a failed output.
  virtual NvrtcOutput run(const NvrtcRequest& request) = 0;
};

/// Compiles `request` in this process. Compile failures are in the output; only NVRTC misuse throws CudaError.
NvrtcOutput nvrtc_compile_here(const NvrtcRequest& request);

/// Compiles through the calling thread's runner when it has runners (RunnersForThisThread), else in this process.
NvrtcOutput nvrtc_compile(const std::string& source, const std::string& source_name,
                          const std::vector<std::string>& names, const std::vector<std::string>& options,
                          const std::string& arch);

/// Gives the calling thread runners from `factory` for the rest of the scope (none when it is empty): the first
/// compile makes one, which the thread keeps until the scope ends.
class RunnersForThisThread {
 public:
  explicit RunnersForThisThread(const NvrtcRunnerFactory* factory);
  ~RunnersForThisThread();
  RunnersForThisThread(const RunnersForThisThread&) = delete;
  RunnersForThisThread& operator=(const RunnersForThisThread&) = delete;

 private:
  const NvrtcRunnerFactory* previous_;
};

}  // namespace cutune::detail
