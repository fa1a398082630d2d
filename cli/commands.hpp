// The `tune` command's subcommands, each a function of its parsed options; they throw cutune::Error on failure.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/device_choice.hpp"
#include "cutune/exchange.hpp"
#include "cutune/foreign.hpp"
#include "cutune/measure.hpp"
#include "cutune/runtime.hpp"
#include "cutune/space.hpp"
#include "cutune/strategy.hpp"
#include "cutune/tuner.hpp"

namespace cutune::cli {

struct TuneArgs {
  std::string kernel;
  std::string spec;     ///< a spec file (--spec), instead of --kernel
  std::string problem;  ///< a T1 problem file (--problem), instead of --kernel; --shapes then defaults to its size
  std::string shapes;
  std::vector<std::string> where;  ///< extra constraints (--where)
  std::string db = "cutune.db";
  int device = 0;        ///< --device N: the same as --devices N
  std::string devices;   ///< --devices all | N,M,...; empty: --device
  std::string strategy = std::string(kDefaultStrategy);
  std::uint64_t seed = 1;
  std::vector<std::string> start;  ///< configurations to evaluate first (--start)
  bool prior = true;               ///< learn from other GPUs' results in the database (off: --no-prior)
  std::size_t budget = 0;        ///< most configurations per shape; 0: no limit
  double time_budget_s = 0.0;    ///< wall time per shape, seconds; 0: no limit
  unsigned jobs = 0;
  MeasureOptions measure;
  bool use_cache = true;
  std::string cache_dir;  ///< empty: the default cubin cache folder
  bool isolate = true;
  double timeout_floor_s = 10.0;
  Shard shard;  ///< --shard i/n: this job's part of each shape's space
  bool wanted = false;  ///< --wanted: the shapes come from the database's wanted list
  std::string command_line;
};

struct BestArgs {
  std::string kernel;
  std::string shape;
  std::string db = "cutune.db";
  std::string gpu;  ///< device name to look up instead of the GPU of this machine
  bool exact = false;  ///< no fallback: only a result for this very shape
  std::string flush;   ///< --flush: the L2 convention whose results count; empty: the spec's, else read
};

struct SpaceArgs {
  std::string kernel;
  std::string spec;
  std::string problem;
  std::string shape;
  std::vector<std::string> where;  ///< extra constraints (--where)
  std::string shard;               ///< --shard i/n: count (list) only that part
  bool list = false;
  std::string arch = "sm_90";      ///< the architecture whose targets and clusters count as available
};

struct CompileArgs {
  std::string kernel;
  std::string spec;
  std::string problem;
  std::string arch = "sm_90";
  unsigned jobs = 0;
};

/// A subcommand and what to do when it was given. Each add_*_command function adds its subcommand to the app
/// (options bound to storage the action owns) and appends it here; main() runs the one that parsed.
struct Subcommand {
  CLI::App* app = nullptr;
  std::function<int()> action;
};
using Subcommands = std::vector<Subcommand>;

void add_best_command(CLI::App& app, Subcommands& out);
void add_list_command(CLI::App& app, Subcommands& out);
/// --where: extra constraints (repeatable) for tuning and counting.
void add_where_option(CLI::App& app, std::vector<std::string>& where);
/// --flush read|write|none, as text that CLI11 checks (a bad value is one error line and a non-zero exit).
CLI::Option* add_flush_option(CLI::App& app, std::string& flush, const std::string& help);
/// --verify and --flush (as text; empty: not given) into `measure`, whose atol/rtol are set already; throws InputError
/// for a bad name, or for tolerances with --verify none. `tune` and the Python package's tune().
void apply_measure_choices(MeasureOptions& measure, const std::string& verify, const std::string& flush);
/// The convention --flush names; nullopt when it was not given.
std::optional<L2Flush> flush_from_option(const std::string& text);
/// --shard i/n, as text: parse_shard() reads it, so that a bad value gets one line of this program's own.
void add_shard_option(CLI::App& app, std::string& shard);
/// The part --shard names (1/1 when empty); throws InputError with the option's name for a bad value.
Shard parse_shard(const std::string& text);
void add_space_command(CLI::App& app, Subcommands& out);
void add_compile_command(CLI::App& app, Subcommands& out);
void add_db_command(CLI::App& app, Subcommands& out);
void add_replay_command(CLI::App& app, Subcommands& out);
void add_report_command(CLI::App& app, Subcommands& out);
void add_wanted_command(CLI::App& app, Subcommands& out);
/// `tune --wanted`: a run of run_tune() per kernel (the one named, else each built-in one with wanted shapes on this
/// GPU), its shapes those wanted on this GPU under the run's convention and not tuned for the spec's version.
int run_wanted(const TuneArgs& args);
/// Those shapes of one kernel.
std::vector<std::string> untuned_wanted_shapes(Database& db, const KernelSpec& spec, const DeviceIdentity& device,
                                               L2Flush flush);

/// Opens a database that must exist: commands that only read one never create one by accident.
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

/// What a tuning run works on: the kernel (with --where applied and --start checked) and its shapes.
struct TuneJob {
  KernelSpec spec;
  std::vector<Shape> shapes;
};
/// Reads the kernel and shapes that `args` name; throws InputError/SpecError before any work.
TuneJob prepare_tune(const TuneArgs& args);

/// What a caller of tune_on_this_machine() hears as the run goes; empty functions are skipped.
struct TuneHooks {
  std::function<void(const Shape& shape, const Progress& p)> progress;  ///< unset: print_progress() on stderr
  std::function<void(const DeviceIdentity& device, const ShapeReport& r)> report;  ///< after each shape
  std::function<void()> starting;  ///< the database and GPUs are open, the first shape begins
};
/// Tunes every shape of `job` on this machine's GPUs (--devices): opens the database (removed again when this call
/// created it and the GPUs cannot be opened), one Tuner for all shapes. The `tune` command and the Python package.
std::vector<ShapeReport> tune_on_this_machine(const TuneArgs& args, const TuneJob& job, const TuneHooks& hooks);

int run_tune(const TuneArgs& args);
/// The settings of a tuning run from its arguments; progress lines name the shape `current` points to.
TuneOptions tune_options(const TuneArgs& args, const KernelSpec& spec, const Shape* const& current);
/// Tunes every shape with `tuner`, in order, telling `hooks` (`current` points to the shape being tuned).
std::vector<ShapeReport> tune_each(Tuner& tuner, const KernelSpec& spec, const std::vector<Shape>& shapes,
                                   const DeviceIdentity& identity, const Shape*& current, const TuneHooks& hooks);
/// Tunes every shape with `tuner`, printing each shape's report, a summary and where the run's time went since
/// `started` (when the command began); 1 when a shape has nothing correct.
int tune_shapes(Tuner& tuner, const KernelSpec& spec, const std::vector<Shape>& shapes, const DeviceIdentity& identity,
                const Shape*& current, const std::string& db, std::chrono::steady_clock::time_point started);
/// `tune` as one rank of an MPI job (mpirun / srun): rank 0 tunes and stores, the others measure for it.
int run_cluster_tune(const TuneArgs& args, const KernelSpec& spec, const std::vector<Shape>& shapes,
                     std::chrono::steady_clock::time_point started);
/// The summary table, where the run's `total_s` seconds went (`before_s` of them before the first shape) and where the
/// results are; 1 when a shape has nothing correct (a failed run), else 0.
int finish_tune(const KernelSpec& spec, const std::vector<ShapeReport>& reports, const std::string& db, double total_s,
                double before_s);
/// Seconds from `start` to now.
double seconds_since(std::chrono::steady_clock::time_point start);
/// The stored best configuration `args` ask for, by the same rules as `tune best`; throws InputError when none.
struct FoundBest {
  KernelSpec spec;
  DeviceIdentity device;  ///< the GPU asked about (this machine's, --gpu, or the only one stored)
  L2Flush flush = L2Flush::Read;
  BestConfig found;
  std::string rule;       ///< which rule chose it, in words: "exact", "nearest shape (4096x4096, log distance 0.3)"
};
FoundBest find_best(const BestArgs& args);
int run_best(const BestArgs& args);
int run_list();
/// The space `args` name, and the kernel and shape it was counted for.
struct CountedSpace {
  KernelSpec spec;
  std::optional<Shape> shape;
  Space space;
};
CountedSpace count_space(const SpaceArgs& args);
/// "N valid configurations of K (M combinations, ...)": the line `tune space` ends with.
std::string space_summary(const SpaceArgs& args, const CountedSpace& counted);
int run_space(const SpaceArgs& args);
int run_compile(const CompileArgs& args);

/// The kernel named by exactly one of --kernel (built-in name or .json spec), --spec (a spec file) and --problem
/// (a T1 file: its issues go to stderr, and `problem_shape` receives its problem size). Throws InputError unless
/// exactly one is given, and SpecError for a T1 problem that cannot be tuned when `for_tuning`.
KernelSpec load_chosen_kernel(const std::string& kernel, const std::string& spec_file, const std::string& problem_file,
                              std::optional<Shape>* problem_shape, bool for_tuning);

/// Splits "8192x8192,4000x3000" and parses each; throws InputError on the first bad one.
std::vector<Shape> parse_shapes(const KernelSpec& spec, const std::string& text);
/// The shapes of a T1 problem: its one problem size, which `text` (--shapes) may only repeat; throws InputError else.
std::vector<Shape> problem_shapes(const KernelSpec& spec, const Shape& problem_shape, const std::string& text);
/// --kernel, --spec and --problem on `cmd`, each excluding the others (load_chosen_kernel() checks that one is given).
void add_kernel_options(CLI::App& cmd, std::string& kernel, std::string& spec, std::string& problem);

/// The GPUs that --devices (or --device) names, opened into `opened` (the first one's Device also measures in this
/// process under --no-isolate). Throws InputError for a bad list, a GPU that does not exist or a mix of models, and
/// NoDeviceError without a GPU.
DeviceChoice choose_devices(const TuneArgs& args, std::vector<std::unique_ptr<Device>>& opened);

/// Progress on stderr: one rewritten line on a terminal, a line per tenth of the work otherwise.
void print_progress(const KernelSpec& spec, const Shape& shape, const Progress& p);
/// The per-shape summary and the final table on stdout.
void print_shape_report(const KernelSpec& spec, const DeviceIdentity& device, const ShapeReport& r);
void print_summary(const KernelSpec& spec, const std::vector<ShapeReport>& reports);
/// Where a whole run's wall time `wall_s` went: its shapes' phases, with the `before_s` seconds before the first
/// shape (the database, the GPUs, the kernel) as start-up and the rest outside the shapes as other.
void print_run_time(const std::vector<ShapeReport>& reports, double wall_s, double before_s);
/// "compile 171.25 ms, verify 0.41 ms, benchmark 2.10 ms, framework 1.20 ms, search 0.05 ms" ("unknown" for NaN).
std::string result_times(const Result& r);

}  // namespace cutune::cli
