// GPU tests of the cuBLASLt families and of an operation: the heuristic's answers are verified against the templates'
// reference at odd shapes (beta 0, and alpha 1.5 with beta 0.5), a bound no answer can meet is caught, and matmul_bf16
// tuned through worker processes (the template, cuBLASLt by rank and by attributes) is launched by the runtime as the
// implementation measured fastest, with a right output. Skipped without a GPU.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/operation.hpp"
#include "cutune/requests.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"
#include "cutune/tuner.hpp"
#include "driver/cuda_driver.hpp"
#include "driver/device_memory.hpp"
#include "gemm_tc_gpu_support.hpp"
#include "gpu_support.hpp"
#include "runtime/operation_choice.hpp"
#include "runtime_gemm_support.hpp"

namespace cutune {
namespace {

struct Family {
  const char* kernel;
  std::vector<const char*> shapes;
};
void PrintTo(const Family& f, std::ostream* os) { *os << f.kernel; }

class CublasLtGpu : public ::testing::TestWithParam<Family> {};
INSTANTIATE_TEST_SUITE_P(
    Kernels, CublasLtGpu,
    ::testing::Values(Family{"gemm_bf16_cublaslt", {"127x255x67", "1000x1000x1000", "3x4096x129", "64x4096x4096"}},
                      Family{"gemm_f16_cublaslt", {"127x255x67", "1000x1000x1000", "3x4096x129", "64x4096x4096"}},
                      Family{"gemm_tf32_cublaslt", {"127x255x67", "1000x1000x1000", "3x4096x129", "64x4096x4096"}},
                      Family{"gemm_fp8_cublaslt", {"127x256x512", "1000x1008x1024", "33x4096x16", "64x4096x4096"}},
                      Family{"gemm_fp8_e5m2_cublaslt", {"127x256x512", "1000x1008x1024", "64x4096x4096"}},
                      Family{"gemm_fp8_f16_cublaslt", {"127x256x512", "1000x1008x1024", "64x4096x4096"}}),
    [](const ::testing::TestParamInfo<Family>& info) { return std::string(info.param.kernel); });

// RANK 0 (the library's own choice) is right at every shape; ranks 1 to 3 are right, or past the heuristic's answers
// (a LaunchError saying so).
TEST_P(CublasLtGpu, AnswersAreCorrectAtOddShapes) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec spec = load_kernel(GetParam().kernel);
  const KernelSpec scaled = testing::edited(spec, true);
  for (const KernelSpec* s : {&spec, &scaled}) {
    for (const char* text : GetParam().shapes) {
      const Shape shape = s->parse_shape(text);
      Workbench bench(device, *s, shape, testing::quick_measure());
      int ok = 0;
      double worst = 0.0;
      for (int rank = 0; rank < 4; ++rank) {
        const Result r =
            bench.evaluate(s->parse_config("RANK=" + std::to_string(rank) + ",REDUCTION=0"), library_call(*s));
        if (rank == 0 || r.status != Status::LaunchError) {
          EXPECT_EQ(r.status, Status::Ok) << s->name << " " << text << " RANK=" << rank << ": " << r.message;
        } else {
          EXPECT_NE(r.message.find("none of rank"), std::string::npos) << r.message;
        }
        ok += r.status == Status::Ok;
        worst = std::max(worst, r.max_error);
      }
      // Any reduction scheme: cuBLAS's own first answer, right or (split-K summed in 16 bits) refused as wrong.
      const Result any = bench.evaluate(s->parse_config("RANK=0,REDUCTION=1"), library_call(*s));
      EXPECT_TRUE(any.status == Status::Ok || any.status == Status::WrongResult) << any.message;
      ASSERT_TRUE(bench.usable());
      std::printf("%s %s %-15s REDUCTION=1 RANK=0 %s; %d of 4 ranks correct (others past the answers), largest error %.3g (atol %.3g)\n",
                  s->name.c_str(), s == &spec ? "beta=0  " : "beta=0.5", text, std::string(to_string(any.status)).c_str(),
                  ok, worst,
                  s->tolerance_at(shape).atol);
    }
  }
}

// Verification is the templates': with a bound of zero, cuBLASLt's rounded sums differ from the exact reference.
TEST(CublasLtGpuVerify, WrongOutputIsCaught) {
  REQUIRE_GPU();
  Device device;
  auto j = nlohmann::ordered_json::parse(load_kernel("gemm_bf16_cublaslt").json);
  j["tolerance"] = {{"atol", 0}, {"rtol", 0}};
  const KernelSpec spec = KernelSpec::from_json(j.dump(), load_kernel("gemm_bf16_cublaslt").source, "gemm_tc_shared.cu");
  Workbench bench(device, spec, spec.parse_shape("1000x1000x1000"), testing::quick_measure());
  const Result r = bench.evaluate(spec.parse_config("RANK=0,REDUCTION=0"), library_call(spec));
  EXPECT_EQ(r.status, Status::WrongResult) << r.message;
}

// Where cuBLASLt has no FP8 algorithm (D's rows of 250 elements are not a multiple of 16 bytes), every rank is a
// LaunchError saying so: the operation's template runs there.
TEST(CublasLtGpuVerify, AProblemCublasLtRefusesIsALaunchErrorOfEveryRank) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec spec = load_kernel("gemm_fp8_cublaslt");
  Workbench bench(device, spec, spec.parse_shape("127x250x512"), testing::quick_measure());
  for (const char* rank : {"RANK=0,REDUCTION=0", "RANK=1,REDUCTION=1"}) {
    const Result r = bench.evaluate(spec.parse_config(rank), library_call(spec));
    EXPECT_EQ(r.status, Status::LaunchError) << rank;
    EXPECT_NE(r.message.find("cuBLASLt has no algorithm for this problem"), std::string::npos) << r.message;
  }
  // The operation launches its template there instead of cuBLASLt's (missing) choice.
  Runtime runtime({.device = device.ordinal()});
  EXPECT_EQ(runtime.kernel("matmul_fp8", "127x250x512").spec().name, "gemm_fp8");
}

