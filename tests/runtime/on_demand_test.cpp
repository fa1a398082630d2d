// Tuning on demand: the background tuner with stand-in `tune` programs (what it runs, in order; a failure; a stop
// mid-run), and on a GPU a Runtime whose untuned transpose shape is launched at once, tuned by the real `tune` in
// the background, and handed out tuned, with every output right.
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/operation.hpp"
#include "cutune/runtime.hpp"
#include "cutune/templates.hpp"
#include "db_test_support.hpp"
#include "gpu_support.hpp"
#include "transpose_check.hpp"
#include "runtime/on_demand.hpp"

namespace cutune::testing {
namespace {

using namespace std::chrono_literals;
using detail::OnDemandSettings;
using detail::OnDemandTuner;
using detail::TuneJob;

class OnDemandTest : public TempDirTest {
 protected:
  // A stand-in `tune`: a shell script with `body`, executable.
  fs::path script(const std::string& name, const std::string& body) {
    const fs::path file = path(name);
    std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
    ::chmod(file.c_str(), 0755);
    return file;
  }
  // A Runtime's options for tuning on demand with the real `tune` into a fresh database t.db.
  RuntimeOptions tuning_options(int budget) {
    { Database db(path("t.db")); }
    RuntimeOptions options;
    options.database = path("t.db");
    options.cache_directory = path("cubins");
    options.tune_budget = budget;
    options.tune_program = CUTUNE_TUNE_EXE;
    return options;
  }
  OnDemandSettings settings(const fs::path& program) {
    OnDemandSettings s;
    s.budget = 7;
    s.program = program;
    s.database = path("t.db");
    s.device = 1;
    return s;
  }
  static bool wait_done(const TuneJob& job, std::chrono::seconds limit = 20s) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (!job.done() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(10ms);
    return job.done();
  }
  std::string read(const std::string& name) {
    std::ifstream in(path(name));
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(OnDemandTest, RunsTuneForEachShapeInTurnAndPreparesItsKernel) {
  const fs::path program = script("tune", "echo \"$@\" >> " + path("calls").string());
  const KernelSpec spec = load_kernel("transpose");
  std::vector<std::string> prepared;
  std::shared_ptr<TuneJob> first, second;
  {
    OnDemandTuner tuner(settings(program), [&](const TuneJob& job) {
      prepared.push_back(job.shape.str());
      return std::unique_ptr<RuntimeKernel>();
    });
    first = tuner.submit("transpose", spec, spec.parse_shape("1000x700"), L2Flush::Write);
    second = tuner.submit("/specs/my.json", spec, spec.parse_shape("64x64"), L2Flush::Read);
    ASSERT_TRUE(wait_done(*first));
    ASSERT_TRUE(wait_done(*second));
  }
  EXPECT_EQ(first->ready, nullptr);
  EXPECT_EQ(prepared, (std::vector<std::string>{"1000x700", "64x64"}));
  const std::string calls = read("calls");
  const std::string db = path("t.db").string();
  EXPECT_EQ(calls.find("--kernel transpose --shapes 1000x700 --budget 7 --db " + db + " --device 1 --flush write"), 0u)
      << calls;
  EXPECT_NE(calls.find("\n--kernel /specs/my.json --shapes 64x64 --budget 7"), std::string::npos) << calls;
  EXPECT_NE(calls.find("--flush read"), std::string::npos) << calls;
  EXPECT_NE(calls.find("--no-cache"), std::string::npos) << calls;  // the settings name no cache folder
}

TEST_F(OnDemandTest, AFailedTuneLeavesTheFallbackAndTheNextShapeStillTunes) {
  const fs::path program = script("tune", "echo \"$@\" >> " + path("calls").string() +
                                              "\ncase \"$*\" in *1x1*) echo boom >&2; exit 3;; esac");
  const KernelSpec spec = load_kernel("transpose");
  int prepared = 0;
  OnDemandTuner tuner(settings(program), [&](const TuneJob&) {
    ++prepared;
    return std::unique_ptr<RuntimeKernel>();
  });
  auto failing = tuner.submit("transpose", spec, spec.parse_shape("1x1"), L2Flush::Read);
  auto next = tuner.submit("transpose", spec, spec.parse_shape("64x64"), L2Flush::Read);
  ASSERT_TRUE(wait_done(*failing));
  ASSERT_TRUE(wait_done(*next));
  EXPECT_EQ(failing->ready, nullptr);
  EXPECT_EQ(prepared, 2);  // a failed run may still have stored results: what is stored is looked up either way
  EXPECT_NE(read("calls").find("64x64"), std::string::npos);
}

TEST_F(OnDemandTest, EndingStopsARunningTuneAndDropsTheQueue) {
  // A `tune` that runs until it is told to stop, and says so.
  const fs::path program = script("tune", "trap 'echo stopped >> " + path("calls").string() +
                                              "; exit 130' TERM\necho started >> " + path("calls").string() +
                                              "\nwhile true; do sleep 0.05; done");
  const KernelSpec spec = load_kernel("transpose");
  std::shared_ptr<TuneJob> running, queued;
  const auto start = std::chrono::steady_clock::now();
  {
    OnDemandTuner tuner(settings(program), [](const TuneJob&) { return std::unique_ptr<RuntimeKernel>(); });
    running = tuner.submit("transpose", spec, spec.parse_shape("64x64"), L2Flush::Read);
    queued = tuner.submit("transpose", spec, spec.parse_shape("128x128"), L2Flush::Read);
    for (int i = 0; i < 3000 && read("calls").empty(); ++i) std::this_thread::sleep_for(10ms);  // a loaded machine
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 40s);  // SIGTERM, not the 10 s of grace before SIGKILL
  EXPECT_EQ(read("calls"), "started\nstopped\n");
  EXPECT_TRUE(running->done());
  EXPECT_FALSE(queued->done());  // never begun
}

TEST_F(OnDemandTest, TheTuneProgramIsFoundOrNamedInTheError) {
  EXPECT_THROW(detail::find_tune_program(path("no-such-tune")), InputError);
  const fs::path program = script("tune", "exit 0");
  EXPECT_EQ(detail::find_tune_program(program), program);
  ::setenv("CUTUNE_TUNE", program.c_str(), 1);
  EXPECT_EQ(detail::find_tune_program({}), program);
  ::unsetenv("CUTUNE_TUNE");
  TuneJob job;
  job.kernel = "transpose";
  job.shape = load_kernel("transpose").parse_shape("64x64");
  OnDemandSettings s = settings(program);
  s.cache_directory = path("cubins");
  const auto args = detail::tune_arguments(s, job, 16);
  const std::vector<std::string> tail(args.end() - 4, args.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"--jobs", "8", "--cache-dir", path("cubins").string()}));
}

// On the GPU, with the real `tune` (transpose at a budget of 4): launched at once, tuned in the background, and
// handed out tuned; the first kernel stays valid; a second Runtime on the database tunes nothing again.
TEST_F(OnDemandTest, AnUntunedShapeIsTunedInTheBackgroundAndThenLaunched) {
  REQUIRE_GPU();
  const RuntimeOptions options = tuning_options(4);
  const int m = 1000, n = 700;
  Runtime runtime(options);
  // First: kernel() makes the GPU's primary context current, which the check's memory uses.
  const RuntimeKernel& first = runtime.kernel("transpose", "1000x700");
  TransposeCheck check(m, n);
  ASSERT_TRUE(check.usable());
  const auto wrong = [&](const RuntimeKernel& kernel) { return check.wrong(kernel); };
  {
    EXPECT_EQ(first.choice().match, Match::Default);
    EXPECT_EQ(wrong(first), 0);
    const RuntimeKernel* now = &first;
    const auto end = std::chrono::steady_clock::now() + 180s;
    while (now->choice().match != Match::Exact && std::chrono::steady_clock::now() < end) {
      EXPECT_EQ(wrong(*now), 0);  // the application goes on launching meanwhile
      std::this_thread::sleep_for(50ms);
      now = &runtime.kernel("transpose", "1000x700");
    }
    ASSERT_EQ(now->choice().match, Match::Exact) << "not tuned within 180 s";
    EXPECT_NE(now, &first);
    EXPECT_EQ(wrong(*now), 0);
    EXPECT_EQ(wrong(first), 0);  // the reference handed out first still launches
    EXPECT_EQ(&runtime.kernel("transpose", "1000x700"), now);
  }
  const KernelSpec spec = load_kernel("transpose");
  EXPECT_GE(Database(path("t.db")).results(Device(0).identity(), {spec.name, spec.hash}, "1000x700").size(), 4u);
  Runtime again(options);
  EXPECT_EQ(again.kernel("transpose", "1000x700").choice().match, Match::Exact);
  EXPECT_TRUE(again.wanted().empty());
}

// On the GPU: an operation's shape that no implementation was measured at launches the library's answer at once, is
// recorded under the operation's name and tuned in the background for every implementation; the winner is then
// handed out.
TEST_F(OnDemandTest, AnOperationsUntunedShapeIsTunedForEveryImplementation) {
  REQUIRE_GPU();
  const RuntimeOptions options = tuning_options(6);
  Runtime runtime(options);
  const RuntimeKernel& first = runtime.kernel("matmul_bf16", "320x192x256");
  EXPECT_NE(first.choice().match, Match::Exact);
  ASSERT_EQ(runtime.wanted().size(), 1u);
  EXPECT_EQ(runtime.wanted().front().kernel.name, "matmul_bf16");
  const RuntimeKernel* now = &first;
  const auto end = std::chrono::steady_clock::now() + 180s;
  while (now->choice().match != Match::Exact && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(50ms);
    now = &runtime.kernel("matmul_bf16", "320x192x256");
  }
  ASSERT_EQ(now->choice().match, Match::Exact) << "not tuned within 180 s";
  const OperationSpec op = load_operation("matmul_bf16");
  Database db(path("t.db"));
  const DeviceIdentity device = Device(0).identity();
  std::size_t measured = 0;
  for (const KernelSpec& spec : op.implementations) {
    const std::size_t n = db.results(device, {spec.name, spec.hash}, "320x192x256").size();
    EXPECT_GE(n, 1u) << spec.name;
    measured += n;
  }
  EXPECT_EQ(measured, 6u);  // one budget for the operation
  // The one launched is the fastest measured there, by the runtime's rule.
  const OperationChoice rule = choose_operation(&db, op, device, op.parse_shape("320x192x256"));
  EXPECT_EQ(now->spec().name, op.implementations[rule.implementation].name);
  Runtime again(options);
  EXPECT_EQ(again.kernel("matmul_bf16", "320x192x256").choice().match, Match::Exact);
  EXPECT_TRUE(again.wanted().empty());
}

TEST_F(OnDemandTest, ARuntimeRefusesTuningOnDemandWithoutAWritableDatabase) {
  REQUIRE_GPU();
  RuntimeOptions options;
  options.tune_budget = 4;
  EXPECT_THROW(Runtime{options}, InputError);  // no database
  { Database db(path("t.db")); }
  ::chmod(path("t.db").c_str(), 0444);
  options.database = path("t.db");
  if (::geteuid() != 0) EXPECT_THROW(Runtime{options}, InputError);  // read-only (root writes anyway)
}

}  // namespace
}  // namespace cutune::testing
