// GPU tests of host pipelines: the host output equals the reference at an odd length over one and several streams,
// verification catches a pipeline that skips items, a short tuning run stores Ok results, and the runtime API runs
// the tuned pipeline on pinned host arrays and refuses others. Each skips with the reason when no GPU exists.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "cutune/compiler.hpp"
#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/pipeline.hpp"
#include "cutune/runtime_pipeline.hpp"
#include "cutune/templates.hpp"
#include "cutune/tuner.hpp"
#include "gpu_support.hpp"
#include "driver/pipeline_runner.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

constexpr std::int64_t kOdd = 1000003;  // prime: no chunk size divides it

// Every chunk size and stream count valid at N = 1,000,003 (4 + 2 + 1 of them), with two kernel shapes each.
TEST(PipelineGpu, HostOutputEqualsTheReferenceAtAnOddLength) {
  REQUIRE_GPU();
  Device device;
  for (const char* name : {"saxpy_pipeline", "poly_pipeline"}) {
    const KernelSpec spec = load_kernel(name);
    const Shape shape{{kOdd}};
    Workbench bench(device, spec, shape, testing::quick_measure());
    EXPECT_GT(bench.copy_bandwidth(1), 0.0) << "the transfer-only bound, measured when the workbench was prepared";
    int ok = 0;
    for (const char* chunks : {"CHUNK=262144,STREAMS=1", "CHUNK=262144,STREAMS=2", "CHUNK=262144,STREAMS=3",
                               "CHUNK=262144,STREAMS=4", "CHUNK=524288,STREAMS=1", "CHUNK=524288,STREAMS=2",
                               "CHUNK=1048576,STREAMS=1"}) {
      for (const char* kernel : {"BLOCK=128,ITEMS=8", "BLOCK=512,ITEMS=1"}) {
        const Config c = spec.parse_config(std::string(chunks) + "," + kernel);
        ASSERT_FALSE(invalid_config(spec, spec.format(c), shape.str())) << spec.format(c);
        const Result r = bench.evaluate(c, compile_config(spec, c, device.identity().arch()));
        EXPECT_EQ(r.status, Status::Ok) << name << " " << r.config << ": " << r.message;
        EXPECT_LE(r.max_error, 3e-5) << name << " " << r.config;
        EXPECT_GT(r.median_ms, 0.0) << name << " " << r.config;
        EXPECT_GT(r.peak, 0.0) << name << " " << r.config;
        // The launch recorded is the first chunk's, in blocks of BLOCK * ITEMS items.
        const std::int64_t first = std::min(c.values[0].as_int(), kOdd), per_block = c.values[2].as_int() * c.values[3].as_int();
        EXPECT_EQ(r.blocks, (first + per_block - 1) / per_block) << name << " " << r.config;
        ok += r.status == Status::Ok;
      }
    }
    EXPECT_EQ(ok, 14) << name;
    EXPECT_TRUE(bench.usable());
  }
}

// The same kernel told that every chunk is one item shorter: the last item of each chunk stays poisoned in host
// memory, and verification, which reads the host array, must see it.
TEST(PipelineGpu, VerificationReadsTheHostArray) {
  REQUIRE_GPU();
  Device device;
  const KernelSpec good = load_kernel("saxpy_pipeline");
  std::string text = good.json;
  const std::string scalars = R"("scalars": {"n": "CHUNK_LEN"})";
  ASSERT_NE(text.find(scalars), std::string::npos);
  text.replace(text.find(scalars), scalars.size(), R"("scalars": {"n": "CHUNK_LEN - 1"})");
  const KernelSpec bad = KernelSpec::from_json(text, good.source, good.source_name);
  Workbench bench(device, bad, Shape{{kOdd}}, testing::quick_measure());
  const Config c = bad.parse_config("CHUNK=262144,STREAMS=3,BLOCK=256,ITEMS=4");
  const Result r = bench.evaluate(c, compile_config(bad, c, device.identity().arch()));
  EXPECT_EQ(r.status, Status::WrongResult);
  EXPECT_NE(r.message.find("4 of 1000003 elements of y differ"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("first at index 262143"), std::string::npos) << r.message;
  EXPECT_TRUE(r.samples_ms.empty());
}

struct TempFiles {
  fs::path db = fs::temp_directory_path() / ("cutune_pipe_" + std::to_string(::getpid()) + ".db");
  fs::path cache = fs::temp_directory_path() / ("cutune_pipe_cache_" + std::to_string(::getpid()));
  ~TempFiles() {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix);
    fs::remove_all(cache);
  }
};

