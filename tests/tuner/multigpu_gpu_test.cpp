// GPU test of tuning on every GPU of the machine at once: each GPU must measure a share, and every result be correct.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "cutune/database.hpp"
#include "cutune/device_choice.hpp"
#include "cutune/error.hpp"
#include "cutune/templates.hpp"
#include "cutune/tuner.hpp"
#include "gpu_support.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

TEST(MultiGpu, TransposeOnEveryGpuOfOneModel) {
  REQUIRE_GPU();
  const int count = Device::count();
  if (count < 2) GTEST_SKIP() << "needs 2 GPUs of one model; this machine has " << count;
  std::vector<std::unique_ptr<Device>> devices;
  std::vector<int> ordinals;
  std::vector<DeviceIdentity> identities;
  std::vector<DeviceLimits> limits;
  for (int i = 0; i < count; ++i) {
    devices.push_back(std::make_unique<Device>(i));
    ordinals.push_back(i);
    identities.push_back(devices.back()->identity());
    limits.push_back(devices.back()->limits());
  }
  DeviceChoice choice;
  try {
    choice = one_model(ordinals, identities, limits, "--devices all");
  } catch (const InputError& e) {
    GTEST_SKIP() << e.what();
  }

  const fs::path dir = fs::temp_directory_path() / ("cutune_multigpu_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const KernelSpec spec = load_kernel("transpose");
  const Shape shape = spec.parse_shape("2048x2048");
  TuneOptions options;
  options.strategy = "exhaustive";
  options.measure.repeats = 5;
  options.final_candidates = 3;
  options.cache_dir = (dir / "cache").string();
  ShapeReport r;
  std::vector<Result> stored;
  {
    Database db(dir / "t.db");
    Tuner tuner(choice.identity, choice.limits, choice.ordinals, db, options);
    r = tuner.tune(spec, shape);
    stored = db.results(choice.identity, {spec.name, spec.hash}, shape.str());
  }
  fs::remove_all(dir);

  EXPECT_EQ(r.evaluated, r.space_size);
  EXPECT_EQ(r.failed, 0u);
  ASSERT_EQ(r.devices.size(), static_cast<std::size_t>(count));
  std::size_t shares = 0;
  for (const auto& d : r.devices) {
    EXPECT_GT(d.measured, 0u) << "GPU " << d.ordinal << " measured nothing";
    EXPECT_TRUE(d.left.empty()) << "GPU " << d.ordinal << " left: " << d.left;
    shares += d.measured;
  }
  EXPECT_EQ(shares, r.evaluated);
  EXPECT_EQ(stored.size(), r.space_size);
  for (const auto& x : stored) EXPECT_EQ(x.status, Status::Ok) << x.config << ": " << x.message;
  ASSERT_TRUE(r.best);
  EXPECT_EQ(r.best->samples_ms.size(), static_cast<std::size_t>(options.final_repeats)) << "the winner is re-timed";
  EXPECT_EQ(r.best->config, stored.front().config);
  EXPECT_GT(r.copy_gbs, 0.0);
  for (const auto& d : r.devices) std::cout << "GPU " << d.ordinal << ": " << d.measured << " configurations\n";
}

}  // namespace
}  // namespace cutune
