// Host tests of compiles in compiler processes: the same binaries as in this process, a crash of one compile failing
// only that compile, and processes outliving the pool that started them.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include "cutune/compiler.hpp"
#include "cutune/templates.hpp"
#include "fake_worker_support.hpp"
#include "worker/compiler_processes.hpp"

namespace cutune {
namespace {

const std::string kSpec = testing::tiny_spec_json(R"("X": [1, 2])", "k");
constexpr const char* kSource = testing::kTinySource;

// Processes whose parent is this one: the compiler processes still running.
int children() {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream stat(entry.path() / "stat");
    std::string pid, name, state;
    int parent = 0;
    if (stat >> pid >> name >> state >> parent && parent == ::getpid()) ++count;
  }
  return count;
}

// A log without ptxas's line of its own compile time.
std::string timeless(const std::string& log) {
  std::string out, line;
  std::istringstream lines(log);
  while (std::getline(lines, line))
    if (line.find("Compile time") == std::string::npos) out += line + "\n";
  return out;
}

Config config_of(const KernelSpec& spec, const std::string& text) { return spec.parse_config(text); }

// Bound to one CPU (as Open MPI binds each of two ranks to a core), a pool of "every core" has one thread.
TEST(CompilePoolSize, IsTheCpusThisProcessMayRunOn) {
  std::thread([] {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    ASSERT_EQ(::sched_setaffinity(0, sizeof one, &one), 0);  // this thread only: 0 is the calling thread
    EXPECT_EQ(usable_cpus(), 1u);
    EXPECT_EQ(CompilePool().threads(), 1u);
  }).join();
  EXPECT_EQ(CompilePool().threads(), usable_cpus());
  EXPECT_GE(usable_cpus(), 1u);
}

TEST(CompilerProcesses, CompileTheSameBinariesAsThisProcess) {
  const KernelSpec spec = load_kernel("transpose");
  const Space space = Space::enumerate(spec, std::nullopt, DeviceLimits{});
  ASSERT_GE(space.size(), 3u);
  CompilePool pool(2, detail::make_compiler_processes(CUTUNE_REAL_WORKER_EXE));
  for (const std::size_t i : {std::size_t{0}, space.size() / 2, space.size() - 1}) {
    const Config& c = space.configs()[i];
    const CompileOutput here = compile_config(spec, c, "sm_90");
    const CompileOutput there = pool.submit([&] { return compile_config(spec, c, "sm_90"); }).get();
    ASSERT_TRUE(here.ok) << here.log;
    ASSERT_TRUE(there.ok) << there.log;
    EXPECT_EQ(there.cubin, here.cubin) << spec.format(c);
    EXPECT_EQ(there.lowered_name, here.lowered_name);
    EXPECT_EQ(there.registers, here.registers);
    EXPECT_EQ(timeless(there.log), timeless(here.log));
  }
  // A source that does not compile gives NVRTC's own log, as in this process.
  const KernelSpec broken = KernelSpec::from_json(kSpec, "this is not CUDA\n", "k.cu");
  const Config c = config_of(broken, "X=1");
  const CompileOutput here = compile_config(broken, c, "sm_90");
  const CompileOutput there = pool.submit([&] { return compile_config(broken, c, "sm_90"); }).get();
  EXPECT_FALSE(there.ok);
  EXPECT_EQ(there.log, here.log);
  EXPECT_NE(there.log.find("error"), std::string::npos) << there.log;
}

TEST(CompilerProcesses, ACrashFailsThatCompileOnlyAndTheNextOneWorks) {
  const KernelSpec spec = KernelSpec::from_json(kSpec, kSource, "k.cu");
  CompilePool pool(1, detail::make_compiler_processes(CUTUNE_FAKE_WORKER_EXE));  // aborts on -DCRASH_COMPILER=1
  const CompileOutput crashed =
      pool.submit([&] { return compile(spec, "k", {"-DX=1", "-DCRASH_COMPILER=1"}, "sm_90"); }).get();
  EXPECT_FALSE(crashed.ok);
  EXPECT_NE(crashed.log.find("the compiler process died of signal 6"), std::string::npos) << crashed.log;
  const CompileOutput next = pool.submit([&] { return compile(spec, "k", {"-DX=2"}, "sm_90"); }).get();
  EXPECT_TRUE(next.ok) << next.log;
  EXPECT_EQ(next.lowered_name, "k");
}

TEST(CompilerProcesses, OutliveThePoolThatStartedThemAndEndWithTheFactory) {
  const KernelSpec spec = KernelSpec::from_json(kSpec, kSource, "k.cu");
  const int before = children();
  {
    const detail::NvrtcRunnerFactory processes = detail::make_compiler_processes(CUTUNE_REAL_WORKER_EXE);
    for (const char* x : {"-DX=1", "-DX=2"}) {
      CompilePool pool(2, processes);
      std::vector<std::future<CompileOutput>> futures;
      for (int i = 0; i < 4; ++i) futures.push_back(pool.submit([&] { return compile(spec, "k", {x}, "sm_90"); }));
      for (auto& f : futures) EXPECT_TRUE(f.get().ok);
    }
    // Two threads at a time, in two pools one after the other: the second pool's threads took over the first's.
    EXPECT_EQ(children(), before + 2);
  }
  EXPECT_EQ(children(), before);
}

}  // namespace
}  // namespace cutune
