// An operation's requests (Runtime::kernel of an OperationSpec, or of an operation's name or file): which
// implementation runs at a shape by choose_implementation()'s rule, and a library family's call made ready.
#include "base/log.hpp"
#include "cutune/error.hpp"
#include "operation_choice.hpp"
#include "runtime_impl.hpp"

namespace cutune {

const RuntimeKernel& Runtime::kernel(const OperationSpec& operation, const Shape& shape) {
  const std::lock_guard lock(impl_->mutex);
  return *impl_->get_operation(operation, shape).kernel;
}

Runtime::Impl::Kept& Runtime::Impl::get_operation(const OperationSpec& operation, const Shape& shape) {
  const std::size_t chosen = implementation_at(operation, shape);
  try {
    return get(operation.implementations[chosen], shape, nullptr);
  } catch (const CudaError& e) {
    // The library's own choice where nothing was measured: a problem it has no algorithm for, or no library at all,
    // leaves the templates.
    if (!operation.untuned || chosen != *operation.untuned || operation.implementations.size() < 2) throw;
    const std::size_t other = chosen == 0 ? 1 : 0;  // the first implementation that is not the untuned one
    detail::logger()->warn("runtime: {} at {}: {}; launching {}", operation.name, shape.str(), e.what(),
                           operation.implementations[other].name);
    return get(operation.implementations[other], shape, nullptr);
  }
}

std::size_t Runtime::Impl::implementation_at(const OperationSpec& operation, const Shape& shape) {
  std::vector<detail::ImplementationAnswer> answers;
  for (const KernelSpec& spec : operation.implementations) {
    detail::ImplementationAnswer a{choose(spec, shape), std::nullopt};
    // A prediction from another shape: how the untuned implementation (the library) did there, for the rule.
    if (a.choice.match == Match::Predicted && operation.untuned && db) {
      const KernelSpec& untuned = operation.implementations[*operation.untuned];
      if (auto there = db->best({untuned.name, untuned.hash, device.identity(), a.choice.shape, a.choice.flush})) {
        a.untuned_ms_there = there->result.median_ms;
      }
    }
    answers.push_back(std::move(a));
  }
  const std::size_t chosen = detail::choose_implementation(operation, answers);
  detail::logger()->debug("runtime: {} at {}: {} ({})", operation.name, shape.str(),
                          operation.implementations[chosen].name, to_string(answers[chosen].choice.match));
  return chosen;
}

std::unique_ptr<RuntimeKernel> Runtime::Impl::make_library(std::unique_ptr<RuntimeKernel::Impl> k,
                                                           std::chrono::steady_clock::time_point start) {
  device.make_current();
  k->library = std::make_unique<detail::LibraryLaunch>(k->spec, k->config, k->shape);
  k->constant_symbols.assign(k->spec.arguments.size(), 0);
  k->constant_bytes.assign(k->spec.arguments.size(), 0);
  k->ready_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  detail::logger()->info("runtime: {} {} on {}: {} ({}), {} in {:.2f} ms", k->spec.name, k->shape.str(),
                         device.identity().name, k->choice.result.config, to_string(k->choice.match),
                         k->library->description(), k->ready_ms);
  return std::make_unique<RuntimeKernel>(std::move(k));
}

}  // namespace cutune
