// Host-only tests of the lane interface with a lane that compiles for itself, as a remote MPI rank will: it gets
// configurations without kernels straight from the strategy, beside a local lane (a stand-in worker) that gets kernels.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <thread>

#include "cutune/strategy.hpp"
#include "worker/worker_client.hpp"
#include "measure_loop_support.hpp"
#include "stand_in_kernel.hpp"
#include "tuner/measure_loop.hpp"

namespace cutune::detail {
namespace {

// Answers every job on its own thread with a result whose median is the configuration's index, and counts the jobs
// that came with a kernel.
class SelfCompilingLane final : public Lane {
 public:
  SelfCompilingLane(std::size_t id, Outbox& outbox) : id_(id), outbox_(outbox), thread_([this] { work(); }) {}
  ~SelfCompilingLane() override {
    slot_.close();
    thread_.join();
  }
  std::string name() const override { return "rank 1 GPU " + std::to_string(id_); }
  int ordinal() const override { return static_cast<int>(id_); }
  bool compiles_itself() const override { return true; }
  void submit(Job job) override { slot_.put(std::move(job)); }

  std::atomic<int> with_kernel{0}, without_kernel{0};

 private:
  void work() {
    while (auto job = slot_.take()) {
      LaneOutcome out;
      out.lane = id_;
      out.job = std::move(*job);
      ++(out.job.compiled ? with_kernel : without_kernel);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      Result r;
      r.config = out.job.task->spec->format(out.job.config);
      r.median_ms = 1.0 + static_cast<double>(out.job.index);
      r.samples_ms = {r.median_ms};
      out.result = r;
      outbox_.post(std::move(out));
    }
  }

  std::size_t id_;
  Outbox& outbox_;
  JobSlot slot_;
  std::thread thread_;
};

TEST(Lanes, ALaneThatCompilesItselfGetsConfigurationsWithoutKernels) {
  const KernelSpec spec = test::stand_in_kernel("lanes_remote", R"({"A": [1, 2, 3, 4, 5], "B": [1, 2, 3, 4]})", "A * B");
  const Shape shape{{1000}};
  const Space space = Space::enumerate(spec, shape, DeviceLimits{});
  std::vector<SelfCompilingLane*> remote;
  std::vector<Dispatcher::LaneFactory> factories;
  WorkerSettings local;
  local.executable = CUTUNE_FAKE_WORKER_EXE;
  factories.push_back([local](std::size_t id, Outbox& outbox) {
    return make_local_lane(id, 0, [local] { return make_worker_evaluator(local); }, outbox);
  });
  for (int i = 0; i < 2; ++i) {
    factories.push_back([&remote](std::size_t id, Outbox& outbox) {
      auto lane = std::make_unique<SelfCompilingLane>(id, outbox);
      remote.push_back(lane.get());
      return lane;
    });
  }
  Dispatcher lanes(factories);
  auto strategy = make_strategy("exhaustive", space, 1);
  CompilePool pool(1);
  auto task = std::make_shared<ShapeTask>(ShapeTask{1, &spec, shape});
  std::map<std::size_t, std::vector<std::size_t>> measured_by;  // index -> lanes
  ShapeReport report;
  std::vector<std::future<CompileOutput>> setup;
  test::ArrivalEvents events;
  events.on_arrival = [&](const Arrival& a) { measured_by[a.job.index].push_back(a.lane); };
  Budget budget = test::one_round(space.size());
  const StopRules stop = test::shape_rules(budget, lanes);
  const TuneOptions options;
  const RoundInputs round{.dispatcher = lanes, .strategy = *strategy, .pool = pool, .arch = "sm_90", .task = task,
                          .space = space, .options = options, .budget = budget, .stop = stop, .events = events};
  run_round(round, setup, report);

  ASSERT_EQ(measured_by.size(), space.size());
  std::map<std::size_t, int> per_lane;
  for (const auto& [index, by] : measured_by) {
    EXPECT_EQ(by.size(), 1u) << "configuration " << index << " measured " << by.size() << " times";
    ++per_lane[by.front()];
  }
  EXPECT_GT(per_lane[0], 0) << "the local lane measured nothing";
  ASSERT_EQ(remote.size(), 2u);
  EXPECT_GT(remote[0]->without_kernel + remote[1]->without_kernel, 0) << "no configuration went out without a kernel";
  EXPECT_EQ(per_lane[1] + per_lane[2], remote[0]->with_kernel + remote[0]->without_kernel + remote[1]->with_kernel +
                                           remote[1]->without_kernel);
}

}  // namespace
}  // namespace cutune::detail
