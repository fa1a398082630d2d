// What the benchmarks share: CUDA runtime checks, device buffers, and tuning a shape before timing its best configuration.
#pragma once

#include <CLI/CLI.hpp>
#include <cuda_runtime.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/measure.hpp"
#include "cutune/tuner.hpp"

namespace cutune::bench {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw CudaError(std::string(what) + ": " + cudaGetErrorString(e));
}

/// A device allocation, freed with its owner.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) { check(cudaMalloc(&ptr_, bytes), "cudaMalloc"); }
  /// A device copy of host bytes.
  explicit DeviceBuffer(const std::vector<unsigned char>& host) : DeviceBuffer(host.size()) {
    check(cudaMemcpy(ptr_, host.data(), host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  /// The buffer's bytes, copied to the host (synchronous).
  std::vector<unsigned char> download() const {
    std::vector<unsigned char> host(bytes_);
    check(cudaMemcpy(host.data(), ptr_, bytes_, cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Makes `device` current for both cutune (driver API) and the CUDA runtime, which then share its primary
/// context: buffers and streams of either work with the other.
inline void share_context(const Device& device) {
  check(cudaSetDevice(device.ordinal()), "cudaSetDevice");
  check(cudaFree(nullptr), "cudaFree");  // the runtime binds the primary context now, not at its first call
  device.make_current();
}

/// A bench's `--flush read|write|none` (the L2 state before each timed launch, of tuning and the reference alike, as
/// `tune --flush`); `flush` stays unset when it is not given: the spec's convention, else read.
class FlushOption {
 public:
  explicit FlushOption(CLI::App& app) {
    app.add_option("--flush", name_,
                   "L2 state before each timed launch, of tuning and the reference alike: read, write or none (default: "
                   "the spec's, else read)")
        ->check(CLI::IsMember(l2_flush_names()));
  }
  std::optional<L2Flush> get() const { return name_.empty() ? std::nullopt : parse_l2_flush(name_); }
  /// The convention in force for `spec`, for the table's header.
  std::string_view name(const KernelSpec& spec) const { return to_string(spec.l2_flush(get())); }

 private:
  std::string name_;
};

/// The benchmarks' timing method: `warmup` untimed runs, then `repeats` runs, each after the L2 convention `flush`
/// (outside the events; unset: the spec's, else read, as tuning does), timed with CUDA events; the median counts.
inline MeasureOptions timing(int repeats = 50, int warmup = 5, std::optional<L2Flush> flush = std::nullopt) {
  MeasureOptions options;
  options.repeats = repeats;
  options.warmup = warmup;
  options.flush = flush;
  return options;
}

/// What `tune --budget N --time S --strategy X --flush F` tunes with (`budget` configurations per shape, 0: the whole
/// space; at most `seconds` of wall time per shape, 0: no limit; empty `strategy`: the default one; `flush` unset: the
/// spec's L2 convention, else read): every other setting, measurement included, at the CLI's default. `command` is
/// stored as the run's provenance.
inline TuneOptions tune_options(const std::string& command, std::size_t budget = 0, const std::string& strategy = {},
                                double seconds = 0.0, std::optional<L2Flush> flush = std::nullopt) {
  TuneOptions options;
  options.measure.flush = flush;
  options.command = command;
  options.budget = budget;
  options.time_budget_s = seconds;
  if (!strategy.empty()) options.strategy = strategy;
  return options;
}

/// Tunes one shape (resuming from the database) with tune_options() and returns the report; throws when no
/// configuration was correct.
inline ShapeReport tune_shape(const Device& device, Database& db, const KernelSpec& spec, const Shape& shape,
                              const std::string& command, std::size_t budget = 0, const std::string& strategy = {},
                              double seconds = 0.0, std::optional<L2Flush> flush = std::nullopt) {
  ShapeReport report =
      Tuner(device, db, tune_options(command, budget, strategy, seconds, flush)).tune(spec, shape);
  if (!report.best) throw Error("no correct " + spec.name + " configuration at " + shape.str());
  return report;
}

/// The best configuration of a report, verified and timed again on `bench`: its warm-up, then exactly `repeats` runs.
inline Result time_best(const Device& device, Workbench& bench, const KernelSpec& spec, const ShapeReport& report,
                        int repeats = 50) {
  const Config best = spec.parse_config(report.best->config);
  Result r = bench.retime(best, compile_config(spec, best, device.identity().arch(), &report.shape), repeats);
  if (r.status != Status::Ok) throw Error("best configuration " + r.config + " failed: " + r.message);
  return r;
}

}  // namespace cutune::bench
