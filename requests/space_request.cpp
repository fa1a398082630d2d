// `tune space` and cutune.space(): the valid configurations of a kernel (or each implementation of an operation),
// counted for a shape and an architecture.
#include "cutune/error.hpp"
#include "cutune/operation.hpp"
#include "cutune/requests.hpp"
#include "cutune/space.hpp"
#include "cutune/target.hpp"

namespace cutune {
// Launch limits of compute capability 9.0, with the architecture's own targets and clusters.
DeviceLimits arch_limits(const std::string& arch) {
  const auto cc = arch_compute_capability(arch);
  if (!cc) throw InputError("--arch '" + arch + "': expected an architecture such as sm_80, sm_90 or sm_90a");
  return limits_of_compute_capability(*cc);
}

namespace {

// The space of `spec` (--where applied) at the request's shape (a T1 problem's at its size unless --shape repeats it).
CountedSpace count_space_of(const SpaceRequest& args, KernelSpec spec, std::optional<Shape> problem_shape) {
  for (const auto& w : args.where) spec.restrict_to(w);
  std::optional<Shape> shape = problem_shape;  // a T1 problem is counted at its size, grid limits included
  if (!args.shape.empty()) shape = problem_shape ? problem_shapes(spec, *problem_shape, args.shape).front()
                                                 : spec.parse_shape(args.shape);
  if (args.count_lazily) {
    // A walk of 3 * 10^7 visits takes seconds on one core; 20,000 descents about as long on specs of tens of
    // parameters. A space the walk counts and that is small enough is enumerated after all, for what removed the rest.
    const LazySpace lazy(spec, shape, arch_limits(args.arch));
    const SpaceCount count = lazy.count(30'000'000, 20'000, 1);
    if (!count.exact || count.value > static_cast<double>(kEnumerateUpTo))
      return {std::move(spec), shape, Space{}, count, lazy.cartesian_size()};
  }
  Space space = Space::enumerate(spec, shape, arch_limits(args.arch)).shard(parse_shard(args.shard));
  const std::uint64_t combinations = space.cartesian_size();
  return {std::move(spec), shape, std::move(space), std::nullopt, combinations};
}

}  // namespace

CountedSpace count_space(const SpaceRequest& args) {
  std::optional<Shape> problem_shape;
  KernelSpec spec = load_chosen_kernel(args.kernel, args.spec, args.problem, &problem_shape, false);
  return count_space_of(args, std::move(spec), problem_shape);
}

std::vector<CountedSpace> count_operation_space(const SpaceRequest& args) {
  if (!args.spec.empty() || !args.problem.empty()) throw InputError("give one of --kernel, --spec and --problem");
  if (!args.where.empty()) {
    throw InputError("--where names one kernel's parameters: give it with --kernel <implementation> (" + args.kernel +
                     " is an operation)");
  }
  const OperationSpec operation = load_operation(args.kernel);
  std::vector<CountedSpace> spaces;
  for (const KernelSpec& spec : operation.implementations) spaces.push_back(count_space_of(args, spec, std::nullopt));
  return spaces;
}

std::uint64_t walk_lazily(const SpaceRequest& args, const CountedSpace& counted,
                          const std::function<void(const Config&)>& visit) {
  const LazySpace lazy(counted.spec, counted.shape, arch_limits(args.arch));
  const Shard shard = parse_shard(args.shard);
  std::uint64_t position = 0;
  return lazy.for_each([&](const Config& c) {
    if (shard.holds(position++)) visit(c);
  });
}

std::uint64_t shard_size(std::uint64_t total, const Shard& shard) {
  return total >= shard.index ? (total - shard.index) / shard.count + 1 : 0;
}

std::string space_summary(const SpaceRequest& args, const CountedSpace& counted) {
  if (const auto& n = counted.lazily) {
    // A part of an uncounted space: its share of the enumeration's positions (every count-th from index), exactly
    // where the walk counted the whole, else the estimate's share.
    const Shard shard = parse_shard(args.shard);
    const std::string part = shard.whole() ? "" : " in part " + shard.str();
    const std::string combinations = std::to_string(counted.combinations) + " combinations";
    const std::string of = " valid configurations of " + counted.spec.name + part + " (" + combinations;
    if (n->exact) {
      const auto total = static_cast<std::uint64_t>(n->value);
      return std::to_string(shard_size(total, shard)) + of +
             (shard.whole() ? "" : ", " + std::to_string(total) + " valid in all") +
             "; counted by a walk that keeps none of them)";
    }
    const double share = 1.0 / static_cast<double>(shard.count);
    return "about " + count_text(n->value * share) + of + "; 95% between " + count_text(n->low * share) + " and " +
           count_text(n->high * share) + ", estimated from " + std::to_string(n->probes) +
           " random descents through the constraints)";
  }
  const Space& space = counted.space;
  return std::to_string(space.size()) + " valid configurations of " + counted.spec.name + " (" +
         std::to_string(space.cartesian_size()) + " combinations, " + std::to_string(space.removed_by_constraints()) +
         " removed by constraints, " + std::to_string(space.removed_by_device()) +
         " by compute capability 9.0 launch limits, " + std::to_string(space.removed_by_target()) + " by target " +
         args.arch + (args.shard.empty() ? "" : ", " + std::to_string(space.removed_by_shard()) + " in the other parts") +
         ")";
}

}  // namespace cutune
