// Where an NVRTC compile of a kernel template spends its time: front end, NVVM optimizer, PTX to cubin (ptxas).
//
// Usage: compile_bench --kernel gemm_bf16 --shape 4096x4096x4096 [--count 12] [--arch sm_90] [--option OPT]...
//                      [--where EXPR] [--jobs J] [--processes] [--cubin-dir DIR]
// Takes --count configurations spread evenly over the shape's valid space (enumeration order; --where narrows it, e.g.
// to the configurations specialized for the shape, "SHAPED == 1"), compiles each one at the shape
// after the other on this thread with NVRTC's --time report, and prints each compile's phases and their sums. Extra
// NVRTC options (--option, repeatable) are added to every compile, to see what one costs or saves. With --jobs J,
// the same compiles then run again on J threads of this process (as `tune` compiles), and the mean time of one
// compile there is printed beside the one-at-a-time figure: what threads sharing one NVRTC cost; with --processes,
// each of the J threads compiles in a compiler process of its own, as `tune` does. With --cubin-dir, each binary of the
// one-at-a-time pass is written there as <i>.cubin (for cuobjdump -sass / nvdisasm), its configuration in <i>.txt. No
// GPU needed.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "cutune/target.hpp"
#include "cutune/templates.hpp"
#include "worker/compiler_processes.hpp"

namespace {

// NVRTC's --time file: "file, phase, value, unit" lines after a header; milliseconds per phase.
std::map<std::string, double> read_phases(const std::filesystem::path& file) {
  std::map<std::string, double> phases;
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    std::string name, phase, value;
    if (!std::getline(fields, name, ',') || !std::getline(fields, phase, ',') || !std::getline(fields, value, ',')) {
      continue;
    }
    phase.erase(0, phase.find_first_not_of(' '));
    phases[phase] += std::stod(value);
  }
  return phases;
}

// --cubin-dir: the binary of compile `i` as <i>.cubin and its configuration and NVRTC log as <i>.txt.
void write_binary(const std::filesystem::path& dir, std::size_t i, const cutune::CompileOutput& out,
                  const std::string& config) {
  std::filesystem::create_directories(dir);
  std::ofstream(dir / fmt::format("{}.cubin", i), std::ios::binary) << out.cubin;
  std::ofstream(dir / fmt::format("{}.txt", i)) << config << "\n" << out.log;
}

using CompileOne = std::function<cutune::CompileOutput(const cutune::Config&, const std::filesystem::path&)>;

// What the one-at-a-time pass measured, for the threaded pass to compare against.
struct ThreadedRun {
  unsigned jobs;
  bool processes;
  std::filesystem::path time_file;
  const std::map<std::string, double>& one_at_a_time;  // ms per phase, summed over the compiles
  double wall_total;                                    // ms, summed over the compiles
};

