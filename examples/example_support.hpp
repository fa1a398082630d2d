// What every example program does the same way: its command line (CLI11), CUDA error checks, and a Runtime on the
// CUDA runtime's current device with the database when there is one.
#pragma once

#include <cuda_runtime.h>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include <cutune/runtime.hpp>

namespace example {

inline void check(cudaError_t result, const char* call) {
  if (result != cudaSuccess) throw std::runtime_error(std::string(call) + ": " + cudaGetErrorString(result));
}

struct Arguments {
  std::string db = "cutune.db";
  std::string shape;
};

/// `PROGRAM [--db cutune.db] [SHAPE]`; the exit code to return when parsing ended the program (help, bad input).
inline std::optional<int> parse(int argc, char** argv, const std::string& what, const std::string& shape_help,
                                Arguments& args) {
  CLI::App app{what};
  app.add_option("--db", args.db, "tuning database (without one: the spec's default configuration)")->capture_default_str();
  app.add_option("shape", args.shape, shape_help)->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return std::nullopt;
}

/// A Runtime on device 0 as the application's CUDA runtime sees it (its context made current first, so that cutune
/// shares it), reading `db` when that file exists.
inline cutune::Runtime open_runtime(const std::string& db) {
  check(cudaSetDevice(0), "cudaSetDevice");
  check(cudaFree(nullptr), "cudaFree");  // makes the runtime's context current, so cutune finds the device
  cutune::RuntimeOptions options;
  if (std::filesystem::exists(db)) options.database = db;
  return cutune::Runtime(options);
}

}  // namespace example
