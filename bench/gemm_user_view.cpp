// The tensor-core GEMMs as a user meets them: tuned as `tune` does, then launched through the runtime API and timed
// against cublasGemmEx under each L2 convention.
//
// Usage: gemm_user_view [--types bf16,f16,tf32] [--shapes MxNxK,...] [--tune-shapes MxNxK,...] [--budget 60]
//                       [--time SECONDS] [--strategy S] [--where EXPR]... [--db FILE | --keep-db] [--repeats 30]
//                       [--flush write,read,none]
// 1. Each type's shapes (--tune-shapes, else --shapes) are tuned as `tune --kernel gemm_TYPE --shapes ... --budget N`
//    tunes them: one Tuner for all shapes, the CLI's default strategy and measurement, a fresh database (a temporary
//    file, removed at the end unless --keep-db) unless --db names one (then kept, and resumed from).
// 2. Then, as a separate application would: a cutune::Runtime on that database hands out each shape's kernel (the
//    exact-shape rule is required of a tuned shape; with --tune-shapes, the others get the runtime's fallback),
//    launched through the runtime API on random A and B, and cublasGemmEx on the same matrices (same types, FP32
//    compute, TF32 through CUBLAS_COMPUTE_32F_FAST_TF32), alternately, each launch timed with CUDA events after the
//    convention's L2 state was set (outside the events): write = a 256 MB cudaMemsetAsync (dirty lines, as nvbench
//    and Triton's do_bench), read = cublasSasum over twice the L2 size (clean lines), none = back to back; the median
//    of --repeats launches counts. cutune's output is checked against cuBLAS's before and after the timing.
// 3. A table per type: TFLOP/s of both under the first convention, cuBLAS time / cutune time under each (above 1:
//    cutune faster). Only the tables and short progress lines go to stdout; samples and choices go to stderr.
// 4. The decode shapes (M <= 64) are bound by memory, not by the tensor cores: for each, the bytes it must move (A and
//    B read, C written, once each) per second under each convention, against the device-to-device copy bandwidth
//    measured in the same run: of a 512 MB cudaMemcpyAsync back to back (read and written bytes per second, median
//    of 10), and of a copy that moves as many bytes as the GEMM, timed under the same convention as the GEMM.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cublas_support.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"

