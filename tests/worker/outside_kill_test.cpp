// Host tests of processes killed from outside: a worker or compiler process that dies of SIGKILL or SIGTERM that
// cutune did not send is tried once more on a fresh process, then marked interrupted; a configuration's own crash,
// a hang that cutune kills, and a process that cutune kills for closing its socket stay as they were.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"
#include "cutune/tuner.hpp"
#include "fake_worker_support.hpp"
#include "worker/compiler_processes.hpp"
#include "measure/evaluator.hpp"
#include "worker/worker_protocol.hpp"

namespace cutune::detail {
namespace {

namespace fs = std::filesystem;

// Lines of `path` equal to `line`.
int count_lines(const fs::path& path, const std::string& line) {
  std::ifstream in(path);
  int n = 0;
  for (std::string l; std::getline(in, l);) n += l == line;
  return n;
}

// The process id of this process's child named `name` (as /proc/PID/stat shows it, in parentheses), or 0.
pid_t child_named(const std::string& name) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::ifstream stat(entry.path() / "stat");
    std::string pid, comm, state;
    int parent = 0;
    if (stat >> pid >> comm >> state >> parent && parent == ::getpid() && comm == "(" + name + ")") {
      return static_cast<pid_t>(std::stoi(pid));
    }
  }
  return 0;
}

