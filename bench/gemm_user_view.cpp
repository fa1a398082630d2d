// The tensor-core GEMMs as a user meets them: tuned as `tune` does, then launched through the runtime API and timed
// against cublasGemmEx under each L2 convention.
//
// Usage: gemm_user_view [--types bf16,f16,tf32] [--operations | --library] [--shapes MxNxK,...] [--tune-shapes MxNxK,...] [--budget 60]
//                       [--time SECONDS] [--strategy S] [--where EXPR]... [--db FILE | --keep-db] [--repeats 30]
//                       [--flush write,read,none]
// 1. Each type's shapes (--tune-shapes, else --shapes) are tuned as `tune --kernel gemm_TYPE --shapes ... --budget N`
//    tunes them (--operations: `tune --kernel matmul_TYPE`, the template and cuBLASLt's families under one budget): one Tuner for all shapes, the CLI's default strategy and measurement, a fresh database (a temporary
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
#include "user_view_support.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"

namespace {

using cutune::bench::check;
using cutune::bench::DeviceBuffer;
using cutune::bench::Element;
using cutune::bench::relative_difference;
using cutune::bench::DatabaseFiles;
using cutune::bench::L2State;
using cutune::bench::Row;
using cutune::bench::copy_bandwidth;
using cutune::bench::print_bandwidth;
using cutune::bench::print_table;
using cutune::bench::time_copies;
using cutune::bench::time_pair;

// One shape through the runtime API against cuBLAS, under each convention.
// `tuned`: the shape was tuned, so that the runtime must launch its own result; else any rule may answer.
Row measure_shape(cutune::Runtime& runtime, const std::string& kernel, const std::string& shape_text, bool tuned,
                  const std::vector<std::string>& conventions, int repeats, L2State& l2, cudaStream_t stream) {
  Row row;
  row.shape = shape_text;
  const cutune::RuntimeKernel& gemm = runtime.kernel(kernel, shape_text);
  // An operation's row names the implementation launched.
  row.config = (gemm.spec().name != kernel ? gemm.spec().name + ": " : "") + gemm.choice().result.config;
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

// The command line.
struct Options {
  std::vector<std::string> types = {"bf16", "f16", "tf32"};
  std::vector<std::string> shapes = {"2048x2048x2048", "4096x4096x4096",  "8192x8192x8192", "4096x11008x4096",
                                     "4096x4096x11008", "1000x1000x1000", "8192x8192x256",  "4096x4096x64",
                                     "64x4096x4096",   "16x4096x4096",    "127x257x511"};
  std::vector<std::string> tune_shapes;
  bool operations = false;
  bool library = false;
  cutune::bench::TuneAndTimeOptions run;
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--types", o.types, "element types: bf16, f16, tf32")
      ->delimiter(',')
      ->check(CLI::IsMember({"bf16", "f16", "tf32"}));
  app.add_option("--shapes", o.shapes, "shapes MxNxK launched through the runtime")->delimiter(',');
  app.add_option("--tune-shapes", o.tune_shapes,
                 "shapes tuned into the database (default: --shapes); others launch what the runtime's fallback "
                 "chooses for them")->delimiter(',');
  app.add_flag("--operations", o.operations,
               "tune and launch the operations matmul_TYPE (the template and cuBLASLt's families under one budget) in "
               "place of the templates gemm_TYPE");
  app.add_flag("--library", o.library,
               "tune and launch cuBLASLt's rank family gemm_TYPE_cublaslt alone, to see how its winner compares with "
               "cublasGemmEx's own choice")->excludes("--operations");
  cutune::bench::add_tune_and_time_options(app, o.run);
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
    const DatabaseFiles db_files = o.run.database("gemm_user_view");
    std::string command;
    for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);

    // 1. tuning, as `tune` does it; the database is closed before the application opens it
    std::vector<std::string> kernels;
    for (const auto& type : o.types) {
      kernels.push_back(o.operations ? "matmul_" + type : o.library ? "gemm_" + type + "_cublaslt" : "gemm_" + type);
    }
    const std::map<std::string, std::string> tuned =
        cutune::bench::tune_all(device, db_files.path, kernels, o.tune_shapes.empty() ? o.shapes : o.tune_shapes, o.run.where,
                 cutune::bench::tune_options(command, o.run.budget, o.run.strategy, o.run.seconds));

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
    for (const auto& kernel : kernels) {
      tables.emplace_back(kernel, time_all(runtime, kernel, o.shapes, tuned, o.run.conventions, o.run.repeats, l2, stream));
    }
    cudaStreamDestroy(stream);

    const cutune::DeviceIdentity& id = device.identity();
    fmt::print("\nTensor-core GEMM on {} ({}, {} SMs): tuned as `tune --budget {}{}` ({} strategy, {} database), "
               "launched through the runtime API; median of {} launches against cublasGemmEx, FP32 compute\n",
               id.name, id.arch(), id.sm_count, o.run.budget, o.run.seconds > 0 ? fmt::format(" --time {}", o.run.seconds) : "",
               o.run.strategy.empty() ? std::string(cutune::kDefaultStrategy) : o.run.strategy,
               o.run.db_option.empty() ? "fresh" : "given", o.run.repeats);
    fmt::print("L2 before each launch: write = a 256 MB cudaMemsetAsync (dirty lines), read = cublasSasum over twice "
               "the L2 ({} MB, clean lines), none = back to back\n", device.l2_bytes() >> 19);
    bool ok = true;
    for (const auto& [kernel, rows] : tables) ok = print_table(kernel, rows, o.run.conventions) && ok;
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
        print_bandwidth(rows, o.run.conventions, copy);
      }
    }
    if (o.run.keep_db) fmt::print(stderr, "database kept: {}\n", db_files.path.string());
    return ok ? 0 : 1;
  } catch (const std::exception& ex) {
    fmt::print(stderr, "error: {}\n", ex.what());
    return 1;
  }
}
