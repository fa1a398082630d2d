// Host-only tests of choosing GPUs: `--devices` lists, their errors, and the refusal to mix GPU models in one run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "cli_support.hpp"
#include "cutune/device_choice.hpp"
#include "cutune/error.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

DeviceIdentity gpu(const std::string& name, int cc_major, int sm_count) {
  DeviceIdentity d;
  d.name = name;
  d.cc_major = cc_major;
  d.sm_count = sm_count;
  return d;
}

TEST(DeviceList, ReadsAllOneOrSeveralOrdinalsInTheOrderGiven) {
  EXPECT_TRUE(parse_device_list("all").all);
  EXPECT_EQ(parse_device_list("3").ordinals, (std::vector<int>{3}));
  EXPECT_EQ(parse_device_list("2,0, 1").ordinals, (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(resolve_device_list(parse_device_list("all"), 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(resolve_device_list(parse_device_list("1,0"), 2), (std::vector<int>{1, 0}));
}

TEST(DeviceList, BadListsSayWhatIsWrongInOneLine) {
  const std::string empty_item = error_of([] { parse_device_list("0,,1"); });
  EXPECT_NE(empty_item.find("--devices '0,,1': an empty item"), std::string::npos) << empty_item;
  EXPECT_NE(error_of([] { parse_device_list(""); }).find("an empty item"), std::string::npos);
  EXPECT_NE(error_of([] { parse_device_list("0,"); }).find("an empty item"), std::string::npos);
  EXPECT_NE(error_of([] { parse_device_list("gpu1"); }).find("'gpu1' is not a GPU ordinal"), std::string::npos);
  EXPECT_NE(error_of([] { parse_device_list("1.5"); }).find("'1.5' is not a GPU ordinal"), std::string::npos);
  EXPECT_NE(error_of([] { parse_device_list("0-3"); }).find("is not a GPU ordinal"), std::string::npos);
  EXPECT_NE(error_of([] { parse_device_list("-1"); }).find("not negative"), std::string::npos);
  EXPECT_NE(error_of([] { parse_device_list("1,0,1"); }).find("GPU 1 appears twice"), std::string::npos);
  EXPECT_NE(error_of([] { parse_device_list("x", "--device"); }).find("--device 'x'"), std::string::npos);
  const std::string range = error_of([] { resolve_device_list(parse_device_list("0,4"), 2); });
  EXPECT_EQ(range, "--devices 0,4: there is no GPU 4; this machine has 2 GPUs (0-1)");
  EXPECT_NE(error_of([] { resolve_device_list(parse_device_list("1"), 1); }).find("has 1 GPU (0)"), std::string::npos);
  for (const auto& e : {empty_item, range}) EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(DeviceChoice, OneModelTakesTheMostRestrictiveLimits) {
  DeviceLimits small;
  small.max_shared_per_block_optin = 100 * 1024;
  small.max_threads_per_block = 512;
  const DeviceChoice c = one_model({1, 0}, {gpu("NVIDIA H200", 9, 132), gpu("NVIDIA  H200 ", 9, 132)}, {DeviceLimits{}, small},
                                   "--devices all");
  EXPECT_EQ(c.ordinals, (std::vector<int>{1, 0}));
  EXPECT_EQ(c.identity.name, "NVIDIA H200");
  EXPECT_EQ(c.limits.max_shared_per_block_optin, 100 * 1024);
  EXPECT_EQ(c.limits.max_threads_per_block, 512);
  EXPECT_EQ(c.limits.max_shared_per_block, DeviceLimits{}.max_shared_per_block);
}

TEST(DeviceChoice, MixedModelsAreRefusedNamingThem) {
  const auto h100 = gpu("NVIDIA H100 80GB HBM3", 9, 132), a100 = gpu("NVIDIA A100-SXM4-80GB", 8, 108);
  const std::string mixed = error_of([&] {
    one_model({0, 1, 2}, {h100, h100, a100}, {DeviceLimits{}, DeviceLimits{}, DeviceLimits{}}, "--devices all");
  });
  EXPECT_EQ(mixed, "--devices all mixes NVIDIA H100 80GB HBM3 (sm_90, 132 SMs: GPU 0, 1) and NVIDIA A100-SXM4-80GB "
                   "(sm_80, 108 SMs: GPU 2): pick one model's devices, e.g. --devices 0,1");
  // The same name with another SM count is another key in the database, so another model here.
  const std::string sms = error_of([&] {
    one_model({0, 1}, {h100, gpu("NVIDIA H100 80GB HBM3", 9, 114)}, {DeviceLimits{}, DeviceLimits{}}, "--devices 0,1");
  });
  EXPECT_NE(sms.find("(sm_90, 114 SMs: GPU 1)"), std::string::npos) << sms;
}

class DevicesCli : public ::testing::Test {
 protected:
  DevicesCli() : dir_(fs::temp_directory_path() / ("cutune_devices_cli_" + std::to_string(::getpid()))) {
    fs::create_directories(dir_);
  }
  ~DevicesCli() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  // A bad list is one error line and exit 1, whether or not this machine has a GPU, and leaves no database behind.
  void expect_refused(const std::string& options, const std::string& message) {
    const auto r = test::run_tune(dir_, "--kernel transpose --shapes 64x64 --db d.db " + options);
    EXPECT_EQ(r.code, 1) << options << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << options << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "d.db")) << options;
  }
  fs::path dir_;
};

TEST_F(DevicesCli, BadListsAreOneLineAndExitNonZero) {
  expect_refused("--devices 0,,1", "error: --devices '0,,1': an empty item");
  expect_refused("--devices 1,1", "error: --devices '1,1': GPU 1 appears twice");
  expect_refused("--devices first", "'first' is not a GPU ordinal");
  expect_refused("--devices=-2", "GPU ordinals are not negative");
}

TEST_F(DevicesCli, DeviceAndDevicesExcludeEachOther) {
  const auto r = test::run_tune(dir_, "--kernel transpose --shapes 64x64 --db d.db --device 0 --devices 1");
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cutune
