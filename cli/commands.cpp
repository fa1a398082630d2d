// The subcommands of `tune`: tune, best, list, space, compile.
#include "commands.hpp"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/resources.hpp"
#include "cutune/runtime.hpp"
#include "cutune/space.hpp"
#include "cutune/t1.hpp"
#include "cutune/target.hpp"
#include "cutune/templates.hpp"
#include "measure/compiler_processes.hpp"

namespace cutune::cli {
namespace {

// Opens the database; removes it again when this call created it and the command then fails before use.
class FreshDatabaseGuard {
 public:
  explicit FreshDatabaseGuard(const std::filesystem::path& path) : path_(path), existed_(std::filesystem::exists(path)) {}
  ~FreshDatabaseGuard() {
    if (!keep_ && !existed_) {
      std::error_code ignored;
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix, ignored);
    }
  }
  void keep() { keep_ = true; }

 private:
  std::filesystem::path path_;
  bool existed_;
  bool keep_ = false;
};

// --kernel, --spec and --problem: one of them names what a subcommand works on (load_chosen_kernel checks).
void add_kernel_options(CLI::App& cmd, std::string& kernel, std::string& spec, std::string& problem) {
  auto* k = cmd.add_option("--kernel,-k", kernel, "built-in kernel name or spec file (.json)");
  auto* s = cmd.add_option("--spec", spec, "a kernel spec file of your own (same as --kernel FILE.json)");
  auto* p = cmd.add_option("--problem", problem, "a T1 tuning-problem file");
  s->excludes(k);
  p->excludes(k)->excludes(s);
}

// A T1 problem describes one problem size: --shapes may only repeat it.
std::vector<Shape> problem_shapes(const KernelSpec& spec, const Shape& problem_shape, const std::string& text) {
  if (text.empty()) return {problem_shape};
  std::vector<Shape> shapes = parse_shapes(spec, text);
  for (const Shape& s : shapes) {
    if (!(s == problem_shape)) {
      throw InputError("T1 problem " + spec.name + " describes one problem size, " + problem_shape.str() +
                       " (its ProblemSize), not " + s.str() + "; leave out --shapes");
    }
  }
  return shapes;
}

// What the configuration asks of the GPU, as measured with it, and what that means on the measured device.
void print_resources(const Result& r, const DeviceIdentity& device, std::string_view unit) {
  if (r.threads_per_block <= 0 && r.registers <= 0) {
    std::cout << "resources not recorded (measured by an older cutune, or imported from another tool)\n";
    return;
  }
  const DerivedResources d = derived_resources(r, device);
  std::cout << "resource " << r.registers << " registers per thread (" << r.spill_bytes << " bytes spilled), "
            << r.static_smem_bytes << " B static + " << r.dynamic_smem_bytes << " B dynamic shared memory per block\n";
  if (r.threads_per_block > 0) {
    std::cout << "launch   " << r.blocks << " blocks of " << r.threads_per_block << " threads";
    if (r.blocks_per_sm > 0) {
      std::cout << "; " << r.blocks_per_sm << " blocks per SM (occupancy " << std::fixed << std::setprecision(1)
                << 100.0 * d.occupancy << "%), " << std::setprecision(2) << d.waves << " waves on " << device.sm_count
                << " SMs" << std::defaultfloat << std::setprecision(6);
    }
    std::cout << "\n";
  }
  if (std::isfinite(d.fraction_of_peak)) {
    std::cout << "peak     " << std::fixed << std::setprecision(1) << 100.0 * d.fraction_of_peak << "% of "
              << std::setprecision(0) << r.peak << " " << unit << std::defaultfloat << std::setprecision(6) << "\n";
  }
}

}  // namespace

KernelSpec load_chosen_kernel(const std::string& kernel, const std::string& spec_file, const std::string& problem_file,
                              std::optional<Shape>* problem_shape, bool for_tuning) {
  const int given = !kernel.empty() + !spec_file.empty() + !problem_file.empty();
  if (given != 1) throw InputError("give one of --kernel, --spec and --problem");
  if (!spec_file.empty()) return load_spec_file(spec_file);
  if (kernel.empty()) {
    T1Problem problem = read_t1(problem_file);
    for (const T1Issue& issue : problem.issues) std::cerr << problem.spec.name << ": " << issue.str() << "\n";
    if (for_tuning) problem.require_tunable();
    if (problem_shape != nullptr) *problem_shape = problem.shape;
    return std::move(problem.spec);
  }
  return load_kernel(kernel);
}

