// Tuner: the facade that runs space → strategy → compile ‖ measure → store for one kernel and shape.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"
#include "cutune/shard.hpp"
#include "cutune/space.hpp"
#include "cutune/spec.hpp"
#include "cutune/stop.hpp"
#include "cutune/strategy.hpp"

namespace cutune {

namespace detail {
class Lane;
class Outbox;
class TunerResources;
}

/// A place that measures beyond this machine's GPUs (a GPU of another MPI rank, cluster/): it compiles for itself.
struct RemoteLaneSource {
  std::string name;  ///< for messages and the per-GPU table: "rank 1 GPU 0"
  std::function<std::unique_ptr<detail::Lane>(std::size_t id, detail::Outbox& outbox)> make;
};

/// How many configurations one GPU measured.
struct DeviceShare {
  int ordinal = 0;             ///< CUDA device ordinal
  std::string name;            ///< "GPU 0", or "rank 1 GPU 0" for a GPU of another MPI rank
  std::size_t measured = 0;    ///< configurations it evaluated (re-timed finalists not counted)
  double measure_seconds = 0.0;  ///< wall time it spent verifying and timing them
  std::string left;            ///< why it left the run (its worker kept failing); empty while it measures
};

/// Where a tuning run stands, reported after every configuration.
struct Progress {
  std::size_t done = 0;        ///< configurations evaluated or resumed so far
  std::size_t total = 0;       ///< configurations the strategy may evaluate (the space size for exhaustive)
  std::size_t resumed = 0;     ///< of done, taken from the database
  double elapsed_s = 0.0;
  const Result* last = nullptr;
  const Result* best = nullptr;  ///< fastest Ok so far, or null
  std::vector<DeviceShare> devices;  ///< one per GPU of the run, in the order given
};

struct TuneOptions {
  MeasureOptions measure;
  std::string strategy = std::string(kDefaultStrategy);
  std::uint64_t seed = 1;
  /// Configuration texts to evaluate first (`tune --start`), after the spec's own "start" ones; at each shape those
  /// valid there, in order. They count against the budget like any other.
  std::vector<std::string> start;
  /// Learn from what the database holds of the same kernel version and shape (and L2 convention) on other GPUs, up
  /// to three, the nearest compute capability first: each one's kPriorFirst fastest configurations valid here are
  /// evaluated first, after `start`, and the default strategy's model learns from all of their outcomes
  /// (cutune/prior.hpp). Nothing changes when there is no such GPU. Off: `tune --no-prior`.
  bool prior = true;
  std::size_t budget = 0;        ///< most configurations per shape, those already stored for this device model,
                                 ///< kernel version, shape and L2 convention included (not Interrupted ones, which
                                 ///< are measured again); 0: the whole space
  double time_budget_s = 0.0;    ///< wall-time budget per shape in this call, seconds; 0: no limit
  unsigned compile_threads = 0;  ///< 0: every hardware thread
  /// Each compile thread compiles in a cutune-worker process of its own (NVRTC's threads in one process wait for each
  /// other); off, or without the worker program, in this process.
  bool compile_processes = true;
  bool use_cache = true;         ///< reuse compiled kernels from the on-disk cubin cache
  std::string cache_dir;         ///< the cache's folder; empty: CubinCache::default_directory()
  int final_candidates = 3;      ///< at least this many fastest configurations are re-timed at the end (0: none);
                                 ///< more while one not re-timed is faster than the re-timed best
  int final_repeats = 15;        ///< timed runs of each re-timed configuration
  bool isolate = true;           ///< measure in a worker process, so that a faulting candidate cannot end the run
  double timeout_floor_s = 10.0; ///< isolated runs: the least time a configuration gets before it counts as hung
  /// A shape stops early when this many of its first configurations that ran in this call all differ from the
  /// reference in the same way (same output, and same first index or count): ShapeReport::verify_stop says where and
  /// how to go on. Not when a result of the shape stored before is usable; 0: never.
  std::size_t verify_stop_after = 4;
  Shard shard;                   ///< the part of each shape's space to tune (default 1/1: all of it); budget applies per part
  std::string command;           ///< the command line, kept as the run's provenance
  std::function<void(const Progress&)> on_progress;
  std::vector<RemoteLaneSource> remote_lanes;  ///< measured on as well, after the local GPUs (isolated runs only)
};

/// A number of TuneOptions that the front-ends take by name, described once: `tune --<name, dashes for underscores>`
/// and the keyword of cutune.tune() follow from its row, as the measurement's numbers follow from kMeasureOptionFields
/// (measure.hpp). A new number of the run is a member above and a row below; `tune`, cutune.tune() and their checks
/// pick it up.
struct TuneOptionField {
  std::string_view name;
  std::variant<std::size_t TuneOptions::*, int TuneOptions::*, double TuneOptions::*> member;
  std::string_view help;
  double least = 0.0;  ///< the values a front-end accepts
  double most = 0.0;
};
inline constexpr TuneOptionField kTuneOptionFields[] = {
    {"budget", &TuneOptions::budget, "most configurations to evaluate per shape (0: no limit)", 0, 1e12},
    {"final_candidates", &TuneOptions::final_candidates,
     "fastest configurations re-timed at the end, more while one not re-timed is faster (0: none)", 0, 1e6},
    {"final_repeats", &TuneOptions::final_repeats, "timed runs of each re-timed configuration", 1, 100000},
};
/// A field's value as a double, and set from one (the caller checked the bounds).
inline double option_value(const TuneOptions& o, const TuneOptionField& f) {
  return std::visit([&o](auto member) { return static_cast<double>(o.*member); }, f.member);
}
inline void set_option(TuneOptions& o, const TuneOptionField& f, double value) {
  std::visit([&o, value](auto member) { o.*member = static_cast<std::remove_reference_t<decltype(o.*member)>>(value); },
             f.member);
}
/// Whether the field takes whole numbers only.
inline bool is_integer(const TuneOptionField& f) { return !std::holds_alternative<double TuneOptions::*>(f.member); }

/// The outcome of tuning one shape.
struct ShapeReport {
  Shape shape;
  L2Flush flush = L2Flush::Read;  ///< the L2 convention of every time in it, stored and new
  std::size_t space_size = 0;
  std::size_t limit = 0;       ///< configurations this shape may hold: the budget, at most the space
  std::size_t evaluated = 0;   ///< measured in this run
  std::size_t resumed = 0;     ///< already in the database
  std::size_t failed = 0;      ///< of evaluated and resumed, neither Ok nor Unverified (nor Interrupted)
  /// Of evaluated, stored as Interrupted: their worker or compiler process was killed from outside twice. Not failed
  /// and not counted against the budget: the same command measures them again.
  std::size_t interrupted = 0;
  std::optional<Result> best;
  /// Set when the shape stopped early because its first configurations all differed from the reference in the same
  /// way (TuneOptions::verify_stop_after): the message, lines separated by '\n'.
  std::string verify_stop;
  double copy_gbs = 0.0;       ///< device-to-device copy bandwidth at this shape's bytes (bytes metrics only)
  std::size_t cache_hits = 0;  ///< compiles answered by the cubin cache
  /// Configurations the strategy had not proposed, compiled into the cubin cache on spare compile threads because it
  /// was likely to (Strategy::upcoming()); their NVRTC time is in phases.compile_cpu_s.
  std::size_t compiled_ahead = 0;
  std::size_t retimed = 0;     ///< finalists re-timed with final_repeats runs
  double seconds = 0.0;        ///< wall time of this shape
  /// Where `seconds` went on the tuner's thread, in phases that add up to it, and NVRTC's time summed over compile
  /// threads (phases.compile_cpu_s). Stored with the shape's run (RunRecord::times).
  PhaseTimes phases;
  double measure_seconds = 0.0;    ///< wall time spent loading, verifying and timing candidates, summed over GPUs
  double verify_seconds = 0.0;     ///< of it, verifying (Result::verify_ms of this call's results)
  double benchmark_seconds = 0.0;  ///< of it, the timed runs (Result::benchmark_ms of this call's results)
  double idle_seconds = 0.0;       ///< wall time the GPUs waited for a compile, summed over GPUs
  std::vector<DeviceShare> devices;  ///< one per GPU of the run, in the order given
};

class Tuner {
 public:
  Tuner(const Device& device, Database& database, TuneOptions options);
  /// A tuner for the GPU `ordinal` known by its identity and launch limits, which measures in worker processes only
  /// and never loads the driver itself (TuneOptions::isolate must be on: InputError otherwise).
  Tuner(DeviceIdentity identity, DeviceLimits limits, int ordinal, Database& database, TuneOptions options);
  /// The same on several GPUs of one model (`identity`; `limits` the most restrictive of theirs): one worker process
  /// per GPU, one compile pool, one strategy; each compiled configuration goes to whichever GPU is free. Finalists
  /// are re-timed on the first GPU of the list. Throws InputError for an empty or repeated ordinal list.
  Tuner(DeviceIdentity identity, DeviceLimits limits, std::vector<int> ordinals, Database& database, TuneOptions options);
  ~Tuner();
  Tuner(const Tuner&) = delete;
  Tuner& operator=(const Tuner&) = delete;

