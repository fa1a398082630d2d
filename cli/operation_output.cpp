// What `tune --kernel <operation>` prints at the end: per shape, each implementation's best and the operation's winner.
#include <fmt/format.h>

#include <iostream>

#include "commands.hpp"

namespace cutune::cli {

int finish_operation_tune(const OperationSpec& operation, const std::vector<ShapeReport>& reports,
                          const std::string& db, double total_s, double before_s) {
  const std::vector<std::size_t> order = operation_tuning_order(operation);
  const std::size_t per_shape = order.size();
  fmt::print("\n{} ({} implementations)\n{:<16} {:<26} {:>10} {:>10}  {}\n", operation.name, per_shape, "shape",
             "implementation", "time ms", "vs best", "configuration");
  bool every_shape = true;
  for (std::size_t first = 0; first + per_shape <= reports.size(); first += per_shape) {
    const ShapeReport* winner = nullptr;
    for (std::size_t j = 0; j < per_shape; ++j) {
      const ShapeReport& r = reports[first + j];
      if (r.best && (winner == nullptr || r.best->median_ms < winner->best->median_ms)) winner = &r;
    }
    every_shape = every_shape && winner != nullptr;
    for (std::size_t j = 0; j < per_shape; ++j) {
      const ShapeReport& r = reports[first + j];
      const std::string& name = operation.implementations[order[j]].name;
      if (!r.best) {
        fmt::print("{:<16} {:<26} {:>10} {:>10}  (none correct)\n", r.shape.str(), name, "", "");
        continue;
      }
      fmt::print("{:<16} {:<26} {:>10.4f} {:>9.3f}x  {}{}\n", r.shape.str(), name, r.best->median_ms,
                 winner->best->median_ms / r.best->median_ms, r.best->config, &r == winner ? "  <- launched" : "");
    }
  }
  print_run_time(reports, total_s, before_s);
  std::cout << "results stored in " << db << "\n";
  return every_shape ? 0 : 1;
}

}  // namespace cutune::cli
