// `tune space`: the valid configurations of a kernel (or of each implementation of an operation), counted (or listed)
// for a shape and an architecture.
#include <iostream>

#include "commands.hpp"
#include "cutune/operation.hpp"
#include "cutune/space.hpp"

namespace cutune::cli {

void add_space_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<SpaceRequest>();
  auto* cmd = app.add_subcommand("space", "count (or list) the valid configurations of a kernel, or of each implementation of an operation");
  add_kernel_options(*cmd, args->kernel, args->spec, args->problem);
  cmd->add_option("--shape,-s", args->shape, "shape, for constraints and grid limits that depend on it "
                                             "(a T1 problem: its ProblemSize)");
  add_where_option(*cmd, args->where);
  add_shard_option(*cmd, args->shard);
  cmd->add_flag("--list", args->list, "print every valid configuration");
  cmd->add_option("--arch", args->arch, "architecture, for targets (sm_90a) and clusters")->capture_default_str();
  args->count_lazily = true;
  out.push_back({cmd, [args] { return run_space(*args); }});
}

namespace {

int run_one_space(const SpaceRequest& args, const CountedSpace& counted) {
  const KernelSpec& spec = counted.spec;
  const Space& space = counted.space;
  if (args.list && counted.lazily) {  // too many to hold: printed as the walk finds them, then counted exactly
    const Shard shard = parse_shard(args.shard);
    const std::uint64_t n = walk_lazily(args, counted, [&](const Config& c) { std::cout << spec.format(c) << "\n"; });
    const std::string part = shard.whole() ? "" : " in part " + shard.str() + " (" + std::to_string(n) + " in all;";
    std::cout << shard_size(n, shard) << " valid configurations of " << spec.name
              << (shard.whole() ? " (" : part + " ") << counted.combinations
              << " combinations; listed by a walk that keeps none of them)\n";
    return 0;
  }
  if (args.list) {
    for (const auto& c : space.configs()) std::cout << spec.format(c) << "\n";
  }
  std::cout << space_summary(args, counted) << "\n";
  return 0;
}

}  // namespace

int run_space(const SpaceRequest& args) {
  if (!is_operation(args.kernel)) return run_one_space(args, count_space(args));
  // An operation: each implementation's space in turn, a header before each list.
  const std::vector<CountedSpace> spaces = count_operation_space(args);
  for (const CountedSpace& counted : spaces) {
    if (args.list) std::cout << "# " << counted.spec.name << "\n";
    run_one_space(args, counted);
  }
  std::cout << args.kernel << ": " << spaces.size() << " implementations, each tuned in its own space\n";
  return 0;
}

}  // namespace cutune::cli
