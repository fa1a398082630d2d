// Collects the standard headers of device code: cutune's own C headers, and C++ headers that map std to libcu++.
#include "device_headers.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cutune/device_header_files.hpp"
#include "cutune/spec.hpp"

namespace cutune::detail {
namespace {

namespace fs = std::filesystem;

// libcu++ headers whose names do not clash with cutune's <cmath> overloads in std (<complex> would: its std::abs of a
// complex number would hide behind <cmath>'s, or the reverse, depending on the order of the includes).
const std::vector<std::string> kLibcudacxxHeaders = {"array",  "bit",      "functional", "iterator", "limits",
                                                     "numeric", "optional", "ratio",      "span",     "tuple",
                                                     "type_traits", "utility", "variant"};

std::string libcudacxx_header(const std::string& name) {
  const std::string path = "<cuda/std/" + name + ">";
  return "// <" + name + "> for device code under NVRTC: libcu++'s " + path +
         " (the CUDA toolkit's), its names in namespace std.\n"
         "#ifndef CUTUNE_DEVICE_LIBCUDACXX_" + name + "\n#define CUTUNE_DEVICE_LIBCUDACXX_" + name + "\n"
         "#if !__has_include(" + path + ")\n"
         "#error \"<" + name + "> under NVRTC is libcu++'s " + path +
         ", which is not on the include path: point CUDA_PATH at a CUDA toolkit (libcu++ is in its include/cccl)\"\n"
         "#endif\n"
         "#if __cplusplus < 201703L\n"
         "#error \"<" + name + "> under NVRTC is libcu++'s " + path +
         ", which needs C++17: drop the -std option that asks for an older standard (cutune compiles C++17)\"\n"
         "#endif\n"
         "// cutune's <limits.h>, <stdint.h> and <float.h> define libcu++'s macros too, spelled differently.\n"
         "#pragma nv_diagnostic push\n#pragma nv_diag_suppress 47\n"
         "#include " + path + "\n"
         "#pragma nv_diagnostic pop\n"
         "namespace std {\nusing namespace cuda::std;\n}\n#endif\n";
}

// The toolkit's include folder: where cuda.h is, under CUDA_PATH, CUDA_HOME or /usr/local/cuda.
fs::path toolkit_include() {
  std::vector<fs::path> roots;
  for (const char* var : {"CUDA_PATH", "CUDA_HOME"}) {
    if (const char* root = std::getenv(var); root != nullptr && *root != '\0') roots.emplace_back(root);
  }
  roots.emplace_back("/usr/local/cuda");
  for (const auto& root : roots) {
    std::error_code error;
    if (fs::exists(root / "include" / "cuda.h", error)) return root / "include";
  }
  return {};
}

// The first bytes of a file (a version header), or nothing: read only to be hashed.
std::string file_head(const fs::path& path) {
  constexpr std::size_t kMax = 64 * 1024;
  std::ifstream in(path, std::ios::binary);
  std::string text(kMax, '\0');
  in.read(text.data(), static_cast<std::streamsize>(kMax));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

DeviceHeaders collect() {
  DeviceHeaders out;
  for (const auto& file : device_header_files::kEmbeddedFiles) {
    out.names.emplace_back(file.name);
    out.texts.emplace_back(file.text);
  }
  for (const auto& name : kLibcudacxxHeaders) {
    out.names.push_back(name);
    out.texts.push_back(libcudacxx_header(name));
  }
  std::string libcudacxx_version;
  if (const fs::path include = toolkit_include(); !include.empty()) {
    out.include_options.push_back("--include-path=" + include.string());
    std::error_code error;
    if (fs::is_directory(include / "cccl", error)) {
      out.include_options.push_back("--include-path=" + (include / "cccl").string());
      libcudacxx_version = file_head(include / "cccl" / "cuda" / "std" / "__cccl" / "version.h");
    }
  }
  HashHex hash;
  const std::string_view nul("\0", 1);
  for (std::size_t i = 0; i < out.names.size(); ++i) hash.add(out.names[i]).add(nul).add(out.texts[i]).add(nul);
  for (const auto& option : out.include_options) hash.add(option).add(nul);
  hash.add(libcudacxx_version);
  out.key = hash.hex();
  return out;
}

}  // namespace

const DeviceHeaders& device_headers() {
  static const DeviceHeaders headers = collect();
  return headers;
}

const std::vector<std::string>& libcudacxx_header_names() { return kLibcudacxxHeaders; }

}  // namespace cutune::detail
