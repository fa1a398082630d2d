// The FP8 GEMMs as a user meets them: tuned as `tune` does, then launched through the runtime API and timed against
// cublasLtMatmul with the same FP8 inputs, scales, bias, output type and layouts under each L2 convention.
//
// Usage: gemm_fp8_bench [--kernels gemm_fp8,matmul_fp8,...] [--shapes MxNxK,...] [--budget 60] [--time SECONDS]
//                       [--strategy S] [--where EXPR]... [--db FILE | --keep-db] [--repeats 30]
//                       [--flush write,read,none] [--fast-accumulation]
// 1. Each kernel's shapes are tuned as `tune --kernel K --shapes ... --budget N` tunes them (one Tuner, the CLI's
//    default strategy and measurement, a fresh temporary database unless --db names one). An FP8 operation
//    (matmul_fp8, matmul_fp8_e5m2, matmul_fp8_f16) is tuned as `tune --kernel matmul_fp8` tunes it: its template and
//    cuBLASLt's families under one budget; its row names the implementation the runtime launches.
// 2. A cutune::Runtime on that database launches each shape's tuned kernel (the exact-shape rule is required) on
//    random FP8 A and B, scale_a = 0.75, scale_b = 1.25, a random bias, alpha = 1, beta = 0; cublasLtMatmul runs the
//    same product (A and B's scales as device pointers, CUBLASLT_EPILOGUE_BIAS, FP32 compute, 32 MB of workspace)
//    with the first algorithm its heuristic answers, and with each of its top 8. The launches alternate, each timed
//    with CUDA events after the convention's L2 state was set (user_view_support.hpp); the median of --repeats counts.
//    cutune's D is checked against cuBLASLt's before and after the timing.
// 3. Two tables per kernel: cuBLASLt's first answer / cutune, and the best of its top 8 / cutune, per convention
//    (above 1: cutune faster). cuBLASLt accumulates in FP32 (promoting the tensor cores' sums) unless
//    --fast-accumulation; cutune's tuned configuration says how it accumulates (PROMOTE).
#include <CLI/CLI.hpp>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <random>

#include "cublaslt_fp8.hpp"
#include "cutune/runtime.hpp"
#include "user_view_support.hpp"

