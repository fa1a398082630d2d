// The reference of a T1 problem: T1 has no reference kernel, so outputs are checked against the kernel itself at the
// file's Default values, or at the first valid configuration when those are not valid. A parameter that a size names
// (an argument's Size such as `max(filter_width)`, the ProblemSize) is a parameter of the problem: the reference
// follows each configuration's value of it.
#include <algorithm>
#include <cctype>

#include "cutune/error.hpp"
#include "cutune/lazy_space.hpp"
#include "cutune/space.hpp"
#include "t1_detail.hpp"

namespace cutune::detail {

void T1Context::sizes_name(std::string_view text, const std::string& field) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; };
  for (std::size_t i = 0; i < text.size();) {
    if (!word(text[i]) || std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && word(text[end])) ++end;
    const std::string name(text.substr(i, end - i));
    i = end;
    // A parameter's list of values, of more than one value: a single value changes nothing to follow.
    const auto list = std::find_if(lists_.begin(), lists_.end(), [&](const auto& l) { return l.first == name; });
    if (name == "ProblemSize" || list == lists_.end() || list->second.size() < 2) continue;
    auto found = std::find_if(size_parameters_.begin(), size_parameters_.end(),
                              [&](const auto& p) { return p.first == name; });
    if (found == size_parameters_.end()) found = size_parameters_.insert(size_parameters_.end(), {name, {}});
    if (std::find(found->second.begin(), found->second.end(), field) == found->second.end()) {
      found->second.push_back(field);
    }
  }
}

KernelSpec T1Reader::build(const Config& reference, bool with_constraints) const {
  Json spec = spec_;
  if (!with_constraints) spec.erase("constraints");
  Json configuration = Json::object();
  for (std::size_t i = 0; i < parameter_names_.size(); ++i) {
    configuration[parameter_names_[i]] = number_json(reference.values[i]);
  }
  spec["reference"] = {{"configuration", configuration}};
  if (!size_parameters_.empty()) {
    Json follow = Json::array();
    for (const auto& [name, fields] : size_parameters_) follow.push_back(name);
    spec["reference"]["follow"] = std::move(follow);
  }
  try {
    return KernelSpec::from_json(spec.dump(2), source_, source_name_, folder_);
  } catch (const SpecError& e) {
    throw SpecError("T1 " + name_ + ": " + e.what());  // a gap of this translator, reported with its file
  }
}

// Says which parameters the reference follows, and which sizes name them.
void T1Reader::note_follow() {
  if (size_parameters_.empty()) return;
  std::string names, fields;
  for (const auto& [name, where] : size_parameters_) {
    names += (names.empty() ? "" : ", ") + name;
    for (const std::string& f : where) {
      if (fields.find(f) == std::string::npos) fields += (fields.empty() ? "" : ", ") + f;
    }
  }
  const bool one = size_parameters_.size() == 1;
  note(T1Issue::Kind::Note, "reference.follow",
       names + (one ? " is a parameter" : " are parameters") + " of the problem (named by " + fields +
           "): each configuration is verified against the reference at its own " +
           (one ? "value of it" : "values of them"));
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
