// Reads `--devices` lists and refuses to mix GPU models in one run (their results would share one database key).
#include "cutune/device_choice.hpp"

#include <algorithm>
#include <charconv>
#include <set>

#include "cutune/database.hpp"
#include "cutune/error.hpp"

namespace cutune {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::string join(const std::vector<int>& ordinals, std::string_view separator) {
  std::string out;
  for (int o : ordinals) {
    if (!out.empty()) out += separator;
    out += std::to_string(o);
  }
  return out;
}

}  // namespace

bool same_model(const DeviceIdentity& a, const DeviceIdentity& b) {
  return normalized_device_name(a.name) == normalized_device_name(b.name) && a.cc_major == b.cc_major &&
         a.cc_minor == b.cc_minor && a.sm_count == b.sm_count;
}

DeviceList parse_device_list(std::string_view text, std::string_view option) {
  const auto bad = [&](const std::string& why) {
    return InputError(std::string(option) + " '" + std::string(text) + "': " + why +
                      "; write all, one GPU ordinal (0) or a comma-separated list (0,2)");
  };
  DeviceList list;
  if (trim(text) == "all") {
    list.all = true;
    return list;
  }
  std::set<int> seen;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (item.empty()) throw bad("an empty item");
    int ordinal = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), ordinal);
    if (error != std::errc() || end != item.data() + item.size()) {
      throw bad("'" + std::string(item) + "' is not a GPU ordinal");
    }
    if (ordinal < 0) throw bad("GPU ordinals are not negative");
    if (!seen.insert(ordinal).second) throw bad("GPU " + std::to_string(ordinal) + " appears twice");
    list.ordinals.push_back(ordinal);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return list;
}

std::vector<int> resolve_device_list(const DeviceList& list, int count, std::string_view option) {
  if (list.all) {
    std::vector<int> every(static_cast<std::size_t>(std::max(count, 0)));
    for (int i = 0; i < count; ++i) every[static_cast<std::size_t>(i)] = i;
    return every;
  }
  for (int o : list.ordinals) {
    if (o >= count) {
      throw InputError(std::string(option) + " " + join(list.ordinals, ",") + ": there is no GPU " + std::to_string(o) +
                       "; this machine has " + std::to_string(count) + (count == 1 ? " GPU (0)" : " GPUs (0-" +
                       std::to_string(count - 1) + ")"));
    }
  }
  return list.ordinals;
}

DeviceChoice one_model(const std::vector<int>& ordinals, const std::vector<DeviceIdentity>& identities,
                       const std::vector<DeviceLimits>& limits, std::string_view option_text) {
  if (ordinals.empty() || ordinals.size() != identities.size() || ordinals.size() != limits.size()) {
    throw InputError("no GPU chosen");
  }
  // The models in order of first appearance, each with its GPUs.
  std::vector<std::pair<const DeviceIdentity*, std::vector<int>>> models;
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    auto it = std::find_if(models.begin(), models.end(), [&](const auto& m) { return same_model(*m.first, identities[i]); });
    if (it == models.end()) {
      models.push_back({&identities[i], {ordinals[i]}});
    } else {
      it->second.push_back(ordinals[i]);
    }
  }
  if (models.size() > 1) {
    std::string mixed;
    for (std::size_t m = 0; m < models.size(); ++m) {
      mixed += m == 0 ? "" : m + 1 == models.size() ? " and " : ", ";
      mixed += normalized_device_name(models[m].first->name) + " (" + models[m].first->arch() + ", " +
               std::to_string(models[m].first->sm_count) + " SMs: GPU " + join(models[m].second, ", ") + ")";
    }
    throw InputError(std::string(option_text) + " mixes " + mixed + ": pick one model's devices, e.g. --devices " +
                     join(models.front().second, ","));
  }
  DeviceChoice choice{identities.front(), limits.front(), ordinals};
  for (const auto& l : limits) choice.limits = most_restrictive(choice.limits, l);
  return choice;
}

DeviceLimits most_restrictive(const DeviceLimits& a, const DeviceLimits& b) {
  DeviceLimits out = a;  // one model: the same compute capability and cluster size
  out.max_threads_per_block = std::min(a.max_threads_per_block, b.max_threads_per_block);
  for (std::size_t i = 0; i < 3; ++i) {
    out.max_block[i] = std::min(a.max_block[i], b.max_block[i]);
    out.max_grid[i] = std::min(a.max_grid[i], b.max_grid[i]);
  }
  out.max_shared_per_block = std::min(a.max_shared_per_block, b.max_shared_per_block);
  out.max_shared_per_block_optin = std::min(a.max_shared_per_block_optin, b.max_shared_per_block_optin);
  return out;
}

}  // namespace cutune