namespace {

using cutune::bench::check;
using cutune::bench::DeviceBuffer;
using cutune::bench::Element;
using cutune::bench::Fp8Types;
using cutune::bench::L2State;
using cutune::bench::LtFp8;
using cutune::bench::Row;

// A kernel's types as cuBLASLt names them, and D's element for the host comparison.
struct Kernel {
  Fp8Types types;
  Element d;
};
// The FP8 operations, each with the template whose arguments and types its implementations all take.
const std::map<std::string, std::string> kOperations = {
    {"matmul_fp8", "gemm_fp8"}, {"matmul_fp8_e5m2", "gemm_fp8_e5m2"}, {"matmul_fp8_f16", "gemm_fp8_f16"}};
Kernel kernel_types(const std::string& kernel_or_operation) {
  const auto op = kOperations.find(kernel_or_operation);
  const std::string& name = op != kOperations.end() ? op->second : kernel_or_operation;
  if (name == "gemm_fp8") return {{CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_16BF}, cutune::bench::element("gemm_bf16")};
  if (name == "gemm_fp8_e5m2") {
    return {{CUDA_R_8F_E4M3, CUDA_R_8F_E5M2, CUDA_R_16BF}, cutune::bench::element("gemm_bf16")};
  }
  if (name == "gemm_fp8_f16") return {{CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_16F}, cutune::bench::element("gemm_f16")};
  return {{CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUDA_R_32F}, cutune::bench::element("gemm_tf32")};  // gemm_fp8_f32
}

// `count` random FP8 values of `type`, uniform in [-1, 1) before rounding.
std::vector<unsigned char> random_fp8(cudaDataType_t type, std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<unsigned char> out(count);
  for (auto& byte : out) {
    const float v = dist(rng);
    byte = type == CUDA_R_8F_E4M3 ? __nv_fp8_e4m3(v).__x : __nv_fp8_e5m2(v).__x;
  }
  return out;
}

// How many elements argument `name` of the runtime kernel's spec holds at its configuration and shape.
std::size_t count_of(const cutune::RuntimeKernel& gemm, const std::string& name) {
  const cutune::KernelSpec& spec = gemm.spec();
  const auto a = std::find_if(spec.arguments.begin(), spec.arguments.end(), [&](const auto& x) { return x.name == name; });
  return static_cast<std::size_t>(a->size.eval(spec.scope(gemm.config(), &gemm.shape())).as_int());
}

// A scale as the bytes of one float: scale_a = 0.75 and scale_b = 1.25, each in a buffer of its own (cuBLASLt
// refuses a scale pointer that is only 4-byte aligned: CUBLAS_STATUS_NOT_SUPPORTED, without a log message).
std::vector<unsigned char> scale_bytes(float value) {
  std::vector<unsigned char> bytes(sizeof value);
  std::memcpy(bytes.data(), &value, sizeof value);
  return bytes;
}

// The inputs of one shape on the device: A, B, the scales and the bias, D for each side, cutune's scratch buffers.
struct Inputs {
  Inputs(const cutune::RuntimeKernel& gemm, const Kernel& k, std::mt19937 rng = std::mt19937(7))
      : a(random_fp8(k.types.a, count_of(gemm, "A"), rng)),
        b(random_fp8(k.types.b, count_of(gemm, "B"), rng)),
        scale_a(scale_bytes(0.75f)),
        scale_b(scale_bytes(1.25f)),
        bias(cutune::bench::random_elements(k.d, count_of(gemm, "bias"), rng)),
        ours(count_of(gemm, "C") * k.d.bytes),
        theirs(count_of(gemm, "C") * k.d.bytes),
        counters(count_of(gemm, "counters") * sizeof(unsigned)),
        workspace(count_of(gemm, "workspace") * sizeof(float)) {
    check(cudaMemset(counters.get(), 0, counters.bytes()), "cudaMemset");  // each launch leaves them zero again
  }
  DeviceBuffer a, b, scale_a, scale_b, bias, ours, theirs, counters, workspace;
};

// Times cutune against cuBLASLt's algorithm 0 under each convention (into `first`), then each of the other
// algorithms alone, keeping the fastest of all (into `best`).
void time_shape(Row& first, Row& best, const std::function<void()>& ours, const LtFp8& lt,
                const std::function<void(std::size_t)>& theirs, const std::vector<std::string>& conventions,
                int repeats, L2State& l2, cudaStream_t stream) {
  for (const auto& convention : conventions) {
    const auto [o, t] = cutune::bench::time_pair(ours, [&] { theirs(0); }, l2, convention, stream, repeats,
                                                 {"cutune", "cuBLASLt#0"});
    first.ours_ms.push_back(o);
    first.theirs_ms.push_back(t);
    double fastest = t;
    for (std::size_t i = 1; i < lt.algorithms(); ++i) {
      const std::string name = fmt::format("cuBLASLt#{}", i);
      const auto run = [&] { theirs(i); };
      fastest = std::min(fastest, cutune::bench::time_pair(run, run, l2, convention, stream, repeats,
                                                           {name.c_str(), name.c_str()}).first);
    }
    best.ours_ms.push_back(o);
    best.theirs_ms.push_back(fastest);
  }
}

// One shape through the runtime API against cuBLASLt: the rows of the first answer and of the best of eight.
std::pair<Row, Row> measure_shape(cutune::Runtime& runtime, const std::string& kernel, const std::string& shape_text,
                                  bool fast, const std::vector<std::string>& conventions, int repeats, L2State& l2,
                                  cudaStream_t stream) {
  Row row;
  row.shape = shape_text;
  const cutune::RuntimeKernel& gemm = runtime.kernel(kernel, shape_text);
  // An operation's row names the implementation launched.
  row.config = (gemm.spec().name != kernel ? gemm.spec().name + ": " : "") + gemm.choice().result.config;
  fmt::print(stderr, "{} {}: {} by the rule '{}'\n", kernel, shape_text, row.config,
             cutune::to_string(gemm.choice().match));
  if (gemm.choice().match != cutune::Match::Exact) {
    row.problem = "the runtime chose by the rule '" + std::string(cutune::to_string(gemm.choice().match)) + "'";
    return {row, row};
  }
  const Kernel types = kernel_types(kernel);
  const std::int64_t m = gemm.shape().dims[0], n = gemm.shape().dims[1], k = gemm.shape().dims[2];
  row.flops = 2.0 * double(m) * double(n) * double(k);
  row.bytes = double(m + n) * double(k) + double(m) * double(n) * double(types.d.bytes);
  row.memory_bound = m <= 64;
  const Inputs in(gemm, types);
  const auto* scale_a = static_cast<const float*>(in.scale_a.get());
  const auto* scale_b = static_cast<const float*>(in.scale_b.get());
  const LtFp8 lt({m, n, k, types.types, scale_a, scale_b, in.bias.get(), fast});
  if (lt.algorithms() == 0) {
    row.problem = "cuBLASLt refuses it (" + lt.refusal() + ")";
    return {row, row};
  }
  const auto ours = [&] {
    gemm(stream, int(m), int(n), int(k), 1.0f, in.a.get(), in.b.get(), scale_a, scale_b, in.bias.get(), 0.0f,
         in.ours.get(), in.counters.get(), in.workspace.get(), in.a.get(), in.b.get(), in.ours.get());
  };
  const auto theirs = [&](std::size_t i) { lt.run(i, in.a.get(), in.b.get(), in.theirs.get(), 1.0f, 0.0f, stream); };
  const auto verify = [&](const char* when) {
    check(cudaMemset(in.ours.get(), 0xff, in.ours.bytes()), "cudaMemset");  // NaN in every element type
    check(cudaMemset(in.theirs.get(), 0xff, in.theirs.bytes()), "cudaMemset");
    ours();
    theirs(0);
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    const double d = cutune::bench::relative_difference(types.d, in.ours, in.theirs);
    row.difference = std::max(row.difference, d);
    if (!(d <= 1e-2)) row.problem = fmt::format("WRONG {} timing: |cutune - cuBLASLt| {:.2e} of the largest", when, d);
  };
  verify("before");
  Row best = row;
  if (row.problem.empty()) time_shape(row, best, ours, lt, theirs, conventions, repeats, l2, stream);
  if (row.problem.empty()) verify("after");
  best.problem = row.problem, best.difference = row.difference;
  if (!row.problem.empty()) fmt::print(stderr, "error: {} {}: {}\n", kernel, shape_text, row.problem);
  return {row, best};
}

struct Options {
  std::vector<std::string> kernels = {"gemm_fp8"};
  // The GEMM issue's shapes that FP8 allows (K and D's rows multiples of 16, as cuBLASLt requires; cutune needs K only),
  // and the nearest ones to the two it does not: 1000x1000x1000 and 127x257x511, whose K cutune refuses too, and whose N
  // cuBLASLt refuses ("M must be divisible by 16", its M being N here).
  std::vector<std::string> shapes = {"2048x2048x2048", "4096x4096x4096",  "8192x8192x8192", "4096x11008x4096",
                                     "4096x4096x11008", "1000x1008x1024", "8192x8192x256",  "4096x4096x64",
                                     "64x4096x4096",   "16x4096x4096",    "127x272x512"};
  cutune::bench::TuneAndTimeOptions run;
  bool fast = false;
};

void add_options(CLI::App& app, Options& o) {
  app.add_option("--kernels", o.kernels, "FP8 GEMMs to tune and time: templates, or operations (their template and "
                                        "cuBLASLt under one budget)")
      ->delimiter(',')
      ->check(CLI::IsMember({"gemm_fp8", "gemm_fp8_e5m2", "gemm_fp8_f16", "gemm_fp8_f32", "matmul_fp8",
                             "matmul_fp8_e5m2", "matmul_fp8_f16"}));
  app.add_option("--shapes", o.shapes, "shapes MxNxK, tuned and launched through the runtime")->delimiter(',');
  cutune::bench::add_tune_and_time_options(app, o.run);
  app.add_flag("--fast-accumulation", o.fast, "cuBLASLt's CUBLASLT_MATMUL_DESC_FAST_ACCUM (no promotion of sums)");
}

// Every kernel at every shape, printed as it goes; the tables of the first answer and of the best of eight.
bool time_and_print(cutune::Runtime& runtime, const Options& o, L2State& l2, cudaStream_t stream) {
  bool ok = true;
  for (const auto& kernel : o.kernels) {
    std::vector<Row> first, best;
    for (const auto& text : o.shapes) {
      try {
        auto [f, b] = measure_shape(runtime, kernel, text, o.fast, o.run.conventions, o.run.repeats, l2, stream);
        first.push_back(std::move(f)), best.push_back(std::move(b));
      } catch (const cutune::Error& ex) {  // a kernel that does not load or launch fails its row, not the run
        fmt::print(stderr, "error: {} {}: {}\n", kernel, text, ex.what());
        first.push_back({.shape = text, .problem = ex.what()}), best.push_back(first.back());
      }
      fmt::print("timed {} {}{}\n", kernel, text, first.back().problem.empty() ? "" : ": " + first.back().problem);
      std::fflush(stdout);
    }
    ok = cutune::bench::print_table(kernel, first, o.run.conventions, "cuBLASLt") && ok;
    cutune::bench::print_table(kernel, best, o.run.conventions, "Lt best8");
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"FP8 GEMMs tuned as `tune` does, launched through the runtime API, against cublasLtMatmul under each "
               "L2 convention"};
  Options o;
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);
  spdlog::stderr_color_mt("cutune")->set_level(spdlog::level::warn);
  spdlog::cfg::load_env_levels();
  try {
    cutune::Device device;
    const cutune::bench::DatabaseFiles db_files = o.run.database("gemm_fp8_bench");
    std::string command;
    for (int i = 0; i < argc; ++i) command += (i ? " " : "") + std::string(argv[i]);
    cutune::bench::tune_all(device, db_files.path, o.kernels, o.shapes, o.run.where,
                            cutune::bench::tune_options(command, o.run.budget, o.run.strategy, o.run.seconds));
    cutune::bench::share_context(device);
    cutune::RuntimeOptions options;
    options.database = db_files.path;
    cutune::Runtime runtime(options);
    L2State l2(device.l2_bytes());
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    const double copy = cutune::bench::copy_bandwidth(stream);
    const cutune::DeviceIdentity& id = device.identity();
    fmt::print("FP8 GEMM on {} ({}, {} SMs): tuned as `tune --budget {}` ({} strategy), launched through the runtime "
               "API; median of {} launches against cublasLtMatmul ({} accumulation, 32 MB workspace); device copy "
               "{:.0f} GB/s\n",
               id.name, id.arch(), id.sm_count, o.run.budget,
               o.run.strategy.empty() ? std::string(cutune::kDefaultStrategy) : o.run.strategy, o.run.repeats,
               o.fast ? "fast" : "FP32", copy * 1e-9);
    const bool ok = time_and_print(runtime, o, l2, stream);
    cudaStreamDestroy(stream);
    if (o.run.keep_db) fmt::print(stderr, "database kept: {}\n", db_files.path.string());
    return ok ? 0 : 1;
  } catch (const std::exception& ex) {
    fmt::print(stderr, "error: {}\n", ex.what());
    return 1;
  }
}
