// Tuning on demand as an application meets it: a loop over 20 GEMM shapes the database was not tuned for
// (the projections of one transformer layer at five batch sizes), through a Runtime that tunes each in the background.
//
//   1. Baseline: a Runtime without tuning on demand (on a copy of the database) hands out the fallback kernels; each
//      output is checked against cuBLAS, and one pass over the 20 shapes is timed on the idle GPU.
//   2. On demand: a Runtime with tune_budget asks for the 20 shapes again and again, launching what it gets and
//      checking every new kernel's output against cuBLAS; between its passes the baseline's fixed kernels are timed,
//      so that their slowdown is what the background tuning costs the application. Until every shape is tuned.
//   3. Lookups: kernel() of the tuned shapes, p50, from the on-demand Runtime and from a new plain one.
//   4. `tune --wanted` on the baseline's copy (tuning on demand was off there): which shapes it tunes, on the idle GPU.
//   5. The spread of the measurements taken while the application ran: each configuration measured in both databases,
//      its time under load over its time on the idle GPU.
#include <CLI/CLI.hpp>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cublas_support.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"

namespace fs = std::filesystem;
using cutune::bench::check;
using cutune::bench::DeviceBuffer;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string kernel = "gemm_bf16";
  std::string database;  // the starting database (copied; none: empty)
  std::string work = "on-demand-work";
  std::vector<int> batches = {1, 8, 64, 256, 512};
  int hidden = 4096, intermediate = 11008;
  int budget = 60;
  double limit_s = 900;
  std::string tune_program;
};

// One shape's buffers and cuBLAS's answer.
struct Problem {
  std::string shape;
  int m = 0, n = 0, k = 0;
  std::unique_ptr<DeviceBuffer> a, b, c, reference, counters, workspace;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * double(v.size() - 1) + 0.5)];
}

// The projections of one layer (QKV, output, gate and up together, down) at each batch size: M tokens.
std::vector<std::string> layer_shapes(const Options& o) {
  std::vector<std::string> shapes;
  for (int t : o.batches) {
    shapes.push_back(fmt::format("{}x{}x{}", t, 3 * o.hidden, o.hidden));
    shapes.push_back(fmt::format("{}x{}x{}", t, o.hidden, o.hidden));
    shapes.push_back(fmt::format("{}x{}x{}", t, 2 * o.intermediate, o.hidden));
    shapes.push_back(fmt::format("{}x{}x{}", t, o.hidden, o.intermediate));
  }
  return shapes;
}

std::unique_ptr<Problem> make_problem(const cutune::KernelSpec& spec, const std::string& shape, cublasHandle_t cublas,
                                      cudaStream_t stream) {
  auto p = std::make_unique<Problem>();
  p->shape = shape;
  const cutune::Shape s = spec.parse_shape(shape);
  p->m = static_cast<int>(s.dims[0]), p->n = static_cast<int>(s.dims[1]), p->k = static_cast<int>(s.dims[2]);
  const auto count_of = [&](const std::string& name) {
    for (const auto& a : spec.arguments)
      if (a.name == name) return static_cast<std::size_t>(a.size.eval(spec.scope(spec.default_config(), &s)).as_int());
    throw cutune::InputError(spec.name + " has no argument " + name);
  };
  const cutune::bench::Element e = cutune::bench::element(spec.name);
  std::mt19937 rng(7);
  p->a = std::make_unique<DeviceBuffer>(cutune::bench::random_elements(e, count_of("A"), rng));
  p->b = std::make_unique<DeviceBuffer>(cutune::bench::random_elements(e, count_of("B"), rng));
  p->c = std::make_unique<DeviceBuffer>(count_of("C") * e.bytes);
  p->reference = std::make_unique<DeviceBuffer>(count_of("C") * e.bytes);
  p->counters = std::make_unique<DeviceBuffer>(count_of("counters") * sizeof(unsigned));
  p->workspace = std::make_unique<DeviceBuffer>(count_of("workspace") * sizeof(float));
  check(cudaMemset(p->counters->get(), 0, p->counters->bytes()), "cudaMemset");  // each launch leaves them zero
  check(cublasSetStream(cublas, stream), "cublasSetStream");
  cutune::bench::gemm_row_major(cublas, e, p->m, p->n, p->k, p->a->get(), p->b->get(), p->reference->get());
  return p;
}

