// A transpose launched through the runtime and checked: an M×N input of 0, 1, 2, ... and its output, poisoned
// before each launch. For the runtime's GPU tests.
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

#include "cutune/runtime.hpp"
#include "driver_memory.hpp"

namespace cutune::testing {

class TransposeCheck {
 public:
  /// Needs the GPU's primary context current (a Runtime's kernel() makes it so).
  TransposeCheck(int m, int n) : m_(m), n_(n), in_(static_cast<std::size_t>(m) * n) {
    std::iota(in_.begin(), in_.end(), 0.0f);
    if (!memory_.usable()) return;
    d_in = memory_.alloc(bytes());
    d_out = memory_.alloc(bytes());
    memory_.upload(d_in, in_.data(), bytes());
  }
  bool usable() const { return memory_.usable(); }

  /// Launches `kernel` (the transpose at M×N) and counts the output elements that differ from the input's transpose.
  int wrong(const RuntimeKernel& kernel) {
    memory_.upload(d_out, std::vector<float>(in_.size(), -1.0f).data(), bytes());
    kernel(nullptr, d_out, d_in, m_, n_);
    EXPECT_EQ(memory_.synchronize(), 0);
    std::vector<float> out(in_.size());
    memory_.download(out.data(), d_out, bytes());
    int count = 0;
    for (int i = 0; i < m_; ++i)
      for (int j = 0; j < n_; ++j) {
        count += out[static_cast<std::size_t>(j) * m_ + i] != in_[static_cast<std::size_t>(i) * n_ + j];
      }
    return count;
  }

  std::uint64_t d_in = 0, d_out = 0;  // device pointers, for launches of one's own

 private:
  std::size_t bytes() const { return in_.size() * sizeof(float); }
  int m_, n_;
  std::vector<float> in_;
  DriverMemory memory_;
};

}  // namespace cutune::testing
