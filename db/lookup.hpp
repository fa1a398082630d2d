// The prepared statements behind best-configuration lookups, kept with the connection so a lookup prepares nothing.
#pragma once

#include <unordered_map>

#include "lookup_memo.hpp"
#include "store.hpp"

namespace cutune {

struct Database::Statements {
  explicit Statements(SQLite::Database& db);

  /// The row ids of a device key and a kernel version. Found ids are remembered (rows are never renumbered
  /// while a file is open); missing ones are asked again, as another process may add them.
  std::optional<std::int64_t> device_id(const DeviceIdentity& device);
  std::optional<std::int64_t> kernel_id(const std::string& name, const std::string& hash);

  SQLite::Statement find_device;
  SQLite::Statement find_kernel;
  SQLite::Statement exact;             // fastest current Ok result of (device id, kernel id, convention, shape)
  SQLite::Statement latest_on_device;  // the kernel version measured last on a device
  SQLite::Statement latest_on_arch;    // the kernel version measured last on any device of a compute capability
  SQLite::Statement device_shapes;     // tuned shapes of a kernel version and convention on a device
  SQLite::Statement arch_shapes;       // devices and their tuned shapes at a compute capability, one convention
  detail::LookupMemo memo;             // answers while the file is unchanged

 private:
  std::unordered_map<std::string, std::int64_t> device_ids_;
  std::unordered_map<std::string, std::int64_t> kernel_ids_;
};

}  // namespace cutune