// The same compiles again on `run.jobs` threads (each in a compiler process with `run.processes`), as `tune` runs them.
void time_on_threads(const CompileOne& compile_one, const cutune::Space& space, std::size_t count,
                     const ThreadedRun& run) {
  const cutune::detail::NvrtcRunnerFactory runners =
      run.processes ? cutune::detail::compiler_processes_if_found() : cutune::detail::NvrtcRunnerFactory{};
  if (run.processes && !runners) throw cutune::Error("--processes: cutune-worker not found (set CUTUNE_WORKER)");
  cutune::CompilePool pool(run.jobs, runners);
  std::vector<std::future<cutune::CompileOutput>> futures;
  std::vector<std::filesystem::path> files;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < count; ++i) {
    const cutune::Config& config = space.configs()[i * space.size() / count];
    files.push_back(run.time_file.string() + "." + std::to_string(i));
    futures.push_back(pool.submit([&compile_one, &config, file = files.back()] { return compile_one(config, file); }));
  }
  double threaded_total = 0.0;
  for (auto& f : futures) threaded_total += f.get().ms;
  const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::map<std::string, double> threaded;
  for (const auto& file : files) {
    for (const auto& [phase, ms] : read_phases(file)) threaded[phase] += ms;
    std::filesystem::remove(file);
  }
  fmt::print("on {} threads{}: mean {:.0f} ms per compile ({:.2f}x one at a time), {:.0f} ms for all {}:", run.jobs,
             run.processes ? " in compiler processes" : "", threaded_total / count, threaded_total / run.wall_total,
             wall, count);
  for (const auto& [phase, ms] : threaded) {
    const auto alone = run.one_at_a_time.find(phase);
    if (alone == run.one_at_a_time.end()) continue;  // a phase the one-at-a-time compiles did not report
    fmt::print("  {} {:.0f} ({:.2f}x)", phase, ms / count, ms / alone->second);
  }
  fmt::print("\n");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times NVRTC compiles of a kernel's configurations, phase by phase (no GPU needed)"};
  std::string kernel = "gemm_bf16", shape_text = "4096x4096x4096", arch = "sm_90", where;
  std::size_t count = 12;
  std::vector<std::string> extra;
  unsigned jobs = 0;
  bool processes = false;
  std::string cubin_dir;
  app.add_option("--kernel,-k", kernel, "built-in kernel or spec file")->capture_default_str();
  app.add_option("--shape", shape_text, "problem shape the configurations must be valid at")->capture_default_str();
  app.add_option("--count,-n", count, "configurations, spread evenly over the valid space")->capture_default_str();
  app.add_option("--arch", arch, "target architecture")->capture_default_str();
  app.add_option("--where", where, "only configurations where this expression holds");
  app.add_option("--option", extra, "an NVRTC option added to every compile (repeatable)");
  app.add_option("--jobs,-j", jobs, "then compile the same on this many threads (0: not)")->capture_default_str();
  app.add_flag("--processes", processes, "with --jobs: each thread compiles in a compiler process (cutune-worker)");
  app.add_option("--cubin-dir", cubin_dir, "write each binary of the one-at-a-time pass there (<i>.cubin, <i>.txt)");
  CLI11_PARSE(app, argc, argv);

  try {
    cutune::KernelSpec spec = cutune::load_kernel(kernel);
    if (!where.empty()) spec.restrict_to(where);
    const cutune::Shape shape = spec.parse_shape(shape_text);
    const int cc = std::stoi(arch.substr(arch.find('_') + 1));
    const cutune::Space space = cutune::Space::enumerate(spec, shape, cutune::limits_of_compute_capability(cc));
    if (space.size() == 0) {
      fmt::print(stderr, "error: no valid configuration of {} at {}\n", kernel, shape_text);
      return 1;
    }
    count = std::min(count, space.size());
    const std::filesystem::path time_file =
        std::filesystem::temp_directory_path() / fmt::format("cutune-compile-bench-{}.csv", ::getpid());
    // One configuration's compile, with NVRTC's phase report written to `file`.
    const CompileOne compile_one = [&spec, &arch, &extra, &shape](const cutune::Config& config, const std::filesystem::path& file) {
      std::vector<std::string> options = cutune::config_options(spec, config, &shape);
      options.insert(options.end(), extra.begin(), extra.end());
      options.push_back("--time=" + file.string());
      return cutune::compile(spec, spec.kernel, options, cutune::compile_arch(spec, config, arch));
    };
    std::map<std::string, double> total;
    double wall_total = 0.0;
    fmt::print("{} at {}, {} of {} configurations, {}{}\n", spec.name, shape_text, count, space.size(), arch,
               extra.empty() ? "" : ", with " + fmt::format("{}", fmt::join(extra, " ")));
    for (std::size_t i = 0; i < count; ++i) {
      const cutune::Config& config = space.configs()[i * space.size() / count];
      std::filesystem::remove(time_file);
      const auto start = std::chrono::steady_clock::now();
      const cutune::CompileOutput out = compile_one(config, time_file);
      const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      const auto phases = read_phases(time_file);
      std::string line;
      for (const auto& [phase, ms] : phases) {
        line += fmt::format("  {} {:.0f}", phase, ms);
        total[phase] += ms;
      }
      wall_total += wall;
      fmt::print("{:7.0f} ms{}{}  {} regs  {}\n", wall, line, out.ok ? "" : "  FAILED", out.registers,
                 spec.format(config));
      if (!cubin_dir.empty()) write_binary(cubin_dir, i, out, spec.format(config));
    }
    std::filesystem::remove(time_file);
    fmt::print("mean {:.0f} ms per compile:", wall_total / count);
    for (const auto& [phase, ms] : total) fmt::print("  {} {:.0f} ({:.0f}%)", phase, ms / count, 100 * ms / wall_total);
    fmt::print("\n");
    if (jobs > 0) time_on_threads(compile_one, space, count, {jobs, processes, time_file, total, wall_total});
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
