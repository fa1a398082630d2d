// What the benches of tuned GEMMs as users meet them share (gemm_user_view, gemm_fp8_bench): the L2 conventions set
// before each timed launch, interleaved timing of cutune's launch and the reference's, the copy-bandwidth yardstick of
// memory-bound shapes, the tables, and a temporary database.
#pragma once

#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench_support.hpp"
#include "cublas_support.hpp"
#include "cutune/error.hpp"
#include "cutune/operation.hpp"
#include "cutune/requests.hpp"
#include "cutune/templates.hpp"

namespace cutune::bench {

constexpr int kWarmup = 3;  // untimed launches of each GEMM per convention

// Sets the L2 cache's state before a timed launch, on a stream.
class L2State {
 public:
  explicit L2State(std::int64_t l2_bytes)
      : write_(std::size_t{256} << 20), read_(static_cast<std::size_t>(2 * l2_bytes)), sum_(sizeof(float)) {
    check(cudaMemset(read_.get(), 0x3f, read_.bytes()), "cudaMemset");  // floats of about 0.75
    check(cublasSetPointerMode(cublas_.get(), CUBLAS_POINTER_MODE_DEVICE), "cublasSetPointerMode");
  }
  void set(const std::string& convention, cudaStream_t stream) {
    if (convention == "write") {
      check(cudaMemsetAsync(write_.get(), 0, write_.bytes(), stream), "cudaMemsetAsync");
    } else if (convention == "read") {
      check(cublasSetStream(cublas_.get(), stream), "cublasSetStream");
      const int n = static_cast<int>(read_.bytes() / sizeof(float));
      check(cublasSasum(cublas_.get(), n, static_cast<const float*>(read_.get()), 1, static_cast<float*>(sum_.get())),
            "cublasSasum");
    }
  }
  /// Keeps the stream busy for a few milliseconds, so that the launches enqueued next wait for the GPU rather than
  /// the GPU for them (back-to-back launches of a small GEMM are shorter than their enqueueing).
  void hold(cudaStream_t stream) {
    for (int i = 0; i < 20; ++i) set("write", stream);
  }

