// What a GPU's architecture can launch: architecture-specific targets, tensor maps, and thread-block clusters (their
// size and the grid's divisibility).
#include "cutune/space.hpp"
#include "cutune/target.hpp"
#include "cutune/tensor_map.hpp"

namespace cutune {
namespace {

constexpr const char* kAxis[] = {"x", "y", "z"};
constexpr int kHopper = 90;  // clusters and tensor maps from compute capability 9.0

}  // namespace

std::optional<std::string> architecture_lacks(const KernelSpec& spec, const std::vector<Value>& scope,
                                              const Launch& launch, int cc) {
  if (!spec.targets.empty()) {
    if (auto why = target_unavailable(spec, scope, cc)) return why;
  }
  if (cc < kHopper && launch.cluster_size() > 1) return "clusters of several blocks need compute capability 9.0";
  if (cc < kHopper) {
    for (const std::size_t i : tensor_map_arguments(spec)) {
      if (tensor_map_used(spec.arguments[i], scope)) return "tensor maps need compute capability 9.0";
    }
  }
  return std::nullopt;
}

DeviceLimits limits_of_compute_capability(int cc) {
  DeviceLimits limits;
  limits.compute_capability = cc;
  if (cc < kHopper) limits.max_cluster_size = 1;
  return limits;
}

std::optional<std::string> check_cluster(const Launch& launch, const DeviceLimits& limits, bool check_grid) {
  for (std::size_t i = 0; i < 3; ++i) {
    if (launch.cluster[i] <= 0) {
      return "cluster." + std::string(kAxis[i]) + " = " + std::to_string(launch.cluster[i]) + " is not positive";
    }
    if (launch.cluster[i] > limits.max_cluster_size) {
      return "cluster." + std::string(kAxis[i]) + " = " + std::to_string(launch.cluster[i]) + " > " +
             std::to_string(limits.max_cluster_size) + " blocks";
    }
  }
  const std::int64_t size = launch.cluster_size();
  if (size == 1) return std::nullopt;
  if (limits.compute_capability < kHopper) return "clusters of several blocks need compute capability 9.0 or later";
  if (size > limits.max_cluster_size) {
    return "a cluster of " + std::to_string(size) + " blocks > " + std::to_string(limits.max_cluster_size);
  }
  if (check_grid) {
    // The hardware launches whole clusters only.
    for (std::size_t i = 0; i < 3; ++i) {
      if (launch.grid[i] % launch.cluster[i] != 0) {
        return "grid." + std::string(kAxis[i]) + " = " + std::to_string(launch.grid[i]) + " is not a multiple of cluster." +
               kAxis[i] + " = " + std::to_string(launch.cluster[i]);
      }
    }
  }
  return std::nullopt;
}

}  // namespace cutune
