// `tune best`: the stored best configuration of a kernel at a shape, by the runtime's fallback chain; of an operation,
// the implementation the runtime launches there, and each implementation's own answer.
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/resources.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"

namespace cutune::cli {
namespace {

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

void add_best_command(CLI::App& app, Subcommands& out) {
  auto args = std::make_shared<BestRequest>();
  auto* cmd = app.add_subcommand("best", "print the stored best configuration for a kernel (or operation) and shape");
  cmd->add_option("--kernel,-k", args->kernel,
                  "kernel name or spec file; an operation: the implementation the runtime launches, and each one's")
      ->required();
  cmd->add_option("--shape,-s", args->shape, "shape, e.g. 8192x8192")->required();
  cmd->add_option("--db", args->db, "SQLite database file")->capture_default_str();
  cmd->add_option("--gpu", args->gpu, "device name as stored (default: this machine's GPU, or the only one stored)");
  cmd->add_flag("--exact", args->exact, "only a result for this very shape and GPU (no fallback)");
  add_flush_option(*cmd, args->flush,
                   "only results measured under this L2 convention: read, write or none (default: the spec's "
                   "\"measure\", else read)");
  out.push_back({cmd, [args] { return run_best(*args); }});
}

namespace {

// One answer, as `tune best` prints a kernel's.
void print_best(const FoundBest& best) {
  const KernelSpec& spec = best.spec;
  const BestConfig* found = &best.found;
  const Result& r = found->result;
  std::cout << "kernel   " << spec.name << " (" << found->kernel.hash << ")\n"
            << "device   " << found->device.name << " (" << found->device.arch() << ", " << found->device.sm_count << " SMs)\n"
            << "shape    " << found->shape << "\n"
            << "rule     " << best.rule << "\n"
            << "flush    " << to_string(best.flush) << " (the L2 state before each timed launch)\n"
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
}

// An operation's: the implementation launched and why, its answer, then each implementation's beside it.
void print_operation_best(const FoundBest& best) {
  std::cout << "operation " << best.operation << ": launches " << best.spec.name << ", " << best.reason << "\n\n";
  print_best(best);
  std::cout << "\n" << std::left << std::setw(27) << "implementation" << std::setw(12) << "time ms" << std::setw(10)
            << "vs best" << "rule\n";
  for (const FoundBest& each : best.implementations) {
    const bool measured = each.found.match != Match::Default;
    std::ostringstream time, ratio;
    if (measured) time << std::fixed << std::setprecision(4) << each.found.result.median_ms;
    if (measured && best.found.match != Match::Default && each.found.result.median_ms > 0.0) {
      ratio << std::fixed << std::setprecision(3) << best.found.result.median_ms / each.found.result.median_ms << "x";
    }
    std::cout << std::setw(27) << each.spec.name << std::setw(12) << (measured ? time.str() : "-") << std::setw(10)
              << (ratio.str().empty() ? "-" : ratio.str()) << each.rule
              << (each.spec.name == best.spec.name ? "  <- launched" : "") << "\n";
  }
  std::cout << std::right;
}

}  // namespace

int run_best(const BestRequest& args) {
  const FoundBest best = find_best(args);
  if (best.operation.empty()) {
    print_best(best);
  } else {
    print_operation_best(best);
  }
  return 0;
}

}  // namespace cutune::cli
