// `tune --devices`: opens the chosen GPUs and checks that one run measures on one model only.
#include "commands.hpp"

#include "cutune/error.hpp"

namespace cutune::cli {

DeviceChoice choose_devices(const TuneArgs& args, std::vector<std::unique_ptr<Device>>& opened) {
  const bool listed = !args.devices.empty();
  const std::string text = listed ? args.devices : std::to_string(args.device);
  const std::string option = listed ? "--devices" : "--device";
  const DeviceList list = parse_device_list(text, option);  // a typo is reported before the GPUs are looked at
  const int count = Device::count();
  if (count == 0) throw NoDeviceError(Device::unavailable_reason());
  const std::vector<int> ordinals = resolve_device_list(list, count, option);
  std::vector<DeviceIdentity> identities;
  std::vector<DeviceLimits> limits;
  for (int ordinal : ordinals) {
    opened.push_back(std::make_unique<Device>(ordinal));
    identities.push_back(opened.back()->identity());
    limits.push_back(opened.back()->limits());
  }
  if (ordinals.size() > 1 && !args.isolate) {
    throw InputError("--no-isolate measures in this process, on one GPU: leave it out to tune on several");
  }
  return one_model(ordinals, identities, limits, option + " " + text);
}

}  // namespace cutune::cli
