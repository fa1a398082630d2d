// `tune space` and cutune.space(): the valid configurations of a kernel, counted for a shape and an architecture.
#include "cutune/error.hpp"
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

CountedSpace count_space(const SpaceRequest& args) {
  std::optional<Shape> problem_shape;
  KernelSpec spec = load_chosen_kernel(args.kernel, args.spec, args.problem, &problem_shape, false);
  for (const auto& w : args.where) spec.restrict_to(w);
  std::optional<Shape> shape = problem_shape;  // a T1 problem is counted at its size, grid limits included
  if (!args.shape.empty()) shape = problem_shape ? problem_shapes(spec, *problem_shape, args.shape).front()
                                                 : spec.parse_shape(args.shape);
  Space space = Space::enumerate(spec, shape, arch_limits(args.arch)).shard(parse_shard(args.shard));
  return {std::move(spec), shape, std::move(space)};
}

std::string space_summary(const SpaceRequest& args, const CountedSpace& counted) {
  const Space& space = counted.space;
  return std::to_string(space.size()) + " valid configurations of " + counted.spec.name + " (" +
         std::to_string(space.cartesian_size()) + " combinations, " + std::to_string(space.removed_by_constraints()) +
         " removed by constraints, " + std::to_string(space.removed_by_device()) +
         " by compute capability 9.0 launch limits, " + std::to_string(space.removed_by_target()) + " by target " +
         args.arch + (args.shard.empty() ? "" : ", " + std::to_string(space.removed_by_shard()) + " in the other parts") +
         ")";
}

}  // namespace cutune
