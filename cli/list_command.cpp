// `tune list`: the built-in kernels, each with its shape, parameter count and description; then the operations.
#include <iostream>

#include "commands.hpp"
#include "cutune/operation.hpp"
#include "cutune/templates.hpp"

namespace cutune::cli {

void add_list_command(CLI::App& app, Subcommands& out) {
  out.push_back({app.add_subcommand("list", "list the built-in kernels and operations"), [] { return run_list(); }});
}

int run_list() {
  for (const auto& name : builtin_kernels()) {
    const KernelSpec spec = load_kernel(name);
    std::string shape;
    for (const auto& d : spec.shape_names) shape += (shape.empty() ? "" : "x") + d;
    std::cout << spec.name << "  (shape " << shape << ", " << spec.parameters.size() << " parameters)  "
              << spec.description << "\n";
  }
  for (const auto& name : builtin_operations()) {
    const OperationSpec op = load_operation(name);
    std::string implementations;
    for (const auto& s : op.implementations) implementations += (implementations.empty() ? "" : ", ") + s.name;
    std::cout << op.name << "  (operation: " << implementations << ")  " << op.description << "\n";
  }
  return 0;
}

}  // namespace cutune::cli