// A short tuning run (in worker processes) stores Ok results; the runtime API then runs the stored best on pinned
// host arrays with fewer, as many and more streams than tuned, and refuses pageable and device memory.
TEST(PipelineGpu, TuneThenRunOnPinnedHostArrays) {
  REQUIRE_GPU();
  TempFiles files;
  Device device;
  const KernelSpec spec = load_kernel("saxpy_pipeline");
  const Shape shape{{kOdd}};
  TuneOptions options;
  options.budget = 12;
  options.measure.repeats = 5;
  options.cache_dir = files.cache.string();
  ShapeReport report;
  {
    Database db(files.db);
    report = Tuner(device, db, options).tune(spec, shape);
    EXPECT_EQ(db.results(device.identity(), {spec.name, spec.hash}, shape.str()).size(), 12u);
  }
  EXPECT_EQ(report.evaluated, 12u);
  EXPECT_EQ(report.failed, 0u);
  ASSERT_TRUE(report.best);
  EXPECT_EQ(report.best->status, Status::Ok);
  EXPECT_GT(report.copy_gbs, 0.0) << "the transfer-only bound";

  Runtime runtime({.database = files.db, .cache_directory = files.cache});
  RuntimePipeline pipeline = runtime.pipeline("saxpy_pipeline", "1000003");
  EXPECT_EQ(pipeline.kernel().choice().match, Match::Exact);
  EXPECT_EQ(pipeline.kernel().choice().result.config, report.best->config);
  EXPECT_EQ(pipeline.plan().chunk, std::min<std::int64_t>(pipeline.kernel().config().values[0].as_int(), kOdd));
  EXPECT_THROW(runtime.pipeline("transpose", "64x64"), InputError);

  const std::size_t bytes = kOdd * sizeof(float);
  detail::PinnedBuffer x_pinned(bytes), y_pinned(bytes);
  auto* x = reinterpret_cast<float*>(x_pinned.get());
  auto* y = reinterpret_cast<float*>(y_pinned.get());
  std::mt19937 random(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < kOdd; ++i) x[i] = uniform(random);
  std::vector<CUstream> owned(6);
  for (auto& s : owned) CU_CHECK(cuStreamCreate, &s, CU_STREAM_NON_BLOCKING);
  const float a = 0.75f, b = 0.5f;
  const std::int64_t n = kOdd;
  for (std::size_t given : {1u, 2u, 6u}) {
    std::fill(y, y + kOdd, std::nanf(""));
    const std::vector<void*> streams(owned.begin(), owned.begin() + static_cast<std::ptrdiff_t>(given));
    pipeline(streams, static_cast<void*>(y), static_cast<const void*>(x), a, b, n);
    CU_CHECK(cuStreamSynchronize, owned[0]);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < kOdd; ++i) wrong += !(std::fabs(y[i] - (a * x[i] + b)) <= 1e-6f + 1e-6f * std::fabs(a * x[i] + b));
    EXPECT_EQ(wrong, 0) << given << " streams";
  }

  std::vector<float> pageable(kOdd);
  const std::vector<void*> one{owned[0]};
  try {
    pipeline(one, static_cast<void*>(pageable.data()), static_cast<const void*>(x), a, b, n);
    ADD_FAILURE() << "pageable memory was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 1 (y) of saxpy_pipeline: the host array at"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("is not pinned (page-locked) host memory"), std::string::npos) << e.what();
  }
  // Registered memory (cudaHostRegister) is pinned too; registered for half its bytes, it is refused.
  std::vector<float> registered(x, x + kOdd);
  CU_CHECK(cuMemHostRegister, registered.data(), bytes, 0);
  std::fill(y, y + kOdd, std::nanf(""));
  pipeline(one, static_cast<void*>(y), static_cast<const void*>(registered.data()), a, b, n);
  CU_CHECK(cuStreamSynchronize, owned[0]);
  EXPECT_NEAR(y[kOdd - 1], a * x[kOdd - 1] + b, 1e-6);
  CU_CHECK(cuMemHostUnregister, registered.data());
  CU_CHECK(cuMemHostRegister, registered.data(), bytes / 2, 0);
  try {
    pipeline(one, static_cast<void*>(y), static_cast<const void*>(registered.data()), a, b, n);
    ADD_FAILURE() << "a half-registered array was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("argument 2 (x)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("is pinned for fewer than these bytes"), std::string::npos) << e.what();
  }
  CU_CHECK(cuMemHostUnregister, registered.data());
  CUdeviceptr on_device = 0;
  CU_CHECK(cuMemAlloc, &on_device, bytes);
  try {
    pipeline(one, reinterpret_cast<void*>(on_device), static_cast<const void*>(x), a, b, n);
    ADD_FAILURE() << "device memory was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is device memory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pipeline(one, static_cast<void*>(y), static_cast<const void*>(x), a, b), InputError);  // 4 of 5
  EXPECT_THROW(pipeline(std::vector<void*>{}, static_cast<void*>(y), static_cast<const void*>(x), a, b, n), InputError);
  CU_CHECK(cuMemFree, on_device);
  for (auto& s : owned) CU_CHECK(cuStreamDestroy, s);
}

}  // namespace
}  // namespace cutune