void add_best_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<BestArgs>();
  auto* cmd = app.add_subcommand("best", "print the stored best configuration for a kernel and shape");
  cmd->add_option("--kernel,-k", args->kernel, "kernel name or spec file")->required();
  cmd->add_option("--shape,-s", args->shape, "shape, e.g. 8192x8192")->required();
  cmd->add_option("--db", args->db, "SQLite database file")->capture_default_str();
  cmd->add_option("--gpu", args->gpu, "device name as stored (default: this machine's GPU, or the only one stored)");
  cmd->add_flag("--exact", args->exact, "only a result for this very shape and GPU (no fallback)");
  add_flush_option(*cmd, args->flush,
                   "only results measured under this L2 convention: read, write or none (default: the spec's "
                   "\"measure\", else read)");
  out.push_back({cmd, [args] { return run_best(*args); }});
}

CLI::Option* add_flush_option(CLI::App& app, std::string& flush, const std::string& help) {
  return app.add_option("--flush", flush, help)->check(CLI::IsMember(l2_flush_names()));
}

void apply_measure_choices(MeasureOptions& measure, const std::string& verify, const std::string& flush) {
  measure.flush = flush_from_option(flush);
  if (!verify.empty()) {
    measure.verify = parse_verify_mode(verify);
    if (!measure.verify) throw InputError("--verify '" + verify + "': expected reference, default or none");
  }
  if (measure.verify == VerifyMode::None && (measure.atol || measure.rtol)) {
    throw InputError("--atol and --rtol bound the comparison that --verify none leaves out");
  }
}

std::optional<L2Flush> flush_from_option(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const auto flush = parse_l2_flush(text);
  if (!flush) throw InputError("--flush '" + text + "': expected one of " + std::string(kL2FlushNames));
  return flush;
}

void add_list_command(CLI::App& app, Subcommands& out) {
  out.push_back({app.add_subcommand("list", "list the built-in kernels"), [] { return run_list(); }});
}

void add_where_option(CLI::App& app, std::vector<std::string>& where) {
  app.add_option("--where", where,
                 "an extra constraint on the configurations, e.g. \"SPLITK == 1\" (repeatable; the kernel's version "
                 "and stored results stay the same)");
}

void add_space_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<SpaceArgs>();
  auto* cmd = app.add_subcommand("space", "count (or list) the valid configurations of a kernel");
  add_kernel_options(*cmd, args->kernel, args->spec, args->problem);
  cmd->add_option("--shape,-s", args->shape, "shape, for constraints and grid limits that depend on it "
                                             "(a T1 problem: its ProblemSize)");
  add_where_option(*cmd, args->where);
  add_shard_option(*cmd, args->shard);
  cmd->add_flag("--list", args->list, "print every valid configuration");
  cmd->add_option("--arch", args->arch, "architecture, for targets (sm_90a) and clusters")->capture_default_str();
  out.push_back({cmd, [args] { return run_space(*args); }});
}

void add_compile_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<CompileArgs>();
  auto* cmd = app.add_subcommand("compile", "compile every valid configuration through NVRTC (no GPU needed)");
  add_kernel_options(*cmd, args->kernel, args->spec, args->problem);
  cmd->add_option("--arch", args->arch, "target architecture")->capture_default_str();
  cmd->add_option("--jobs,-j", args->jobs, "compile threads (0: every core)")->capture_default_str();
  out.push_back({cmd, [args] { return run_compile(*args); }});
}

