// Internals of the Workbench: device buffers, modules, the support kernels, and the argument list.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "driver/cuda_driver.hpp"
#include "driver/device_memory.hpp"
#include "driver/scalar_bytes.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/measure.hpp"
#include "reference_shelf.hpp"

namespace cutune::detail {

/// The support kernels come in this many modules (a part of the element types each), compiled in parallel.
constexpr std::size_t kSupportParts = 4;

/// The tuner's own kernels (support.cu), one instance per element type.
struct SupportKernels {
  std::array<Module, kSupportParts> modules;
  std::array<CUfunction, kElementTypes> fill_random{};  // indexed by ElementType
  std::array<CUfunction, kElementTypes> fill_value{};
  std::array<CUfunction, kElementTypes> compare{};
  std::array<CUfunction, kElementTypes> mismatches{};  // a few differing elements, after compare found some
  CUfunction flush_l2 = nullptr;
  /// Compiles support.cu's modules once per process and architecture (through the cache when given), then loads them.
  SupportKernels(const std::string& arch, CubinCache* cache);
};

/// Compiles support module `part` (< kSupportParts) for `arch` into the cache (once per process), so that a worker finds
/// it there.
void cache_support_kernels(const std::string& arch, CubinCache* cache, std::size_t part);

/// One kernel argument on the device: a buffer (with its reference output and initial content when it is an
/// output) or a scalar's bytes.
struct DeviceArgument {
  const Argument* spec = nullptr;
  std::size_t count = 0;      // elements, buffers only
  DeviceBuffer buffer;
  DeviceBuffer reference;     // outputs: what the reference kernel wrote
  DeviceBuffer initial;       // outputs that start with data: the data, restored before each verification
  CUdeviceptr pointer = 0;    // cuLaunchKernel reads the argument through a pointer to this
  std::array<unsigned char, 8> scalar{};
  CUtensorMap map{};          // tensor maps: encoded per configuration, as the box follows the tile
  Tolerance tolerance;        // outputs: the bounds in force (MeasureOptions', the output's own, the spec's)
  std::optional<Region> region;  // outputs: the part compared; unset: all of it
};

/// u64 words of the Workbench's `stats` buffer: compare's three, then the mismatches kernel's 1 + 3 * kMismatchSamples.
inline constexpr std::size_t kMismatchSamples = 4;
inline constexpr std::size_t kStatsWords = 3 + 1 + 3 * kMismatchSamples;

/// What outputs are compared with under a verification mode other than None: the spec's reference kernel, or the
/// spec's own kernel at a configuration (its reference configuration, or its default one).
struct ReferenceChoice {
  std::optional<Config> config;  ///< set: the spec's kernel at this configuration; unset: its reference kernel
  std::string name;              ///< for messages: the reference kernel's name, or "the configuration X"
};
/// `checked`: the configuration whose outputs are compared, whose values of the spec's followed parameters
/// ("reference"."follow") the reference configuration takes; null: the reference configuration as the spec gives it,
/// named with the parameters it follows.
ReferenceChoice reference_choice(const KernelSpec& spec, VerifyMode mode, const Config* checked = nullptr);
/// An element of an output that differs from the reference's.
struct MismatchSample {
  std::uint64_t index = 0;
  double value = 0.0;      ///< the output's, as a double
  double reference = 0.0;  ///< the reference's
};
/// A WrongResult's message: how many elements of `output` differ, the first index (with its coordinates in a region of
/// several dimensions), the largest error and the samples with the reference's values.
std::string describe_disagreement(const std::string& output, const Disagreement& d, double max_error,
                                  const std::vector<MismatchSample>& samples, const std::optional<Region>& region);
/// Compiles the reference `mode` chooses (for `checked`, as reference_choice()), through the cache when given (null:
/// none).
CompileOutput compile_reference_for(CubinCache* cache, const KernelSpec& spec, VerifyMode mode,
                                    const std::string& arch, const Shape& shape, const Config* checked = nullptr);

/// What a loaded kernel asks of the GPU at its launch geometry: threads, blocks, shared memory (the spec's dynamic
/// amount and the kernel's static one) and resident blocks per SM by the driver's occupancy calculator. Call it
/// after the kernel's dynamic shared memory limit was raised, as the calculator reads that attribute. A figure the
/// driver does not give stays 0 (unknown).
void record_launch_resources(Result& r, CUfunction f, const Launch& launch);

/// Timed runs after a configuration's verified first one (whose time is `first_ms`): none when it is clearly slower
/// than `best_ms` (0: no best yet), else as many as MeasureOptions' repeats and time budget allow.
int adaptive_more_runs(const MeasureOptions& options, double first_ms, double best_ms);

/// Fills a verified (or Unverified) result's timing figures from its samples, and its metric from the amount (bytes or
/// FLOPs); the status becomes Ok unless it is Unverified.
void record_timing(Result& r, double metric_amount);

/// Wall time since it was made, ms: where an evaluation spends it (Result::verify_ms, benchmark_ms).
class Stopwatch {
 public:
  double ms() const { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// The contents of a buffer of `count` elements that the host computes (host_fill.cpp): a Generator fill evaluated
/// at every index (on every core), or a File fill's bytes (its path relative to spec.folder), which must be exactly
/// `count` elements. Throws InputError naming the argument otherwise.
std::vector<unsigned char> host_fill(const KernelSpec& spec, const Argument& a, const FillRule& fill, const Shape& shape,
                                     std::size_t count);

/// Copies every constant-memory argument's buffer into its __constant__ symbol of `module` on `stream`; why it
/// cannot (no such symbol, too small), or nullopt.
std::optional<std::string> copy_constants(const Module& module, const std::vector<DeviceArgument>& args,
                                          CUstream stream);

class PipelineWorkbench;
class LibraryWorkbench;

/// A launch that failed: the driver's code (a sticky one leaves the context unusable) and what to store.
struct LaunchFailure {
  CUresult code = CUDA_ERROR_INVALID_VALUE;
  std::string message;
};
/// Puts one run of a configuration on the Workbench's stream: a kernel launch, or a library's call.
using Enqueue = std::function<std::optional<LaunchFailure>()>;

}  // namespace cutune::detail

namespace cutune {

struct Workbench::Impl {
  const Device& device;
  const KernelSpec& spec;
  Shape shape;
  MeasureOptions options;
  L2Flush flush;  // the convention in force, resolved by the Workbench's caller
  VerifyMode verify;  // what outputs are compared with: options.verify, else the spec's, else Reference
  CUstream stream = nullptr;
  std::unique_ptr<detail::SupportKernels> support;
  std::vector<detail::DeviceArgument> args;
  detail::DeviceBuffer flush_buffer;
  detail::DeviceBuffer sink;
  detail::DeviceBuffer stats;
  bool usable = true;
  bool prepared = false;  // support kernels loaded and reference computed
  double peak = 0.0;      // the metric's peak on this device (Result::peak), found by prepare()
  std::shared_ptr<detail::PipelineWorkbench> pipeline;  // specs with a host pipeline: its host side (prepare())
  std::shared_ptr<detail::LibraryWorkbench> library;    // library families: the call planned at the shape (prepare())
  /// The reference outputs in force and, for a spec whose reference follows parameters of the configuration it checks,
  /// those computed for other values (followed_reference.cpp).
  struct References {
    CubinCache* cache = nullptr;  // prepare()'s, for references computed while tuning
    std::uint64_t salt = 0;       // the first salt of outputs' expected contents
    std::string current;          // the reference configuration the outputs' `reference` buffers hold; empty: none
    detail::ReferenceShelf<std::vector<detail::DeviceBuffer>> shelf;
  } references;

