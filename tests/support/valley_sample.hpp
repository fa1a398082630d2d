// A recorded space with a narrow valley for tests of the model-based strategies, and a loop that asks and tells.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "cutune/replay.hpp"
#include "cutune/strategy.hpp"

namespace cutune::test {

// Four parameters (8 × 8 × 4 × 3 values) with a constraint (A + B <= 10: 54 × 12 = 648 of 768 points), a narrow
// valley whose floor is the unique optimum (A=5, B=3, C=2, D=1), and failures where A = 7 and B >= 2.
struct Sample {
  RecordedSpace recorded;
  std::size_t optimum = 0;
};

inline Sample make_sample() {
  std::vector<std::vector<Value>> values(4);
  for (int a = 0; a < 8; ++a) values[0].push_back(a), values[1].push_back(a);
  for (int c = 0; c < 4; ++c) values[2].push_back(c);
  for (int d = 0; d < 3; ++d) values[3].push_back(d);
  std::vector<Config> configs;
  Sample s;
  double best = INFINITY;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 3; ++d) {
          if (a + b > 10) continue;
          configs.push_back(Config{{a, b, c, d}});
          if (a == 7 && b >= 2) {
            s.recorded.times_ms.push_back(std::nullopt);
            continue;
          }
          const double t = 1.0 + 0.2 * std::abs(a - 5) + 0.3 * (b - 3) * (b - 3) + 0.1 * std::abs(c - 2) + 0.05 * (d != 1) +
                           0.02 * ((a + c) % 3);
          if (t < best) best = t, s.optimum = configs.size() - 1;
          s.recorded.times_ms.push_back(t);
        }
  s.recorded.space = Space::from_configs(values, configs);
  return s;
}

// Asks `batch` at a time and tells each outcome, for at most `budget` evaluations; the configurations, in order told.
inline std::vector<std::size_t> run(Strategy& strategy, const Sample& s, std::size_t batch, std::size_t budget) {
  std::vector<std::size_t> order;
  while (order.size() < budget) {
    const auto asked = strategy.ask(std::min(batch, budget - order.size()));
    if (asked.empty()) break;
    for (std::size_t i : asked) strategy.tell(i, s.recorded.times_ms[i]), order.push_back(i);
  }
  return order;
}

// The position of `config` in `order`; order.size() when it is not there.
inline std::size_t position_of(const std::vector<std::size_t>& order, std::size_t config) {
  return static_cast<std::size_t>(std::find(order.begin(), order.end(), config) - order.begin());
}

}  // namespace cutune::test
