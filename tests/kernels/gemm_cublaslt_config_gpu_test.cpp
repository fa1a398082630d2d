// GPU tests of the cuBLASLt configuration families (gemm_*_cublaslt_config): cuBLASLt's algorithms and capabilities
// for each type, the heuristic's answers read back as configurations and verified at odd shapes (beta 0, and alpha 1.5
// with beta 0.5) with variations of their attributes, combinations cuBLASLt refuses found as launch errors without a
// launch, and a family tuned through worker processes, its refusals stored, its best launched by the runtime.
// Skipped without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"
#include "cutune/tuner.hpp"
#include "driver/cublaslt_gemm.hpp"
#include "gemm_tc_gpu_support.hpp"
#include "gpu_support.hpp"
#include "runtime_gemm_support.hpp"

namespace cutune {
namespace {

using detail::LtAlgoConfig;
using detail::LtGemm;
using Json = nlohmann::ordered_json;

struct Family {
  const char* kernel;
  std::vector<const char*> shapes;
};
void PrintTo(const Family& f, std::ostream* os) { *os << f.kernel; }

const std::vector<Family>& families() {
  static const std::vector<Family> all = {
      {"gemm_bf16_cublaslt_config", {"127x255x67", "1000x1000x1000", "3x4096x129", "64x4096x4096"}},
      {"gemm_f16_cublaslt_config", {"127x255x67", "1000x1000x1000"}},
      {"gemm_tf32_cublaslt_config", {"127x255x67", "1000x1000x1000"}},
      {"gemm_fp8_cublaslt_config", {"127x256x512", "1000x1008x1024"}}};
  return all;
}

std::string ids_text(const std::vector<std::uint32_t>& ids) {
  std::string out;
  for (auto id : ids) out += (out.empty() ? "" : " ") + std::to_string(id);
  return out.empty() ? "-" : out;
}

// `spec` with each of `configs`' attribute values added to its parameter's list, and the constraints dropped: a
// family that can express every configuration given (the built-in lists hold what tuning explores on one GPU).
KernelSpec widened(const KernelSpec& spec, const std::vector<LtAlgoConfig>& configs) {
  Json j = Json::parse(spec.json);
  for (const LtAlgoConfig& c : configs) {
    const std::int64_t values[] = {c.algo, c.tile, c.stages, c.splitk, c.scheme, c.swizzle, c.custom, c.cluster};
    const char* names[] = {"ALGO", "TILE", "STAGES", "SPLITK", "SCHEME", "SWIZZLE", "CUSTOM", "CLUSTER"};
    for (std::size_t i = 0; i < 8; ++i) {
      Json& list = j["parameters"][names[i]]["values"];
      if (std::find(list.begin(), list.end(), Json(values[i])) == list.end()) list.push_back(values[i]);
    }
  }
  j["constraints"] = Json::array();
  return KernelSpec::from_json(j.dump(), spec.source, spec.source_name);
}

// The heuristic's first `most` answers at `shape` as configurations.
std::vector<LtAlgoConfig> answers(const KernelSpec& spec, const Shape& shape, std::size_t most) {
  const LtGemm gemm(spec, shape, spec.library->bias.has_value());
  std::vector<LtAlgoConfig> out;
  for (std::size_t r = 0; r < std::min(most, gemm.answers()); ++r)
    out.push_back(detail::read_config(detail::cublaslt(spec.name), gemm.answer(r)));
  return out;
}

// Tuning as `tune --budget N --flush write` would, in worker processes, with `start` measured first.
TuneOptions tune_options(const std::filesystem::path& dir, std::size_t budget, std::vector<std::string> start) {
  TuneOptions options;
  options.measure.flush = L2Flush::Write;
  options.cache_dir = (dir / "cache").string();
  options.isolate = true;
  options.budget = budget;
  options.start = std::move(start);
  return options;
}

// Prints each type's algorithms with their capabilities, and the heuristic's first answers at a shape: the data the
// built-in value lists were chosen from. Every answer is a configuration cuBLASLt accepts when configured by attribute.
TEST(CublasLtConfigGpu, AlgorithmsCapabilitiesAndAnswers) {
  REQUIRE_GPU();
  Device device;
  for (const Family& f : families()) {
    const KernelSpec spec = load_kernel(f.kernel);
    const auto& lt = detail::cublaslt(spec.name);
    const Shape shape = spec.parse_shape(f.shapes[1]);
    const LtGemm gemm(spec, shape, spec.library->bias.has_value());
    const std::vector<int> ids = detail::lt_algorithm_ids(lt, gemm.handle(), gemm.types());
    EXPECT_FALSE(ids.empty()) << f.kernel;
    std::printf("%s: %zu algorithms\n", f.kernel, ids.size());
    for (int id : ids) {
      cublasLtMatmulAlgo_t algo{};
      const auto& t = gemm.types();
      const cublasStatus_t s = lt.cublasLtMatmulAlgoInit(gemm.handle(), t.compute, t.scale, t.a, t.b, t.c, t.d, id, &algo);
      if (s != CUBLAS_STATUS_SUCCESS) {
        std::printf("  algo %d: %s\n", id, detail::describe(s, "init").c_str());
        continue;
      }
      const detail::LtCapabilities caps = detail::read_capabilities(lt, algo);
      std::printf("  algo %d: tiles [%s] stages [%s] splitk %d mask %u swizzle %d custom<=%d\n", id,
                  ids_text(caps.tiles).c_str(), ids_text(caps.stages).c_str(), int(caps.splitk), caps.reduction_mask,
                  int(caps.swizzle), caps.custom_max);
    }
    for (const char* text : f.shapes) {
      const Shape at = spec.parse_shape(text);
      const LtGemm there(spec, at, spec.library->bias.has_value());
      for (std::size_t r = 0; r < std::min<std::size_t>(8, there.answers()); ++r) {
        const LtAlgoConfig c = detail::read_config(lt, there.answer(r));
        const detail::LtConfigured configured = there.configure(c);
        EXPECT_FALSE(configured.refusal) << f.kernel << " " << text << " rank " << r << ": " << *configured.refusal;
        std::printf("  %s rank %zu: ALGO=%d,TILE=%u,STAGES=%u,SPLITK=%d,SCHEME=%u,SWIZZLE=%u,CUSTOM=%u,CLUSTER=%u\n",
                    text, r, c.algo, c.tile, c.stages, c.splitk, c.scheme, c.swizzle, c.custom, unsigned(c.cluster));
      }
    }
  }
}

class CublasLtConfigFamilyGpu : public ::testing::TestWithParam<Family> {};
INSTANTIATE_TEST_SUITE_P(Kernels, CublasLtConfigFamilyGpu, ::testing::ValuesIn(families()),
                         [](const ::testing::TestParamInfo<Family>& info) { return std::string(info.param.kernel); });

// The heuristic's first four answers as configurations are right at every shape, with beta 0 and 0.5; variations of
// the first (the other swizzle, K split in two and four with FP32 reductions, the next custom option) are right or
// refused by cuBLASLt as a launch error, never wrong, never a fault.
TEST_P(CublasLtConfigFamilyGpu, ConfigurationsAreCorrectAtOddShapes) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec family = load_kernel(GetParam().kernel);
  for (const char* text : GetParam().shapes) {
    const Shape shape = family.parse_shape(text);
    std::vector<LtAlgoConfig> tried = answers(family, shape, 4);
    ASSERT_FALSE(tried.empty()) << text;
    const std::size_t from_heuristic = tried.size();
    LtAlgoConfig v = tried[0];
    v.swizzle = 1 - v.swizzle;
    tried.push_back(v);
    for (int split : {2, 4}) {
      v = tried[0];
      v.splitk = split;
      v.scheme = 2;  // CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE
      tried.push_back(v);
    }
    v = tried[0];
    v.custom += 1;
    tried.push_back(v);
    const KernelSpec wide = widened(family, tried);
    const KernelSpec scaled = testing::edited(wide, true);
    for (const KernelSpec* s : {&wide, &scaled}) {
      Workbench bench(device, *s, shape, testing::quick_measure());
      int ok = 0, refused = 0;
      for (std::size_t i = 0; i < tried.size(); ++i) {
        const std::string config = detail::lt_config_text(*s, tried[i]);
        const Result r = bench.evaluate(s->parse_config(config), library_call(*s));
        if (i < from_heuristic) {
          EXPECT_EQ(r.status, Status::Ok) << s->name << " " << text << " " << config << ": " << r.message;
        } else {
          EXPECT_TRUE(r.status == Status::Ok || r.status == Status::LaunchError) << config << ": " << r.message;
        }
        ok += r.status == Status::Ok;
        refused += r.status == Status::LaunchError;
        if (r.status == Status::LaunchError) std::printf("    refused %s: %s\n", config.c_str(), r.message.c_str());
      }
      ASSERT_TRUE(bench.usable());
      std::printf("%s %s %-15s %d of %zu configurations right, %d refused\n", s->name.c_str(),
                  s == &wide ? "beta=0  " : "beta=0.5", text, ok, tried.size(), refused);
    }
  }
}

// What cuBLASLt refuses is a LaunchError naming the reason, found before a launch, and the bench goes on: an algorithm
// id it does not have, and a tile and a custom option the algorithm's capabilities lack.
TEST(CublasLtConfigGpu, RefusedCombinationsAreLaunchErrors) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec family = load_kernel("gemm_bf16_cublaslt_config");
  const Shape shape = family.parse_shape("1000x1000x1000");
  const LtAlgoConfig first = answers(family, shape, 1).at(0);
  const LtGemm gemm(family, shape, false);
  cublasLtMatmulAlgo_t algo{};
  const auto& t = gemm.types();
  const auto& lt = detail::cublaslt(family.name);
  ASSERT_EQ(lt.cublasLtMatmulAlgoInit(gemm.handle(), t.compute, t.scale, t.a, t.b, t.c, t.d, first.algo, &algo),
            CUBLAS_STATUS_SUCCESS);
  const detail::LtCapabilities caps = detail::read_capabilities(lt, algo);
  std::uint32_t missing_tile = 1;
  while (std::find(caps.tiles.begin(), caps.tiles.end(), missing_tile) != caps.tiles.end()) ++missing_tile;
  std::vector<std::pair<LtAlgoConfig, std::string>> refused;
  LtAlgoConfig c = first;
  c.algo = 100000;
  refused.push_back({c, "has no algorithm 100000"});
  c = first;
  c.tile = missing_tile;
  refused.push_back({c, "has no tile " + std::to_string(missing_tile)});
  c = first;
  c.custom = static_cast<std::uint32_t>(caps.custom_max) + 1;
  refused.push_back({c, "has no custom option"});
  std::vector<LtAlgoConfig> all = {first};
  for (const auto& r : refused) all.push_back(r.first);
  const KernelSpec wide = widened(family, all);
  Workbench bench(device, wide, shape, testing::quick_measure());
  for (const auto& [config, why] : refused) {
    const Result r = bench.evaluate(wide.parse_config(detail::lt_config_text(wide, config)), library_call(wide));
    EXPECT_EQ(r.status, Status::LaunchError) << r.message;
    EXPECT_NE(r.message.find(why), std::string::npos) << r.message;
    EXPECT_EQ(r.samples_ms.size(), 0u);
  }
  const Result ok = bench.evaluate(wide.parse_config(detail::lt_config_text(wide, first)), library_call(wide));
  EXPECT_EQ(ok.status, Status::Ok) << ok.message;
}

