// Choosing the GPUs of a tuning run: the `--devices` list, and the check that they are one model.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cutune/result.hpp"
#include "cutune/space.hpp"

namespace cutune {

/// A `--devices` list as written: every GPU, or ordinals in the order given.
struct DeviceList {
  bool all = false;
  std::vector<int> ordinals;  ///< when not `all`: distinct, non-negative
};

/// Reads "all", "N" or "N,M,..." (spaces around items allowed). Throws InputError, naming `option` and the text, for an
/// empty list or item, an item that is not a whole number, a negative or repeated ordinal.
DeviceList parse_device_list(std::string_view text, std::string_view option = "--devices");

/// The ordinals of `list` on a machine with `count` GPUs (count > 0). Throws InputError for an ordinal not below count.
std::vector<int> resolve_device_list(const DeviceList& list, int count, std::string_view option = "--devices");

/// The GPUs of one run: one model, so that every result goes under the same database key.
struct DeviceChoice {
  DeviceIdentity identity;    ///< the first GPU's: the key (name, compute capability, SM count) and its provenance
  DeviceLimits limits;        ///< the most restrictive of the GPUs' limits
  std::vector<int> ordinals;
};

/// Checks that GPU ordinals[i], described by identities[i] and limits[i], are all one model (normalised name, compute
/// capability, SM count). Throws InputError naming each model and its GPUs otherwise, e.g. "--devices all mixes NVIDIA
/// H100 80GB HBM3 (GPU 0, 1) and NVIDIA A100 (GPU 2): pick one model's devices, e.g. --devices 0,1".
DeviceChoice one_model(const std::vector<int>& ordinals, const std::vector<DeviceIdentity>& identities,
                       const std::vector<DeviceLimits>& limits, std::string_view option_text);

/// The same model as far as results go: one database key (normalised name, compute capability, SM count).
bool same_model(const DeviceIdentity& a, const DeviceIdentity& b);

/// The limits a configuration must respect to launch on both.
DeviceLimits most_restrictive(const DeviceLimits& a, const DeviceLimits& b);

}  // namespace cutune
