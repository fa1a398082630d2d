// Finding cutune's programs (programs.hpp).
#include "programs.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace cutune::detail {

std::string find_program(std::string_view name, const char* env_variable) {
  if (const char* env = std::getenv(env_variable); env != nullptr && *env != '\0') return env;
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  std::vector<fs::path> candidates;
  if (!error) {
    candidates.push_back(self.parent_path() / name);
    candidates.push_back(self.parent_path().parent_path() / name);
    candidates.push_back(self.parent_path().parent_path() / "libexec" / "cutune" / name);
  }
#ifdef CUTUNE_BUILD_BIN_DIR
  candidates.push_back(fs::path(CUTUNE_BUILD_BIN_DIR) / name);
#endif
#ifdef CUTUNE_INSTALL_BIN_DIR
  candidates.push_back(fs::path(CUTUNE_INSTALL_BIN_DIR) / name);
#endif
  for (const auto& c : candidates)
    if (::access(c.c_str(), X_OK) == 0 && fs::is_regular_file(c, error)) return c.string();
  return {};
}

}  // namespace cutune::detail
