// GPU tests: every transpose configuration is correct on odd shapes; verification catches a wrong kernel;
// a short tuning run stores its results and a second run resumes. Each skips with the reason when no GPU exists.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "gpu_support.hpp"
#include "cutune/measure.hpp"
#include "cutune/space.hpp"
#include "cutune/templates.hpp"
#include "cutune/tuner.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

TEST(TransposeGpu, EveryConfigurationIsCorrectOnOddShapes) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec spec = load_kernel("transpose");
  const Space space = Space::enumerate(spec, std::nullopt, device.limits());
  ASSERT_EQ(space.size(), 160u);
  CompilePool pool;
  std::vector<std::future<CompileOutput>> futures;
  for (const auto& c : space.configs()) futures.push_back(pool.submit([&] { return compile_config(spec, c, device.identity().arch()); }));
  std::vector<CompileOutput> compiled;
  for (auto& f : futures) compiled.push_back(f.get());

  for (const char* text : {"1x1", "1x77", "77x1", "17x33", "33x17", "127x257", "1000x3", "4000x3000", "2050x4098"}) {
    const Shape shape = spec.parse_shape(text);
    Workbench bench(device, spec, shape, testing::quick_measure());
    int ok = 0;
    for (std::size_t i = 0; i < space.size(); ++i) {
      const Result r = bench.evaluate(space.configs()[i], compiled[i]);
      EXPECT_EQ(r.status, Status::Ok) << text << " " << r.config << ": " << r.message;
      EXPECT_EQ(r.max_error, 0.0) << text << " " << r.config;
      EXPECT_GT(r.registers, 0) << text << " " << r.config;  // read from the loaded kernel
      ok += r.status == Status::Ok;
    }
    EXPECT_EQ(ok, 160) << text;
    ASSERT_TRUE(bench.usable());
  }
}

// A user kernel whose BUG parameter plants errors: 1 leaves the last element unwritten, 2 writes a wrong value.
TEST(VerificationGpu, WrongAndMissingOutputsAreCaught) {
  REQUIRE_GPU();
  const fs::path dir = fs::temp_directory_path() / ("cutune_gpu_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "scale.cu") << R"(
extern "C" __global__ void scale(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (BUG == 1 && i == n - 1) return;
  out[i] = 2.0f * in[i] + (BUG == 2 && i == n / 2 ? 1e-3f : 0.0f);
}
extern "C" __global__ void scale_ref(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
})";
  std::ofstream(dir / "scale.json") << R"json({"name": "scale", "source": "scale.cu", "kernel": "scale", "shape": ["N"],
    "parameters": {"BUG": [0, 1, 2], "B": [128]}, "block": ["B"], "grid": ["ceil_div(N, B)"],
    "arguments": [{"name": "out", "type": "float*", "size": "N", "output": true},
                  {"name": "in", "type": "const float*", "size": "N"}, {"name": "n", "type": "int", "value": "N"}],
    "reference": {"kernel": "scale_ref", "block": [256], "grid": ["ceil_div(N, 256)"]},
    "tolerance": {"atol": 1e-6, "rtol": 1e-6}, "metric": {"bytes": "8 * N"}})json";
  const KernelSpec spec = load_kernel((dir / "scale.json").string());
  fs::remove_all(dir);
  Device device;
  Workbench bench(device, spec, spec.parse_shape("100003"), testing::quick_measure());
  const std::string arch = device.identity().arch();
  const Result good = bench.evaluate(spec.parse_config("BUG=0,B=128"), compile_config(spec, spec.parse_config("BUG=0,B=128"), arch));
  EXPECT_EQ(good.status, Status::Ok) << good.message;
  const Result missing = bench.evaluate(spec.parse_config("BUG=1,B=128"), compile_config(spec, spec.parse_config("BUG=1,B=128"), arch));
  EXPECT_EQ(missing.status, Status::WrongResult);
  EXPECT_NE(missing.message.find("1 of 100003 elements of out differ"), std::string::npos) << missing.message;
  EXPECT_NE(missing.message.find("index 100002"), std::string::npos) << missing.message;
  const Result wrong = bench.evaluate(spec.parse_config("BUG=2,B=128"), compile_config(spec, spec.parse_config("BUG=2,B=128"), arch));
  EXPECT_EQ(wrong.status, Status::WrongResult);
  EXPECT_NEAR(wrong.max_error, 1e-3, 1e-4);
  EXPECT_TRUE(wrong.samples_ms.empty()) << "a wrong configuration must not be timed";
}

TEST(TunerGpu, ShortRunStoresAndResumes) {
  REQUIRE_GPU();
  const fs::path db_path = fs::temp_directory_path() / ("cutune_tune_" + std::to_string(::getpid()) + ".db");
  Device device;
  const KernelSpec spec = load_kernel("transpose");
  const Shape shape = spec.parse_shape("1024x768");
  const fs::path cache_dir = fs::temp_directory_path() / ("cutune_tune_cache_" + std::to_string(::getpid()));
  TuneOptions options;
  options.measure.repeats = 5;
  options.final_candidates = 2;
  options.final_repeats = 7;
  options.cache_dir = cache_dir.string();
  ShapeReport first, second, other_shape;
  {
    Database db(db_path);
    first = Tuner(device, db, options).tune(spec, shape);
    second = Tuner(device, db, options).tune(spec, shape);
    other_shape = Tuner(device, db, options).tune(spec, spec.parse_shape("333x444"));
  }
  fs::remove_all(cache_dir);
  // A fresh cache: what came from it was compiled ahead of the strategy in this run (Strategy::upcoming()).
  EXPECT_LE(first.cache_hits, first.compiled_ahead);
  EXPECT_GE(first.retimed, 2u) << "at least the two finalists (more while an unre-timed median beats them)";
  EXPECT_EQ(other_shape.evaluated, 160u);
  EXPECT_EQ(other_shape.cache_hits, 160u) << "the second shape must reuse every cubin of the first";
  EXPECT_EQ(first.space_size, 160u);
  EXPECT_EQ(first.evaluated, 160u);
  EXPECT_EQ(first.failed, 0u);
  ASSERT_TRUE(first.best);
  EXPECT_EQ(first.best->status, Status::Ok);
  EXPECT_EQ(first.best->samples_ms.size(), 7u) << "the winner is a re-timed finalist";
  EXPECT_GT(first.best->metric, 0.0);
  EXPECT_GT(first.copy_gbs, 0.0);
  EXPECT_EQ(second.evaluated, 0u);
  EXPECT_EQ(second.resumed, 160u);
  ASSERT_TRUE(second.best);
  EXPECT_EQ(second.best->config, first.best->config);

  Database db(db_path);
  const auto best = db.best({spec.name, spec.hash, device.identity(), shape.str()});
  ASSERT_TRUE(best);
  EXPECT_EQ(best->result.config, first.best->config);
  EXPECT_EQ(db.results(device.identity(), {spec.name, spec.hash}, shape.str()).size(), 160u);
  db = Database(fs::temp_directory_path() / ("cutune_tune_other_" + std::to_string(::getpid()) + ".db"));
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db_path.string() + suffix);
}

}  // namespace
}  // namespace cutune
