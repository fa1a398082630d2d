// A local GPU as a lane: a thread that owns one evaluator and measures the jobs the main thread hands it.
#include "tuner/lanes.hpp"

#include <thread>

#include "cutune/error.hpp"
#include "measure/evaluator.hpp"

namespace cutune::detail {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

class LocalLane final : public Lane {
 public:
  LocalLane(std::size_t id, int ordinal, std::function<std::unique_ptr<Evaluator>()> make_evaluator, Outbox& outbox)
      : id_(id), ordinal_(ordinal), outbox_(outbox),
        thread_([this, make = std::move(make_evaluator)] { work(make); }) {}

  ~LocalLane() override {
    slot_.close();
    thread_.join();
  }

  std::string name() const override { return "GPU " + std::to_string(ordinal_); }
  int ordinal() const override { return ordinal_; }

  void submit(Job job) override { slot_.put(std::move(job)); }

 private:
  void work(const std::function<std::unique_ptr<Evaluator>()>& make_evaluator) {
    std::unique_ptr<Evaluator> evaluator;
    std::exception_ptr broken;  // set once: every later job fails with it
    try {
      evaluator = make_evaluator();
      evaluator->start();
    } catch (...) {
      broken = std::current_exception();
    }
    std::size_t prepared = 0;  // ShapeTask ids start at 1
    while (auto next = slot_.take()) {
      Job job = std::move(*next);
      LaneOutcome out;
      out.lane = id_;
      try {
        if (broken) std::rethrow_exception(broken);
        if (prepared != job.task->id) {
          const auto start = Clock::now();
          prepared = 0;  // a failed prepare is tried again with the next job only if the lane survives it
          evaluator->prepare(*job.task->spec, job.task->shape, job.task->flush);
          prepared = job.task->id;
          out.prepare_s = seconds_since(start);
        }
        const auto start = Clock::now();
        run(*evaluator, job, out);
        out.measure_s = seconds_since(start);
      } catch (const Interrupted&) {
        out.interrupted = true;
      } catch (const std::exception& e) {
        broken = std::current_exception();
        out.failure = e.what();
        out.error = broken;
      }
      out.job = std::move(job);
      outbox_.post(std::move(out));
    }
  }

  static void run(Evaluator& evaluator, const Job& job, LaneOutcome& out) {
    switch (job.kind) {
      case Job::Kind::Evaluate:
        out.result = evaluator.evaluate(job.config, *job.compiled, job.best_ms);
        break;
      case Job::Kind::Retime:
        out.result = evaluator.retime(job.config, *job.compiled, job.repeats);
        break;
      case Job::Kind::CopyBandwidth:
        out.gbs = evaluator.copy_bandwidth(job.bytes);
        break;
    }
  }

  std::size_t id_;
  int ordinal_;
  Outbox& outbox_;
  JobSlot slot_;
  std::thread thread_;  // last: it starts once everything it uses exists
};

}  // namespace

std::unique_ptr<Lane> make_local_lane(std::size_t id, int ordinal,
                                      std::function<std::unique_ptr<Evaluator>()> make_evaluator, Outbox& outbox) {
  return std::make_unique<LocalLane>(id, ordinal, std::move(make_evaluator), outbox);
}

void JobSlot::put(Job job) {
  {
    std::lock_guard lock(mutex_);
    job_ = std::move(job);
  }
  changed_.notify_one();
}

std::optional<Job> JobSlot::take() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return closed_ || job_.has_value(); });
  if (closed_) return std::nullopt;
  std::optional<Job> out = std::move(job_);
  job_.reset();
  return out;
}

void JobSlot::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  changed_.notify_one();
}

void Outbox::post(LaneOutcome outcome) {
  outcome.posted = Clock::now();
  {
    std::lock_guard lock(mutex_);
    outcomes_.push_back(std::move(outcome));
  }
  changed_.notify_all();
}

void Outbox::post(Compiled compiled) {
  {
    std::lock_guard lock(mutex_);
    compiled_.push_back(std::move(compiled));
  }
  changed_.notify_all();
}

void Outbox::wait(std::chrono::milliseconds timeout, std::deque<LaneOutcome>& outcomes, std::deque<Compiled>& compiled) {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [this] { return !outcomes_.empty() || !compiled_.empty(); });
  for (auto& o : outcomes_) outcomes.push_back(std::move(o));
  for (auto& c : compiled_) compiled.push_back(std::move(c));
  outcomes_.clear();
  compiled_.clear();
}

}  // namespace cutune::detail
