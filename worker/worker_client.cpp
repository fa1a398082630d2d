// The tuner's side of a worker process: spawn it, send it work, and survive its crashes and hangs.
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "cutune/error.hpp"
#include "cutune/stop.hpp"
#include "worker_client.hpp"
#include "base/programs.hpp"
#include "base/log.hpp"
#include "worker_process.hpp"
#include "worker_protocol.hpp"

namespace cutune::detail {
namespace {


class WorkerEvaluator final : public Evaluator {
 public:
  explicit WorkerEvaluator(WorkerSettings settings) : settings_(std::move(settings)) {}

  void prepare(const KernelSpec& spec, const Shape& shape, L2Flush flush) override {
    if (spec.json.empty()) throw Error("spec " + spec.name + " has no JSON text, so a worker cannot rebuild it");
    spec_ = &spec;
    bench_ = {{"op", "bench"},
              {"spec", spec.json},
              {"source", spec.source},
              {"source_name", spec.source_name},
              {"folder", spec.folder.string()},
              {"shape", shape.dims},
              {"options", to_message(settings_.measure)},
              {"flush", std::string(to_string(flush))},
              {"cache_dir", settings_.cache_dir}};
    if (worker_) {
      request(bench_, kSetupTimeout, "set-up");
    } else {
      start();  // sends the set-up too
    }
  }

  void start() override {
    if (worker_) return;
    worker_ = std::make_unique<WorkerProcess>(settings_.executable);
    request({{"op", "hello"}, {"device", settings_.device}}, kSetupTimeout, "start");
    if (!bench_.is_null()) request(bench_, kSetupTimeout, "set-up");
  }

  Result evaluate(const Config& config, const CompileOutput& compiled, double best_ms) override {
    return run(config, compiled, best_ms, 0);
  }

  Result retime(const Config& config, const CompileOutput& compiled, int repeats) override {
    return run(config, compiled, 0.0, repeats);
  }

  double copy_bandwidth(std::int64_t bytes) override {
    start();
    const Message reply = request({{"op", "copy"}, {"bytes", bytes}}, kSetupTimeout, "copy bandwidth");
    return reply.at("gbs").get<double>();
  }

 private:
  static constexpr double kSetupTimeout = 600.0;  // the reference of a large shape may take a while

  // A request whose failure is the environment's, not a candidate's: any failure throws.
  Message request(const Message& m, double timeout_s, const char* what) {
    Message reply;
    const ReadOutcome outcome = worker_->send(m) ? worker_->receive(timeout_s, reply) : ReadOutcome::Closed;
    if (outcome == ReadOutcome::Message && !reply.contains("error")) return reply;
    std::string why = outcome == ReadOutcome::Message ? reply.at("error").get<std::string>()
                      : outcome == ReadOutcome::Stopped ? "interrupted"
                      : outcome == ReadOutcome::TimedOut ? "no answer in time"
                                                         : worker_->end().text;
    worker_.reset();
    if (outcome == ReadOutcome::Stopped) throw Interrupted("interrupted");
    throw CudaError(std::string("worker ") + what + " failed: " + why);
  }

  // The deadline: generous against the best time so far, never below the floor.
  double deadline_s(double best_ms, int repeats) const {
    const int runs = 2 + settings_.measure.warmup + std::max(repeats, settings_.measure.repeats);
    const double expected = best_ms > 0 ? 100.0 * runs * best_ms / 1000.0 : 6.0 * settings_.timeout_floor_s;
    return std::max(settings_.timeout_floor_s, expected);
  }

  // A worker killed from outside (an operator, the OOM killer) says nothing about the configuration it held: it is
  // tried once more on a fresh worker, and stored as Interrupted (which a resume tries again) if that is killed too.
  Result run(const Config& config, const CompileOutput& compiled, double best_ms, int repeats) {
    ProcessEnd killed;
    Result r = attempt(config, compiled, best_ms, repeats, killed);
    if (killed.killed_from_outside()) {
      // The same signal may have been meant for the whole run (a job's end reaches every process): stop then.
      if (stop_requested()) throw Interrupted("interrupted");
      logger()->warn("{}: {} from outside; trying it again on a fresh worker", r.config, killed.text);
      killed = {};
      r = attempt(config, compiled, best_ms, repeats, killed);
      if (killed.killed_from_outside()) {
        r.status = Status::Interrupted;
        r.message = killed.text + " from outside, also when tried again on a fresh worker: not this configuration's "
                    "fault; a resume tries it again";
      }
    }
    // An interrupted configuration neither counts as a crash nor shows that the worker can run configurations.
    if (r.status != Status::Interrupted) {
      consecutive_failures_ = (r.status == Status::RuntimeError || r.status == Status::Timeout) ? consecutive_failures_ + 1 : 0;
    }
    if (consecutive_failures_ >= settings_.max_consecutive_failures) {
      throw CudaError(std::to_string(consecutive_failures_) + " configurations in a row crashed or hung the worker (last: " +
                      r.config + ": " + r.message + "); stopping. Results so far are stored; check the kernel, then "
                      "run the same command again to resume");
    }
    return r;
  }

  // One try on the worker (started first when there is none); `ended` says how the worker ended when it died.
  Result attempt(const Config& config, const CompileOutput& compiled, double best_ms, int repeats, ProcessEnd& ended) {
    start();
    const double timeout = deadline_s(best_ms, repeats);
    Message reply;
    const Message m = {{"op", "evaluate"},
                       {"config", config_text(config)},
                       {"compiled", to_message(compiled)},
                       {"best_ms", best_ms},
                       {"retime", repeats}};
    const ReadOutcome outcome = worker_->send(m) ? worker_->receive(timeout, reply) : ReadOutcome::Closed;
    if (outcome == ReadOutcome::Stopped) {
      worker_.reset();
      throw Interrupted("interrupted");
    }
    if (outcome == ReadOutcome::Message && reply.contains("error")) {
      worker_.reset();
      throw CudaError("worker failed: " + reply.at("error").get<std::string>());
    }
    Result r;
    if (outcome == ReadOutcome::Message) {
      r = result_from_message(reply.at("result"));
      // A fault that poisoned its context made the worker exit after answering: start afresh next time.
      if (r.status == Status::RuntimeError) {
        worker_->end();
        worker_.reset();
      }
      return r;
    }
    r.config = config_text(config);
    r.registers = compiled.registers;
    r.spill_bytes = compiled.spill_bytes;
    r.compile_ms = compiled.ms;
    if (outcome == ReadOutcome::TimedOut) {
      // Killed here, by the destructor below: cutune's own kill, never an outside one.
      r.status = Status::Timeout;
      r.message = "no result within " + std::to_string(static_cast<int>(std::ceil(timeout))) + " s; the worker was killed";
    } else {
      ended = worker_->end();
      r.status = Status::RuntimeError;
      r.message = ended.text;
    }
    worker_.reset();
    return r;
  }

  std::string config_text(const Config& config) const { return spec_->format(config); }

  WorkerSettings settings_;
  Message bench_;
  std::unique_ptr<WorkerProcess> worker_;
  const KernelSpec* spec_ = nullptr;  // outlives this evaluator (the tuner holds it for the whole shape)
  int consecutive_failures_ = 0;
};

}  // namespace

std::unique_ptr<Evaluator> make_worker_evaluator(const WorkerSettings& settings) {
  return std::make_unique<WorkerEvaluator>(settings);
}

std::string find_worker_executable() { return find_program("cutune-worker", "CUTUNE_WORKER"); }

}  // namespace cutune::detail