// gemm_bf16_cublaslt_config tuned through worker processes at two shapes, starting from the heuristic's answers: the
// first answer is measured, the best stored is at least as fast, and the runtime launches the best with a right
// output.
TEST(CublasLtConfigGpu, TunedStoredAndLaunched) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec spec = load_kernel("gemm_bf16_cublaslt_config");
  const auto dir = std::filesystem::temp_directory_path() / ("cutune_lt_config_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<Shape> shapes = {spec.parse_shape("1000x1000x1000"), spec.parse_shape("256x512x768")};
  {
    Database db(dir / "tuned.db");
    Tuner tuner(device, db, tune_options(dir, 24, {}));
    for (const Shape& shape : shapes) {
      const ShapeReport report = tuner.tune(spec, shape);
      ASSERT_TRUE(report.best) << shape.str();
      const auto rows = db.results(device.identity(), {spec.name, spec.hash}, shape.str(), L2Flush::Write);
      const std::string first = detail::lt_config_text(spec, answers(spec, shape, 1).at(0));
      const auto at_first = std::find_if(rows.begin(), rows.end(), [&](const Result& r) { return r.config == first; });
      ASSERT_NE(at_first, rows.end()) << "the heuristic's first answer " << first << " was not measured";
      ASSERT_EQ(at_first->status, Status::Ok) << at_first->message;
      ASSERT_EQ(rows.front().status, Status::Ok);
      EXPECT_LE(rows.front().median_ms, at_first->median_ms);
      std::printf("%s %s: %zu measured; best %s %.4f ms, the heuristic's first %.4f ms\n", spec.name.c_str(),
                  shape.str().c_str(), rows.size(), rows.front().config.c_str(), rows.front().median_ms,
                  at_first->median_ms);
    }
    EXPECT_GT(db.runs().at(0).device.library_version, 0);  // cublasLtGetVersion, kept with the run
  }
  Runtime runtime({.database = dir / "tuned.db", .cache_directory = dir / "cache", .device = device.ordinal(),
                   .flush = L2Flush::Write});
  for (const Shape& shape : shapes) {
    const RuntimeKernel& gemm = runtime.kernel(spec.name, shape.str());
    EXPECT_EQ(gemm.choice().match, Match::Exact);
    const int m = int(shape.dims[0]), n = int(shape.dims[1]), k = int(shape.dims[2]);
    EXPECT_EQ(testing::wrong_bf16_elements(gemm, m, n, k, 5, spec.tolerance_at(shape), 17), 0) << shape.str();
  }
  std::filesystem::remove_all(dir);
}

