// Charges the tuner's thread's time to phases, and splits its waits by what the lanes were doing meanwhile.
#include "tuner/phase_clock.hpp"

#include <algorithm>

namespace cutune::detail {
namespace {

using Clock = PhaseClock::Clock;
using Interval = std::pair<Clock::time_point, Clock::time_point>;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Sorted, disjoint intervals covering the same time as `intervals`.
std::vector<Interval> merged(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end());
  std::vector<Interval> out;
  for (const auto& i : intervals) {
    if (i.second <= i.first) continue;
    if (!out.empty() && i.first <= out.back().second) {
      out.back().second = std::max(out.back().second, i.second);
    } else {
      out.push_back(i);
    }
  }
  return out;
}

// Seconds of `w` that the sorted, disjoint `covered` intervals cover.
double overlap(const Interval& w, const std::vector<Interval>& covered) {
  auto it = std::upper_bound(covered.begin(), covered.end(), w.first,
                             [](Clock::time_point t, const Interval& i) { return t < i.second; });
  double s = 0.0;
  for (; it != covered.end() && it->first < w.second; ++it) {
    s += seconds(std::min(it->second, w.second) - std::max(it->first, w.first));
  }
  return s;
}

}  // namespace

PhaseClock::PhaseClock(Phase first, Clock::time_point start) : start_(start), since_(start), current_(first) {}

Phase PhaseClock::enter(Phase phase, Clock::time_point now) {
  if (current_ == Phase::Waiting) {
    waits_.emplace_back(since_, now);
  } else {
    seconds_[static_cast<int>(current_)] += seconds(now - since_);
  }
  since_ = now;
  return std::exchange(current_, phase);
}

void PhaseClock::add(const LaneSpan& span) { spans_.push_back(span); }

void PhaseClock::add(const std::vector<LaneSpan>& spans) { spans_.insert(spans_.end(), spans.begin(), spans.end()); }

PhaseTimes PhaseClock::read(Clock::time_point now) const {
  double s[static_cast<int>(Phase::Waiting)];
  std::copy(std::begin(seconds_), std::end(seconds_), s);
  std::vector<Interval> waits = waits_;
  if (current_ == Phase::Waiting) {
    waits.emplace_back(since_, now);
  } else {
    s[static_cast<int>(current_)] += seconds(now - since_);
  }
  std::vector<Interval> busy, measuring;
  for (const LaneSpan& span : spans_) {
    const Clock::time_point from = std::clamp(span.measuring, span.given, std::max(span.given, span.done));
    busy.emplace_back(span.given, span.done);
    measuring.emplace_back(from, span.done);
  }
  busy = merged(std::move(busy));
  measuring = merged(std::move(measuring));
  for (const Interval& w : waits) {
    const double m = overlap(w, measuring);
    const double b = overlap(w, busy);
    s[static_cast<int>(Phase::Measure)] += m;
    s[static_cast<int>(Phase::Startup)] += std::max(0.0, b - m);
    s[static_cast<int>(Phase::CompileWait)] += std::max(0.0, seconds(w.second - w.first) - b);
  }
  PhaseTimes t;
  t.wall_s = seconds(now - start_);
  t.startup_s = s[static_cast<int>(Phase::Startup)];
  t.compile_wait_s = s[static_cast<int>(Phase::CompileWait)];
  t.measure_s = s[static_cast<int>(Phase::Measure)];
  t.search_s = s[static_cast<int>(Phase::Search)];
  t.store_s = s[static_cast<int>(Phase::Store)];
  t.other_s = s[static_cast<int>(Phase::Other)];
  return t;
}

}  // namespace cutune::detail
