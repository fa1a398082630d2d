// The kernel part of a T1 problem: language, source file, compiler options and launch geometry.
#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <regex>

#include "t1_detail.hpp"

namespace cutune::detail {
namespace {

constexpr const char* kAxes[] = {"X", "Y", "Z"};
constexpr const char* kBlockSizeNames[] = {"block_size_x", "block_size_y", "block_size_z"};
constexpr const char* kGridSizeNames[] = {"grid_size_x", "grid_size_y", "grid_size_z"};

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace

void T1Reader::read_kernel(const Json& kernel) {
  language_ = required_string(kernel, "Language", "KernelSpecification.Language");
  if (language_ != "CUDA") {
    note(T1Issue::Kind::Unsupported, "KernelSpecification.Language",
         language_ + ": cutune compiles CUDA through NVRTC only", true);
  }
  const std::string kernel_name = required_string(kernel, "KernelName", "KernelSpecification.KernelName");
  if (kernel_name.empty()) fail("KernelSpecification.KernelName", "must not be empty");
  spec_["kernel"] = kernel_name;

  const std::string file = required_string(kernel, "KernelFile", "KernelSpecification.KernelFile");
  const std::string extension = lower(std::filesystem::path(file).extension().string());
  if (language_ == "CUDA" && extension == ".hip") {
    note(T1Issue::Kind::Defect, "KernelSpecification.KernelFile",
         "'" + file + "' is a HIP source (.hip), but Language says CUDA", true);
  } else if (language_ == "CUDA" && (extension == ".cl" || extension == ".opencl")) {
    note(T1Issue::Kind::Defect, "KernelSpecification.KernelFile",
         "'" + file + "' is an OpenCL source, but Language says CUDA", true);
  }
  spec_["source"] = file;
  source_name_ = file;
  if (auto text = read_text(folder_ / file)) {
    source_ = std::move(*text);
  } else if (auto as_given = read_text(file)) {
    source_ = std::move(*as_given);
  } else {
    note(T1Issue::Kind::Missing, "KernelSpecification.KernelFile",
         "'" + file + "' not found next to the T1 file (in " + folder_.string() + ")", true);
  }

  if (kernel.contains("CompilerOptions")) {
    const Json& options = kernel["CompilerOptions"];
    const bool strings = options.is_array() && std::all_of(options.begin(), options.end(),
                                                            [](const Json& o) { return o.is_string(); });
    if (strings) {
      spec_["compile_options"] = options;
    } else {
      note(T1Issue::Kind::Defect, "KernelSpecification.CompilerOptions", "must be a list of strings", true);
    }
  }
  if (kernel.contains("ReferenceArguments")) {
    note(T1Issue::Kind::Note, "KernelSpecification.ReferenceArguments",
         "not used: outputs are verified against the kernel at a reference configuration");
  }
  check_benchmark_names(kernel);
}

// A kernel specification copied from another problem keeps that problem's BenchmarkName.
void T1Reader::check_benchmark_names(const Json& kernel) {
  const Json* general = root_.contains("General") && root_["General"].is_object() ? &root_["General"] : nullptr;
  if (general == nullptr || !general->contains("BenchmarkName") || !kernel.contains("BenchmarkName")) return;
  if (!(*general)["BenchmarkName"].is_string() || !kernel["BenchmarkName"].is_string()) return;
  const std::string problem = (*general)["BenchmarkName"].get<std::string>();
  const std::string specified = kernel["BenchmarkName"].get<std::string>();
  const std::string a = lower(problem), b = lower(specified);
  if (a.find(b) == std::string::npos && b.find(a) == std::string::npos) {
    note(T1Issue::Kind::Defect, "KernelSpecification.BenchmarkName",
         "'" + specified + "' is not the problem's General.BenchmarkName '" + problem +
             "': the kernel specification may come from another problem (check Arguments and LocalSize)");
  }
}

// An expression of the parameters for the launch geometry; on failure the issue is recorded and nullopt returned.
std::optional<std::string> T1Reader::geometry_expression(const Json& j, const std::string& field,
                                                         const std::string& consequence) {
  std::string text;
  if (j.is_string()) {
    text = j.get<std::string>();
  } else if (const auto v = json_number(j)) {
    text = v->str();
  } else {
    note(T1Issue::Kind::Defect, field, "must be an expression; " + consequence, true);
    return std::nullopt;
  }
  try {
    const Expr e = Expr::parse(text);
    for (const auto& used : e.names()) {
      if (!is_parameter(used)) {
        note(T1Issue::Kind::Defect, field, "'" + used + "' is not a tuning parameter; " + consequence, true);
        return std::nullopt;
      }
    }
  } catch (const SpecError& e) {
    note(T1Issue::Kind::Defect, field, std::string(e.what()) + "; " + consequence, true);
    return std::nullopt;
  }
  return text;
}

void T1Reader::read_block(const Json& kernel) {
  const std::string consequence = "the space is counted without block-size limits";
  std::array<std::string, 3> block{"1", "1", "1"};
  block_known_ = true;
  if (!kernel.contains("LocalSize") || !kernel["LocalSize"].is_object()) {
    note(T1Issue::Kind::Defect, "KernelSpecification.LocalSize", "missing; " + consequence, true);
    block_known_ = false;
  } else {
    const Json& local = kernel["LocalSize"];
    for (std::size_t i = 0; i < 3 && block_known_; ++i) {
      if (!local.contains(kAxes[i])) continue;
      const auto text = geometry_expression(local[kAxes[i]], "KernelSpecification.LocalSize." + std::string(kAxes[i]),
                                            consequence);
      if (text) block[i] = *text;
      block_known_ = text.has_value();
    }
  }
  if (!block_known_) block = {"1", "1", "1"};
  block_ = block;
  spec_["block"] = block;
}

namespace {
constexpr const char* kGridConsequence = "the space is counted without grid-size limits";
}  // namespace

void T1Reader::read_grid(const Json& kernel) {
  std::array<std::string, 3> grid{"1", "1", "1"};
  bool known = false;
  if (kernel.contains("GridDivX") || kernel.contains("GridDivY") || kernel.contains("GridDivZ")) {
    known = read_divided_grid(kernel, grid);
  } else if (!kernel.contains("GlobalSize") || !kernel["GlobalSize"].is_object()) {
    note(T1Issue::Kind::Defect, "KernelSpecification.GlobalSize",
         std::string("missing (and no GridDivX/Y/Z); ") + kGridConsequence, true);
  } else {
    known = read_global_grid(kernel, grid);
  }
  if (!known) grid = {"1", "1", "1"};
  spec_["grid"] = grid;
  read_shared_memory(kernel);
}

bool T1Reader::read_divided_grid(const Json& kernel, std::array<std::string, 3>& grid) {
  if (kernel.contains("GlobalSize")) {
    note(T1Issue::Kind::Note, "KernelSpecification.GlobalSize",
         "not used: the grid is ceil(ProblemSize / product of GridDiv), as Kernel Tuner reads T1 files");
  }
  if (!has_problem_size_) {
    note(T1Issue::Kind::Defect, "KernelSpecification.GridDivX", std::string("needs ProblemSize; ") + kGridConsequence,
         true);
    return false;
  }
  bool known = true;
  for (std::size_t i = 0; known && i < problem_.shape.dims.size(); ++i) {
    const std::vector<std::string> divisors = grid_divisors(kernel, i, known);
    grid[i] = kT1ShapeNames[i];
    if (!divisors.empty()) {
      std::string product;
      for (const auto& d : divisors) product += (product.empty() ? "" : " * ") + d;
      grid[i] = "ceil_div(" + grid[i] + ", " + product + ")";
    }
  }
  return known;
}

std::vector<std::string> T1Reader::grid_divisors(const Json& kernel, std::size_t axis, bool& known) {
  const std::string key = std::string("GridDiv") + kAxes[axis];
  std::vector<std::string> divisors;
  if (kernel.contains(key)) {
    const Json& list = kernel[key];
    for (const auto& j : list.is_array() ? list : Json::array({list})) {
      const auto text = geometry_expression(j, "KernelSpecification." + key, kGridConsequence);
      known = known && text.has_value();
      if (text) divisors.push_back("(" + *text + ")");
    }
  } else if (is_parameter(kBlockSizeNames[axis])) {
    divisors.push_back(kBlockSizeNames[axis]);  // Kernel Tuner's default divisor
  }
  return divisors;
}

bool T1Reader::read_global_grid(const Json& kernel, std::array<std::string, 3>& grid) {
  std::string type = language_ == "OpenCL" ? "OpenCL" : "CUDA";  // the launch convention of the language
  if (kernel.contains("GlobalSizeType") && kernel["GlobalSizeType"].is_string()) {
    type = kernel["GlobalSizeType"].get<std::string>();
  }
  if (type != "CUDA" && type != "OpenCL") {
    note(T1Issue::Kind::Unsupported, "KernelSpecification.GlobalSizeType", type + "; " + kGridConsequence, true);
    return false;
  }
  const Json& global = kernel["GlobalSize"];
  for (std::size_t i = 0; i < 3; ++i) {
    if (!global.contains(kAxes[i])) continue;
    const std::string axis_field = "KernelSpecification.GlobalSize." + std::string(kAxes[i]);
    const auto text = geometry_expression(global[kAxes[i]], axis_field, kGridConsequence);
    if (!text) return false;
    grid[i] = *text;
    if (type == "OpenCL") {  // OpenCL counts threads; CUDA's grid counts blocks
      if (!block_known_) {
        note(T1Issue::Kind::Defect, "KernelSpecification.GlobalSize",
             std::string("in threads (GlobalSizeType OpenCL) needs a usable LocalSize; ") + kGridConsequence, true);
        return false;
      }
      grid[i] = "ceil_div(" + *text + ", " + block_[i] + ")";
    }
  }
  return true;
}

void T1Reader::read_shared_memory(const Json& kernel) {
  if (!kernel.contains("SharedMemory") || kernel["SharedMemory"].is_null()) return;
  const auto bytes = json_number(kernel["SharedMemory"]);
  if (!bytes || bytes->is_float() || bytes->as_int() < 0) {
    note(T1Issue::Kind::Defect, "KernelSpecification.SharedMemory", "must be a number of bytes", true);
  } else if (bytes->as_int() > 0) {
    spec_["shared_memory"] = bytes->as_int();
    note(T1Issue::Kind::Note, "KernelSpecification.SharedMemory",
         bytes->str() + " bytes are requested as dynamic shared memory per block");
  }
}

// Kernel Tuner compiles every configuration with kernel_tuner=1 and the launch's block_size_x/y/z and grid_size_x/y/z
// defined besides the parameters, and sources written for it rely on that: hotspot's keeps stand-alone values of its
// parameters under #ifndef kernel_tuner, which would otherwise replace every configuration's own. The grid is given
// at the file's ProblemSize, so that no configuration is compiled for its shape alone.
void T1Reader::define_kernel_tuner_names() {
  Json defines = Json::object();
  defines["kernel_tuner"] = 1;
  for (std::size_t i = 0; i < 3; ++i) {
    if (!is_parameter(kBlockSizeNames[i])) defines[kBlockSizeNames[i]] = block_[i];
    if (is_parameter(kGridSizeNames[i])) continue;
    std::string grid = spec_["grid"][i].get<std::string>();
    for (std::size_t d = 0; d < problem_.shape.dims.size(); ++d) {
      grid = std::regex_replace(grid, std::regex(std::string("\\b") + kT1ShapeNames[d] + "\\b"),
                                std::to_string(problem_.shape.dims[d]));
    }
    defines[kGridSizeNames[i]] = grid;
  }
  if (is_parameter("kernel_tuner")) defines.erase("kernel_tuner");
  spec_["defines"] = std::move(defines);
}

}  // namespace cutune::detail
