// The spaces a tuner keeps for an operation's later turns (TunerResources::tuning_space_of): the same spec object,
// version, constraints and shape get the space enumerated before; anything else is enumerated anew.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cutune/database.hpp"
#include "stand_in_kernel.hpp"
#include "tuner/tuner_resources.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

TEST(KeptSpaces, ALaterTurnGetsTheSameSpaceAndAChangedSpecANewOne) {
  const fs::path file = fs::temp_directory_path() / ("cutune_kept_spaces_" + std::to_string(::getpid()) + ".db");
  {
    Database db(file);
    DeviceIdentity device;
    device.name = "Stand-in GPU";
    device.cc_major = 9;
    device.sm_count = 132;
    detail::TunerResources resources(device, DeviceLimits{}, {0}, nullptr, db, TuneOptions{});
    KernelSpec spec = test::stand_in_kernel("kept_k", R"({"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4]})", "A * B");
    const KernelSpec other = test::stand_in_kernel("kept_k2", R"({"A": [1, 2, 3]})", "A");
    EXPECT_EQ(resources.tuning_space_of(spec, Shape{{1000}}).size(), 20u);
    EXPECT_EQ(resources.tuning_space_of(other, Shape{{1000}}).size(), 3u);
    EXPECT_EQ(resources.tuning_space_of(spec, Shape{{1000}}).size(), 20u);  // kept
    spec.restrict_to("A <= 2");  // the same object and version, fewer configurations
    EXPECT_EQ(resources.tuning_space_of(spec, Shape{{1000}}).size(), 8u);
    EXPECT_EQ(resources.tuning_space_of(spec, Shape{{2000}}).size(), 8u);
    for (int n = 3000; n < 3000 + static_cast<int>(detail::TunerResources::kKeptSpaces); ++n) {
      resources.tuning_space_of(other, Shape{{n}});  // pushes the first ones out
    }
    EXPECT_EQ(resources.tuning_space_of(spec, Shape{{1000}}).size(), 8u);
  }
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(file.string() + suffix, ignored);
}

}  // namespace
}  // namespace cutune
