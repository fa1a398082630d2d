// `tune compile`: every valid configuration of a kernel through NVRTC, each binary once (no GPU needed).
#include <algorithm>
#include <future>
#include <iostream>
#include <map>

#include "commands.hpp"
#include "cutune/compiler.hpp"
#include "cutune/space.hpp"
#include "cutune/target.hpp"
#include "worker/compiler_processes.hpp"

namespace cutune::cli {

void add_compile_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<CompileArgs>();
  auto* cmd = app.add_subcommand("compile", "compile every valid configuration through NVRTC (no GPU needed)");
  add_kernel_options(*cmd, args->kernel, args->spec, args->problem);
  cmd->add_option("--shape,-s", args->shape,
                  "shape: the space at it, and configurations specialized for their shape compiled for it (without "
                  "one they are left out)");
  cmd->add_option("--arch", args->arch, "target architecture")->capture_default_str();
  cmd->add_option("--jobs,-j", args->jobs, "compile threads (0: every core)")->capture_default_str();
  out.push_back({cmd, [args] { return run_compile(*args); }});
}

int run_compile(const CompileArgs& args) {
  const KernelSpec spec = load_chosen_kernel(args.kernel, args.spec, args.problem, nullptr, true);
  const std::optional<Shape> shape = args.shape.empty() ? std::nullopt : std::optional(spec.parse_shape(args.shape));
  const Space whole = Space::enumerate(spec, shape, arch_limits(args.arch));
  // Without a shape, a configuration whose binary depends on the shape has none to compile for.
  std::vector<Config> configs;
  for (const Config& c : whole.configs()) {
    if (shape || !spec.shape_specialized(c)) configs.push_back(c);
  }
  const std::size_t specialized = whole.size() - configs.size();
  const Shape* at = shape ? &*shape : nullptr;
  // Configurations that differ only in what never reaches the compiler (a pipeline's chunk and stream counts) are
  // one binary: compile each binary once and give its outcome to every configuration that shares it.
  std::map<std::string, std::size_t> binary_of;
  std::vector<std::size_t> binary(configs.size());
  std::vector<std::size_t> first;  // a configuration of each binary
  for (std::size_t i = 0; i < configs.size(); ++i) {
    std::string key = compile_arch(spec, configs[i], args.arch);
    for (const auto& d : config_options(spec, configs[i], at)) key += " " + d;
    const auto [it, added] = binary_of.emplace(key, first.size());
    if (added) first.push_back(i);
    binary[i] = it->second;
  }
  // Each thread compiles in a process of its own where the worker program is found (as the tuner does).
  CompilePool pool(args.jobs, detail::compiler_processes_if_found());
  std::vector<std::future<CompileOutput>> futures;
  for (const std::size_t i : first) {
    const Config& c = configs[i];
    futures.push_back(pool.submit([&spec, &c, &args, at] { return compile_config(spec, c, args.arch, at); }));
  }
  std::vector<CompileOutput> outputs;
  double total_ms = 0.0;
  for (auto& f : futures) {
    outputs.push_back(f.get());
    total_ms += outputs.back().ms;
  }
  std::size_t failed = 0;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const CompileOutput& out = outputs[binary[i]];
    if (out.ok) continue;
    ++failed;
    std::cout << "FAILED " << spec.format(configs[i]) << "\n";
    if (first[binary[i]] == i) std::cout << out.log << "\n";  // the log once per binary
  }
  std::cout << configs.size() - failed << " of " << configs.size() << " configurations of " << spec.name
            << " compiled for " << args.arch << (shape ? " at " + shape->str() : "") << " (";
  if (first.size() < configs.size()) std::cout << first.size() << " distinct binaries, ";
  if (specialized > 0) std::cout << specialized << " specialized for their shape left out: give --shape, ";
  std::cout << pool.threads() << " threads, " << static_cast<int>(total_ms / std::max<std::size_t>(1, first.size()))
            << " ms each on average)\n";
  return failed == 0 ? 0 : 1;
}

}  // namespace cutune::cli