 private:
  DeviceBuffer write_, read_, sum_;
  cutune::bench::Cublas cublas_;
};

// CUDA events, destroyed with their owner.
struct Events {
  explicit Events(std::size_t count) : events(count) {
    for (auto& e : events) check(cudaEventCreate(&e), "cudaEventCreate");
  }
  ~Events() {
    for (auto e : events) cudaEventDestroy(e);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  std::vector<cudaEvent_t> events;
};

// Median milliseconds of the two launches under one convention, interleaved: kWarmup runs of each, then `repeats` of
// each, cutune first in even rounds and cuBLAS first in odd ones, every run after the L2 state was set.
inline std::pair<double, double> time_pair(const std::function<void()>& ours, const std::function<void()>& theirs, L2State& l2,
                                    const std::string& convention, cudaStream_t stream, int repeats,
                                    const std::pair<const char*, const char*>& names = {"cutune", "cuBLAS"}) {
  Events timed(4 * static_cast<std::size_t>(repeats));
  l2.hold(stream);
  for (int i = 0; i < kWarmup; ++i) {
    for (const auto* run : {&ours, &theirs}) {
      l2.set(convention, stream);
      (*run)();
    }
  }
  for (int r = 0; r < repeats; ++r) {
    for (int j = 0; j < 2; ++j) {
      const bool cutune_turn = (r + j) % 2 == 0;
      cudaEvent_t* pair = &timed.events[4 * static_cast<std::size_t>(r) + (cutune_turn ? 0 : 2)];
      l2.set(convention, stream);
      check(cudaEventRecord(pair[0], stream), "cudaEventRecord");
      (cutune_turn ? ours : theirs)();
      check(cudaEventRecord(pair[1], stream), "cudaEventRecord");
    }
  }
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  std::vector<double> samples[2];
  for (int r = 0; r < repeats; ++r) {
    for (int side = 0; side < 2; ++side) {
      float ms = 0.0f;
      const auto at = 4 * static_cast<std::size_t>(r) + 2 * static_cast<std::size_t>(side);
      check(cudaEventElapsedTime(&ms, timed.events[at], timed.events[at + 1]), "cudaEventElapsedTime");
      samples[side].push_back(ms);
    }
  }
  const cutune::Timing a = cutune::summarize(samples[0]), b = cutune::summarize(samples[1]);
  fmt::print(stderr, "  {:<5} {} {:.4f} ms (spread {:.3f}), {} {:.4f} ms (spread {:.3f})\n", convention, names.first,
             a.median, a.spread, names.second, b.median, b.spread);
  return {a.median, b.median};
}

struct Row {
  std::string shape{}, config{}, problem{};  // problem: why the row has no ratios
  std::vector<double> ours_ms{}, theirs_ms{};  // one per convention
  double flops = 0.0, difference = 0.0;
  double bytes = 0.0;  // A and B read and C written, once each
  bool memory_bound = false;  // M <= 64: streaming B is the work
  std::vector<double> copy_ms{};  // memory-bound rows: a copy of bytes / 2 under each convention
};

// Read and written bytes per second of a device-to-device cudaMemcpyAsync of 512 MB, median of 10 after 2 untimed.
inline double copy_bandwidth(cudaStream_t stream) {
  constexpr std::size_t kBytes = std::size_t{512} << 20;
  const DeviceBuffer from(kBytes), to(kBytes);
  check(cudaMemset(from.get(), 1, kBytes), "cudaMemset");
  Events events(2);
  std::vector<double> ms;
  for (int i = 0; i < 12; ++i) {
    check(cudaEventRecord(events.events[0], stream), "cudaEventRecord");
    check(cudaMemcpyAsync(to.get(), from.get(), kBytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
    check(cudaEventRecord(events.events[1], stream), "cudaEventRecord");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    float t = 0.0f;
    check(cudaEventElapsedTime(&t, events.events[0], events.events[1]), "cudaEventElapsedTime");
    if (i >= 2) ms.push_back(t);
  }
  return 2.0 * kBytes / (cutune::summarize(ms).median * 1e-3);
}

// A memory-bound row's yardstick: a device-to-device copy that reads and writes as many bytes as the GEMM moves, timed
// under each convention as the GEMMs are (two copies of the same buffers, interleaved, the first one's median kept).
inline void time_copies(Row& row, L2State& l2, const std::vector<std::string>& conventions, cudaStream_t stream, int repeats) {
  const std::size_t bytes = static_cast<std::size_t>(row.bytes / 2) / 16 * 16;
  const DeviceBuffer from(bytes), to(bytes);
  check(cudaMemset(from.get(), 1, bytes), "cudaMemset");
  const auto copy = [&] {
    check(cudaMemcpyAsync(to.get(), from.get(), bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
  };
  for (const auto& convention : conventions) {
    row.copy_ms.push_back(time_pair(copy, copy, l2, convention, stream, repeats, {"copy", "copy"}).first);
  }
}

// The table of one type, and its summary line; false when a row failed.
inline bool print_table(const std::string& kernel, const std::vector<Row>& rows,
                        const std::vector<std::string>& conventions, const std::string& reference = "cuBLAS") {
  fmt::print("\n{}: ratio = {} time / cutune time (above 1: cutune faster); TFLOP/s under '{}'\n", kernel, reference,
             conventions.front());
  std::string header = fmt::format("{:<16} {:>7} {:>8}", "shape", "cutune", reference);
  for (const auto& c : conventions) header += fmt::format(" {:>6}", c);
  fmt::print("{}  configuration\n", header);
  std::vector<double> log_sum(conventions.size(), 0.0);
  std::size_t measured = 0, faster_under_all = 0;
  for (const auto& r : rows) {
    if (!r.problem.empty()) {
      fmt::print("{:<16} FAILED: {}\n", r.shape, r.problem);
      continue;
    }
    std::string line = fmt::format("{:<16} {:>7.1f} {:>8.1f}", r.shape, r.flops / r.ours_ms[0] * 1e-9,
                                   r.flops / r.theirs_ms[0] * 1e-9);
    bool faster = true;
    for (std::size_t c = 0; c < conventions.size(); ++c) {
      const double ratio = r.theirs_ms[c] / r.ours_ms[c];
      line += fmt::format(" {:>6.2f}", ratio);
      log_sum[c] += std::log(ratio);
      faster = faster && ratio > 1.0;
    }
    fmt::print("{}  {}\n", line, r.config);
    ++measured;
    faster_under_all += faster;
  }
  std::string means;
  for (std::size_t c = 0; c < conventions.size() && measured > 0; ++c) {
    means += fmt::format("{}{} {:.3f}", c ? ", " : "", conventions[c], std::exp(log_sum[c] / double(measured)));
  }
  fmt::print("summary {}: cutune faster under every convention at {} of {} shapes; geometric mean ratio {}{}\n",
             kernel, faster_under_all, measured, means.empty() ? "-" : means,
             measured < rows.size() ? fmt::format("; {} FAILED", rows.size() - measured) : "");
  return measured == rows.size();
}

// The memory-bound rows of one type: bytes moved per second under each convention, cutune's and cuBLAS's, as a share
// of the copy bandwidth.
inline void print_bandwidth(const std::vector<Row>& rows, const std::vector<std::string>& conventions, double copy) {
  for (const auto& r : rows) {
    if (!r.memory_bound || !r.problem.empty()) continue;
    std::string line = fmt::format("{:<16} moves {:.1f} MB:", r.shape, r.bytes * 1e-6);
    for (std::size_t c = 0; c < conventions.size(); ++c) {
      const double ours = r.bytes / (r.ours_ms[c] * 1e-3), theirs = r.bytes / (r.theirs_ms[c] * 1e-3);
      const double same = r.bytes / (r.copy_ms[c] * 1e-3);
      line += fmt::format("  {}: cutune {:.0f} GB/s ({:.0f}% / {:.0f}%), cuBLAS {:.0f} ({:.0f}% / {:.0f}%), copy {:.0f}",
                          conventions[c], ours * 1e-9, 100.0 * ours / copy, 100.0 * ours / same, theirs * 1e-9,
                          100.0 * theirs / copy, 100.0 * theirs / same, same * 1e-9);
    }
    fmt::print("{}\n", line);
  }
}

// Removes a database and its SQLite side files when its owner ends, unless kept.
struct DatabaseFiles {
  std::filesystem::path path;
  bool remove = false;
  void clear() const {
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix, ignored);
  }
  ~DatabaseFiles() {
    if (remove) clear();
  }
};

// The options both benches of the user's view take: how each shape is tuned (as `tune` does), where the results go,
// how the launches are timed.
struct TuneAndTimeOptions {
  std::vector<std::string> conventions = {"write", "read", "none"};
  std::string db_option, strategy;
  std::size_t budget = 60;
  double seconds = 0.0;
  int repeats = 30;
  bool keep_db = false;
  std::vector<std::string> where;
  /// The database: --db's file (kept, resumed), else a fresh temporary one named after `program`, removed at the end
  /// unless --keep-db.
  DatabaseFiles database(const std::string& program) const {
    if (!db_option.empty()) return DatabaseFiles{db_option, false};
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / fmt::format("{}-{}.db", program, ::getpid());
    DatabaseFiles{path, false}.clear();  // fresh
    return DatabaseFiles{path, !keep_db};
  }
};
inline void add_tune_and_time_options(CLI::App& app, TuneAndTimeOptions& o) {
  app.add_option("--budget", o.budget, "configurations tuned per shape, as `tune --budget` (0: the whole space)")
      ->capture_default_str();
  app.add_option("--time", o.seconds, "wall time of tuning per shape, seconds, as `tune --time` (0: no limit)");
  app.add_option("--strategy", o.strategy, "search strategy (default: the CLI's)");
  app.add_option("--where", o.where, "an extra constraint on the configurations, as `tune --where` (repeatable)");
  auto* db_flag = app.add_option("--db", o.db_option,
                                 "results database, kept (tuning resumes from it; default: a fresh temporary file)");
  app.add_flag("--keep-db", o.keep_db, "keep the temporary database and print its path")->excludes(db_flag);
  app.add_option("--repeats", o.repeats, "timed launches of each GEMM per convention; the median counts")
      ->capture_default_str()->check(CLI::Range(1, 10000));
  app.add_option("--flush", o.conventions, "L2 conventions, one ratio column each, the first also giving the TFLOP/s: "
                                         "write (256 MB memset), read (a read of twice the L2), none (back to back)")
      ->delimiter(',')->check(CLI::IsMember(l2_flush_names()))->capture_default_str();
}

// Tunes an operation at `shapes` as `tune --kernel <operation>` does (every implementation under one budget);
// "operation shape" -> "implementation: configuration" of the fastest.
inline void tune_operation_shapes(Device& device, Database& db, const std::string& name,
                                  const std::vector<std::string>& shapes, const TuneOptions& options,
                                  std::map<std::string, std::string>& tuned) {
  const OperationSpec op = load_operation(name);
  std::vector<Shape> extents;
  for (const auto& text : shapes) extents.push_back(op.parse_shape(text));
  ProgressTap tap;  // the budget's rule hears each turn's search, as under `tune`
  TuneOptions tapped = options;
  tapped.on_progress = [&tap, given = options.on_progress](const Progress& p) {
    if (tap) tap(p);
    if (given) given(p);
  };
  Tuner tuner(device, db, tapped);
  const Shape* current = nullptr;
  const std::vector<ShapeReport> reports = tune_operation(tuner, op, extents, options.budget, device.identity(),
                                                          current, {}, &tap);
  const std::vector<std::size_t> order = operation_tuning_order(op);
  std::map<std::string, double> fastest;  // per shape: the best median so far, ms
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const ShapeReport& r = reports[i];
    const std::string& impl = op.implementations[order[i % order.size()]].name;
    const std::string key = name + " " + r.shape.str();
    fmt::print("tuned {} {} ({}) in {:.1f} s ({} of {} configurations): {}\n", name, r.shape.str(), impl, r.seconds,
               r.evaluated + r.resumed, r.space_size, r.best ? r.best->config : "nothing correct");
    if (r.best && (!fastest.count(key) || r.best->median_ms < fastest[key])) {
      tuned[key] = impl + ": " + r.best->config;
      fastest[key] = r.best->median_ms;
    }
  }
  std::fflush(stdout);
}

// Tunes every kernel (or operation) at `shapes` into the database at `path`, as `tune` does; "kernel shape" -> the
// tuner's best configuration.
inline std::map<std::string, std::string> tune_all(Device& device, const std::filesystem::path& path,
                                                   const std::vector<std::string>& kernels,
                                                   const std::vector<std::string>& shapes,
                                                   const std::vector<std::string>& where, const TuneOptions& options) {
  std::map<std::string, std::string> tuned;
  Database db(path.string());
  for (const auto& kernel : kernels) {
    if (is_operation(kernel)) {
      if (!where.empty()) {
        throw InputError("--where names one kernel's parameters: " + kernel + " is an operation (as under `tune`)");
      }
      tune_operation_shapes(device, db, kernel, shapes, options, tuned);
      continue;
    }
    KernelSpec spec = load_kernel(kernel);
    for (const auto& w : where) spec.restrict_to(w);
    Tuner tuner(device, db, options);
    for (const auto& text : shapes) {
      const ShapeReport r = tuner.tune(spec, spec.parse_shape(text));
      if (r.best) tuned[spec.name + " " + text] = r.best->config;
      fmt::print("tuned {} {} in {:.1f} s ({} of {} configurations): {}\n", spec.name, text, r.seconds,
                 r.evaluated + r.resumed, r.space_size, r.best ? r.best->config : "nothing correct");
      std::fflush(stdout);
    }
  }
  return tuned;
}

}  // namespace cutune::bench
