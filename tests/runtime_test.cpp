// Tests of the runtime API: its refusal without a GPU here, and on a GPU a tuned transpose launched and checked.
#include <dlfcn.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "gpu_support.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"
#include "db_test_support.hpp"

namespace cutune::testing {
namespace {

TEST(RuntimeTest, WithoutAGpuItSaysSoInOneLine) {
  if (Device::count() > 0) GTEST_SKIP() << "a CUDA device is present";
  try {
    Runtime runtime;
    FAIL() << "a Runtime was made without a GPU";
  } catch (const NoDeviceError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("no CUDA device", 0), 0u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

// Device memory for the test through the driver library the runtime has loaded (the tests do not link CUDA).
class DriverMemory {
 public:
  DriverMemory() {
    library_ = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (library_ == nullptr) return;
    alloc_ = reinterpret_cast<Alloc>(dlsym(library_, "cuMemAlloc_v2"));
    free_ = reinterpret_cast<Free>(dlsym(library_, "cuMemFree_v2"));
    to_device_ = reinterpret_cast<ToDevice>(dlsym(library_, "cuMemcpyHtoD_v2"));
    to_host_ = reinterpret_cast<ToHost>(dlsym(library_, "cuMemcpyDtoH_v2"));
    sync_ = reinterpret_cast<Sync>(dlsym(library_, "cuCtxSynchronize"));
  }
  ~DriverMemory() {
    for (const auto p : allocated_) free_(p);
    if (library_ != nullptr) dlclose(library_);
  }
  bool usable() const { return alloc_ && free_ && to_device_ && to_host_ && sync_; }
  std::uint64_t alloc(std::size_t bytes) {
    std::uint64_t p = 0;
    EXPECT_EQ(alloc_(&p, bytes), 0);
    allocated_.push_back(p);
    return p;
  }
  void upload(std::uint64_t to, const void* from, std::size_t bytes) { EXPECT_EQ(to_device_(to, from, bytes), 0); }
  void download(void* to, std::uint64_t from, std::size_t bytes) { EXPECT_EQ(to_host_(to, from, bytes), 0); }
  int synchronize() { return sync_(); }

 private:
  using Alloc = int (*)(std::uint64_t*, std::size_t);
  using Free = int (*)(std::uint64_t);
  using ToDevice = int (*)(std::uint64_t, const void*, std::size_t);
  using ToHost = int (*)(void*, std::uint64_t, std::size_t);
  using Sync = int (*)();
  void* library_ = nullptr;
  Alloc alloc_ = nullptr;
  Free free_ = nullptr;
  ToDevice to_device_ = nullptr;
  ToHost to_host_ = nullptr;
  Sync sync_ = nullptr;
  std::vector<std::uint64_t> allocated_;
};

class RuntimeGpuTest : public TempDirTest {};

TEST_F(RuntimeGpuTest, LaunchesTheTunedTransposeAndChecksIt) {
  REQUIRE_GPU();
  const KernelSpec spec = load_kernel("transpose");
  const std::string tuned = "TILE=32,VEC=2,ROWS=8,SMEM=1,PAD=1,COALESCE=0";
  {
    const DeviceIdentity gpu = Device(0).identity();
    Database db(path("tune.db"));
    db.record(db.begin_run(gpu, {spec.name, spec.hash}, "test"), "1024x768", ok_result(tuned, 0.01));
  }
  RuntimeOptions options;
  options.database = path("tune.db");
  options.cache_directory = path("cubins");
  Runtime runtime(options);
  const int m = 1000, n = 700;
  const RuntimeKernel& kernel = runtime.kernel("transpose", "1000x700");
  EXPECT_EQ(&runtime.kernel("transpose", "1000x700"), &kernel);  // kept: the second request is a lookup
  EXPECT_EQ(kernel.choice().match, Match::NearestShape);
  EXPECT_EQ(kernel.choice().result.config, tuned);
  EXPECT_FALSE(kernel.from_cache());

  DriverMemory memory;
  ASSERT_TRUE(memory.usable());
  std::vector<float> in(static_cast<std::size_t>(m) * n);
  std::iota(in.begin(), in.end(), 0.0f);
  const std::uint64_t d_in = memory.alloc(in.size() * sizeof(float));
  const std::uint64_t d_out = memory.alloc(in.size() * sizeof(float));
  memory.upload(d_in, in.data(), in.size() * sizeof(float));
  kernel(nullptr, d_out, d_in, m, n);
  ASSERT_EQ(memory.synchronize(), 0);
  std::vector<float> out(in.size());
  memory.download(out.data(), d_out, out.size() * sizeof(float));
  int wrong = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) wrong += out[static_cast<std::size_t>(j) * m + i] != in[static_cast<std::size_t>(i) * n + j];
  EXPECT_EQ(wrong, 0);

  EXPECT_THROW(kernel(nullptr, d_out, d_in, m), InputError);                          // one argument short
  EXPECT_THROW(kernel(nullptr, d_out, d_in, std::int64_t{m}, n), InputError);          // an int64 for an int
  // A second runtime finds the binary in the cache.
  Runtime again(options);
  EXPECT_TRUE(again.kernel(spec, spec.parse_shape("1000x700")).from_cache());
  // An untuned architecture's request gets the spec's default.
  RuntimeOptions bare;
  bare.cache_directory = path("cubins");
  Runtime untuned(bare);
  EXPECT_EQ(untuned.kernel("transpose", "64x64").choice().match, Match::Default);
}

}  // namespace
}  // namespace cutune::testing
