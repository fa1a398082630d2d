// An operation's requests (Runtime::kernel of an OperationSpec, or of an operation's name or file): which
// implementation runs at a shape by choose_implementation()'s rule, the operation's wanted shapes and tuning on demand,
// and a library family's call made ready.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "base/log.hpp"
#include "cutune/error.hpp"
#include "operation_choice.hpp"
#include "runtime_impl.hpp"

namespace cutune {

namespace {

// The rule's reason, in words, for `tune best` and the log.
std::string choice_reason(const OperationSpec& operation, const std::vector<detail::ImplementationAnswer>& answers,
                          std::size_t chosen) {
  const detail::ImplementationAnswer& a = answers[chosen];
  if (a.choice.match == Match::Exact) {
    for (const auto& other : answers) {
      if (other.choice.match == Match::Exact && usable(other.choice.result.status) &&
          other.choice.result.median_ms < a.choice.result.median_ms) {
        return fmt::format("measured at this shape within {:.0f}% of the fastest implementation, a template",
                           (detail::kExactMargin - 1.0) * 100.0);
      }
    }
    return "the fastest of the implementations measured at this shape";
  }
  if (operation.untuned && chosen == *operation.untuned) {
    return "no implementation measured at this shape: the untuned implementation, " +
           operation.implementations[chosen].name;
  }
  if (a.choice.match == Match::Predicted && a.untuned_ms_there) {
    return fmt::format("predicted from {} (log distance {:.2f}, at most {:.2f}), where this GPU measured it {:.3f}x as "
                       "fast as {} (at least {:.2f}x)",
                       a.choice.shape, a.choice.distance, detail::kTemplateReach,
                       *a.untuned_ms_there / a.choice.result.median_ms,
                       operation.implementations[*operation.untuned].name, detail::kTemplateMargin);
  }
  return "no implementation measured at this shape: the first implementation's fallback";
}

}  // namespace

OperationChoice choose_operation(Database* db, const OperationSpec& operation, const DeviceIdentity& device,
                                 const Shape& shape, std::optional<L2Flush> flush) {
  std::vector<detail::ImplementationAnswer> answers;
  for (const KernelSpec& spec : operation.implementations) {
    detail::ImplementationAnswer a{choose_config(db, spec, device, shape, flush), std::nullopt};
    // A prediction from another shape: how the untuned implementation (the library) did there, for the rule.
    if (a.choice.match == Match::Predicted && operation.untuned && db != nullptr) {
      const KernelSpec& untuned = operation.implementations[*operation.untuned];
      if (auto there = db->best({untuned.name, untuned.hash, device, a.choice.shape, a.choice.flush})) {
        a.untuned_ms_there = there->result.median_ms;
      }
    }
    answers.push_back(std::move(a));
  }
  OperationChoice out;
  out.implementation = detail::choose_implementation(operation, answers);
  out.reason = choice_reason(operation, answers, out.implementation);
  for (auto& a : answers) out.answers.push_back(std::move(a.choice));
  return out;
}

const RuntimeKernel& Runtime::kernel(const OperationSpec& operation, const Shape& shape) {
  const std::lock_guard lock(impl_->mutex);
  const std::string key = kept_key(operation.name, operation.hash(), shape);
  if (auto it = impl_->operations.find(key); it != impl_->operations.end()) return impl_->answer_operation(it->second);
  return *impl_->get_operation(operation, shape, nullptr).chosen->kernel;
}

std::string operation_tune_name(const std::string_view* name_or_file, const OperationSpec& operation) {
  if (name_or_file != nullptr) {
    if (!name_or_file->ends_with(".json")) return operation.name;
    std::error_code error;
    return std::filesystem::absolute(*name_or_file, error).string();
  }
  for (const std::string& name : builtin_operations()) {
    if (name == operation.name) return load_operation(name).hash() == operation.hash() ? name : std::string();
  }
  return {};
}

Runtime::Impl::OperationKept& Runtime::Impl::get_operation(const OperationSpec& operation, const Shape& shape,
                                                           const std::string_view* name_or_file) {
  const std::string key = kept_key(operation.name, operation.hash(), shape);
  if (auto it = operations.find(key); it != operations.end()) return it->second;  // asked for by another text
  OperationKept op;
  op.chosen = &implementation_kernel(operation, shape);
  const BestConfig& choice = op.chosen->kernel->choice();
  if (choice.match != Match::Exact) {  // no implementation has a result of this shape's own
    WantedShape wanted_shape;
    wanted_shape.kernel = {operation.name, operation.hash()};
    wanted_shape.device = device.identity();
    wanted_shape.flush = choice.flush;
    wanted_shape.shape = shape.str();
    op.wanted = &wanted.note(std::move(wanted_shape), db ? &*db : nullptr);
    if (on_demand != nullptr) {
      if (std::string tune_as = operation_tune_name(name_or_file, operation); !tune_as.empty()) {
        op.tuning = on_demand->submit(std::move(tune_as), op.chosen->kernel->spec(), shape, choice.flush, operation);
      } else {
        detail::logger()->warn("runtime: {} at {} is not tuned on demand: an operation of one's own is, when asked for "
                               "by its file", operation.name, shape.str());
      }
    }
  }
  return operations[key] = std::move(op);
}

Runtime::Impl::Kept& Runtime::Impl::implementation_kernel(const OperationSpec& operation, const Shape& shape) {
  const std::size_t chosen = implementation_at(operation, shape);
  try {
    return get(operation.implementations[chosen], shape, nullptr, false);
  } catch (const CudaError& e) {
    // The library's own choice where nothing was measured: a problem it has no algorithm for, or no library at all,
    // leaves the templates (the first implementation that is no library family).
    if (!operation.untuned || chosen != *operation.untuned) throw;
    const auto& all = operation.implementations;
    const auto tpl = std::find_if(all.begin(), all.end(), [](const KernelSpec& s) { return !s.library; });
    if (tpl == all.end()) throw;
    const auto other = static_cast<std::size_t>(tpl - all.begin());
    detail::logger()->warn("runtime: {} at {}: {}; launching {}", operation.name, shape.str(), e.what(),
                           operation.implementations[other].name);
    return get(operation.implementations[other], shape, nullptr, false);
  }
}

const RuntimeKernel& Runtime::Impl::answer_operation(OperationKept& op) {
  if (op.tuning != nullptr && op.tuning->done()) adopt_operation(op);
  if (op.chosen->tuning != nullptr && op.chosen->tuning->done()) adopt_tuned(*op.chosen);  // asked for alone too
  if (op.wanted != nullptr) detail::WantedLog::count(*op.wanted);
  return *op.chosen->kernel;
}

void Runtime::Impl::adopt_operation(OperationKept& op) {
  if (std::unique_ptr<RuntimeKernel> ready = std::move(op.tuning->ready)) {
    const KernelSpec& spec = ready->spec();
    const std::string key = kept_key(spec.name, spec.hash, ready->shape());
    Kept& kept = kernels[key];  // the winner's implementation may not have been launched at this shape yet
    if (kept.kernel != nullptr) replaced.push_back(std::move(kept.kernel));
    kept.kernel = std::move(ready);
    kept.wanted = nullptr;  // the shape has a result of its own now
    op.chosen = &kept;
    op.wanted = nullptr;
  }
  op.tuning.reset();
}

std::size_t Runtime::Impl::implementation_at(const OperationSpec& operation, const Shape& shape) {
  const OperationChoice choice = choose_operation(db ? &*db : nullptr, operation, device.identity(), shape, flush);
  detail::logger()->debug("runtime: {} at {}: {} ({})", operation.name, shape.str(),
                          operation.implementations[choice.implementation].name, choice.reason);
  return choice.implementation;
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
