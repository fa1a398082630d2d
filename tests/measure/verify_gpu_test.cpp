// GPU tests of verification the user controls: a kernel wrong only at its borders tunes with a "verify" region, with
// --atol, or unverified; compared with its default configuration; and stops early when every configuration
// disagrees with the reference in the same way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>

#include "cutune/database.hpp"
#include "cutune/device.hpp"
#include "cutune/tuner.hpp"
#include "gpu_support.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

// Doubles its input, but writes B + x on the borders, where the reference writes 0: every configuration differs from
// the reference at the same elements (index 0 first), and from each other there.
constexpr const char* kSource = R"cuda(
#ifndef B
#define B 32
#endif
extern "C" __global__ void scale2d(float* out, const float* in, int n, int m) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= n || y >= m) return;
  const bool border = x == 0 || y == 0 || x == n - 1 || y == m - 1;
  out[y * n + x] = border ? (float)(B + x) : 2.0f * in[y * n + x];
}
extern "C" __global__ void scale2d_reference(float* out, const float* in, int n, int m) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= n || y >= m) return;
  const bool border = x == 0 || y == 0 || x == n - 1 || y == m - 1;
  out[y * n + x] = border ? 0.0f : 2.0f * in[y * n + x];
}
)cuda";

// Twelve configurations: B (the block) times U (no effect on the output).
std::string spec_text(const std::string& verify, bool output = true) {
  return R"json({
  "name": "scale2d_borders", "source": "scale2d.cu", "kernel": "scale2d", "shape": ["M", "N"],
  "parameters": {"B": [32, 64, 128, 256, 512, 1024], "U": [1, 2]},
  "block": ["B"], "grid": ["ceil_div(N, B)", "M"],
  "arguments": [
    {"name": "out", "type": "float*", "size": "M * N", "output": )json" + std::string(output ? "true" : "false") + R"json(},
    {"name": "in", "type": "const float*", "size": "M * N"},
    {"name": "n", "type": "int", "value": "N"},
    {"name": "m", "type": "int", "value": "M"}],
  "reference": {"kernel": "scale2d_reference", "block": [64], "grid": ["ceil_div(N, 64)", "M"]},
  "metric": {"bytes": "8 * M * N"})json" +
         (verify.empty() ? "" : ",\n  \"verify\": " + verify) + "\n}";
}

constexpr const char* kInterior = R"({"outputs": {"out": {"region": {"extents": ["N", "M"], "margin": 1}}}})";

class VerifyGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string stem = "cutune_verify_" + std::to_string(::getpid()) + "_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name();
    db_path_ = fs::temp_directory_path() / (stem + ".db");
    cache_ = fs::temp_directory_path() / (stem + "_cache");
  }
  void TearDown() override {
    forget();
    fs::remove_all(cache_);
  }
  void forget() {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db_path_.string() + suffix);
  }

  // Tunes the spec at 40 x 1000 (M rows of N) in worker processes; every stored status by configuration in status_.
  ShapeReport tune(const std::string& verify, const MeasureOptions& measure = testing::quick_measure(),
                   std::size_t stop_after = 4) {
    const KernelSpec spec = KernelSpec::from_json(spec_text(verify, !no_output_), kSource, "scale2d.cu");
    Device device;
    TuneOptions options;
    options.isolate = true;
    options.measure = measure;
    options.final_candidates = 1;
    options.final_repeats = 2;
    options.cache_dir = cache_.string();
    options.verify_stop_after = stop_after;
    const Shape shape{{40, 1000}};
    Database db(db_path_);
    const ShapeReport report = Tuner(device, db, options).tune(spec, shape);
    status_.clear();
    // Stored under the convention measured with (quick_measure: no L2 flush)
    const L2Flush flush = spec.l2_flush(measure.flush);
    for (const auto& r : db.results(device.identity(), {spec.name, spec.hash}, shape.str(), flush)) {
      status_[r.config] = r.status;
      messages_[r.config] = r.message;
    }
    best_ = db.best({spec.name, spec.hash, device.identity(), shape.str(), flush});
    return report;
  }

  std::size_t count(Status s) const {
    std::size_t n = 0;
    for (const auto& [config, status] : status_) n += status == s;
    return n;
  }

  fs::path db_path_;
  fs::path cache_;
  std::map<std::string, Status> status_;
  std::map<std::string, std::string> messages_;
  std::optional<BestConfig> best_;
  bool no_output_ = false;  // the spec's buffer `out` is not an output: a kernel tuned by time alone
};

