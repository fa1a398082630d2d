// Device keys and shape distances (cutune/lookup_keys.hpp).
#include "cutune/lookup_keys.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cutune/database.hpp"

namespace cutune {

namespace {

// The logs of a shape's dimensions, or nullopt unless it is "AxBx..." of positive integers.
std::optional<std::vector<double>> log_dims(std::string_view shape) {
  const std::string text(shape);
  std::vector<double> logs;
  const char* p = text.c_str();
  while (true) {
    char* end = nullptr;
    const long long value = std::strtoll(p, &end, 10);
    if (end == p || value <= 0) return std::nullopt;
    logs.push_back(std::log(static_cast<double>(value)));
    if (*end == '\0') return logs;
    if (*end != 'x') return std::nullopt;
    p = end + 1;
  }
}

}  // namespace

bool same_device_key(const DeviceIdentity& a, const DeviceIdentity& b) {
  return normalized_device_name(a.name) == normalized_device_name(b.name) && a.cc_major == b.cc_major &&
         a.cc_minor == b.cc_minor && a.sm_count == b.sm_count;
}

double shape_distance(std::string_view a, std::string_view b) {
  if (a == b) return 0.0;
  const auto x = log_dims(a), y = log_dims(b);
  if (!x || !y || x->size() != y->size()) return std::numeric_limits<double>::infinity();
  double sum = 0.0;
  for (std::size_t i = 0; i < x->size(); ++i) sum += ((*x)[i] - (*y)[i]) * ((*x)[i] - (*y)[i]);
  return std::sqrt(sum);
}

}  // namespace cutune
