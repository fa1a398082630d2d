// `tune list`: the built-in kernels, each with its shape, parameter count and description.
#include <iostream>

#include "commands.hpp"
#include "cutune/templates.hpp"

namespace cutune::cli {

void add_list_command(CLI::App& app, Subcommands& out) {
  out.push_back({app.add_subcommand("list", "list the built-in kernels"), [] { return run_list(); }});
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

}  // namespace cutune::cli
