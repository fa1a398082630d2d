// The `tune` command's subcommands, each a function of its parsed options; they throw cutune::Error on failure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cutune/measure.hpp"
#include "cutune/tuner.hpp"

namespace cutune::cli {

struct TuneArgs {
  std::string kernel;
  std::string shapes;
  std::string db = "cutune.db";
  int device = 0;
  std::string strategy = "exhaustive";
  unsigned jobs = 0;
  MeasureOptions measure;
  std::string command_line;
};

struct BestArgs {
  std::string kernel;
  std::string shape;
  std::string db = "cutune.db";
  std::string gpu;  ///< device name to look up instead of the GPU of this machine
};

struct SpaceArgs {
  std::string kernel;
  std::string shape;
  bool list = false;
};

struct CompileArgs {
  std::string kernel;
  std::string arch = "sm_90";
  unsigned jobs = 0;
};

int run_tune(const TuneArgs& args);
int run_best(const BestArgs& args);
int run_list();
int run_space(const SpaceArgs& args);
int run_compile(const CompileArgs& args);

/// Splits "8192x8192,4000x3000" and parses each; throws InputError on the first bad one.
std::vector<Shape> parse_shapes(const KernelSpec& spec, const std::string& text);

/// Progress on stderr: one rewritten line on a terminal, a line per tenth of the work otherwise.
void print_progress(const KernelSpec& spec, const Shape& shape, const Progress& p);
/// The per-shape summary and the final table on stdout.
void print_shape_report(const KernelSpec& spec, const DeviceIdentity& device, const ShapeReport& r);
void print_summary(const KernelSpec& spec, const std::vector<ShapeReport>& reports);

}  // namespace cutune::cli
