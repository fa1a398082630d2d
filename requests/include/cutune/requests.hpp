// What a front-end asks of cutune: a tuning run, a best configuration, a space, the database commands. Each request
// is a plain value that the `tune` command (cli/) and the Python package (python/) fill in from their own options;
// its options are checked here, once, and the work is the same for both. Errors are cutune::Error (InputError for
// a bad option, with the option's name as `tune` spells it).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/device_choice.hpp"
#include "cutune/exchange.hpp"
#include "cutune/foreign.hpp"
#include "cutune/measure.hpp"
#include "cutune/operation.hpp"
#include "cutune/lazy_space.hpp"
#include "cutune/space.hpp"
#include "cutune/strategy.hpp"
#include "cutune/tuner.hpp"

namespace cutune {

/// A tuning run as a front-end asks for it: the texts that name what to tune, where to store and on which GPUs, the
/// choices given as text, and the run's settings themselves (TuneOptions), which `tune` and cutune.tune() fill in
/// directly. check_tune_request() checks them and resolves the texts into them.
struct TuneRequest {
  std::string kernel;
  std::string spec;     ///< a spec file (--spec), instead of --kernel
  std::string problem;  ///< a T1 problem file (--problem), instead of --kernel; --shapes then defaults to its size
  std::string shapes;
  std::vector<std::string> where;  ///< extra constraints (--where)
  /// Parameters that change what is computed (--follow): each configuration is verified against the reference
  /// configuration at its own values of them (follow_parameters(), cutune/spec.hpp)
  std::vector<std::string> follow;
  std::string db = "cutune.db";
  int device = 0;        ///< --device N: the same as --devices N
  std::string devices;   ///< --devices all | N,M,...; empty: --device
  bool wanted = false;   ///< --wanted: the shapes come from the database's wanted list
  std::string verify;    ///< reference, default or none; empty: the spec's
  std::string flush;     ///< read, write or none; empty: the spec's, else read
  std::string shard;     ///< i/n; empty: the whole space
  TuneOptions options;   ///< the run's settings as given; verify, flush and shard are resolved into them when checked
};

/// The request's settings, checked, with its texts (verify, flush, shard) resolved into them; the request itself is
/// left as it is. Throws InputError naming the option.
TuneOptions check_tune_request(const TuneRequest& request);

/// Throws InputError naming the option unless `value` is one that `field` accepts.
void check_number(const MeasureOptionField& field, double value);
void check_number(const TuneOptionField& field, double value);
/// Sets the number of `options` named `name`, a row of kTuneOptionFields ("budget", ...) or of kMeasureOptionFields
/// ("repeats", "warmup", ...: into options.measure), checked; throws InputError for an unknown name or a value out of
/// its range.
void set_number(TuneOptions& options, std::string_view name, double value);

/// What a tuning run works on: its checked settings, the kernel (with --where applied and --start checked) and its
/// shapes.
struct TunePlan {
  TuneOptions options;
  KernelSpec spec;  ///< an operation's: its first implementation (whose shape names and arguments all share)
  std::vector<Shape> shapes;
  std::optional<OperationSpec> operation;  ///< set when --kernel names an operation (cutune/operation.hpp)
};
/// check_tune_request(), then the kernel and shapes the request names; throws InputError/SpecError before any work.
TunePlan prepare_tune(const TuneRequest& request);

/// What a caller of tune_on_this_machine() hears as the run goes; empty functions are skipped.
struct TuneHooks {
  std::function<void(const Shape& shape, const Progress& p)> progress;
  std::function<void(const DeviceIdentity& device, const ShapeReport& r)> report;  ///< after each shape
  std::function<void()> starting;  ///< the database and GPUs are open, the first shape begins
  /// An operation's: each implementation's turn at a shape begins (its progress follows), and again before its report,
  /// after the shape's last turn.
  std::function<void(const KernelSpec& implementation)> implementation;
};
/// Tunes every shape of `plan` on this machine's GPUs (the request's --devices) with the plan's settings: opens the
/// database (removed again when this call created it and the GPUs cannot be opened), one Tuner for all shapes.
std::vector<ShapeReport> tune_on_this_machine(const TuneRequest& request, const TunePlan& plan, const TuneHooks& hooks);
/// Tunes every shape with `tuner`, in order, telling `hooks` (`current` points to the shape being tuned).
std::vector<ShapeReport> tune_each(Tuner& tuner, const KernelSpec& spec, const std::vector<Shape>& shapes,
                                   const DeviceIdentity& identity, const Shape*& current, const TuneHooks& hooks);
/// What the tuner reports after each configuration, heard by a run's own bookkeeping beside TuneHooks::progress:
/// tune_on_this_machine() and an MPI job's rank 0 install one in TuneOptions::on_progress, and tune_operation() sets it
/// for each implementation's turn (its budget rule hears how the turn's search went).
using ProgressTap = std::function<void(const Progress& p)>;
/// Tunes an operation's shapes with `tuner` (one budget, one set of workers): at each shape, tune_operation_shape().
/// The reports in operation_tuning_order(), shape by shape, each implementation's turns merged into one report;
/// `hooks.report` hears each after the shape's last turn. `tap`: the run's ProgressTap, or null.
std::vector<ShapeReport> tune_operation(Tuner& tuner, const OperationSpec& operation, const std::vector<Shape>& shapes,
                                        std::size_t budget, const DeviceIdentity& identity, const Shape*& current,
                                        const TuneHooks& hooks, ProgressTap* tap = nullptr);
/// One shape of an operation: its implementations in turns under the per-shape `budget` (TuneOptions::budget; 0: each
/// its whole space) as OperationBudget divides it (cutune/operation_budget.hpp): a first share each, library families
/// first, then rounds to whichever pays most. One report per implementation, in operation_tuning_order().
std::vector<ShapeReport> tune_operation_shape(Tuner& tuner, const OperationSpec& operation, const Shape& shape,
                                              std::size_t budget, const TuneHooks& hooks, ProgressTap* tap = nullptr);
/// The implementations in the order of their first turns at a shape: library families first.
std::vector<std::size_t> operation_tuning_order(const OperationSpec& operation);
/// The GPUs that --devices (or --device) names, opened into `opened` (the first one's Device also measures in this
/// process under --no-isolate). Throws InputError for a bad list, a GPU that does not exist or a mix of models, and
/// NoDeviceError without a GPU.
DeviceChoice choose_devices(const TuneRequest& request, std::vector<std::unique_ptr<Device>>& opened);

/// The kernel named by exactly one of --kernel (built-in name or .json spec), --spec (a spec file) and --problem
/// (a T1 file: its issues go to stderr, and `problem_shape` receives its problem size). Throws InputError unless
/// exactly one is given, and SpecError for a T1 problem that cannot be tuned when `for_tuning`.
KernelSpec load_chosen_kernel(const std::string& kernel, const std::string& spec_file, const std::string& problem_file,
                              std::optional<Shape>* problem_shape, bool for_tuning);
/// Splits "8192x8192,4000x3000" and parses each; throws InputError on the first bad one.
std::vector<Shape> parse_shapes(const KernelSpec& spec, const std::string& text);
/// The shapes of a T1 problem: its one problem size, which `text` (--shapes) may only repeat; throws InputError else.
std::vector<Shape> problem_shapes(const KernelSpec& spec, const Shape& problem_shape, const std::string& text);
/// `measure` with --verify and --flush (as text; empty: not given) resolved into it, whose atol/rtol are set already;
/// throws InputError for a bad name, or for tolerances with --verify none.
MeasureOptions resolve_measure_choices(MeasureOptions measure, const std::string& verify, const std::string& flush);
/// The convention --flush names; nullopt when it was not given.
std::optional<L2Flush> flush_from_option(const std::string& text);
/// The part --shard names (1/1 when empty); throws InputError with the option's name for a bad value.
Shard parse_shard(const std::string& text);

struct BestRequest {
  std::string kernel;
  std::string shape;
  std::string db = "cutune.db";
  std::string gpu;  ///< device name to look up instead of the GPU of this machine
  bool exact = false;  ///< no fallback: only a result for this very shape
  std::string flush;   ///< --flush: the L2 convention whose results count; empty: the spec's, else read
};

/// The stored best configuration a request asks for, by the runtime's rules (cutune/runtime.hpp).
struct FoundBest {
  KernelSpec spec;
  DeviceIdentity device;  ///< the GPU asked about (this machine's, --gpu, or the only one stored)
  L2Flush flush = L2Flush::Read;
  BestConfig found;
  std::string rule;       ///< which rule chose it, in words: "exact", "nearest shape (4096x4096, log distance 0.3)"
  /// Set when the request named an operation: its name. The answer above is then the implementation the runtime
  /// launches at the shape (choose_operation(); with --exact, the fastest measured there), `reason` says why, and
  /// `implementations` holds each implementation's own answer, in the operation's order (with --exact, those
  /// measured at the shape).
  std::string operation;
  std::string reason;
  std::vector<FoundBest> implementations;
};
/// Throws InputError when there is none (for an operation: when no implementation has one).
FoundBest find_best(const BestRequest& request);

struct SpaceRequest {
  std::string kernel;
  std::string spec;
  std::string problem;
  std::string shape;
  std::vector<std::string> where;  ///< extra constraints (--where)
  std::string shard;               ///< --shard i/n: count (list) only that part
  bool list = false;
  std::string arch = "sm_90";      ///< the architecture whose targets and clusters count as available
  /// Without shard: the space is counted without holding it (LazySpace: exactly by a walk that keeps nothing where
  /// that ends soon, else estimated with its interval), and enumerated only when it holds at most kEnumerateUpTo
  /// valid configurations (to say what removed the rest); a larger one is listed (list) by run_space as a walk finds
  /// its configurations.
  bool count_lazily = false;
};

/// The space a request names, and the kernel and shape it was counted for.
struct CountedSpace {
  KernelSpec spec;
  std::optional<Shape> shape;
  Space space;                      ///< empty when counted lazily
  std::optional<SpaceCount> lazily;  ///< the count of a space not enumerated
  std::uint64_t combinations = 0;    ///< its cartesian size
};
/// Throws InputError for an operation (its implementations' spaces: count_operation_space()).
CountedSpace count_space(const SpaceRequest& request);
/// An operation's (request.kernel names one): each implementation's space at the shape, in the operation's order.
/// Throws InputError for --where (one kernel's parameters), --spec or --problem.
std::vector<CountedSpace> count_operation_space(const SpaceRequest& request);
/// The launch limits of compute capability 9.0 with the targets and clusters of `arch` (--arch: sm_80, sm_90a, ...);
/// throws InputError for another text.
DeviceLimits arch_limits(const std::string& arch);
/// "N valid configurations of K (M combinations, ...)": the line `tune space` ends with.
std::string space_summary(const SpaceRequest& request, const CountedSpace& counted);
/// The configurations of a space counted lazily (counted.lazily set: too many to hold), in the request's part, in
/// enumeration order, found by a walk that keeps none of them (`tune space --list`, cutune.space()'s iteration);
/// returns how many the whole space has.
std::uint64_t walk_lazily(const SpaceRequest& request, const CountedSpace& counted,
                          const std::function<void(const Config&)>& visit);
/// How many of `total` configurations, in enumeration order, part `shard` holds (every count-th from its index).
std::uint64_t shard_size(std::uint64_t total, const Shard& shard);

/// Opens a database that must exist: requests that only read one never create one by accident.
Database open_existing(const std::string& path);
/// `tune db merge`: merge_databases(), leaving no half-made output behind when it is refused.
MergeSummary merge_command(const std::vector<std::string>& inputs, const std::string& output);
/// `tune db export`: the runs of `db` (which must exist) that `selection` picks, every one by default, in `format`,
/// into the file `output`, or `out` when empty. A refused export leaves no file behind.
void export_command(const std::string& db, const std::string& format, const std::string& output, std::ostream& out,
                    const ExportSelection& selection = {});
/// `tune db import`: `file` (which must exist) into `db` (created when missing); `foreign` says what T4 files and
/// Kernel Tuner caches do not.
ImportSummary import_command(const std::string& file, const std::string& db, const std::string& format,
                             const ForeignContext& foreign);
/// Whether the wanted shape has a result of its own for its kernel version, GPU and convention; a built-in operation's
/// (as the runtime records them, under the operation's name): operation_tuned_at().
bool wanted_shape_tuned(Database& db, const WantedShape& w);
/// Whether every implementation of the operation (its version now) has a stored result at the shape, whatever its
/// status: the operation was tuned there.
bool operation_tuned_at(Database& db, const OperationSpec& operation, const DeviceIdentity& device,
                        const std::string& shape, L2Flush flush);
/// The shapes wanted on `device` under `flush` that the kernel's version `spec` has no result of its own for.
std::vector<std::string> untuned_wanted_shapes(Database& db, const KernelSpec& spec, const DeviceIdentity& device,
                                               L2Flush flush);
/// The shapes wanted of the operation (under its name, by any of its versions) on `device` under `flush` where it is
/// not tuned (operation_tuned_at()).
std::vector<std::string> untuned_wanted_shapes(Database& db, const OperationSpec& operation,
                                               const DeviceIdentity& device, L2Flush flush);

}  // namespace cutune
