// The shapes applications asked the runtime for and found no result of their own: recorded by every lookup that
// fell back (Runtime), listed by `tune wanted`, tuned by `tune --wanted`.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "cutune/l2_flush.hpp"
#include "cutune/result.hpp"

namespace cutune {

struct WantedShape {
  KernelIdentity kernel;  ///< the version the application launched
  DeviceIdentity device;  ///< only name, cc_major, cc_minor, sm_count are kept
  L2Flush flush = L2Flush::Read;  ///< the convention whose results the lookup asked for
  std::string shape;      ///< canonical "8192x4096"
  std::int64_t count = 0;  ///< lookups of it (a Runtime counts each kernel() request)
  std::string first_at;   ///< UTC, "2025-01-31T12:00:00.123456Z"
  std::string last_at;
};

/// A time as the database stores it: UTC, "2025-01-31T12:00:00.123456Z" (text order is time order).
std::string utc_text(std::chrono::system_clock::time_point time);

/// The same (kernel version, device key, convention, shape).
bool same_key(const WantedShape& a, const WantedShape& b);

/// A JSON file of wanted shapes (what a Runtime keeps in memory when its database is read-only): written by
/// save_wanted(), read back by load_wanted() as untrusted input (InputError naming the file and the entry).
void save_wanted(const std::vector<WantedShape>& shapes, const std::filesystem::path& path);
std::vector<WantedShape> load_wanted(const std::filesystem::path& path);

}  // namespace cutune
