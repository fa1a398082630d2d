// A deterministic spread for the times of built test spaces, as real measurements spread: a hash of the
// configuration's number, the same on every platform.
#pragma once

#include <cstdint>

namespace cutune::test {

/// A factor in [low, low + width) drawn from `k` alone (splitmix64's finaliser).
inline double hashed_noise(std::uint64_t k, double low, double width) {
  k += 0x9e3779b97f4a7c15ULL;
  k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ULL;
  k = (k ^ (k >> 27)) * 0x94d049bb133111ebULL;
  k ^= k >> 31;
  return low + width * static_cast<double>(k >> 11) / static_cast<double>(1ULL << 53);
}

}  // namespace cutune::test