// The spec's arguments; in the places of the tensor maps, the device pointers of A, B and C.
void launch(const cutune::RuntimeKernel& gemm, const Problem& p, cudaStream_t stream) {
  const float alpha = 1.0f, beta = 0.0f;
  gemm(stream, p.m, p.n, p.k, alpha, p.a->get(), p.b->get(), beta, p.c->get(), p.counters->get(),
       p.workspace->get(), p.a->get(), p.b->get(), p.c->get());
}

// Launches `gemm` on poisoned output and compares with cuBLAS; false (and says so) when it differs.
bool right(const cutune::RuntimeKernel& gemm, const Problem& p, cudaStream_t stream) {
  check(cudaMemsetAsync(p.c->get(), 0xff, p.c->bytes(), stream), "cudaMemsetAsync");  // NaN
  launch(gemm, p, stream);
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  const double d = cutune::bench::relative_difference(cutune::bench::element(gemm.spec().name), *p.c, *p.reference);
  const bool ok = d <= 1e-2;
  if (!ok) fmt::print("WRONG: {} {}: |cutune - cuBLAS| {:.2e} of the largest element\n", p.shape,
                      gemm.choice().result.config, d);
  return ok;
}

class EventPair {
 public:
  EventPair() {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&end_), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(end_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
  // Milliseconds `work` takes on `stream`.
  template <typename Work>
  double time(cudaStream_t stream, Work&& work) {
    check(cudaEventRecord(start_, stream), "cudaEventRecord");
    work();
    check(cudaEventRecord(end_, stream), "cudaEventRecord");
    check(cudaEventSynchronize(end_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, end_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr, end_ = nullptr;
};

using Kernels = std::vector<const cutune::RuntimeKernel*>;
using Problems = std::vector<std::unique_ptr<Problem>>;

// One pass of the fixed (baseline) kernels over every shape, timed on the stream.
double fixed_pass(const Kernels& kernels, const Problems& problems, cudaStream_t stream, EventPair& events) {
  return events.time(stream, [&] {
    for (std::size_t i = 0; i < problems.size(); ++i) launch(*kernels[i], *problems[i], stream);
  });
}

struct OnDemandRun {
  std::vector<double> tuned_at_s;    // per shape: when the tuned kernel was first handed out (NaN: never)
  std::vector<double> during_ms;     // fixed passes while shapes were still being tuned
  std::vector<double> after_ms;      // fixed passes after every shape was tuned
  std::size_t checked = 0, wrong = 0;
  double all_tuned_s = NAN;
};

// The application's loop with tuning on demand (step 2 above).
OnDemandRun run_on_demand(cutune::Runtime& runtime, const Options& o, const std::vector<std::string>& shapes,
                          const Problems& problems, const Kernels& fixed, cudaStream_t stream, EventPair& events) {
  OnDemandRun run;
  run.tuned_at_s.assign(shapes.size(), NAN);
  Kernels seen(shapes.size(), nullptr);
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  std::size_t after_passes = 0;
  while (after_passes < 200 && elapsed() < o.limit_s) {
    std::size_t tuned = 0;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const cutune::RuntimeKernel& k = runtime.kernel(o.kernel, shapes[i]);
      if (&k != seen[i]) {  // a kernel not launched before: its output is checked
        seen[i] = &k;
        ++run.checked;
        run.wrong += !right(k, *problems[i], stream);
        if (k.choice().match == cutune::Match::Exact && std::isnan(run.tuned_at_s[i])) {
          run.tuned_at_s[i] = elapsed();
          fmt::print("{:7.1f} s  {} tuned: {}\n", run.tuned_at_s[i], shapes[i], k.choice().result.config);
        }
      } else {
        launch(k, *problems[i], stream);
      }
      tuned += k.choice().match == cutune::Match::Exact;
    }
    const double ms = fixed_pass(fixed, problems, stream, events);
    if (tuned < shapes.size()) {
      run.during_ms.push_back(ms);
    } else {
      if (std::isnan(run.all_tuned_s)) run.all_tuned_s = elapsed();
      run.after_ms.push_back(ms);
      ++after_passes;
    }
  }
  return run;
}

// kernel() of every shape, over and over: microseconds per call, p50.
double lookup_p50_us(cutune::Runtime& runtime, const Options& o, const std::vector<std::string>& shapes) {
  std::vector<double> us;
  for (int r = 0; r < 1000; ++r) {
    for (const auto& s : shapes) {
      const auto t = Clock::now();
      const cutune::RuntimeKernel& k = runtime.kernel(o.kernel, s);
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t).count());
      if (k.choice().match != cutune::Match::Exact) return NAN;
    }
  }
  return percentile(us, 0.5);
}

// `tune --wanted` on a database: what it printed.
std::string tune_wanted(const Options& o, const fs::path& db, const fs::path& cache) {
  const fs::path log = fs::path(o.work) / "tune-wanted.log";
  const std::string command = fmt::format("'{}' --wanted --kernel {} --budget {} --db '{}' --cache-dir '{}' > '{}' 2>&1",
                                          o.tune_program, o.kernel, o.budget, db.string(), cache.string(), log.string());
  const int status = std::system(command.c_str());
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  if (status != 0) throw cutune::Error("`tune --wanted` failed:\n" + text.str());
  return text.str();
}

// Each configuration measured under load (on demand) and on the idle GPU (`tune --wanted`): load / idle.
void print_spread(const Options& o, const std::vector<std::string>& shapes, const fs::path& loaded,
                  const fs::path& idle, const cutune::DeviceIdentity& device) {
  const cutune::KernelSpec spec = cutune::load_kernel(o.kernel);
  cutune::Database a(loaded), b(idle);
  std::vector<double> all, picks;
  fmt::print("\nshape                 common   load/idle p10   p50   p90   on-demand pick on the idle GPU / idle best\n");
  for (const auto& s : shapes) {
    std::map<std::string, double> quiet;
    double quiet_best = INFINITY;
    for (const auto& r : b.results(device, {spec.name, spec.hash}, s, spec.l2_flush()))
      if (r.status == cutune::Status::Ok) quiet[r.config] = r.median_ms, quiet_best = std::min(quiet_best, r.median_ms);
    std::vector<double> ratios;
    double pick = NAN;
    for (const auto& r : a.results(device, {spec.name, spec.hash}, s, spec.l2_flush())) {
      if (r.status != cutune::Status::Ok || !quiet.count(r.config)) continue;
      ratios.push_back(r.median_ms / quiet[r.config]);
      if (std::isnan(pick)) pick = quiet[r.config] / quiet_best;  // the first Ok result is the loaded best
    }
    all.insert(all.end(), ratios.begin(), ratios.end());
    if (!std::isnan(pick)) picks.push_back(pick);
    fmt::print("{:<20} {:>7}   {:>13.3f} {:>5.3f} {:>5.3f}   {}\n", s, ratios.size(), percentile(ratios, 0.1),
               percentile(ratios, 0.5), percentile(ratios, 0.9), std::isnan(pick) ? "not measured idle" : fmt::format("{:.3f}", pick));
  }
  fmt::print("all shapes: {} configurations measured both ways, load/idle p10 {:.3f}, p50 {:.3f}, p90 {:.3f}; "
             "on-demand picks at {:.3f} of the idle best (median, {} shapes)\n",
             all.size(), percentile(all, 0.1), percentile(all, 0.5), percentile(all, 0.9), percentile(picks, 0.5),
             picks.size());
}

// The baseline Runtime's kernels for every shape (the fallbacks), each output checked; `wrong` counts the bad ones.
Kernels fallbacks(cutune::Runtime& runtime, const Options& o, const std::vector<std::string>& shapes,
                  const Problems& problems, cudaStream_t stream, std::size_t& wrong) {
  Kernels fixed;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    fixed.push_back(&runtime.kernel(o.kernel, shapes[i]));
    wrong += !right(*fixed.back(), *problems[i], stream);
    fmt::print("{:<20} fallback ({}): {}\n", shapes[i], cutune::to_string(fixed.back()->choice().match),
               fixed.back()->choice().result.config);
  }
  return fixed;
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("--kernel", o.kernel, "a tensor-core GEMM kernel")->capture_default_str();
  app.add_option("--db", o.database, "the starting database, copied (default: an empty one)");
  app.add_option("--work", o.work, "folder for the databases, cubins and logs (emptied first)")->capture_default_str();
  app.add_option("--batches", o.batches, "token counts (M) of the layer's projections")->capture_default_str();
  app.add_option("--budget", o.budget, "tuning on demand's budget per shape")->capture_default_str();
  app.add_option("--limit", o.limit_s, "seconds the application loop may run")->capture_default_str();
  app.add_option("--tune", o.tune_program, "the tune program (for `tune --wanted`; the Runtime finds its own)")
      ->required();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"Tuning on demand as an application meets it: 20 untuned GEMM shapes, launched through a Runtime that "
               "tunes them in the background; the application's slowdown, the time until all are tuned, lookups, "
               "`tune --wanted`, and the spread of measurements taken under load"};
  add_options(app, o);
  CLI11_PARSE(app, argc, argv);
  spdlog::stderr_color_mt("cutune")->set_level(spdlog::level::warn);
  try {
    fs::remove_all(o.work);
    fs::create_directories(o.work);
    const fs::path base = fs::path(o.work) / "baseline.db", live = fs::path(o.work) / "on-demand.db",
                   cache = fs::path(o.work) / "cubins";
    if (!o.database.empty()) {
      fs::copy_file(o.database, base);
      fs::copy_file(o.database, live);
    } else {
      cutune::Database created_base(base);
      cutune::Database created_live(live);
    }
    const std::vector<std::string> shapes = layer_shapes(o);
    const cutune::KernelSpec spec = cutune::load_kernel(o.kernel);
    cutune::Device device(0);
    cutune::bench::share_context(device);
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    const cutune::bench::Cublas cublas;
    Problems problems;
    for (const auto& s : shapes) problems.push_back(make_problem(spec, s, cublas.get(), stream));
    EventPair events;

    // 1. Baseline.
    auto baseline = std::make_unique<cutune::Runtime>(cutune::RuntimeOptions{.database = base, .cache_directory = cache});
    std::size_t wrong = 0;
    const Kernels fixed = fallbacks(*baseline, o, shapes, problems, stream, wrong);
    std::vector<double> idle_ms;
    for (int r = 0; r < 200; ++r) idle_ms.push_back(fixed_pass(fixed, problems, stream, events));

    // 2. On demand.
    OnDemandRun run;
    double live_p50 = NAN;
    {
      cutune::RuntimeOptions options{.database = live, .cache_directory = cache};
      options.tune_budget = o.budget;
      cutune::Runtime runtime(options);
      run = run_on_demand(runtime, o, shapes, problems, fixed, stream, events);
      live_p50 = lookup_p50_us(runtime, o, shapes);  // 3. lookups
    }
    cutune::Runtime plain(cutune::RuntimeOptions{.database = live, .cache_directory = cache});
    const double plain_p50 = lookup_p50_us(plain, o, shapes);
    std::size_t tuned = 0;
    for (double t : run.tuned_at_s) tuned += !std::isnan(t);

    // 4. `tune --wanted` where tuning on demand was off.
    baseline.reset();
    const std::string wanted = tune_wanted(o, base, cache);
    fmt::print("\n`tune --wanted` on the baseline's database (tuning on demand off there):\n{}", wanted);
    // 5. Spread.
    print_spread(o, shapes, live, base, device.identity());

    const double idle = percentile(idle_ms, 0.5);
    fmt::print("\n{}: {} shapes, budget {} on demand, on {}\n", o.kernel, shapes.size(), o.budget, device.identity().name);
    fmt::print("outputs checked against cuBLAS: {} fallback + {} on demand, {} wrong\n", shapes.size(), run.checked,
               wrong + run.wrong);
    fmt::print("shapes tuned in the background: {} of {}; all tuned after {:.1f} s\n", tuned, shapes.size(), run.all_tuned_s);
    fmt::print("application pass of the fixed kernels (ms): idle p50 {:.3f}; while tuning p50 {:.3f} p90 {:.3f} "
               "({} passes): slowdown {:.2f}x p50, {:.2f}x p90; after p50 {:.3f}\n",
               idle, percentile(run.during_ms, 0.5), percentile(run.during_ms, 0.9), run.during_ms.size(),
               percentile(run.during_ms, 0.5) / idle, percentile(run.during_ms, 0.9) / idle,
               percentile(run.after_ms, 0.5));
    fmt::print("kernel() of a tuned shape, p50: {:.3f} us (the on-demand Runtime), {:.3f} us (a new plain Runtime)\n",
               live_p50, plain_p50);
    cudaStreamDestroy(stream);
    return wrong + run.wrong == 0 && tuned == shapes.size() ? 0 : 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
}