  /// Tunes one shape under the L2 convention spec.l2_flush(options.measure.flush): configurations already stored
  /// for this device, kernel version, shape and convention are skipped (resume), except Interrupted ones, which are
  /// measured again (their new result becomes the current one); every new result is committed as
  /// it arrives. Throws CudaError when a candidate's fault leaves the CUDA context unusable (its result is stored
  /// first, so running again resumes past it). A GPU whose worker keeps failing leaves the run with a warning and the
  /// others go on; the last one's error is thrown. The worker processes stay up from one call to the next, so tune
  /// several shapes with one Tuner.
  ShapeReport tune(const KernelSpec& spec, const Shape& shape);
  /// The same with `budget` in place of TuneOptions::budget (0: the whole space): one implementation's share of an
  /// operation's budget.
  ShapeReport tune(const KernelSpec& spec, const Shape& shape, std::size_t budget);
  /// The same, where a later call at this shape with this spec may go on with the search (an operation's next turn):
  /// the tuner keeps the search for it, and compiles up to `compile_ahead` of its likely next proposals into the cubin
  /// cache on spare compile threads meanwhile, so that the later call starts measuring without waiting for compiles.
  ShapeReport tune(const KernelSpec& spec, const Shape& shape, std::size_t budget, std::size_t compile_ahead);
  /// Says which shapes tune() will be asked for next with `spec` (the same object): the workers start and the shapes'
  /// spaces are enumerated in the background meanwhile, so that a shape does not start by enumerating its space (up
  /// to half a second for a large template such as gemm_bf16). Optional; an error of an enumeration is thrown by the
  /// tune() of its shape.
  void expect(const KernelSpec& spec, const std::vector<Shape>& shapes);

 private:
  std::unique_ptr<detail::TunerResources> resources_;
};

}  // namespace cutune