TEST_F(VerifyGpu, KernelWrongOnlyAtItsBordersTunesWithARegion) {
  REQUIRE_GPU();
  const ShapeReport report = tune(kInterior);
  EXPECT_EQ(report.evaluated, 12u);
  EXPECT_EQ(count(Status::Ok), 12u);
  EXPECT_TRUE(report.verify_stop.empty()) << report.verify_stop;
  ASSERT_TRUE(report.best);
  EXPECT_EQ(report.best->status, Status::Ok);
  ASSERT_TRUE(best_);
  EXPECT_EQ(best_->result.status, Status::Ok);
}

TEST_F(VerifyGpu, SystematicallyWrongKernelStopsEarlyAndSaysWhere) {
  REQUIRE_GPU();
  const ShapeReport report = tune("");
  std::cout << report.verify_stop << "\n";
  EXPECT_GE(report.evaluated, 4u);
  EXPECT_LE(report.evaluated, 6u);  // the first four, and what the GPU was measuring when they were in
  EXPECT_EQ(count(Status::WrongResult), report.evaluated);
  EXPECT_FALSE(report.best);
  const std::string& m = report.verify_stop;
  EXPECT_EQ(m.rfind("stopped early: the first 4 configurations that ran all differ from the reference "
                    "(scale2d_reference) in the same way",
                    0),
            0u)
      << m;
  // Where: the border elements, 2 * 1000 + 2 * 38 of them, from index 0 on, with the reference's zeros.
  EXPECT_NE(m.find("2076 of 40000 elements of out differ from the reference (first at index 0"), std::string::npos) << m;
  EXPECT_NE(m.find("out[1] = "), std::string::npos) << m;
  EXPECT_NE(m.find(" (reference 0)"), std::string::npos) << m;
  EXPECT_NE(m.find("--verify none"), std::string::npos) << m;
  for (const auto& [config, text] : messages_) {
    EXPECT_NE(text.find("out[0] = "), std::string::npos) << config << ": " << text;
  }
}

TEST_F(VerifyGpu, VerifyNoneStoresUnverifiedResultsThatCountForBest) {
  REQUIRE_GPU();
  MeasureOptions measure = testing::quick_measure();
  measure.verify = VerifyMode::None;
  const ShapeReport report = tune("", measure);
  EXPECT_EQ(report.evaluated, 12u);
  EXPECT_EQ(count(Status::Unverified), 12u);
  EXPECT_TRUE(report.verify_stop.empty());
  ASSERT_TRUE(report.best);
  EXPECT_EQ(report.best->status, Status::Unverified);
  ASSERT_TRUE(best_);
  EXPECT_EQ(best_->result.status, Status::Unverified);
  EXPECT_GT(best_->result.median_ms, 0.0);
}

TEST_F(VerifyGpu, KernelWithoutOutputsTunesByTimeAlone) {
  REQUIRE_GPU();
  no_output_ = true;
  const ShapeReport report = tune(R"({"mode": "none"})");
  EXPECT_EQ(count(Status::Unverified), 12u);
  ASSERT_TRUE(report.best);
  EXPECT_EQ(report.best->status, Status::Unverified);
  // Asked to verify on the command line, it says why it cannot.
  MeasureOptions measure = testing::quick_measure();
  measure.verify = VerifyMode::Reference;
  forget();  // else everything is stored and nothing runs
  try {
    tune(R"({"mode": "none"})", measure);
    ADD_FAILURE() << "tuned a kernel without outputs against its reference";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("has no output buffer to compare with a reference: tune it with --verify none"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(VerifyGpu, AtolFromTheCallerOverridesTheSpec) {
  REQUIRE_GPU();
  MeasureOptions measure = testing::quick_measure();
  measure.atol = 4096.0;  // above every border value (B + x < 2048)
  tune("", measure);
  EXPECT_EQ(count(Status::Ok), 12u);
}

TEST_F(VerifyGpu, DefaultModeComparesWithTheDefaultConfiguration) {
  REQUIRE_GPU();
  // Against B=32,U=1, the configurations with B = 32 agree (U changes nothing) and the others differ at the borders.
  // The others all differ in the same way, so the early stop is off: it could end the shape before a B = 32 ran.
  tune(R"({"mode": "default"})", testing::quick_measure(), 0);
  ASSERT_EQ(status_.size(), 12u);
  for (const auto& [config, status] : status_) {
    const bool b32 = config.rfind("B=32,", 0) == 0;
    EXPECT_EQ(to_string(status), to_string(b32 ? Status::Ok : Status::WrongResult)) << config;
  }
}

}  // namespace
}  // namespace cutune