// The output of a runtime kernel at m x n x k against the sum in double, every 5th row.
int wrong_elements(const RuntimeKernel& gemm, int m, int n, int k, const Tolerance& tolerance) {
  return testing::wrong_bf16_elements(gemm, m, n, k, 5, tolerance, 11);
}

// The configuration family's best at `shape` in `dir`/tuned.db, stored again as the fastest of all in a new database:
// the operation launches it there, and its output is right.
void launch_the_configuration_family(Device& device, const OperationSpec& op, const std::filesystem::path& dir,
                                     const Shape& shape) {
  const KernelSpec& config = *op.find("gemm_bf16_cublaslt_config");
  std::optional<BestConfig> best;
  {
    Database tuned(dir / "tuned.db");
    best = tuned.best({config.name, config.hash, device.identity(), shape.str(), L2Flush::Write});
  }
  ASSERT_TRUE(best) << "no correct configuration of " << config.name << " at " << shape.str();
  Result fastest = best->result;
  fastest.median_ms = 1e-6;
  {
    Database db(dir / "config.db");
    db.record(db.begin_run(device.identity(), {config.name, config.hash}, "test", L2Flush::Write), shape.str(), fastest);
  }
  Runtime runtime({.database = dir / "config.db", .cache_directory = dir / "cache", .device = device.ordinal(),
                   .flush = L2Flush::Write});
  const RuntimeKernel& gemm = runtime.kernel("matmul_bf16", shape.str());
  EXPECT_EQ(gemm.spec().name, config.name);
  EXPECT_EQ(gemm.choice().result.config, fastest.config);
  const int wrong = wrong_elements(gemm, int(shape.dims[0]), int(shape.dims[1]), int(shape.dims[2]),
                                   gemm.spec().tolerance_at(shape));
  EXPECT_EQ(wrong, 0);
  std::printf("matmul_bf16 %s: launched %s %s, %d elements wrong\n", shape.str().c_str(), gemm.spec().name.c_str(),
              gemm.choice().result.config.c_str(), wrong);
}

