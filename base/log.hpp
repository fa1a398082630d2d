// The library's logger: named "cutune", with the sinks the application gave it, or none (DESIGN: never install sinks).
#pragma once

#include <spdlog/spdlog.h>

#include <memory>

namespace cutune::detail {

/// The logger registered as "cutune" by the application; without one, a logger that drops everything.
inline std::shared_ptr<spdlog::logger> logger() {
  if (auto registered = spdlog::get("cutune")) return registered;
  static const auto silent = std::make_shared<spdlog::logger>("cutune");
  return silent;
}

}  // namespace cutune::detail
