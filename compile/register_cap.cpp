// The options of a configuration's compile: its #defines, and a register cap where its block would otherwise not
// launch.
#include <algorithm>

#include "cutune/compiler.hpp"
#include "cutune/error.hpp"

namespace cutune {
namespace {

// A block may hold 64 Ki registers on every architecture NVRTC targets; registers are allocated per warp, per thread
// in multiples of 8.
constexpr std::int64_t kRegistersPerBlock = 65536;
constexpr std::int64_t kMaxRegistersPerThread = 255;

}  // namespace

std::optional<int> register_cap(const KernelSpec& spec, const Config& config) {
  for (const std::string& option : spec.compile_options) {
    if (option.find("maxrregcount") != std::string::npos) return std::nullopt;  // the user's own cap
  }
  std::int64_t threads = 1;
  const std::vector<Value> scope = spec.scope(config, nullptr);
  for (const Expr& e : spec.launch.block) {
    for (const std::string& name : spec.shape_names) {
      if (e.uses(name)) return std::nullopt;  // the block follows the shape: no one cap for every shape
    }
    threads *= std::max<std::int64_t>(1, e.eval(scope).as_int());
  }
  const std::int64_t warps = (threads + 31) / 32;
  const std::int64_t cap = kRegistersPerBlock / (warps * 32) / 8 * 8;
  if (cap >= kMaxRegistersPerThread || cap < 8) return std::nullopt;  // no cap needed, or none can help
  return static_cast<int>(cap);
}

std::vector<std::string> config_options(const KernelSpec& spec, const Config& config, const Shape* shape) {
  std::vector<std::string> options = spec.defines(config, shape);
  if (const auto cap = register_cap(spec, config)) options.push_back("--maxrregcount=" + std::to_string(*cap));
  return options;
}

std::optional<std::vector<std::string>> config_options_or(const KernelSpec& spec, const Config& config,
                                                          const Shape* shape, CompileOutput& failed) {
  try {
    return config_options(spec, config, shape);
  } catch (const InputError& e) {
    failed = CompileOutput{};
    failed.log = e.what();
    return std::nullopt;
  }
}

}  // namespace cutune
