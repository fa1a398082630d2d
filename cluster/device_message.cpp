// (De)serialises a rank's GPU identity and launch limits for the hello message.
#include "cluster/device_message.hpp"


namespace cutune::cluster {

Message to_message(const LocalGpu& gpu) {
  const DeviceIdentity& d = gpu.identity;
  const DeviceLimits& l = gpu.limits;
  return {{"ordinal", gpu.ordinal},
          {"identity",
           {{"name", d.name}, {"cc_major", d.cc_major}, {"cc_minor", d.cc_minor}, {"sm_count", d.sm_count},
            {"memory_clock_khz", d.memory_clock_khz}, {"memory_bus_bits", d.memory_bus_bits},
            {"total_memory", d.total_memory}, {"uuid", d.uuid}, {"driver_version", d.driver_version},
            {"nvrtc_version", d.nvrtc_version}}},
          {"limits",
           {{"max_threads_per_block", l.max_threads_per_block}, {"max_block", l.max_block}, {"max_grid", l.max_grid},
            {"max_shared_per_block", l.max_shared_per_block}, {"max_shared_per_block_optin", l.max_shared_per_block_optin},
            {"compute_capability", l.compute_capability}, {"max_cluster_size", l.max_cluster_size}}}};
}

LocalGpu local_gpu_from_message(const Message& m) {
  LocalGpu gpu;
  gpu.ordinal = m.at("ordinal").get<int>();
  const Message& d = m.at("identity");
  gpu.identity.name = d.at("name").get<std::string>();
  gpu.identity.cc_major = d.at("cc_major").get<int>();
  gpu.identity.cc_minor = d.at("cc_minor").get<int>();
  gpu.identity.sm_count = d.at("sm_count").get<int>();
  gpu.identity.memory_clock_khz = d.at("memory_clock_khz").get<int>();
  gpu.identity.memory_bus_bits = d.at("memory_bus_bits").get<int>();
  gpu.identity.total_memory = d.at("total_memory").get<std::int64_t>();
  gpu.identity.uuid = d.at("uuid").get<std::string>();
  gpu.identity.driver_version = d.at("driver_version").get<int>();
  gpu.identity.nvrtc_version = d.at("nvrtc_version").get<int>();
  const Message& l = m.at("limits");
  gpu.limits.max_threads_per_block = l.at("max_threads_per_block").get<std::int64_t>();
  gpu.limits.max_block = l.at("max_block").get<std::array<std::int64_t, 3>>();
  gpu.limits.max_grid = l.at("max_grid").get<std::array<std::int64_t, 3>>();
  gpu.limits.max_shared_per_block = l.at("max_shared_per_block").get<std::int64_t>();
  gpu.limits.max_shared_per_block_optin = l.at("max_shared_per_block_optin").get<std::int64_t>();
  gpu.limits.compute_capability = l.at("compute_capability").get<int>();
  gpu.limits.max_cluster_size = l.at("max_cluster_size").get<std::int64_t>();
  gpu.limits.sm_count = gpu.identity.sm_count;
  return gpu;
}

}  // namespace cutune::cluster
