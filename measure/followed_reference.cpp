// A reference that follows parameters of the configuration it checks ("reference"."follow": parameters of the problem,
// such as a filter's width): one reference output per distinct set of their values, computed when a configuration
// first needs it and kept on a shelf for the configurations that share it.
#include <optional>
#include <string>

#include "cutune/error.hpp"
#include "cutune/space.hpp"
#include "workbench.hpp"

namespace cutune {
namespace {

// Why `config` cannot run as the reference at `shape` (a constraint it violates, a launch the device refuses), or
// nullopt when it can.
std::optional<std::string> invalid_reference(const KernelSpec& spec, const Config& config, const Shape& shape,
                                             const DeviceLimits& limits) {
  const std::vector<Value> scope = spec.scope(config, &shape);
  for (const Expr& c : spec.constraints) {
    if (!c.eval(scope).truthy()) return "violates constraint '" + c.text() + "'";
  }
  if (auto why = check_launch(spec.resolve(spec.launch, config, shape, limits.sm_count), limits, true)) {
    return "cannot launch (" + *why + ")";
  }
  return std::nullopt;
}

// "filter_width, filter_height": the parameters the reference takes from the configuration it checks.
std::string followed_names(const KernelSpec& spec) {
  std::string out;
  for (const std::size_t i : spec.reference_follow) out += (out.empty() ? "" : ", ") + spec.parameters[i].name;
  return out;
}

// A quarter of the device memory free when the shelf is first needed: what references of other values may hold.
std::size_t shelf_capacity() {
  std::size_t free = 0, total = 0;
  if (detail::driver().cuMemGetInfo(&free, &total) != CUDA_SUCCESS) return 0;
  return free / 4;
}

}  // namespace

bool Workbench::Impl::follow_reference(const Config& config, Result& r) {
  if (verify == VerifyMode::None || spec.reference_follow.empty()) return true;
  const detail::ReferenceChoice choice = detail::reference_choice(spec, verify, &config);
  const std::string key = spec.format(*choice.config);
  if (key == references.current) return true;
  const auto refuse = [&](const std::string& why) {
    r.status = Status::NoReference;
    r.message = "not run: its reference, " + choice.name + " (at this configuration's " + followed_names(spec) +
                "), " + why;
    return false;
  };
  if (auto why = invalid_reference(spec, *choice.config, shape, device.limits())) return refuse(*why);

  // The outputs' reference buffers go on the shelf under the reference they hold; the one wanted comes off it, or is
  // computed into new buffers.
  if (references.shelf.capacity() == 0) references.shelf.set_capacity(shelf_capacity());
  std::vector<detail::DeviceBuffer> held;
  std::size_t bytes = 0;
  for (auto& arg : args) {
    if (!arg.spec->is_buffer || !arg.spec->output) continue;
    bytes += arg.reference.bytes();
    held.push_back(std::move(arg.reference));
  }
  if (!references.current.empty()) references.shelf.put(references.current, std::move(held), bytes);
  references.current.clear();
  std::optional<std::vector<detail::DeviceBuffer>> kept = references.shelf.take(key);
  try {
    std::size_t k = 0;
    for (auto& arg : args) {
      if (!arg.spec->is_buffer || !arg.spec->output) continue;
      arg.reference = kept ? std::move((*kept)[k++]) : detail::DeviceBuffer(arg.buffer.bytes());
    }
    if (!kept) {
      run_reference(choice, detail::compile_reference_for(references.cache, spec, verify, device.identity().arch(),
                                                          shape, &config));
    }
  } catch (const CudaError& e) {
    // A fault of the reference poisons the context as a configuration's would: the worker starts afresh.
    if (detail::is_sticky(detail::driver().cuStreamSynchronize(stream))) usable = false;
    return refuse(e.what());
  }
  references.current = key;
  return true;
}

}  // namespace cutune