namespace {

using cutune::bench::check;
using cutune::bench::DeviceBuffer;
using cutune::bench::Element;
using cutune::bench::relative_difference;

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
std::pair<double, double> time_pair(const std::function<void()>& ours, const std::function<void()>& theirs, L2State& l2,
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
double copy_bandwidth(cudaStream_t stream) {
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

// The largest |cutune - cuBLAS| over the largest |cuBLAS| element of the two outputs; infinite where one is NaN.

// A memory-bound row's yardstick: a device-to-device copy that reads and writes as many bytes as the GEMM moves, timed
// under each convention as the GEMMs are (two copies of the same buffers, interleaved, the first one's median kept).
void time_copies(Row& row, L2State& l2, const std::vector<std::string>& conventions, cudaStream_t stream, int repeats) {
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

// One shape through the runtime API against cuBLAS, under each convention.
// `tuned`: the shape was tuned, so that the runtime must launch its own result; else any rule may answer.
Row measure_shape(cutune::Runtime& runtime, const std::string& kernel, const std::string& shape_text, bool tuned,
                  const std::vector<std::string>& conventions, int repeats, L2State& l2, cudaStream_t stream) {
  Row row;
  row.shape = shape_text;
  const cutune::RuntimeKernel& gemm = runtime.kernel(kernel, shape_text);
  row.config = gemm.choice().result.config;
  fmt::print(stderr, "{} {}: {} by the rule '{}', ready in {:.1f} ms{}\n", kernel, shape_text, row.config,
             cutune::to_string(gemm.choice().match), gemm.ready_ms(), gemm.from_cache() ? " (cubin cache)" : "");
  if (tuned && gemm.choice().match != cutune::Match::Exact) {
    row.problem = "the runtime chose by the rule '" + std::string(cutune::to_string(gemm.choice().match)) + "'";
    return row;
  }
  const cutune::KernelSpec& spec = gemm.spec();
  const auto count_of = [&](const std::string& name) {
    const auto a =
        std::find_if(spec.arguments.begin(), spec.arguments.end(), [&](const auto& x) { return x.name == name; });
    return static_cast<std::size_t>(a->size.eval(spec.scope(gemm.config(), &gemm.shape())).as_int());
  };
  const Element e = cutune::bench::element(kernel);
  const int m = static_cast<int>(gemm.shape().dims[0]), n = static_cast<int>(gemm.shape().dims[1]),
            k = static_cast<int>(gemm.shape().dims[2]);
  row.flops = 2.0 * m * n * k;
  row.bytes = (double(m) * k + double(k) * n + double(m) * n) * e.bytes;
  row.memory_bound = m <= 64;
  std::mt19937 rng(7);
  const DeviceBuffer a(cutune::bench::random_elements(e, count_of("A"), rng));
  const DeviceBuffer b(cutune::bench::random_elements(e, count_of("B"), rng));
  const DeviceBuffer c_ours(count_of("C") * e.bytes), c_theirs(count_of("C") * e.bytes);
  const DeviceBuffer counters(count_of("counters") * sizeof(unsigned));
  const DeviceBuffer workspace(count_of("workspace") * sizeof(float));
  check(cudaMemset(counters.get(), 0, counters.bytes()), "cudaMemset");  // each launch leaves them zero again
  const cutune::bench::Cublas cublas;
  check(cublasSetStream(cublas.get(), stream), "cublasSetStream");
  const float alpha = 1.0f, beta = 0.0f;
  // The spec's arguments; in the places of the tensor maps, the device pointers of A, B and C (TMA stores).
  const auto ours = [&] {
    gemm(stream, m, n, k, alpha, a.get(), b.get(), beta, c_ours.get(), counters.get(), workspace.get(), a.get(), b.get(),
         c_ours.get());
  };
  const auto theirs = [&] {
    cutune::bench::gemm_row_major(cublas.get(), e, m, n, k, a.get(), b.get(), c_theirs.get());
  };
  const double bound = e.bytes == 2 ? 1e-2 : 5e-3;
  const auto verify = [&](const char* when) {
    check(cudaMemset(c_ours.get(), 0xff, c_ours.bytes()), "cudaMemset");  // NaN in every element type
    check(cudaMemset(c_theirs.get(), 0xff, c_theirs.bytes()), "cudaMemset");
    ours();
    theirs();
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const double d = relative_difference(e, c_ours, c_theirs);
    row.difference = std::max(row.difference, d);
    if (!(d <= bound)) {
      row.problem = fmt::format("WRONG {} timing: |cutune - cuBLAS| {:.2e} of the largest element", when, d);
    }
  };
  verify("before");
  for (const auto& convention : conventions) {
    if (!row.problem.empty()) break;
    const auto [o, t] = time_pair(ours, theirs, l2, convention, stream, repeats);
    row.ours_ms.push_back(o);
    row.theirs_ms.push_back(t);
  }
  if (row.memory_bound && row.problem.empty()) time_copies(row, l2, conventions, stream, repeats);
  if (row.problem.empty()) verify("after");
  if (!row.problem.empty()) fmt::print(stderr, "error: {} {}: {}\n", kernel, shape_text, row.problem);
  return row;
}

// The table of one type, and its summary line; false when a row failed.
bool print_table(const std::string& kernel, const std::vector<Row>& rows,
                 const std::vector<std::string>& conventions) {
  fmt::print("\n{}: ratio = cuBLAS time / cutune time (above 1: cutune faster); TFLOP/s under '{}'\n", kernel,
             conventions.front());
  std::string header = fmt::format("{:<16} {:>7} {:>7}", "shape", "cutune", "cuBLAS");
  for (const auto& c : conventions) header += fmt::format(" {:>6}", c);
  fmt::print("{}  configuration\n", header);
  std::vector<double> log_sum(conventions.size(), 0.0);
  std::size_t measured = 0, faster_under_all = 0;
  for (const auto& r : rows) {
    if (!r.problem.empty()) {
      fmt::print("{:<16} FAILED: {}\n", r.shape, r.problem);
      continue;
    }
    std::string line = fmt::format("{:<16} {:>7.1f} {:>7.1f}", r.shape, r.flops / r.ours_ms[0] * 1e-9,
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
void print_bandwidth(const std::vector<Row>& rows, const std::vector<std::string>& conventions, double copy) {
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

// Tunes every type's GEMM at `shapes` into the database at `path`; "kernel shape" -> the tuner's best configuration.
std::map<std::string, std::string> tune_all(cutune::Device& device, const std::filesystem::path& path,
                                            const std::vector<std::string>& types,
                                            const std::vector<std::string>& shapes,
                                            const std::vector<std::string>& where, const cutune::TuneOptions& options) {
  std::map<std::string, std::string> tuned;
  cutune::Database db(path.string());
  for (const auto& type : types) {
    cutune::KernelSpec spec = cutune::load_kernel("gemm_" + type);
    for (const auto& w : where) spec.restrict_to(w);
    cutune::Tuner tuner(device, db, options);
    for (const auto& text : shapes) {
      const cutune::ShapeReport r = tuner.tune(spec, spec.parse_shape(text));
      if (r.best) tuned[spec.name + " " + text] = r.best->config;
      fmt::print("tuned {} {} in {:.1f} s ({} of {} configurations): {}\n", spec.name, text, r.seconds,
                 r.evaluated + r.resumed, r.space_size, r.best ? r.best->config : "nothing correct");
      std::fflush(stdout);
    }
  }
  return tuned;
}

// The application's launches of one kernel at every shape, each against cuBLAS.
std::vector<Row> time_all(cutune::Runtime& runtime, const std::string& kernel, const std::vector<std::string>& shapes,
                          const std::map<std::string, std::string>& tuned,
                          const std::vector<std::string>& conventions, int repeats, L2State& l2,
                          cudaStream_t stream) {
  std::vector<Row> rows;
  for (const auto& text : shapes) {
    const auto known = tuned.find(kernel + " " + text);
    try {
      rows.push_back(measure_shape(runtime, kernel, text, known != tuned.end(), conventions, repeats, l2, stream));
    } catch (const cutune::Error& ex) {  // a kernel that does not load or launch fails its row, not the run
      fmt::print(stderr, "error: {} {}: {}\n", kernel, text, ex.what());
      rows.push_back({.shape = text, .config = known != tuned.end() ? known->second : "", .problem = ex.what()});
    }
    const Row& r = rows.back();
    if (known != tuned.end() && r.config != known->second) {
      fmt::print(stderr, "note: {} {}: the runtime chose {}, the tuning reported {}\n", kernel, text, r.config,
                 known->second);
    }
    std::string ratios;
    for (std::size_t c = 0; c < r.ours_ms.size(); ++c) {
      ratios += fmt::format(" {} {:.2f}", conventions[c], r.theirs_ms[c] / r.ours_ms[c]);
    }
    fmt::print("timed {} {}:{} {}\n", kernel, text, r.problem.empty() ? ratios : " FAILED",
               fmt::format("(largest difference {:.1e})", r.difference));
    std::fflush(stdout);
  }
  return rows;
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

// The command line.
struct Options {
  std::vector<std::string> types = {"bf16", "f16", "tf32"};
  std::vector<std::string> shapes = {"2048x2048x2048", "4096x4096x4096",  "8192x8192x8192", "4096x11008x4096",
                                     "4096x4096x11008", "1000x1000x1000", "8192x8192x256",  "4096x4096x64",
                                     "64x4096x4096",   "16x4096x4096",    "127x257x511"};
  std::vector<std::string> tune_shapes;
  std::vector<std::string> conventions = {"write", "read", "none"};
  std::string db_option, strategy;
  std::size_t budget = 60;
  double seconds = 0.0;
  int repeats = 30;
  bool keep_db = false;
  std::vector<std::string> where;
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--types", o.types, "element types: bf16, f16, tf32")
      ->delimiter(',')
      ->check(CLI::IsMember({"bf16", "f16", "tf32"}));
  app.add_option("--shapes", o.shapes, "shapes MxNxK launched through the runtime")->delimiter(',');
  app.add_option("--tune-shapes", o.tune_shapes,
                 "shapes tuned into the database (default: --shapes); others launch what the runtime's fallback "
                 "chooses for them")->delimiter(',');
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
      ->delimiter(',')->check(CLI::IsMember(cutune::l2_flush_names()))->capture_default_str();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tensor-core GEMMs tuned as `tune` does, launched through the runtime API, against cublasGemmEx under "
               "each L2 convention"};
  Options o;
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);
  spdlog::stderr_color_mt("cutune")->set_level(spdlog::level::warn);  // the library's warnings, as `tune` shows them
  spdlog::cfg::load_env_levels();

  try {
    cutune::Device device;  // without a GPU: NoDeviceError, one line below
    DatabaseFiles db_files{o.db_option.empty() ? std::filesystem::temp_directory_path() /
                                                   fmt::format("gemm_user_view-{}.db", ::getpid())
                                             : std::filesystem::path(o.db_option),
                           o.db_option.empty() && !o.keep_db};
    if (o.db_option.empty()) db_files.clear();  // fresh
    std::string command;
    for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);

    // 1. tuning, as `tune` does it; the database is closed before the application opens it
    const std::map<std::string, std::string> tuned =
        tune_all(device, db_files.path, o.types, o.tune_shapes.empty() ? o.shapes : o.tune_shapes, o.where,
                 cutune::bench::tune_options(command, o.budget, o.strategy, o.seconds));

    // 2. the application: the runtime API on the database just written, against cuBLAS; this process had no CUDA
    // context while tuning (as `tune` has none: its workers measure), and the runtime and cuBLAS now share one
    cutune::bench::share_context(device);
    cutune::RuntimeOptions options;
    options.database = db_files.path;
    cutune::Runtime runtime(options);
    L2State l2(device.l2_bytes());
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    const double copy = copy_bandwidth(stream);
    std::vector<std::pair<std::string, std::vector<Row>>> tables;
    for (const auto& type : o.types) {
      tables.emplace_back("gemm_" + type,
                          time_all(runtime, "gemm_" + type, o.shapes, tuned, o.conventions, o.repeats, l2, stream));
    }
    cudaStreamDestroy(stream);

    const cutune::DeviceIdentity& id = device.identity();
    fmt::print("\nTensor-core GEMM on {} ({}, {} SMs): tuned as `tune --budget {}{}` ({} strategy, {} database), "
               "launched through the runtime API; median of {} launches against cublasGemmEx, FP32 compute\n",
               id.name, id.arch(), id.sm_count, o.budget, o.seconds > 0 ? fmt::format(" --time {}", o.seconds) : "",
               o.strategy.empty() ? std::string(cutune::kDefaultStrategy) : o.strategy,
               o.db_option.empty() ? "fresh" : "given", o.repeats);
    fmt::print("L2 before each launch: write = a 256 MB cudaMemsetAsync (dirty lines), read = cublasSasum over twice "
               "the L2 ({} MB, clean lines), none = back to back\n", device.l2_bytes() >> 19);
    bool ok = true;
    for (const auto& [kernel, rows] : tables) ok = print_table(kernel, rows, o.conventions) && ok;
    if (std::any_of(tables.begin(), tables.end(), [](const auto& t) {
          return std::any_of(t.second.begin(), t.second.end(), [](const Row& r) { return r.memory_bound; });
        })) {
      fmt::print("\nMemory-bound shapes (M <= 64): A, B and C moved once per launch, per second, and as a share of the "
                 "device-to-device copy bandwidth measured here: of a 512 MB cudaMemcpyAsync back to back, {:.0f} GB/s "
                 "(read + written) / of a copy moving as many bytes as the GEMM, under the same convention (its GB/s "
                 "last)\n",
                 copy * 1e-9);
      for (const auto& [kernel, rows] : tables) {
        fmt::print("{}\n", kernel);
        print_bandwidth(rows, o.conventions, copy);
      }
    }
    if (o.keep_db) fmt::print(stderr, "database kept: {}\n", db_files.path.string());
    return ok ? 0 : 1;
  } catch (const std::exception& ex) {
    fmt::print(stderr, "error: {}\n", ex.what());
    return 1;
  }
}
