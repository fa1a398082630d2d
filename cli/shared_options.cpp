// The options several subcommands of `tune` share: the kernel (--kernel, --spec, --problem), --flush, --where and
// --shard. Each subcommand is a file of its own (best_command.cpp, space_command.cpp, ...); main.cpp holds tuning's.
#include "commands.hpp"

namespace cutune::cli {

// --kernel, --spec and --problem: one of them names what a subcommand works on (load_chosen_kernel checks).
void add_kernel_options(CLI::App& cmd, std::string& kernel, std::string& spec, std::string& problem) {
  auto* k = cmd.add_option("--kernel,-k", kernel, "built-in kernel name or spec file (.json)");
  auto* s = cmd.add_option("--spec", spec, "a kernel spec file of your own (same as --kernel FILE.json)");
  auto* p = cmd.add_option("--problem", problem, "a T1 tuning-problem file");
  s->excludes(k);
  p->excludes(k)->excludes(s);
}

CLI::Option* add_flush_option(CLI::App& app, std::string& flush, const std::string& help) {
  return app.add_option("--flush", flush, help)->check(CLI::IsMember(l2_flush_names()));
}

void add_where_option(CLI::App& app, std::vector<std::string>& where) {
  app.add_option("--where", where,
                 "an extra constraint on the configurations, e.g. \"SPLITK == 1\" (repeatable; the kernel's version "
                 "and stored results stay the same)");
}

void add_shard_option(CLI::App& app, std::string& shard) {
  app.add_option("--shard", shard,
                 "i/n: only part i of n of each shape's space (i from 1, as SLURM_ARRAY_TASK_ID with --array=1-n); "
                 "the parts interleave and never overlap, --budget applies to each part, and `tune db merge` joins "
                 "the parts' databases");
}

}  // namespace cutune::cli
