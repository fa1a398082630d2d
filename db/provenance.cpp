// The provenance a run records: the time, the host, a unique id; and the device name as it is stored.
#include <unistd.h>

#include <array>
#include <chrono>
#include <climits>
#include <cstdio>
#include <ctime>
#include <random>

#include "store.hpp"

namespace cutune {
namespace detail {

std::string utc_now() { return utc_text(std::chrono::system_clock::now()); }

}  // namespace detail

std::string utc_text(std::chrono::system_clock::time_point now) {
  const auto seconds = std::chrono::time_point_cast<std::chrono::seconds>(now);
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(now - seconds).count();
  const std::time_t t = std::chrono::system_clock::to_time_t(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 32> date{};
  std::strftime(date.data(), date.size(), "%Y-%m-%dT%H:%M:%S", &tm);
  // Microseconds keep the text order equal to the time order for results committed in quick succession.
  std::array<char, 48> text{};
  std::snprintf(text.data(), text.size(), "%s.%06lldZ", date.data(), static_cast<long long>(micros));
  return text.data();
}

namespace detail {

std::string host_name() {
  std::array<char, HOST_NAME_MAX + 1> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

std::string random_uid() {
  // Seeded per call from the OS: runs begun in forked processes or at the same microsecond still differ.
  std::random_device device;
  std::mt19937_64 random((std::uint64_t{device()} << 32) ^ device());
  std::array<char, 33> text{};
  std::snprintf(text.data(), text.size(), "%016llx%016llx", static_cast<unsigned long long>(random()),
                static_cast<unsigned long long>(random()));
  return text.data();
}

}  // namespace detail

std::string normalized_device_name(std::string_view name) {
  std::string out;
  bool space = false;
  for (const char c : name) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace cutune
