// Host-only tests of the on-disk cubin cache: keys, round trips, damaged entries, the size bound, compiles shared while
// under way.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <stdexcept>
#include <thread>

#include "cutune/cubin_cache.hpp"
#include "cutune/target.hpp"
#include "cutune/templates.hpp"

namespace cutune {
namespace {

namespace fs = std::filesystem;

class CubinCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cutune_cache_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static CompileOutput fake(const std::string& cubin) {
    CompileOutput out;
    out.ok = true;
    out.cubin = cubin;
    out.lowered_name = "_Z6kernelv";
    out.log = "ptxas info: Used 42 registers";
    out.registers = 42;
    out.spill_bytes = 8;
    return out;
  }

  std::uint64_t folder_bytes() const {
    std::uint64_t total = 0;
    for (const auto& e : fs::directory_iterator(dir_)) total += e.file_size();
    return total;
  }

  fs::path dir_;
};

TEST_F(CubinCacheTest, KeyCoversEverythingThatChangesTheBinary) {
  const KernelSpec spec = load_kernel("transpose");
  const std::string base = CubinCache::key(spec, "transpose", {"-DTILE=32"}, "sm_90");
  EXPECT_EQ(base.size(), 32u);
  EXPECT_EQ(base, CubinCache::key(spec, "transpose", {"-DTILE=32"}, "sm_90"));
  EXPECT_NE(base, CubinCache::key(spec, "transpose", {"-DTILE=64"}, "sm_90"));
  EXPECT_NE(base, CubinCache::key(spec, "transpose", {"-DTILE=32"}, "sm_80"));
  EXPECT_NE(base, CubinCache::key(spec, "transpose_reference", {"-DTILE=32"}, "sm_90"));
  KernelSpec edited = spec;
  edited.source += "\n// an edit\n";
  EXPECT_NE(base, CubinCache::key(edited, "transpose", {"-DTILE=32"}, "sm_90"));
  KernelSpec fast_math = spec;
  fast_math.compile_options.push_back("--use_fast_math");
  EXPECT_NE(base, CubinCache::key(fast_math, "transpose", {"-DTILE=32"}, "sm_90"));
}

TEST_F(CubinCacheTest, KeysOfManyConfigurationsAreTheCacheKeys) {
  const KernelSpec spec = load_kernel("gemm");
  const CubinKeys keys(spec, spec.kernel);
  const Config config = spec.parse_config("BM=64,BN=128,BK=16,TM=8,TN=8,WARP_ROWS=4,VEC=4,AT=1,PAD=4,ASYNC=0,"
                                          "STAGES=2,OCC=0,SPLITK=1,GROUP_M=1");
  EXPECT_EQ(keys.config_key(config, "sm_90"),
            CubinCache::key(spec, spec.kernel, config_options(spec, config), compile_arch(spec, config, "sm_90")));
  EXPECT_EQ(keys.key({"-DX=1"}, "sm_80"), CubinCache::key(spec, spec.kernel, {"-DX=1"}, "sm_80"));
  CubinCache cache(dir_);
  EXPECT_FALSE(cache.contains(keys.config_key(config, "sm_90")));
  cache.store(keys.config_key(config, "sm_90"), fake("cubin"));
  EXPECT_TRUE(cache.contains(keys.config_key(config, "sm_90")));
  EXPECT_FALSE(cache.contains(keys.config_key(config, "sm_80")));
}

TEST_F(CubinCacheTest, RoundTripKeepsEveryField) {
  CubinCache cache(dir_);
  EXPECT_FALSE(cache.load("k1"));
  cache.store("k1", fake(std::string("\x7f" "ELF binary\0with zero", 21)));
  const auto back = cache.load("k1");
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->ok);
  EXPECT_EQ(back->cubin, std::string("\x7f" "ELF binary\0with zero", 21));
  EXPECT_EQ(back->lowered_name, "_Z6kernelv");
  EXPECT_EQ(back->log, "ptxas info: Used 42 registers");
  EXPECT_EQ(back->registers, 42);
  EXPECT_EQ(back->spill_bytes, 8);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 1u);
}

