// Host-only tests of crash isolation: the real worker client against a fake worker that crashes, hangs or exits.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "cutune/error.hpp"
#include "cutune/tuner.hpp"
#include "fake_worker_support.hpp"
#include "measure/evaluator.hpp"
#include "worker/worker_protocol.hpp"

namespace cutune::detail {
namespace {

class WorkerTest : public ::testing::Test {
 protected:
  WorkerTest()
      : spec_(KernelSpec::from_json(testing::tiny_spec_json(R"("MODE": [0, 1, 2, 3, 4], "X": [1, 2])"),
                                    "// no device code is needed by the fake worker\n", "k.cu")) {}

  std::unique_ptr<Evaluator> start(double floor_s = 5.0, int max_failures = 8) {
    return testing::start_fake_worker(spec_, floor_s, max_failures);
  }
  Result evaluate(Evaluator& e, const std::string& config) {
    return e.evaluate(spec_.parse_config(config), testing::fake_binary(), 0.0);
  }

  KernelSpec spec_;
};

TEST_F(WorkerTest, GoodConfigurationsComeBackIntact) {
  auto e = start();
  const Result r = evaluate(*e, "MODE=0,X=2");
  EXPECT_EQ(r.status, Status::Ok);
  EXPECT_EQ(r.config, "MODE=0,X=2");
  EXPECT_EQ(r.samples_ms, (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_DOUBLE_EQ(e->copy_bandwidth(1 << 20), 123.0);
}

TEST_F(WorkerTest, CrashIsARuntimeErrorAndTheWorkerRestarts) {
  auto e = start();
  const Result crashed = evaluate(*e, "MODE=1,X=1");
  EXPECT_EQ(crashed.status, Status::RuntimeError);
  EXPECT_NE(crashed.message.find("signal 6"), std::string::npos) << crashed.message;
  EXPECT_EQ(crashed.config, "MODE=1,X=1");
  EXPECT_EQ(evaluate(*e, "MODE=0,X=1").status, Status::Ok);
  const Result exited = evaluate(*e, "MODE=3,X=1");
  EXPECT_EQ(exited.status, Status::RuntimeError);
  EXPECT_NE(exited.message.find("exited with status 3"), std::string::npos) << exited.message;
  EXPECT_EQ(evaluate(*e, "MODE=0,X=2").status, Status::Ok);
}

TEST_F(WorkerTest, HangIsATimeoutAfterTheFloor) {
  auto e = start(0.5);
  const auto begin = std::chrono::steady_clock::now();
  const Result hung = evaluate(*e, "MODE=2,X=1");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_EQ(hung.status, Status::Timeout);
  EXPECT_GE(seconds, 0.5);
  EXPECT_LT(seconds, 5.0);
  EXPECT_EQ(evaluate(*e, "MODE=0,X=1").status, Status::Ok);
}

TEST_F(WorkerTest, EnvironmentFailureInTheWorkerIsAnError) {
  auto e = start();
  EXPECT_THROW(evaluate(*e, "MODE=4,X=1"), CudaError);
}

TEST_F(WorkerTest, TooManyFailuresInARowStopTheRun) {
  auto e = start(5.0, 3);
  EXPECT_EQ(evaluate(*e, "MODE=1,X=1").status, Status::RuntimeError);
  EXPECT_EQ(evaluate(*e, "MODE=0,X=1").status, Status::Ok);  // a success resets the count
  EXPECT_EQ(evaluate(*e, "MODE=1,X=1").status, Status::RuntimeError);
  EXPECT_EQ(evaluate(*e, "MODE=3,X=2").status, Status::RuntimeError);
  try {
    evaluate(*e, "MODE=1,X=2");
    FAIL() << "the third failure in a row must stop the run";
  } catch (const CudaError& error) {
    EXPECT_NE(std::string(error.what()).find("3 configurations in a row"), std::string::npos) << error.what();
  }
}

TEST_F(WorkerTest, StopRequestInterruptsAWait) {
  auto e = start(30.0);
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    request_stop();
  });
  const auto begin = std::chrono::steady_clock::now();
  EXPECT_THROW(evaluate(*e, "MODE=2,X=2"), Interrupted);
  stopper.join();
  reset_stop();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count(), 5.0);
}

TEST(WorkerProtocol, FramesRoundTripAndBrokenFramesAreClosed) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  CompileOutput c;
  c.ok = true;
  c.cubin = std::string("\x7f\0ELF\0\xff", 7);
  c.lowered_name = "_Z1kv";
  c.registers = 40;
  ASSERT_TRUE(write_message(fds[0], to_message(c)));
  Message m;
  ASSERT_EQ(read_message(fds[1], 1.0, {}, m), ReadOutcome::Message);
  const CompileOutput back = compile_output_from_message(m);
  EXPECT_EQ(back.cubin, c.cubin);
  EXPECT_EQ(back.lowered_name, "_Z1kv");
  EXPECT_EQ(back.registers, 40);

  // A result carries its resources from the worker.
  Result r;
  r.config = "MODE=1";
  r.samples_ms = {0.5};
  r.spill_bytes = 16;
  r.static_smem_bytes = 4096;
  r.dynamic_smem_bytes = 65536;
  r.threads_per_block = 256;
  r.blocks = 3'000'000'000;
  r.blocks_per_sm = 2;
  r.peak = 3012.5;
  ASSERT_TRUE(write_message(fds[0], to_message(r)));
  ASSERT_EQ(read_message(fds[1], 1.0, {}, m), ReadOutcome::Message);
  const Result result = result_from_message(m);
  EXPECT_EQ(result.spill_bytes, 16);
  EXPECT_EQ(result.static_smem_bytes, 4096);
  EXPECT_EQ(result.dynamic_smem_bytes, 65536);
  EXPECT_EQ(result.threads_per_block, 256);
  EXPECT_EQ(result.blocks, 3'000'000'000);
  EXPECT_EQ(result.blocks_per_sm, 2);
  EXPECT_EQ(result.peak, 3012.5);

  EXPECT_EQ(read_message(fds[1], 0.2, {}, m), ReadOutcome::TimedOut);
  const unsigned char half[6] = {100, 0, 0, 0, 1, 2};  // claims 100 bytes, sends 2, then hangs up
  ASSERT_EQ(::write(fds[0], half, sizeof half), 6);
  ::close(fds[0]);
  EXPECT_EQ(read_message(fds[1], 1.0, {}, m), ReadOutcome::Closed);
  ::close(fds[1]);
}

}  // namespace
}  // namespace cutune::detail