  Impl(const Device& d, const KernelSpec& s, const Shape& sh, const MeasureOptions& o, L2Flush f)
      : device(d), spec(s), shape(sh), options(o), flush(f), verify(s.verify_mode(o.verify)) {}
  ~Impl();

  /// Grid-stride launch of a support kernel over n elements.
  CUresult launch_support(CUfunction f, std::uint64_t n, void** params);
  /// Fills `buffer` (of `arg`'s type and count) on the stream; `salt` keeps different buffers' random data apart.
  void fill(const detail::DeviceArgument& arg, const FillRule& fill, CUdeviceptr buffer, std::uint64_t salt);
  /// Puts every output back in its initial state (poison or initial data).
  void reset_outputs();
  /// Each output's tolerance and region at this shape (verify.cpp); throws InputError for a region that does not fit.
  void plan_verification();
  /// Runs the reference chosen by `verify` and keeps its outputs (verify.cpp), or under Reference the outputs' expected
  /// content where the spec gives it (filled with salts from `salt` on); nothing under VerifyMode::None.
  void compute_reference(CubinCache* cache, std::uint64_t salt);
  /// Runs the reference `choice` names from its compiled kernel `ref` into the outputs' `reference` buffers; throws
  /// CudaError when it does not compile or run.
  void run_reference(const detail::ReferenceChoice& choice, const CompileOutput& ref);
  /// Puts the reference `config` is compared with in force: the one in force already, one kept from before, or one
  /// computed now (a spec that follows parameters). False, with `r` a NoReference saying why, when that reference is not
  /// a valid configuration or does not run.
  bool follow_reference(const Config& config, Result& r);
  /// Compares every output buffer with the reference output; false (and a WrongResult `r` whose message shows a few
  /// differing elements) when one differs. Under VerifyMode::None compares nothing: `r` becomes Unverified.
  bool verify_outputs(Result& r);
  /// The kernel parameter array for a configuration (scalars evaluated with it; tensor maps as encoded last).
  std::vector<void*> parameters(const Config& config);
  /// Encodes every tensor-map argument for a configuration over its buffer; why it failed, or nullopt.
  std::optional<std::string> encode_tensor_maps(const Config& config);
  CUresult launch(CUfunction f, const Launch& launch, std::vector<void*>& params);
  /// Puts L2 in the state `flush` names before a timed launch: reads or writes the flush buffer, or nothing.
  void flush_l2();
  /// Support kernels, L2 flush buffer, reference output and the metric's peak; once.
  void prepare(CubinCache* cache);
  /// Device-to-device copy of `bytes`, timed like a kernel: GB/s counting bytes read plus bytes written.
  double copy_bandwidth(std::int64_t bytes);
  /// Waits until the GPU has rested from the previous configuration's measurement as long as that measurement kept it
  /// busy (when that was over kRestAbove), whichever workbench of this process measured it on this GPU: every
  /// configuration's timing starts at the same power state (rest.cpp).
  void rest();
  /// Records the measurement just made (its timed runs, ms) for rest().
  void rested_after(const std::vector<double>& samples_ms);
  /// `warm` untimed then `runs` timed runs of `enqueue`, each timed run after flush_l2(); milliseconds.
  std::vector<double> timed_runs(const std::function<void(void*)>& enqueue, int warm, int runs);
  /// exact_repeats > 0: re-timing with that many runs; 0: the adaptive policy of MeasureOptions against best_ms.
  Result evaluate(const Config& config, const CompileOutput& compiled, double best_ms, int exact_repeats);
  /// Verifies one run of `run`, then times it (adaptively, or exactly `exact_repeats` runs): a kernel's launch or a
  /// library's call, each the same way. `warm_first`: one untimed run before them (a library's call loads its kernel's
  /// module on its first call, which the first, timed run would otherwise count).
  Result run_verified(const detail::Enqueue& run, Result r, double best_ms, int exact_repeats, bool warm_first = false);

 private:
  // `r` failed in the driver call `call`; a sticky error leaves the context unusable and makes it a RuntimeError.
  Result failed(Result& r, Status status, CUresult code, const char* call);
  // Launches a loaded kernel of its own (not a pipeline): verified first, then timed.
  Result run_kernel(const Config& config, const detail::Module& module, CUfunction f, const Launch& launch, Result r,
                    double best_ms, int exact_repeats);
  // `r` could not be launched: a LaunchError, or a RuntimeError that leaves the context unusable.
  Result launch_failed(Result& r, const detail::LaunchFailure& failure);
  // The verification run's time, or nullopt when `r` is final (a launch or runtime failure, or a wrong output).
  std::optional<double> verified_run(const detail::Enqueue& run, Result& r);
  Result timed(const detail::Enqueue& run, double first_ms, double best_ms, int exact_repeats, Result r);
  // The timed runs' samples: the verification run's first, then as many more as the adaptive policy allows.
  std::vector<double> samples(const std::function<void(void*)>& enqueue, double first_ms, double best_ms,
                              int exact_repeats);
};

}  // namespace cutune
