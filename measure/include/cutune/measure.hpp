// Measure: load, launch, verify against the reference, and time one configuration.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/device.hpp"
#include "cutune/l2_flush.hpp"
#include "cutune/result.hpp"
#include "cutune/spec.hpp"
#include "cutune/timing.hpp"

namespace cutune {

class CubinCache;

/// How configurations are timed. A configuration's first run is timed and verified: its time counts only if the
/// output is right; a candidate already clearly slower than the best stops there. The others get `warmup`
/// more untimed runs and timed runs up to `repeats`, fewer when `max_measure_ms` is spent after `min_repeats`.
/// Re-timing (of the finalists) verifies again, warms up at least once, and times exactly the runs it is asked for.
struct MeasureOptions {
  int warmup = 0;                 ///< untimed launches before the remaining timed runs (the first run already warms)
  int repeats = 20;               ///< most timed launches per configuration; the median counts
  int min_repeats = 3;            ///< timed launches before max_measure_ms may stop timing
  double max_measure_ms = 20.0;   ///< GPU time budget of a configuration's timed runs, ms (0: always `repeats`)
  double early_stop_ratio = 1.5;  ///< stop after the first timed run when it exceeds this x the best median (0: never)
  /// The L2 state before each timed launch, set outside the timing (l2_flush.hpp); unset: the spec's
  /// "measure.flush", else Read (KernelSpec::l2_flush()). Host pipelines never flush: their chunks come from the host.
  std::optional<L2Flush> flush;
  std::uint64_t seed = 0x5eed;    ///< seed of the random inputs; the same seed gives the same inputs
  /// What outputs are compared with (`tune --verify`); unset: the spec's "verify.mode", else Reference. None stores
  /// results as Status::Unverified.
  std::optional<VerifyMode> verify;
  /// Bounds for every output in place of the spec's (`tune --atol/--rtol`): |out - ref| <= atol + rtol * |ref|.
  std::optional<double> atol;
  std::optional<double> rtol;
};

/// A number of MeasureOptions, described once: `tune --<name, dashes for underscores>`, the keyword of cutune.tune()
/// and the key of the worker's set-up message all follow from its row. A new number is a member above and a row
/// below; the front-ends, their checks and the worker pick it up. (flush, seed, verify and the tolerances are choices
/// the requests resolve, each its own way.)
struct MeasureOptionField {
  std::string_view name;
  std::variant<int MeasureOptions::*, double MeasureOptions::*> member;
  std::string_view help;
  double least = 0.0;  ///< the values a front-end accepts
  double most = 0.0;
};
inline constexpr MeasureOptionField kMeasureOptionFields[] = {
    {"repeats", &MeasureOptions::repeats, "most timed runs per configuration; the median counts", 1, 100000},
    {"warmup", &MeasureOptions::warmup, "untimed runs before timing", 0, 100000},
    {"min_repeats", &MeasureOptions::min_repeats, "timed runs before the time budget of a configuration may stop timing",
     1, 100000},
    {"max_measure_ms", &MeasureOptions::max_measure_ms,
     "GPU time budget of a configuration's timed runs, ms (0: always the most timed runs)", 0, 1e9},
    {"early_stop_ratio", &MeasureOptions::early_stop_ratio,
     "stop timing a configuration after its first run when that run took this many times the best median (0: never)",
     0, 1e9},
};
/// A field's value as a double (the integers are small), and set from one (the caller checked the bounds).
inline double option_value(const MeasureOptions& o, const MeasureOptionField& f) {
  return std::visit([&o](auto member) { return static_cast<double>(o.*member); }, f.member);
}
inline void set_option(MeasureOptions& o, const MeasureOptionField& f, double value) {
  std::visit([&o, value](auto member) { o.*member = static_cast<std::remove_reference_t<decltype(o.*member)>>(value); },
             f.member);
}
/// Whether the field takes whole numbers only.
inline bool is_integer(const MeasureOptionField& f) { return std::holds_alternative<int MeasureOptions::*>(f.member); }

/// Device buffers for one spec and shape: inputs filled once, the reference output computed once, so that
/// many configurations are evaluated against the same data. Lives on one device; not copyable.
class Workbench {
 public:
  /// Allocates and fills every argument and runs the reference. Throws SpecError when a buffer size names a
  /// parameter, InputError when an output's "verify" region does not fit it, CudaError on driver failures or when
  /// the reference does not compile or run.
  Workbench(const Device& device, const KernelSpec& spec, const Shape& shape, const MeasureOptions& options);
  /// The same, timed under the L2 convention `flush` as resolved by the caller (the tuner resolves it once per shape,
  /// KernelSpec::l2_flush()); options.flush is not read. The constructor above resolves options.flush that way.
  Workbench(const Device& device, const KernelSpec& spec, const Shape& shape, const MeasureOptions& options,
            L2Flush flush);
  ~Workbench();
  Workbench(const Workbench&) = delete;
  Workbench& operator=(const Workbench&) = delete;

  /// Loads, verifies and times one compiled configuration, adaptively against `best_ms`, the best median so
  /// far (0: none yet). Failures are result statuses, never exceptions.
  Result evaluate(const Config& config, const CompileOutput& compiled, double best_ms = 0.0);
  /// Verifies and times a configuration with exactly `repeats` timed runs after the warm-up (re-timing finalists).
  Result retime(const Config& config, const CompileOutput& compiled, int repeats);
  /// One launch of a compiled configuration on the workbench's data, outputs first put back in their initial state,
  /// nothing verified or timed; then every kernel parameter's contents as the launch left them, in the spec's order:
  /// a buffer's bytes (where `read_back` is true or empty), or nothing for a scalar or tensor map
  /// (measure/run_once.cpp). Throws InputError when the configuration did not compile, CudaError when it does not
  /// load, launch or run.
  std::vector<std::vector<unsigned char>> run_once(const Config& config, const CompileOutput& compiled,
                                                   const std::vector<bool>& read_back = {});
  /// False after a fault that poisoned the CUDA context: nothing more can run in this process.
  bool usable() const;
  /// Device-to-device copy of `bytes`, timed like a kernel: GB/s counting bytes read plus bytes written. For a spec
  /// with a host pipeline, the transfer-only bound instead: the metric's amount over the longer of the whole-array
  /// host-to-device and device-to-host copies, measured when the workbench was prepared.
  double copy_bandwidth(std::int64_t bytes);
  /// Times other work like a configuration (warm-up, the L2 convention before each run, CUDA events,
  /// MeasureOptions' repeats): `enqueue` puts one run on the given stream (a CUstream, which is also a cudaStream_t).
  std::vector<double> time(const std::function<void(void* stream)>& enqueue);
  /// Compiles (through `cache` when given) and loads the support and reference kernels and computes the reference
  /// output, if not done yet. evaluate() does it on first use; calling it early overlaps it with other work.
  void prepare(CubinCache* cache = nullptr);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune
