// What the subcommands of `tune` share (choosing the kernel, its shapes, the L2 and verification options), and `tune`
// itself: its options and the run on this machine (best_command.cpp, space_command.cpp and the others: the rest).
#include "commands.hpp"

#include <filesystem>
#include <iostream>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/t1.hpp"
#include "cutune/templates.hpp"

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

}  // namespace

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

void add_where_option(CLI::App& app, std::vector<std::string>& where) {
  app.add_option("--where", where,
                 "an extra constraint on the configurations, e.g. \"SPLITK == 1\" (repeatable; the kernel's version "
                 "and stored results stay the same)");
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

}  // namespace cutune::cli
