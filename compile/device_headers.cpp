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

// CUB's headers that compile under NVRTC: the block-, warp- and thread-wide collectives, the grid helpers, the
// iterators and the utilities of device code. CUB's own <cub/cub.cuh> also includes the device-wide algorithms
// (cub::DeviceReduce, ...: host functions, an error under NVRTC) and the host's caching allocator (<map>).
const std::vector<std::string> kCubHeaders = {
    "block/block_adjacent_difference", "block/block_discontinuity", "block/block_exchange", "block/block_histogram",
    "block/block_load", "block/block_merge_sort", "block/block_radix_rank", "block/block_radix_sort",
    "block/block_reduce", "block/block_scan", "block/block_store", "grid/grid_even_share", "grid/grid_mapping",
    "grid/grid_queue", "thread/thread_load", "thread/thread_operators", "thread/thread_reduce", "thread/thread_scan",
    "thread/thread_store", "warp/warp_exchange", "warp/warp_load", "warp/warp_merge_sort", "warp/warp_reduce",
    "warp/warp_scan", "warp/warp_store", "iterator/arg_index_input_iterator",
    "iterator/cache_modified_input_iterator", "iterator/cache_modified_output_iterator",
    "iterator/tex_obj_input_iterator", "util_debug", "util_device", "util_ptx", "util_temporary_storage",
    "util_type"};

// <cub/cub.cuh> for device code under NVRTC: the toolkit's CUB (include/cccl) without what only the host can call.
std::string cub_header() {
  std::string text =
      "// <cub/cub.cuh> for device code under NVRTC: the CUDA toolkit's CUB headers that device code uses\n"
      "// (block-, warp- and thread-wide collectives, iterators). Not the device-wide algorithms (cub::DeviceReduce,\n"
      "// ...): they are host functions, which NVRTC does not compile.\n"
      "#ifndef CUTUNE_DEVICE_CUB\n#define CUTUNE_DEVICE_CUB\n"
      "#if !__has_include(<cub/config.cuh>)\n"
      "#error \"<cub/cub.cuh> under NVRTC is the CUDA toolkit's CUB, which is not on the include path: point CUDA_PATH "
      "at a CUDA toolkit (CUB is in its include/cccl)\"\n"
      "#elif __cplusplus < 201703L\n"
      "#error \"<cub/cub.cuh> needs C++17: drop the -std option that asks for an older standard (cutune compiles "
      "C++17)\"\n"
      "#else\n"
      "#include <cub/config.cuh>\n";
  for (const auto& name : kCubHeaders) text += "#include <cub/" + name + ".cuh>\n";
  return text + "#endif\n#endif\n";
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
  out.names.emplace_back("cub/cub.cuh");
  out.texts.push_back(cub_header());
  std::string cccl_versions;
  if (const fs::path include = toolkit_include(); !include.empty()) {
    out.include_options.push_back("--include-path=" + include.string());
    std::error_code error;
    if (fs::is_directory(include / "cccl", error)) {
      out.include_options.push_back("--include-path=" + (include / "cccl").string());
      cccl_versions = file_head(include / "cccl" / "cuda" / "std" / "__cccl" / "version.h") +
                           file_head(include / "cccl" / "cub" / "version.cuh");
    }
  }
  HashHex hash;
  const std::string_view nul("\0", 1);
  for (std::size_t i = 0; i < out.names.size(); ++i) hash.add(out.names[i]).add(nul).add(out.texts[i]).add(nul);
  for (const auto& option : out.include_options) hash.add(option).add(nul);
  hash.add(cccl_versions);
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
