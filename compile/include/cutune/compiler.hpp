// Compiler: NVRTC compiles of a spec's kernel for one configuration, run in parallel on all CPU cores.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cutune/spec.hpp"

namespace cutune {

namespace detail {
class NvrtcRunner;
/// Makes a runner for a thread of a CompilePool: where its compiles run (compile/nvrtc.hpp).
using NvrtcRunnerFactory = std::function<std::unique_ptr<NvrtcRunner>()>;
}  // namespace detail

/// A compiled kernel, or why it did not compile. A failed compile is a value, never an exception.
struct CompileOutput {
  bool ok = false;
  std::string cubin;         ///< the binary, for cuModuleLoadData
  std::string lowered_name;  ///< the kernel's symbol in the binary
  std::string log;           ///< NVRTC's log (errors, warnings, ptxas resource report)
  int registers = 0;         ///< per thread, from the ptxas report (0 when it gave none)
  int spill_bytes = 0;       ///< spill stores + loads, from the ptxas report
  double ms = 0.0;           ///< wall time of the compile (or of the cache lookup)
  bool from_cache = false;   ///< answered by the cubin cache
  /// Not compiled: its compiler process was killed from outside (SIGKILL, SIGTERM), also when tried again; not the
  /// source's fault, so the configuration is stored as Status::Interrupted, which a resume tries again.
  bool interrupted = false;
};

/// NVRTC's version as major * 1000 + minor * 10 (13.0 -> 13000).
int nvrtc_version();

/// Compiles `kernel` from the spec's source with `options` added to cutune's own, for `arch` (e.g. "sm_90").
CompileOutput compile(const KernelSpec& spec, const std::string& kernel, const std::vector<std::string>& options,
                      const std::string& arch);
/// The registers per thread that let a configuration's block launch (64 Ki registers per block, allocated per warp in
/// multiples of 8): set for blocks of more than 256 threads, so that ptxas spills rather than build a kernel that
/// cannot launch (CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); nullopt when no cap is needed, the block follows the shape, or
/// the spec's compile_options set their own --maxrregcount.
std::optional<int> register_cap(const KernelSpec& spec, const Config& config);
/// A configuration's NVRTC options at a shape: its #defines (the spec's "defines" evaluated at `shape`), and
/// --maxrregcount=register_cap() when there is one. Throws InputError when a define needs the shape and `shape` is
/// null (KernelSpec::defines()); a configuration that is not shape_specialized() gets the same options at every shape.
std::vector<std::string> config_options(const KernelSpec& spec, const Config& config, const Shape* shape = nullptr);
/// The spec's kernel with config_options(), for `arch` or the architecture-specific target the configuration needs
/// (compile_arch() in target.hpp: sm_90a where the spec's "target" asks for it), at `shape` (a shape-specialized
/// configuration without a shape is a failed compile whose log says so).
CompileOutput compile_config(const KernelSpec& spec, const Config& config, const std::string& arch,
                             const Shape* shape = nullptr);
/// What compile_config() gives for a configuration of a library family (KernelSpec::library): a success without a
/// binary, as its launch is the library's call.
CompileOutput library_call(const KernelSpec& spec);
/// config_options(), or the failed compile that says why there are none (a define that needs the shape).
std::optional<std::vector<std::string>> config_options_or(const KernelSpec& spec, const Config& config,
                                                          const Shape* shape, CompileOutput& failed);
/// The options of a reference kernel's compile: the default configuration's #defines and CUTUNE_REFERENCE, so that
/// a source can keep its reference out of the candidates' compiles (#if !defined(CUTUNE) || defined(CUTUNE_REFERENCE)).
std::vector<std::string> reference_defines(const KernelSpec& spec, const Shape* shape = nullptr);
/// The spec's reference kernel (its configuration, when the reference is one), compiled with reference_defines() at
/// `shape`.
CompileOutput compile_reference(const KernelSpec& spec, const std::string& arch, const Shape* shape = nullptr);

/// The CPUs this process may run on: its affinity mask (which an MPI launcher's binding or a cgroup's cpuset narrows),
/// at least 1; every hardware thread when the mask cannot be read.
unsigned usable_cpus();

/// A fixed set of threads that run compile jobs in submission order.
class CompilePool {
 public:
  /// `threads` = 0 uses every CPU this process may run on (usable_cpus()). With `runners`, each thread's NVRTC compiles run through a runner of
  /// its own (a compiler process: make_compiler_processes()); without, in this process.
  explicit CompilePool(unsigned threads = 0, detail::NvrtcRunnerFactory runners = {});
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  std::future<CompileOutput> submit(std::function<CompileOutput()> job);
  /// A job for a spare thread: it starts only when no job of submit() is waiting (compiles ahead of a search, which
  /// must not hold up the compiles it asked for).
  std::future<CompileOutput> submit_spare(std::function<CompileOutput()> job);
  unsigned threads() const { return static_cast<unsigned>(workers_.size()); }

 private:
  std::future<CompileOutput> enqueue(std::function<CompileOutput()> job,
                                     std::deque<std::packaged_task<CompileOutput()>>& queue);
  void work();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::packaged_task<CompileOutput()>> queue_;
  std::deque<std::packaged_task<CompileOutput()>> spare_queue_;  // submit_spare()'s, taken when queue_ is empty
  bool stopping_ = false;
  detail::NvrtcRunnerFactory runners_;
  std::vector<std::thread> workers_;
};

}  // namespace cutune