// matmul_bf16 tuned (its three implementations, one budget, worker processes) at two shapes; the runtime launches the
// implementation with the fastest stored time at each, correctly, and cuBLASLt's first answer at a shape nobody tuned.
// Where cuBLASLt's configuration by attributes is the fastest stored (here made so in a copy of the database), the
// operation launches it with the same call, correctly.
TEST(OperationGpu, TunedAndLaunchedThroughTheRuntime) {
  REQUIRE_GPU();
  Device device;
  const OperationSpec op = load_operation("matmul_bf16");
  const auto dir = std::filesystem::temp_directory_path() / ("cutune_operation_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::vector<Shape> shapes = {op.parse_shape("1000x1000x1000"), op.parse_shape("256x512x768")};
  {
    Database db(dir / "tuned.db");
    TuneOptions options;
    options.measure.flush = L2Flush::Write;
    options.cache_dir = (dir / "cache").string();
    options.isolate = true;
    Tuner tuner(device, db, options);
    const Shape* current = nullptr;
    const auto reports = tune_operation(tuner, op, shapes, 12, device.identity(), current, {});
    ASSERT_EQ(reports.size(), 6u);
    for (const ShapeReport& r : reports) EXPECT_TRUE(r.best) << r.shape.str();
  }
  Runtime runtime({.database = dir / "tuned.db", .cache_directory = dir / "cache", .device = device.ordinal(),
                   .flush = L2Flush::Write});
  for (const Shape& shape : shapes) {
    const RuntimeKernel& gemm = runtime.kernel("matmul_bf16", shape.str());
    EXPECT_EQ(gemm.choice().match, Match::Exact);
    double fastest = 1e300, library = 1e300;
    std::string fastest_name, library_name;
    for (const KernelSpec& s : op.implementations) {
      auto best = runtime.database()->best({s.name, s.hash, device.identity(), shape.str(), L2Flush::Write});
      ASSERT_TRUE(best) << s.name;
      if (best->result.median_ms < fastest) fastest = best->result.median_ms, fastest_name = s.name;
      if (s.library && best->result.median_ms < library) library = best->result.median_ms, library_name = s.name;
      std::printf("matmul_bf16 %s: %s best %.4f ms (%s)\n", shape.str().c_str(), s.name.c_str(), best->result.median_ms,
                  best->result.config.c_str());
    }
    // The fastest, unless a template led cuBLASLt's faster family by less than the rule's margin.
    EXPECT_EQ(gemm.spec().name, library < detail::kExactMargin * fastest ? library_name : fastest_name);
    const int wrong = wrong_elements(gemm, int(shape.dims[0]), int(shape.dims[1]), int(shape.dims[2]),
                                     gemm.spec().tolerance_at(shape));
    EXPECT_EQ(wrong, 0);
    std::printf("matmul_bf16 %s: launched %s %s, %d elements wrong\n", shape.str().c_str(), gemm.spec().name.c_str(),
                gemm.choice().result.config.c_str(), wrong);
  }
  // At a shape nobody tuned: cuBLASLt's first answer, unless the template's prediction comes from a shape where it
  // beat cuBLASLt's best by 5%.
  const RuntimeKernel& untuned = runtime.kernel("matmul_bf16", "777x333x555");
  if (untuned.spec().name == "gemm_bf16_cublaslt") {
    EXPECT_EQ(untuned.choice().match, Match::Default);
    EXPECT_EQ(untuned.choice().result.config, "RANK=0,REDUCTION=0");
  } else {
    const KernelSpec& lt = *op.find("gemm_bf16_cublaslt");
    auto there = runtime.database()->best({lt.name, lt.hash, device.identity(), untuned.choice().shape, L2Flush::Write});
    ASSERT_TRUE(there);
    EXPECT_GE(there->result.median_ms, 1.05 * untuned.choice().result.median_ms);
  }
  std::printf("matmul_bf16 777x333x555 (untuned): launched %s %s (%s)\n", untuned.spec().name.c_str(),
              untuned.choice().result.config.c_str(), std::string(to_string(untuned.choice().match)).c_str());
  EXPECT_EQ(wrong_elements(untuned, 777, 333, 555, untuned.spec().tolerance_at(untuned.shape())), 0);
  launch_the_configuration_family(device, op, dir, shapes.front());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cutune