// A combination cuBLASLt refuses at the shape is stored as a launch error and tuning goes on: with a workspace of 4
// bytes, the first answer split in four parts (whose partial sums need workspace) is refused, the others measured.
TEST(CublasLtConfigGpu, ARefusedCombinationIsStoredAndTuningGoesOn) {
  REQUIRE_GPU();
  Device device;
  Json j = Json::parse(load_kernel("gemm_bf16_cublaslt_config").json);
  for (auto& a : j["arguments"])
    if (a["name"] == "workspace") a["size"] = 1;
  const KernelSpec spec = KernelSpec::from_json(j.dump(), load_kernel("gemm_bf16_cublaslt_config").source, "s.cu");
  const Shape shape = spec.parse_shape("1000x1000x1000");
  LtAlgoConfig split = answers(spec, shape, 1).at(0);
  split.splitk = 4;
  split.scheme = 2;
  const std::string refused = detail::lt_config_text(spec, split);
  const auto dir = std::filesystem::temp_directory_path() / ("cutune_lt_refused_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    Database db(dir / "tuned.db");
    Tuner tuner(device, db, tune_options(dir, 12, {refused}));
    const ShapeReport report = tuner.tune(spec, shape);
    ASSERT_TRUE(report.best);
    EXPECT_GE(report.failed, 1u);
    const auto rows = db.results(device.identity(), {spec.name, spec.hash}, shape.str(), L2Flush::Write);
    const auto it = std::find_if(rows.begin(), rows.end(), [&](const Result& r) { return r.config == refused; });
    ASSERT_NE(it, rows.end()) << refused << " was not stored";
    EXPECT_EQ(it->status, Status::LaunchError);
    EXPECT_TRUE(it->message.find("workspace") != std::string::npos || it->message.find("refused") != std::string::npos)
        << it->message;
    EXPECT_GE(std::count_if(rows.begin(), rows.end(), [](const Result& r) { return r.status == Status::Ok; }), 1);
    std::printf("%s: %s stored as %s (%s); %zu stored in all\n", spec.name.c_str(), refused.c_str(),
                std::string(to_string(it->status)).c_str(), it->message.c_str(), rows.size());
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
// A rank family's tuning measures only the ranks the heuristic answers at the shape (each for its REDUCTION
// choice): the whole space tuned stores one result per answer, and every one ran (right, or wrong for a split-K
// answer summed in 16 bits).
TEST(CublasLtGpu, RanksPastTheHeuristicsAnswersAreNotMeasured) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec spec = load_kernel("gemm_bf16_cublaslt");
  const auto dir = std::filesystem::temp_directory_path() / ("cutune_lt_ranks_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const Shape shape = spec.parse_shape("1000x1000x1000");
  const std::size_t answers = LtGemm(spec, shape, false, false).answers() + LtGemm(spec, shape, false, true).answers();
  {
    Database db(dir / "tuned.db");
    Tuner tuner(device, db, tune_options(dir, 0, {}));
    const ShapeReport report = tuner.tune(spec, shape);
    ASSERT_TRUE(report.best);
    EXPECT_EQ(report.space_size, answers);
    const auto rows = db.results(device.identity(), {spec.name, spec.hash}, shape.str(), L2Flush::Write);
    EXPECT_EQ(rows.size(), answers);
    for (const Result& r : rows) EXPECT_NE(r.status, Status::LaunchError) << r.config << ": " << r.message;
    std::printf("%s %s: %zu answers, %zu measured\n", spec.name.c_str(), shape.str().c_str(), answers, rows.size());
  }
  std::filesystem::remove_all(dir);
}

}  // namespace cutune
