// What counts as the same device and how near two shapes are, for every rule that looks results up by them: the
// database's fallback chain, the runtime's fallback model, the wanted list, the prior of other GPUs' results.
#pragma once

#include <string_view>

#include "cutune/result.hpp"

namespace cutune {

/// Whether two devices are one key of the database: normalised name, compute capability and SM count.
bool same_device_key(const DeviceIdentity& a, const DeviceIdentity& b);

/// Euclidean distance between the logarithms of two shapes' dimensions ("8192x4096"): 0 for the same text, infinite
/// when either is not such a shape of positive integers or their ranks differ.
double shape_distance(std::string_view a, std::string_view b);

}  // namespace cutune
