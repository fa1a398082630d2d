// cuBLASLt's own configuration space tuned (gemm_TYPE_cublaslt_config: algorithm id, tile, stages, split-K, swizzle,
// custom option, cluster) against the heuristic's first answer (gemm_TYPE_cublaslt at RANK=0,REDUCTION=0, what
// cuBLASLt runs when asked for one algorithm), per type and shape.
//
// Usage: cublaslt_config_bench [--types bf16,f16,tf32,fp8] [--shapes MxNxK,...] [--fp8-shapes MxNxK,...]
//                              [--budget 60] [--repeats 30] [--rounds 3] [--flush write|read|none]
// 1. Each type's configuration family is tuned at each shape as `tune --kernel gemm_TYPE_cublaslt_config --budget N
//    --flush F` tunes it (one Tuner per type, worker processes, the default strategy, a fresh temporary database): the
//    capability filter removes what the algorithms do not admit, and the search starts from the heuristic's answers.
// 2. Then, in this process, per shape: the heuristic's first answer as cuBLASLt hands it out (the rank family's RANK=0,
//    on a Workbench of its own), the same answer configured by attribute and the tuned best (both on the
//    configuration family's Workbench) are verified and timed under the same L2 convention F, in --rounds alternating
//    rounds of --repeats timed launches each (median per round); the median of the rounds counts.
// 3. One line per type and shape: the three times, first / tuned and first-as-configured / tuned (above 1: tuning
//    cuBLASLt's space won; the second compares two configurations on one Workbench), the tuned configuration, and how
//    many configurations tuning measured and how many of those cuBLASLt refused.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "cutune/templates.hpp"
#include "driver/cublaslt_gemm.hpp"
#include "driver/cublaslt_space.hpp"

namespace {

struct Options {
  std::vector<std::string> types = {"bf16", "f16", "tf32", "fp8"};
  // Five of the GEMM table's shapes; FP8's nearest ones where cuBLASLt needs K and D's rows multiples of 16.
  std::vector<std::string> shapes = {"4096x4096x4096", "1000x1000x1000", "8192x8192x256", "64x4096x4096", "127x257x511"};
  std::vector<std::string> fp8_shapes = {"4096x4096x4096", "1000x1008x1024", "8192x8192x256", "64x4096x4096",
                                         "127x272x512"};
  std::size_t budget = 60;
  int repeats = 30;
  int rounds = 3;
  std::string flush = "write";
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : (v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]));
}

// Verifies and times `config` on `bench` once more: a round's median, or NaN (the reason printed) when it failed.
double timed(cutune::Workbench& bench, const cutune::KernelSpec& spec, const std::string& config, int repeats) {
  const cutune::Config c = spec.parse_config(config);
  const cutune::Result r = bench.retime(c, cutune::library_call(spec), repeats);
  if (r.status != cutune::Status::Ok) {
    fmt::print(stderr, "{} {}: {} ({})\n", spec.name, config, cutune::to_string(r.status), r.message);
    return NAN;
  }
  return r.median_ms;
}

void run_type(const cutune::Device& device, const std::string& type, const Options& o, const std::filesystem::path& dir) {
  const cutune::KernelSpec first_spec = cutune::load_kernel("gemm_" + type + "_cublaslt");
  const cutune::KernelSpec family = cutune::load_kernel("gemm_" + type + "_cublaslt_config");
  const auto flush = cutune::parse_l2_flush(o.flush);
  cutune::Database db(dir / (type + ".db"));
  cutune::Tuner tuner(device, db,
                      cutune::bench::tune_options("cublaslt_config_bench", o.budget, {}, 0.0, flush));
  for (const std::string& text : type == "fp8" ? o.fp8_shapes : o.shapes) {
    const cutune::Shape shape = family.parse_shape(text);
    const cutune::ShapeReport report = tuner.tune(family, shape);
    if (!report.best) {
      fmt::print("{:<5} {:<15} no configuration of {} ran ({} measured)\n", type, text, family.name, report.evaluated);
      continue;
    }
    const auto rows = db.results(device.identity(), {family.name, family.hash}, shape.str(), *flush);
    const auto refused = std::count_if(rows.begin(), rows.end(),
                                       [](const cutune::Result& r) { return r.status == cutune::Status::LaunchError; });
    const cutune::MeasureOptions timing = cutune::bench::timing(o.repeats, 5, flush);
    cutune::Workbench first_bench(device, first_spec, shape, timing);
    cutune::Workbench tuned_bench(device, family, shape, timing);
    std::string why;
    const std::vector<cutune::Config> answers = cutune::detail::heuristic_start(family, shape, 1, why);
    const std::string as_config = answers.empty() ? std::string() : family.format(answers[0]);
    if (answers.empty()) {  // its attributes outside the family's values: tuning could not start from it
      const cutune::detail::LtGemm gemm(family, shape, family.library->bias.has_value());
      fmt::print("{:<5} {:<15} the heuristic's first answer is not a configuration of {}: {}\n", type, text, family.name,
                 gemm.answers() > 0 ? cutune::detail::describe(cutune::detail::read_config(
                                          cutune::detail::cublaslt(family.name), gemm.answer(0)))
                                    : why);
    }
    std::vector<double> first_ms, configured_ms, tuned_ms;
    for (int round = 0; round < o.rounds; ++round) {  // alternating, so that drift is shared
      first_ms.push_back(timed(first_bench, first_spec, "RANK=0,REDUCTION=0", o.repeats));
      if (!as_config.empty()) configured_ms.push_back(timed(tuned_bench, family, as_config, o.repeats));
      tuned_ms.push_back(timed(tuned_bench, family, report.best->config, o.repeats));
    }
    const double first = median(first_ms), configured = median(configured_ms), tuned = median(tuned_ms);
    fmt::print("{:<5} {:<15} first {:8.4f} ms  as configured {:8.4f} ms  tuned {:8.4f} ms  first/tuned {:5.3f}  "
               "configured/tuned {:5.3f}  {} measured, {} refused  {}{}\n",
               type, text, first, configured, tuned, first / tuned, configured / tuned, rows.size(), refused,
               report.best->config, report.best->config == as_config ? " (the first answer)" : "");
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cuBLASLt's configuration space tuned against the heuristic's first answer"};
  Options o;
  app.add_option("--types", o.types, "of bf16, f16, tf32, fp8")->delimiter(',');
  app.add_option("--shapes", o.shapes, "shapes MxNxK of the 16- and 32-bit types")->delimiter(',');
  app.add_option("--fp8-shapes", o.fp8_shapes, "shapes MxNxK of FP8 (K and N multiples of 16)")->delimiter(',');
  app.add_option("--budget", o.budget, "configurations tuned per shape");
  app.add_option("--repeats", o.repeats, "timed launches per round");
  app.add_option("--rounds", o.rounds, "alternating rounds per shape");
  app.add_option("--flush", o.flush, "L2 state before each timed launch")->check(CLI::IsMember({"read", "write", "none"}));
  CLI11_PARSE(app, argc, argv);
  spdlog::set_default_logger(spdlog::stderr_color_mt("cublaslt_config_bench"));
  spdlog::cfg::load_env_levels();
  try {
    const cutune::Device device(0);
    const auto dir = std::filesystem::temp_directory_path() / ("cutune_lt_bench_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    fmt::print("cuBLASLt's configuration space on {}, L2 {}, budget {} per shape; first = the heuristic's first answer\n",
               device.identity().name, o.flush, o.budget);
    for (const std::string& type : o.types) run_type(device, type, o, dir);
    std::filesystem::remove_all(dir);
  } catch (const std::exception& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 1;
  }
  return 0;
}
