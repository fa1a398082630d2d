// The subcommands of `tune`: tune, best, list, space, compile.
#include "commands.hpp"

#include <atomic>
#include <filesystem>
#include <iostream>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
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

void add_best_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<BestArgs>();
  auto* cmd = app.add_subcommand("best", "print the stored best configuration for a kernel and shape");
  cmd->add_option("--kernel,-k", args->kernel, "kernel name or spec file")->required();
  cmd->add_option("--shape,-s", args->shape, "shape, e.g. 8192x8192")->required();
  cmd->add_option("--db", args->db, "SQLite database file")->capture_default_str();
  cmd->add_option("--gpu", args->gpu, "device name as stored (default: this machine's GPU, or the only one stored)");
  out.push_back({cmd, [args] { return run_best(*args); }});
}

void add_list_command(CLI::App& app, Subcommands& out) {
  out.push_back({app.add_subcommand("list", "list the built-in kernels"), [] { return run_list(); }});
}

void add_space_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<SpaceArgs>();
  auto* cmd = app.add_subcommand("space", "count (or list) the valid configurations of a kernel");
  cmd->add_option("--kernel,-k", args->kernel, "kernel name or spec file")->required();
  cmd->add_option("--shape,-s", args->shape, "shape, for constraints and grid limits that depend on it");
  cmd->add_flag("--list", args->list, "print every valid configuration");
  out.push_back({cmd, [args] { return run_space(*args); }});
}

void add_compile_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<CompileArgs>();
  auto* cmd = app.add_subcommand("compile", "compile every valid configuration through NVRTC (no GPU needed)");
  cmd->add_option("--kernel,-k", args->kernel, "kernel name or spec file")->required();
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

int run_tune(const TuneArgs& args) {
  const KernelSpec spec = load_kernel(args.kernel);
  const std::vector<Shape> shapes = parse_shapes(spec, args.shapes);
  FreshDatabaseGuard guard(args.db);
  Database db(args.db);
  Device device(args.device);
  guard.keep();

  TuneOptions options;
  options.measure = args.measure;
  options.strategy = args.strategy;
  options.compile_threads = args.jobs;
  options.command = args.command_line;
  std::vector<ShapeReport> reports;
  for (const Shape& shape : shapes) {
    options.on_progress = [&spec, &shape](const Progress& p) { print_progress(spec, shape, p); };
    Tuner tuner(device, db, options);
    reports.push_back(tuner.tune(spec, shape));
    print_shape_report(spec, device.identity(), reports.back());
  }
  print_summary(spec, reports);
  std::cout << "results stored in " << args.db << "\n";
  for (const auto& r : reports)
    if (!r.best) return 1;  // a shape where nothing was correct is a failure of the run
  return 0;
}

int run_best(const BestArgs& args) {
  const KernelSpec spec = load_kernel(args.kernel);
  const Shape shape = spec.parse_shape(args.shape);
  if (!std::filesystem::exists(args.db)) throw InputError("database '" + args.db + "' does not exist");
  Database db(args.db);

  std::vector<DeviceIdentity> candidates;
  for (const auto& e : db.entries()) {
    if (e.kernel.name != spec.name) continue;
    if (!args.gpu.empty() && e.device.name != args.gpu) continue;
    bool seen = false;
    for (const auto& d : candidates) seen = seen || (d.name == e.device.name && d.cc_major == e.device.cc_major &&
                                                      d.cc_minor == e.device.cc_minor && d.sm_count == e.device.sm_count);
    if (!seen) candidates.push_back(e.device);
  }
  DeviceIdentity device;
  if (args.gpu.empty() && Device::count() > 0) {
    device = Device(0).identity();
  } else if (candidates.size() == 1) {
    device = candidates.front();
  } else if (candidates.empty()) {
    throw InputError("no results for " + spec.name + (args.gpu.empty() ? "" : " on '" + args.gpu + "'") + " in " + args.db);
  } else {
    std::string names;
    for (const auto& d : candidates) names += (names.empty() ? "" : ", ") + d.name;
    throw InputError("results for several devices (" + names + "): choose one with --gpu");
  }

  const auto found = db.best({spec.name, spec.hash, device, shape.str()});
  if (!found) {
    throw InputError("no correct configuration of " + spec.name + " (this version, " + spec.hash + ") for shape " +
                     shape.str() + " on " + device.name + " in " + args.db);
  }
  const Result& r = found->result;
  std::cout << "kernel   " << spec.name << " (" << found->kernel.hash << ")\n"
            << "device   " << found->device.name << " (" << found->device.arch() << ", " << found->device.sm_count << " SMs)\n"
            << "shape    " << found->shape << "\n"
            << "config   " << r.config << "\n"
            << "time     " << r.median_ms << " ms (median of " << r.samples_ms.size() << ")\n"
            << "metric   " << r.metric << " " << spec.metric.unit() << "\n";
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

int run_space(const SpaceArgs& args) {
  const KernelSpec spec = load_kernel(args.kernel);
  std::optional<Shape> shape;
  if (!args.shape.empty()) shape = spec.parse_shape(args.shape);
  const Space space = Space::enumerate(spec, shape, DeviceLimits{});
  if (args.list) {
    for (const auto& c : space.configs()) std::cout << spec.format(c) << "\n";
  }
  std::cout << space.size() << " valid configurations of " << spec.name << " (" << space.cartesian_size()
            << " combinations, " << space.removed_by_constraints() << " removed by constraints, "
            << space.removed_by_device() << " by compute capability 9.0 launch limits)\n";
  return 0;
}

int run_compile(const CompileArgs& args) {
  const KernelSpec spec = load_kernel(args.kernel);
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  CompilePool pool(args.jobs);
  std::vector<std::future<CompileOutput>> futures;
  for (const auto& c : space.configs())
    futures.push_back(pool.submit([&spec, &c, &args] { return compile_config(spec, c, args.arch); }));
  std::size_t failed = 0;
  double total_ms = 0.0;
  for (std::size_t i = 0; i < futures.size(); ++i) {
    const CompileOutput out = futures[i].get();
    total_ms += out.ms;
    if (!out.ok) {
      ++failed;
      std::cout << "FAILED " << spec.format(space.configs()[i]) << "\n" << out.log << "\n";
    }
  }
  std::cout << space.size() - failed << " of " << space.size() << " configurations of " << spec.name
            << " compiled for " << args.arch << " (" << pool.threads() << " threads, "
            << static_cast<int>(total_ms / std::max<std::size_t>(1, space.size())) << " ms each on average)\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace cutune::cli
