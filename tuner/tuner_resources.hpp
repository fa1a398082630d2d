// TunerResources: what a Tuner keeps from one shape to the next and lends each shape's run.
#pragma once

#include <cstddef>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/tuner.hpp"
#include "tuner/kept_search.hpp"

namespace cutune::detail {

class Dispatcher;

/// The GPUs a tuner measures on, its settings and database, and what it starts on first use and keeps for later
/// shapes: the compile pool, the cubin cache, the dispatcher with one lane per GPU, the spaces expect() enumerates
/// ahead. A shape's run (ShapeRun) borrows them through this interface only.
class TunerResources {
 public:
  /// `device` measures in this process (options.isolate off); null: worker processes only.
  TunerResources(DeviceIdentity identity, DeviceLimits limits, std::vector<int> ordinals, const Device* device,
                 Database& database, TuneOptions options);
  ~TunerResources();
  TunerResources(const TunerResources&) = delete;
  TunerResources& operator=(const TunerResources&) = delete;

  const TuneOptions& options() const { return options_; }
  Database& database() { return database_; }
  const DeviceIdentity& identity() const { return identity_; }
  const DeviceLimits& limits() const { return limits_; }
  const std::vector<int>& ordinals() const { return ordinals_; }

  /// The compile threads, started on first use.
  CompilePool& compile_pool();
  /// The cubin cache (null without one), made on first use.
  CubinCache* cache();
  /// The dispatcher of the lanes, one per GPU, started on first use and kept for later shapes; `cache` (may be null)
  /// must live as long.
  Dispatcher& dispatcher(CubinCache* cache);
  /// Ends the compile pool and the dispatcher after an error (compiles may still post to the lanes' outbox, jobs may
  /// still be in flight): a later shape starts fresh ones.
  void drop_dispatcher();
  /// An id for the next shape's task, distinct for every shape this tuner tunes.
  std::size_t next_shape_id() { return ++shapes_; }

  /// Starts the workers and enumerates the shapes' spaces in the background (Tuner::expect).
  void expect(const KernelSpec& spec, const std::vector<Shape>& shapes);
  /// The space of `spec` at `shape` within the device's limits: the one expect() enumerated, else enumerated now. The
  /// last few are kept, so that an operation's later turns at a shape (the same spec object, version, constraints and
  /// shape) do not enumerate the space again.
  Space tuning_space_of(const KernelSpec& spec, const Shape& shape);
  /// How many spaces tuning_space_of() keeps: an operation's implementations at one shape, and some to spare.
  static constexpr std::size_t kKeptSpaces = 4;
  /// The search the last call at `spec` and `shape` left (keep_search), taken out; null when there is none, or when it
  /// searched a space of another size than `space_size`.
  std::unique_ptr<KeptSearch> take_search(const KernelSpec& spec, const Shape& shape, std::size_t space_size);
  /// Keeps `search` with the space tuning_space_of() keeps for `spec` at `shape`, for the next call there; it goes when
  /// that space goes (or at once, when the space is no longer kept).
  void keep_search(const KernelSpec& spec, const Shape& shape, std::unique_ptr<KeptSearch> search);

 private:
  // Where the compile threads compile (compiler processes, or this process), chosen once; warns when the process may
  // use fewer CPUs than the machine has.
  const NvrtcRunnerFactory& compile_runners();
  // Starts the compiles the first shape of `spec` would wait for before measuring (expect()).
  void warm_compiles(const KernelSpec& spec, const Shape& shape);

  DeviceIdentity identity_;
  DeviceLimits limits_;
  std::vector<int> ordinals_;
  const Device* device_ = nullptr;
  Database& database_;
  TuneOptions options_;
  std::unique_ptr<CubinCache> cache_;    // before the dispatcher: an in-process lane uses it
  NvrtcRunnerFactory compile_runners_;  // compiler processes, kept for later shapes
  bool compile_runners_chosen_ = false;
  bool support_warmed_ = false;  // the support kernels' compiles were started (warm_compiles())
  std::unique_ptr<Dispatcher> dispatcher_;  // started by the first shape with something to measure
  // The compile threads, kept for later shapes: a compile a shape started ahead of its strategy (Strategy::upcoming())
  // may run on after the shape ends, without holding up the next. Ends first: its jobs post to the lanes' outbox.
  std::unique_ptr<CompilePool> pool_;
  std::size_t shapes_ = 0;  // shapes tuned so far: ShapeTask ids
  std::map<std::pair<const KernelSpec*, std::string>, std::future<Space>> upcoming_;  // expect()'s enumerations
  // The spaces tuning_space_of() handed out last, newest last.
  struct KeptSpace {
    const KernelSpec* spec = nullptr;
    std::string hash;
    std::size_t constraints = 0;  // --where adds to them without changing the version
    std::string shape;
    Space space;
    std::unique_ptr<KeptSearch> search;  // the search of the last call there (keep_search), if kept
  };
  // The kept space of `spec` (the same object, version and constraints) at the shape `key`, or null.
  KeptSpace* kept(const KernelSpec& spec, const std::string& key);
  std::deque<KeptSpace> kept_;
};

}  // namespace cutune::detail
