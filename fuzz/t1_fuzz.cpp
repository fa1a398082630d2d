// libFuzzer target for the T1 reader: problem text through parse_t1, which translates it and reads the result.
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "cutune/error.hpp"
#include "cutune/t1.hpp"

namespace {

// An empty folder, so that a KernelFile is found only when the input names an existing path itself.
const std::filesystem::path& kernel_folder() {
  static const std::filesystem::path folder = [] {
    auto path = std::filesystem::temp_directory_path() / "cutune-t1-fuzz";
    std::filesystem::create_directories(path);
    return path;
  }();
  return folder;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const cutune::T1Problem problem = cutune::parse_t1(text, kernel_folder(), "fuzz");
    for (const auto& issue : problem.issues) (void)issue.str();
    problem.require_tunable();
  } catch (const cutune::Error&) {
    // A malformed or untunable problem, reported with its field.
  }
  return 0;
}
