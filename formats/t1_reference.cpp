// The reference of a T1 problem: T1 has no reference kernel, so outputs are checked against the kernel itself at the
// file's Default values, or at the first valid configuration when those are not valid.
#include "cutune/error.hpp"
#include "cutune/lazy_space.hpp"
#include "cutune/space.hpp"
#include "t1_detail.hpp"

namespace cutune::detail {

KernelSpec T1Reader::build(const Config& reference, bool with_constraints) const {
  Json spec = spec_;
  if (!with_constraints) spec.erase("constraints");
  Json configuration = Json::object();
  for (std::size_t i = 0; i < parameter_names_.size(); ++i) {
    configuration[parameter_names_[i]] = number_json(reference.values[i]);
  }
  spec["reference"] = {{"configuration", configuration}};
  try {
    return KernelSpec::from_json(spec.dump(2), source_, source_name_, folder_);
  } catch (const SpecError& e) {
    throw SpecError("T1 " + name_ + ": " + e.what());  // a gap of this translator, reported with its file
  }
}

// The reference: the Default values when they form a valid configuration, else the first valid configuration.
void T1Reader::choose_reference() {
  const DeviceLimits limits;
  std::string why_not;
  for (const Expr& c : conditions_) {
    if (!c.eval(defaults_.values).truthy()) {
      why_not = "violate condition '" + c.text() + "'";
      break;
    }
  }
  std::optional<KernelSpec> spec;
  if (why_not.empty()) {
    spec = build(defaults_, true);
    const auto too_big = check_launch(spec->resolve(spec->launch, defaults_, problem_.shape, limits.sm_count), limits, true);
    if (!too_big) {
      problem_.spec = std::move(*spec);
      note(T1Issue::Kind::Note, "reference",
           "outputs are verified against the Default values " + problem_.spec.format(defaults_));
      return;
    }
    why_not = "cannot launch (" + *too_big + ")";
  } else {
    // The defaults cannot be the reference of a spec with these constraints: enumerate a draft without them.
    spec = build(defaults_, false);
    const auto scope = spec->scope_names();
    for (Expr c : conditions_) {
      c.bind(scope);
      spec->constraints.push_back(std::move(c));
    }
  }
  // The first valid configuration, found by a walk that stops there (the space may be far too large to enumerate).
  const LazySpace space(*spec, problem_.shape, limits);
  const std::optional<Config> first = space.first();
  if (!first) {
    fail("ConfigurationSpace", "no configuration satisfies every condition and the launch limits (" +
                                   std::to_string(space.cartesian_size()) + " combinations)");
  }
  problem_.spec = build(*first, true);
  note(T1Issue::Kind::Note, "reference",
       "outputs are verified against the first valid configuration " + problem_.spec.format(*first) +
           ", since the Default values " + why_not);
}

}  // namespace cutune::detail