TEST_F(CubinCacheTest, FailedCompilesAreNotStored) {
  CubinCache cache(dir_);
  CompileOutput failed;
  failed.log = "error: expected a ;";
  cache.store("bad", failed);
  EXPECT_FALSE(cache.load("bad"));
}

TEST_F(CubinCacheTest, DamagedAndTruncatedEntriesAreRemovedAndRebuilt) {
  CubinCache cache(dir_);
  cache.store("flip", fake("0123456789abcdef0123456789abcdef"));
  cache.store("cut", fake("0123456789abcdef0123456789abcdef"));
  {
    std::fstream f(dir_ / "flip.cubin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-5, std::ios::end);
    f.put('X');
  }
  fs::resize_file(dir_ / "cut.cubin", fs::file_size(dir_ / "cut.cubin") - 7);
  EXPECT_FALSE(cache.load("flip"));
  EXPECT_FALSE(cache.load("cut"));
  EXPECT_FALSE(fs::exists(dir_ / "flip.cubin"));
  EXPECT_FALSE(fs::exists(dir_ / "cut.cubin"));
  cache.store("flip", fake("rebuilt"));
  ASSERT_TRUE(cache.load("flip"));
  EXPECT_EQ(cache.load("flip")->cubin, "rebuilt");
}

TEST_F(CubinCacheTest, StaysUnderItsBound) {
  const std::string cubin(10000, 'c');
  CubinCache cache(dir_, 200000);  // room for about 19 entries
  for (int i = 0; i < 65; ++i) cache.store("entry" + std::to_string(i), fake(cubin));
  EXPECT_LE(folder_bytes(), 200000u);
  EXPECT_TRUE(cache.load("entry64")) << "the newest entry must survive trimming";
}

TEST_F(CubinCacheTest, CompileThroughTheCache) {
  const KernelSpec spec = load_kernel("transpose");
  CubinCache cache(dir_);
  const CompileOutput first = compile_config_cached(&cache, spec, spec.default_config(), "sm_90");
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.from_cache);
  const CompileOutput second = compile_config_cached(&cache, spec, spec.default_config(), "sm_90");
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.lowered_name, first.lowered_name);
  EXPECT_EQ(second.registers, first.registers);
  const CompileOutput uncached = compile_config_cached(nullptr, spec, spec.default_config(), "sm_90");
  EXPECT_FALSE(uncached.from_cache);
  EXPECT_EQ(uncached.cubin, first.cubin);
}

TEST_F(CubinCacheTest, ACompileUnderWayIsWaitedForNotStartedAgain) {
  CubinCache cache(dir_);
  std::atomic<int> compiles = 0;
  std::promise<void> started;
  std::promise<void> finish;
  std::shared_future<void> may_finish = finish.get_future().share();
  auto first = std::async(std::launch::async, [&] {
    return cache.load_or_compile("k1", [&] {
      ++compiles;
      started.set_value();
      may_finish.wait();  // still compiling while the second caller asks
      return fake("binary");
    });
  });
  started.get_future().wait();
  auto second = std::async(std::launch::async, [&] {
    return cache.load_or_compile("k1", [&] {
      ++compiles;
      return fake("another binary");
    });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  finish.set_value();
  const CompileOutput a = first.get(), b = second.get();
  EXPECT_EQ(compiles.load(), 1);
  EXPECT_FALSE(a.from_cache);
  EXPECT_EQ(b.cubin, "binary");
  EXPECT_EQ(cache.load_or_compile("k1", [&] { return ++compiles, fake("third"); }).cubin, "binary");  // stored
  EXPECT_EQ(compiles.load(), 1);
  // What the compile throws reaches its caller, and the key is free again afterwards.
  EXPECT_THROW(cache.load_or_compile("k2", []() -> CompileOutput { throw std::runtime_error("no compiler"); }),
               std::runtime_error);
  EXPECT_EQ(cache.load_or_compile("k2", [] { return fake("k2 binary"); }).cubin, "k2 binary");
}

}  // namespace
}  // namespace cutune
