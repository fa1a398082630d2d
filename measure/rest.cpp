// The rest between two configurations' measurements (rest.hpp), and the workbench's use of it.
#include "rest.hpp"

#include <cmath>
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

void Workbench::Impl::rest() {
  if (std::chrono::steady_clock::now() < rested_at) std::this_thread::sleep_until(rested_at);
}

void Workbench::Impl::rested_after(const std::vector<double>& samples_ms) {
  rested_at = std::chrono::steady_clock::now() + detail::rest_after(samples_ms);
}

}  // namespace cutune
