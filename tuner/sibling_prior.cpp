// Reading the prior of a tuning run from the database.
#include "tuner/sibling_prior.hpp"

#include <algorithm>
#include <cstdlib>
#include <tuple>

#include "cutune/lookup_keys.hpp"

namespace cutune::detail {
namespace {

int cc_distance(const DeviceIdentity& a, const DeviceIdentity& b) {
  return std::abs((a.cc_major * 10 + a.cc_minor) - (b.cc_major * 10 + b.cc_minor));
}

}  // namespace

Prior sibling_prior(Database& database, const DeviceIdentity& self, const KernelIdentity& kernel, const std::string& shape,
                    L2Flush flush, const std::unordered_map<std::string, std::size_t>& index_of) {
  std::vector<TunedEntry> others;
  for (auto& e : database.entries()) {
    if (e.kernel.name == kernel.name && e.kernel.hash == kernel.hash && e.shape == shape && e.flush == flush &&
        !same_device_key(e.device, self)) {
      others.push_back(std::move(e));
    }
  }
  std::sort(others.begin(), others.end(), [&self](const TunedEntry& a, const TunedEntry& b) {
    return std::make_tuple(cc_distance(a.device, self), -a.ok, a.device.name, a.device.sm_count) <
           std::make_tuple(cc_distance(b.device, self), -b.ok, b.device.name, b.device.sm_count);
  });
  Prior prior;
  for (const auto& e : others) {
    if (prior.siblings.size() == kPriorSiblings) break;
    SiblingTimes sibling{e.device.name, {}};
    bool working = false;
    for (const Result& r : database.results(e.device, e.kernel, shape, flush)) {
      const auto it = index_of.find(r.config);
      // An interrupted result (killed from outside) says nothing of the configuration.
      if (it == index_of.end() || r.status == Status::Interrupted) continue;
      const bool ok = usable(r.status);
      working = working || ok;
      sibling.times.emplace_back(it->second, ok ? std::optional<double>(r.median_ms) : std::nullopt);
    }
    if (working) prior.siblings.push_back(std::move(sibling));
  }
  return prior;
}

}  // namespace cutune::detail