std::vector<Shape> parse_shapes(const KernelSpec& spec, const std::string& text) {
  std::vector<Shape> shapes;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    shapes.push_back(spec.parse_shape(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return shapes;
}

TuneOptions tune_options(const TuneArgs& args, const KernelSpec& spec, const Shape* const& current) {
  TuneOptions options;
  options.measure = args.measure;
  options.strategy = args.strategy;
  options.seed = args.seed;
  options.start = args.start;
  options.prior = args.prior;
  options.budget = args.budget;
  options.time_budget_s = args.time_budget_s;
  options.compile_threads = args.jobs;
  options.use_cache = args.use_cache;
  options.cache_dir = args.cache_dir;
  options.isolate = args.isolate;
  options.timeout_floor_s = args.timeout_floor_s;
  options.shard = args.shard;
  options.command = args.command_line;
  options.on_progress = [&spec, &current](const Progress& p) { print_progress(spec, *current, p); };
  return options;
}

std::vector<ShapeReport> tune_each(Tuner& tuner, const KernelSpec& spec, const std::vector<Shape>& shapes,
                                   const DeviceIdentity& identity, const Shape*& current, const TuneHooks& hooks) {
  std::vector<ShapeReport> reports;
  if (hooks.starting) hooks.starting();
  tuner.expect(spec, shapes);  // every shape's space is enumerated while the first ones tune
  for (const Shape& shape : shapes) {
    current = &shape;
    reports.push_back(tuner.tune(spec, shape));
    if (hooks.report) hooks.report(identity, reports.back());
  }
  return reports;
}

int tune_shapes(Tuner& tuner, const KernelSpec& spec, const std::vector<Shape>& shapes, const DeviceIdentity& identity,
                const Shape*& current, const std::string& db, std::chrono::steady_clock::time_point started) {
  const double before_s = seconds_since(started);
  TuneHooks hooks;
  hooks.report = [&spec](const DeviceIdentity& device, const ShapeReport& r) { print_shape_report(spec, device, r); };
  const std::vector<ShapeReport> reports = tune_each(tuner, spec, shapes, identity, current, hooks);
  return finish_tune(spec, reports, db, seconds_since(started), before_s);
}

int finish_tune(const KernelSpec& spec, const std::vector<ShapeReport>& reports, const std::string& db, double total_s,
                double before_s) {
  print_summary(spec, reports);
  print_run_time(reports, total_s, before_s);
  std::cout << "results stored in " << db << "\n";
  for (const auto& r : reports)
    if (!r.best) return 1;  // a shape where nothing was correct is a failure of the run
  return 0;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TuneJob prepare_tune(const TuneArgs& args) {
  std::optional<Shape> problem_shape;
  TuneJob job{load_chosen_kernel(args.kernel, args.spec, args.problem, &problem_shape, true), {}};
  for (const auto& w : args.where) job.spec.restrict_to(w);
  for (const auto& c : args.start) job.spec.parse_config(c);  // a malformed --start fails before any work
  job.shapes = problem_shape ? problem_shapes(job.spec, *problem_shape, args.shapes) : parse_shapes(job.spec, args.shapes);
  return job;
}

std::vector<ShapeReport> tune_on_this_machine(const TuneArgs& args, const TuneJob& job, const TuneHooks& hooks) {
  FreshDatabaseGuard guard(args.db);
  Database db(args.db);
  std::vector<std::unique_ptr<Device>> devices;
  const DeviceChoice choice = choose_devices(args, devices);
  guard.keep();

  const Shape* current = nullptr;
  TuneOptions options = tune_options(args, job.spec, current);
  if (hooks.progress) options.on_progress = [&hooks, &current](const Progress& p) { hooks.progress(*current, p); };
  // One tuner for every shape: its worker processes stay up from one shape to the next.
  Tuner tuner = choice.ordinals.size() == 1 ? Tuner(*devices.front(), db, options)
                                            : Tuner(choice.identity, choice.limits, choice.ordinals, db, options);
  return tune_each(tuner, job.spec, job.shapes, choice.identity, current, hooks);
}

namespace {

// The devices with results of this kernel under this L2 convention (of --gpu's name when given), each once.
std::vector<DeviceIdentity> stored_devices(Database& db, const std::string& kernel, L2Flush flush,
                                           const std::string& gpu) {
  std::vector<DeviceIdentity> candidates;
  for (const auto& e : db.entries()) {
    if (e.kernel.name != kernel || e.flush != flush) continue;
    if (!gpu.empty() && e.device.name != normalized_device_name(gpu)) continue;
    bool seen = false;
    for (const auto& d : candidates) seen = seen || (d.name == e.device.name && d.cc_major == e.device.cc_major &&
                                                      d.cc_minor == e.device.cc_minor && d.sm_count == e.device.sm_count);
    if (!seen) candidates.push_back(e.device);
  }
  return candidates;
}

// This machine's first GPU unless --gpu names one; else the one device the database holds results of.
DeviceIdentity best_device(const BestArgs& args, const std::vector<DeviceIdentity>& candidates, const KernelSpec& spec,
                           L2Flush flush) {
  if (args.gpu.empty() && Device::count() > 0) return Device(0).identity();
  if (candidates.size() == 1) return candidates.front();
  if (candidates.empty()) {
    throw InputError("no results for " + spec.name + (args.gpu.empty() ? "" : " on '" + args.gpu + "'") +
                     " measured under L2 flush " + std::string(to_string(flush)) + " in " + args.db);
  }
  std::string names;
  for (const auto& d : candidates) names += (names.empty() ? "" : ", ") + d.name;
  throw InputError("results for several devices (" + names + "): choose one with --gpu");
}

// Which fallback rule matched, and from where.
std::string rule_text(const BestConfig& found, const DeviceIdentity& device) {
  std::ostringstream rule;
  rule << to_string(found.match);
  if (found.match == Match::NearestShape || found.match == Match::SameArchitecture) {
    rule << " (" << found.shape << ", log distance " << std::setprecision(3) << found.distance << ")";
  } else if (found.match == Match::Predicted) {
    rule << " fastest of this GPU's measured configurations (measured at " << found.shape << ", log distance "
         << std::setprecision(3) << found.distance << ")";
  } else if (found.match == Match::Default) {
    rule << " (nothing of this version tuned on " << device.arch() << ")";
  }
  return rule.str();
}

}  // namespace

FoundBest find_best(const BestArgs& args) {
  FoundBest out{load_kernel(args.kernel), {}, {}, {}, {}};
  const KernelSpec& spec = out.spec;
  const Shape shape = spec.parse_shape(args.shape);
  const L2Flush flush = spec.l2_flush(flush_from_option(args.flush));
  if (!std::filesystem::exists(args.db)) throw InputError("database '" + args.db + "' does not exist");
  Database db(args.db);
  const DeviceIdentity device = best_device(args, stored_devices(db, spec.name, flush, args.gpu), spec, flush);

  // The fallback chain answers for shapes and GPUs nobody tuned; --exact asks for this very shape only.
  const std::optional<BestConfig> found = args.exact ? db.best({spec.name, spec.hash, device, shape.str(), flush})
                                                     : choose_config(&db, spec, device, shape, flush);
  if (!found) {
    throw InputError("no correct configuration of " + spec.name + " (this version, " + spec.hash + ") for shape " +
                     shape.str() + " on " + device.name + " measured under L2 flush " +
                     std::string(to_string(flush)) + " in " + args.db);
  }
  if (auto why = invalid_config(spec, found->result.config, found->shape)) {  // choose_config checked the others
    throw DatabaseError("database " + args.db + ": the stored best configuration of " + spec.name + " at " +
                        found->shape + " is not valid: " + *why);
  }
  out.device = device;
  out.flush = flush;
  out.found = *found;
  out.rule = rule_text(*found, device);
  return out;
}

int run_best(const BestArgs& args) {
  const FoundBest best = find_best(args);
  const KernelSpec& spec = best.spec;
  const BestConfig* found = &best.found;
  const L2Flush flush = best.flush;
  const Result& r = found->result;
  std::cout << "kernel   " << spec.name << " (" << found->kernel.hash << ")\n"
            << "device   " << found->device.name << " (" << found->device.arch() << ", " << found->device.sm_count << " SMs)\n"
            << "shape    " << found->shape << "\n"
            << "rule     " << best.rule << "\n"
            << "flush    " << to_string(flush) << " (the L2 state before each timed launch)\n"
            << "config   " << r.config << "\n";
  if (r.status == Status::Unverified) {
    std::cout << "verified no: measured with --verify none, its outputs were never compared with a reference\n";
  }
  if (found->match != Match::Default) {
    std::cout << "time     " << r.median_ms << " ms (median of " << r.samples_ms.size() << ")\n"
              << "spent    " << result_times(r) << "\n";
    if (spec.metric.has_rate()) std::cout << "metric   " << r.metric << " " << spec.metric.unit() << "\n";
    print_resources(r, found->device, spec.metric.unit());
  }
  return 0;
}

int run_list() {
  for (const auto& name : builtin_kernels()) {
    const KernelSpec spec = load_kernel(name);
    std::string shape;
    for (const auto& d : spec.shape_names) shape += (shape.empty() ? "" : "x") + d;
    std::cout << spec.name << "  (shape " << shape << ", " << spec.parameters.size() << " parameters)  "
              << spec.description << "\n";
  }
  return 0;
}

// Launch limits of compute capability 9.0, with the architecture's own targets and clusters.
DeviceLimits arch_limits(const std::string& arch) {
  const auto cc = arch_compute_capability(arch);
  if (!cc) throw InputError("--arch '" + arch + "': expected an architecture such as sm_80, sm_90 or sm_90a");
  return limits_of_compute_capability(*cc);
}

CountedSpace count_space(const SpaceArgs& args) {
  std::optional<Shape> problem_shape;
  KernelSpec spec = load_chosen_kernel(args.kernel, args.spec, args.problem, &problem_shape, false);
  for (const auto& w : args.where) spec.restrict_to(w);
  std::optional<Shape> shape = problem_shape;  // a T1 problem is counted at its size, grid limits included
  if (!args.shape.empty()) shape = problem_shape ? problem_shapes(spec, *problem_shape, args.shape).front()
                                                 : spec.parse_shape(args.shape);
  Space space = Space::enumerate(spec, shape, arch_limits(args.arch)).shard(parse_shard(args.shard));
  return {std::move(spec), shape, std::move(space)};
}

std::string space_summary(const SpaceArgs& args, const CountedSpace& counted) {
  const Space& space = counted.space;
  return std::to_string(space.size()) + " valid configurations of " + counted.spec.name + " (" +
         std::to_string(space.cartesian_size()) + " combinations, " + std::to_string(space.removed_by_constraints()) +
         " removed by constraints, " + std::to_string(space.removed_by_device()) +
         " by compute capability 9.0 launch limits, " + std::to_string(space.removed_by_target()) + " by target " +
         args.arch + (args.shard.empty() ? "" : ", " + std::to_string(space.removed_by_shard()) + " in the other parts") +
         ")";
}

int run_space(const SpaceArgs& args) {
  const CountedSpace counted = count_space(args);
  const KernelSpec& spec = counted.spec;
  const Space& space = counted.space;
  if (args.list) {
    for (const auto& c : space.configs()) std::cout << spec.format(c) << "\n";
  }
  std::cout << space_summary(args, counted) << "\n";
  return 0;
}

int run_compile(const CompileArgs& args) {
  const KernelSpec spec = load_chosen_kernel(args.kernel, args.spec, args.problem, nullptr, true);
  const Space space = Space::enumerate(spec, std::nullopt, arch_limits(args.arch));
  // Configurations that differ only in what never reaches the compiler (a pipeline's chunk and stream counts) are
  // one binary: compile each binary once and give its outcome to every configuration that shares it.
  std::map<std::string, std::size_t> binary_of;
  std::vector<std::size_t> binary(space.size());
  std::vector<std::size_t> first;  // a configuration of each binary
  for (std::size_t i = 0; i < space.size(); ++i) {
    std::string key = compile_arch(spec, space.configs()[i], args.arch);
    for (const auto& d : config_options(spec, space.configs()[i])) key += " " + d;
    const auto [it, added] = binary_of.emplace(key, first.size());
    if (added) first.push_back(i);
    binary[i] = it->second;
  }
  // Each thread compiles in a process of its own where the worker program is found (as the tuner does).
  CompilePool pool(args.jobs, detail::compiler_processes_if_found());
  std::vector<std::future<CompileOutput>> futures;
  for (const std::size_t i : first) {
    const Config& c = space.configs()[i];
    futures.push_back(pool.submit([&spec, &c, &args] { return compile_config(spec, c, args.arch); }));
  }
  std::vector<CompileOutput> outputs;
  double total_ms = 0.0;
  for (auto& f : futures) {
    outputs.push_back(f.get());
    total_ms += outputs.back().ms;
  }
  std::size_t failed = 0;
  for (std::size_t i = 0; i < space.size(); ++i) {
    const CompileOutput& out = outputs[binary[i]];
    if (out.ok) continue;
    ++failed;
    std::cout << "FAILED " << spec.format(space.configs()[i]) << "\n";
    if (first[binary[i]] == i) std::cout << out.log << "\n";  // the log once per binary
  }
  std::cout << space.size() - failed << " of " << space.size() << " configurations of " << spec.name
            << " compiled for " << args.arch << " (";
  if (first.size() < space.size()) std::cout << first.size() << " distinct binaries, ";
  std::cout << pool.threads() << " threads, " << static_cast<int>(total_ms / std::max<std::size_t>(1, first.size()))
            << " ms each on average)\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace cutune::cli
