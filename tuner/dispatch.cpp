// Hands jobs to idle lanes, holds back a lane's crashes until it is clear whether the lane or the configuration failed.
#include "tuner/dispatch.hpp"

#include <algorithm>

#include "cutune/error.hpp"
#include "cutune/stop.hpp"
#include "base/log.hpp"

namespace cutune::detail {
namespace {

using Clock = std::chrono::steady_clock;

bool crashed(const Result& r) { return r.status == Status::RuntimeError || r.status == Status::Timeout; }

}  // namespace

Dispatcher::Dispatcher(const std::vector<LaneFactory>& lanes) {
  lanes_.reserve(lanes.size());
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    LaneState state;
    state.lane = lanes[i](i, outbox_);
    state.idle_since = Clock::now();
    lanes_.push_back(std::move(state));
  }
}

Dispatcher::~Dispatcher() = default;

std::size_t Dispatcher::live() const {
  std::size_t n = 0;
  for (const auto& l : lanes_) n += l.left.empty();
  return n;
}

std::size_t Dispatcher::in_flight() const {
  std::size_t n = 0;
  for (const auto& l : lanes_) n += l.busy;
  return n;
}

std::vector<std::size_t> Dispatcher::idle_lanes() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < lanes_.size(); ++i)
    if (lanes_[i].left.empty() && !lanes_[i].busy) out.push_back(i);
  // When compiles come slower than the GPUs measure, one job at a time finds every lane idle: the one idle longest
  // takes it, so that each GPU measures its share instead of the first one measuring nearly everything.
  std::stable_sort(out.begin(), out.end(),
                   [this](std::size_t a, std::size_t b) { return lanes_[a].idle_since < lanes_[b].idle_since; });
  return out;
}

void Dispatcher::give(std::size_t lane, Job job) {
  LaneState& state = lanes_[lane];
  state.given = Clock::now();
  idle_seconds_ += std::chrono::duration<double>(state.given - state.idle_since).count();
  state.busy = true;
  state.lane->submit(std::move(job));
}

void Dispatcher::finished(LaneState& state, const LaneOutcome& outcome) {
  state.busy = false;
  state.idle_since = Clock::now();
  // The lane measured for the last measure_s before it posted; before that it was starting or preparing the shape.
  const Clock::time_point done = outcome.posted == Clock::time_point{} ? state.idle_since : outcome.posted;
  const auto measuring = done - std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(outcome.measure_s));
  spans_.push_back({state.given, measuring, done});
  if (outcome.prepare_s > 0.0) logger()->debug("{}: the shape prepared in {:.3f} s", state.lane->name(), outcome.prepare_s);
}

void Dispatcher::start_idle_clock() {
  idle_seconds_ = 0.0;
  for (auto& l : lanes_) l.idle_since = Clock::now();
}

void Dispatcher::drop(LaneOutcome& outcome) {
  LaneState& state = lanes_[outcome.lane];
  state.left = outcome.failure;
  last_error_ = outcome.error;
  for (auto& held : state.held) {
    held.job.avoid_lane.reset();  // the lane is gone: any other may take it
    returned_.push_back(std::move(held.job));
  }
  std::size_t victims = state.held.size();
  state.held.clear();
  if (outcome.job.kind == Job::Kind::Evaluate) {
    returned_.push_back(std::move(outcome.job));
    ++victims;
  }
  // A second opinion needs another lane: with one left, the lane that crashed it measures it again, and a crash then
  // is stored (on one lane nothing is held back).
  if (live() == 1)
    for (auto& job : returned_) job.avoid_lane.reset();
  if (live() > 0) {
    logger()->warn("{} leaves the run: {}; {} configuration(s) go to the {} other GPU(s)", state.lane->name(),
                   state.left, victims, live());
  }
}

std::vector<Arrival> Dispatcher::accept(LaneOutcome outcome) {
  std::vector<Arrival> out;
  LaneState& state = lanes_[outcome.lane];
  finished(state, outcome);
  if (outcome.interrupted) return out;  // the caller sees the stop request itself
  if (!outcome.failure.empty()) {
    // A lane that leaves with nobody to take over keeps its held-back failures: they are stored, as in a
    // single-GPU run, before require_lane() ends the run.
    if (live() == 1) {
      out = std::move(state.held);
      state.held.clear();
    }
    drop(outcome);
    return out;
  }
  Arrival arrival{outcome.lane, std::move(outcome.job), std::move(*outcome.result), outcome.measure_s};
  // On one GPU there is nobody to ask for a second opinion: a crash is stored at once, as it always was.
  if (arrival.job.kind == Job::Kind::Evaluate && !arrival.job.avoid_lane && crashed(arrival.result) && live() > 1) {
    state.held.push_back(std::move(arrival));
    return out;
  }
  out = std::move(state.held);
  state.held.clear();
  out.push_back(std::move(arrival));
  return out;
}

std::vector<Arrival> Dispatcher::release_held(bool retry_elsewhere) {
  std::vector<Arrival> out;
  const bool elsewhere = retry_elsewhere && live() > 1;
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    for (auto& a : lanes_[i].held) {
      if (elsewhere) {
        a.job.avoid_lane = i;
        returned_.push_back(std::move(a.job));
      } else {
        out.push_back(std::move(a));
      }
    }
    lanes_[i].held.clear();
  }
  return out;
}

void Dispatcher::require_lane() const {
  if (live() == 0 && last_error_) std::rethrow_exception(last_error_);
  if (live() == 0) throw Error("no GPU is left to measure on");
}

LaneOutcome Dispatcher::run_first(Job job) {
  if (in_flight() != 0) throw std::logic_error("Dispatcher::run_first with jobs in flight");
  for (;;) {
    require_lane();
    std::size_t lane = 0;
    while (!lanes_[lane].left.empty()) ++lane;
    give(lane, job);
    std::deque<LaneOutcome> outcomes;
    std::deque<Compiled> compiled;  // none: nothing is compiled for the pool now
    while (outcomes.empty()) {
      if (stop_requested()) throw Interrupted("interrupted");
      outbox_.wait(std::chrono::milliseconds(100), outcomes, compiled);
    }
    LaneOutcome* outcome = &outcomes.front();
    finished(lanes_[lane], *outcome);
    if (outcome->interrupted) throw Interrupted("interrupted");
    if (outcome->failure.empty()) return std::move(*outcome);
    const std::size_t before = returned_.size();
    drop(*outcome);
    returned_.resize(before);  // the job is tried on the next lane here, not queued
  }
}

}  // namespace cutune::detail
