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

#include "cutune/requests.hpp"

namespace cutune::cli {




struct CompileArgs {
  std::string kernel;
  std::string spec;
  std::string problem;
  std::string shape;  ///< empty: every configuration that is not shape-specialized, at no shape
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
/// --shard i/n, as text: parse_shard() reads it, so that a bad value gets one line of this program's own.
void add_shard_option(CLI::App& app, std::string& shard);
void add_space_command(CLI::App& app, Subcommands& out);
void add_compile_command(CLI::App& app, Subcommands& out);
void add_db_command(CLI::App& app, Subcommands& out);
void add_replay_command(CLI::App& app, Subcommands& out);
void add_report_command(CLI::App& app, Subcommands& out);
void add_wanted_command(CLI::App& app, Subcommands& out);
/// `tune --wanted`: a run of run_tune() per kernel (the one named, else each built-in one with wanted shapes on this
/// GPU), its shapes those wanted on this GPU under the run's convention and not tuned for the spec's version.
int run_wanted(const TuneRequest& args);



int run_tune(const TuneRequest& args);
/// Tunes every shape of `plan` (a kernel's, or an operation's in turns) with `tuner`, printing each shape's report, a
/// summary and where the run's time went since `started` (when the command began); 1 when a shape has nothing
/// correct. `tuning` follows an operation's turns and `tap` is the ProgressTap the tuner's on_progress calls (both
/// for the caller's progress line).
int tune_shapes(Tuner& tuner, const TunePlan& plan, const DeviceIdentity& identity, const Shape*& current,
                const KernelSpec*& tuning, ProgressTap* tap, const std::string& db,
                std::chrono::steady_clock::time_point started);
/// `tune` as one rank of an MPI job (mpirun / srun): rank 0 tunes and stores, the others measure for it.
int run_cluster_tune(const TuneRequest& args, const TunePlan& plan, std::chrono::steady_clock::time_point started);
/// The summary table, where the run's `total_s` seconds went (`before_s` of them before the first shape) and where the
/// results are; 1 when a shape has nothing correct (a failed run), else 0.
int finish_tune(const KernelSpec& spec, const std::vector<ShapeReport>& reports, const std::string& db, double total_s,
                double before_s);
/// Seconds from `start` to now.
double seconds_since(std::chrono::steady_clock::time_point start);
int run_best(const BestRequest& args);
int run_list();
int run_space(const SpaceRequest& args);
int run_compile(const CompileArgs& args);

/// --kernel, --spec and --problem on `cmd`, each excluding the others (load_chosen_kernel() checks that one is given).
void add_kernel_options(CLI::App& cmd, std::string& kernel, std::string& spec, std::string& problem);


/// Progress on stderr: one rewritten line on a terminal, a line per tenth of the work otherwise.
void print_progress(const KernelSpec& spec, const Shape& shape, const Progress& p);
/// The per-shape summary and the final table on stdout.
void print_shape_report(const KernelSpec& spec, const DeviceIdentity& device, const ShapeReport& r);
void print_summary(const KernelSpec& spec, const std::vector<ShapeReport>& reports);
/// An operation's end of run: per shape, each implementation's best beside the fastest (the one the runtime
/// launches there), then the run's time. 1 when a shape has nothing correct.
int finish_operation_tune(const OperationSpec& operation, const std::vector<ShapeReport>& reports,
                          const std::string& db, double total_s, double before_s);
/// Where a whole run's wall time `wall_s` went: its shapes' phases, with the `before_s` seconds before the first
/// shape (the database, the GPUs, the kernel) as start-up and the rest outside the shapes as other.
void print_run_time(const std::vector<ShapeReport>& reports, double wall_s, double before_s);
/// "compile 171.25 ms, verify 0.41 ms, benchmark 2.10 ms, framework 1.20 ms, search 0.05 ms" ("unknown" for NaN).
std::string result_times(const Result& r);

}  // namespace cutune::cli