// Each test has a folder for the fake worker's logs, and leaves the environment as it found it.
class OutsideKillTest : public ::testing::Test {
 protected:
  OutsideKillTest()
      : dir_(fs::temp_directory_path() / ("cutune_kill_" + std::to_string(::getpid()) + "_" +
                                          ::testing::UnitTest::GetInstance()->current_test_info()->name())),
        spec_(KernelSpec::from_json(testing::tiny_spec_json(R"("MODE": [0, 1, 2, 5, 6, 7, 8], "X": [1, 2])"),
                                    testing::kTinySource, "k.cu")) {
    fs::create_directories(dir_);
    ::setenv("CUTUNE_FAKE_LOG", (dir_ / "evaluations").c_str(), 1);
    ::setenv("CUTUNE_FAKE_KILL_LOG", (dir_ / "kills").c_str(), 1);
  }
  ~OutsideKillTest() override {
    for (const char* name : {"CUTUNE_FAKE_LOG", "CUTUNE_FAKE_KILL_LOG", "CUTUNE_FAKE_KILLS", "CUTUNE_FAKE_SLEEP_MS"}) {
      ::unsetenv(name);
    }
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  // The fake worker and compiler processes kill themselves only this many times in all (no call: every time).
  static void kills(int n) { ::setenv("CUTUNE_FAKE_KILLS", std::to_string(n).c_str(), 1); }

  std::unique_ptr<Evaluator> start(double floor_s = 5.0, int max_failures = 8) {
    return testing::start_fake_worker(spec_, floor_s, max_failures);
  }
  Result evaluate(Evaluator& e, const std::string& config, CompileOutput compiled = testing::fake_binary()) {
    return e.evaluate(spec_.parse_config(config), compiled, 0.0);
  }
  // How many times the worker was sent `config` to evaluate.
  int sent(const std::string& config) const { return count_lines(dir_ / "evaluations", "0 evaluate " + config); }

  fs::path dir_;
  KernelSpec spec_;
};

TEST_F(OutsideKillTest, AWorkerKilledOnceIsTriedAgainOnAFreshOneAndItsResultCounts) {
  kills(1);
  auto e = start();
  const Result r = evaluate(*e, "MODE=5,X=1");
  EXPECT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_EQ(r.samples_ms, (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_EQ(sent("MODE=5,X=1"), 2);
  EXPECT_EQ(count_lines(dir_ / "kills", "9"), 1);
}

// As an operator's `kill -9` would: the test kills the worker while it works on a configuration.
TEST_F(OutsideKillTest, AWorkerKilledByAnotherProcessMidRunIsTriedAgain) {
  ::setenv("CUTUNE_FAKE_SLEEP_MS", "1500", 1);
  auto e = start();
  auto result = std::async(std::launch::async, [&] { return evaluate(*e, "MODE=0,X=1"); });
  pid_t worker = 0;
  for (int i = 0; i < 1000 && (worker == 0 || sent("MODE=0,X=1") == 0); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    worker = child_named("fake_worker");
  }
  ASSERT_NE(worker, 0);
  ASSERT_EQ(sent("MODE=0,X=1"), 1);
  ASSERT_EQ(::kill(worker, SIGKILL), 0);
  const Result r = result.get();
  ::unsetenv("CUTUNE_FAKE_SLEEP_MS");
  EXPECT_EQ(r.status, Status::Ok) << r.message;
  EXPECT_EQ(sent("MODE=0,X=1"), 2);
}

TEST_F(OutsideKillTest, AWorkerKilledTwiceIsInterruptedNotFailed) {
  auto e = start();
  const Result killed = evaluate(*e, "MODE=5,X=1");
  EXPECT_EQ(killed.status, Status::Interrupted);
  EXPECT_FALSE(usable(killed.status));
  EXPECT_EQ(killed.config, "MODE=5,X=1");
  EXPECT_NE(killed.message.find("the worker died of signal 9"), std::string::npos) << killed.message;
  EXPECT_NE(killed.message.find("from outside"), std::string::npos) << killed.message;
  EXPECT_NE(killed.message.find("a resume tries it again"), std::string::npos) << killed.message;
  EXPECT_EQ(sent("MODE=5,X=1"), 2);  // once, then once more: never a third time

  const Result terminated = evaluate(*e, "MODE=6,X=2");
  EXPECT_EQ(terminated.status, Status::Interrupted);
  EXPECT_NE(terminated.message.find("signal 15"), std::string::npos) << terminated.message;
  EXPECT_EQ(sent("MODE=6,X=2"), 2);
  EXPECT_EQ(evaluate(*e, "MODE=0,X=1").status, Status::Ok);
}

TEST_F(OutsideKillTest, OwnCrashesAndHangsAreNotTriedAgain) {
  auto e = start(0.5);
  const Result segfault = evaluate(*e, "MODE=7,X=1");
  EXPECT_EQ(segfault.status, Status::RuntimeError);
  EXPECT_NE(segfault.message.find("signal 11"), std::string::npos) << segfault.message;
  const Result aborted = evaluate(*e, "MODE=1,X=1");
  EXPECT_EQ(aborted.status, Status::RuntimeError);
  EXPECT_NE(aborted.message.find("signal 6"), std::string::npos) << aborted.message;
  // A hung worker is one cutune kills itself: a timeout.
  const Result hung = evaluate(*e, "MODE=2,X=1");
  EXPECT_EQ(hung.status, Status::Timeout);
  // A worker that closes its socket and lives on is killed by cutune with SIGKILL: that kill is its own, not an
  // outside one, so the configuration crashed.
  const Result closed = evaluate(*e, "MODE=8,X=1");
  EXPECT_EQ(closed.status, Status::RuntimeError);
  EXPECT_NE(closed.message.find("signal 9"), std::string::npos) << closed.message;
  for (const char* config : {"MODE=7,X=1", "MODE=1,X=1", "MODE=2,X=1", "MODE=8,X=1"}) EXPECT_EQ(sent(config), 1) << config;
  EXPECT_EQ(evaluate(*e, "MODE=0,X=2").status, Status::Ok);
}

// An interrupted configuration is no crash of the kernel's: it neither counts towards the failures in a row that stop
// the run, nor resets their count as a success does.
TEST_F(OutsideKillTest, InterruptedConfigurationsAreNotFailuresInARow) {
  auto e = start(5.0, 2);
  EXPECT_EQ(evaluate(*e, "MODE=5,X=1").status, Status::Interrupted);
  EXPECT_EQ(evaluate(*e, "MODE=5,X=2").status, Status::Interrupted);
  EXPECT_EQ(evaluate(*e, "MODE=1,X=1").status, Status::RuntimeError);
  EXPECT_EQ(evaluate(*e, "MODE=6,X=1").status, Status::Interrupted);
  EXPECT_THROW(evaluate(*e, "MODE=1,X=2"), CudaError);
}

// A compile marked interrupted reaches the worker, whose result says so (measure.cpp does it in the real worker).
TEST_F(OutsideKillTest, AnInterruptedCompileTravelsToTheWorker) {
  CompileOutput c;
  c.interrupted = true;
  c.log = "the compiler process died of signal 9 (Killed) from outside";
  EXPECT_TRUE(compile_output_from_message(to_message(c)).interrupted);
  EXPECT_FALSE(compile_output_from_message(to_message(testing::fake_binary())).interrupted);
  auto e = start();
  const Result r = evaluate(*e, "MODE=0,X=1", c);
  EXPECT_EQ(r.status, Status::Interrupted);
  EXPECT_EQ(r.message, c.log);
}

CompileOutput compile_in(CompilePool& pool, const KernelSpec& spec, std::vector<std::string> options) {
  return pool.submit([&] { return compile(spec, "k", options, "sm_90"); }).get();
}

TEST_F(OutsideKillTest, ACompilerProcessKilledOnceCompilesInAnotherOne) {
  kills(1);
  CompilePool pool(1, make_compiler_processes(CUTUNE_FAKE_WORKER_EXE));
  const CompileOutput out = compile_in(pool, spec_, {"-DX=1", "-DKILL_COMPILER=9"});
  EXPECT_TRUE(out.ok) << out.log;
  EXPECT_FALSE(out.interrupted);
  EXPECT_EQ(out.lowered_name, "k");
  EXPECT_EQ(count_lines(dir_ / "kills", "9"), 1);
}

TEST_F(OutsideKillTest, ACompilerProcessKilledTwiceIsInterruptedNotACompileError) {
  CompilePool pool(1, make_compiler_processes(CUTUNE_FAKE_WORKER_EXE));
  for (const char* signal : {"9", "15"}) {
    const CompileOutput out = compile_in(pool, spec_, {"-DX=1", std::string("-DKILL_COMPILER=") + signal});
    EXPECT_FALSE(out.ok);
    EXPECT_TRUE(out.interrupted);
    EXPECT_NE(out.log.find(std::string("the compiler process died of signal ") + signal), std::string::npos) << out.log;
    EXPECT_NE(out.log.find("from outside"), std::string::npos) << out.log;
    EXPECT_EQ(count_lines(dir_ / "kills", signal), 2);
  }
  // A crash of NVRTC on the source is still the source's compile error, and the next compile works.
  const CompileOutput crashed = compile_in(pool, spec_, {"-DX=1", "-DCRASH_COMPILER=1"});
  EXPECT_FALSE(crashed.ok);
  EXPECT_FALSE(crashed.interrupted);
  EXPECT_NE(crashed.log.find("NVRTC crashed on it"), std::string::npos) << crashed.log;
  EXPECT_TRUE(compile_in(pool, spec_, {"-DX=2"}).ok);
}

}  // namespace
}  // namespace cutune::detail
