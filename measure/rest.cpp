// The rest between two configurations' measurements (rest.hpp), and the workbench's use of it.
#include "rest.hpp"

#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>

#include "workbench.hpp"

namespace cutune {

namespace detail {

std::chrono::microseconds rest_after(const std::vector<double>& samples_ms) {
  const double busy_ms = std::accumulate(samples_ms.begin(), samples_ms.end(), 0.0);
  if (!(busy_ms >= kRestAbove)) return std::chrono::microseconds(0);
  return std::chrono::microseconds(std::llround(busy_ms * 1000.0));
}

}  // namespace detail

namespace {

// When each GPU of this process has rested from its last measurement: one time per GPU, whichever workbench measured
// last (a worker keeps several, an operation's implementations take turns on one GPU).
std::mutex rests_mutex;
std::map<int, std::chrono::steady_clock::time_point> rested_at;

}  // namespace

void Workbench::Impl::rest() {
  std::chrono::steady_clock::time_point until;
  {
    const std::lock_guard lock(rests_mutex);
    until = rested_at[device.ordinal()];
  }
  if (std::chrono::steady_clock::now() < until) std::this_thread::sleep_until(until);
}

void Workbench::Impl::rested_after(const std::vector<double>& samples_ms) {
  const auto until = std::chrono::steady_clock::now() + detail::rest_after(samples_ms);
  const std::lock_guard lock(rests_mutex);
  rested_at[device.ordinal()] = until;
}

}  // namespace cutune
