// cutune.space(): `tune space` for Python. A space of up to kEnumerateUpTo valid configurations is held and indexed
// without copying every configuration out; a larger one is counted as `tune space` counts it (exactly by a walk that
// keeps nothing, else an estimate with its interval) and walked or sampled through a LazySpace, in the memory of one
// configuration.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <set>

#include "convert.hpp"
#include "cutune/error.hpp"
#include "cutune/lazy_space.hpp"
#include "cutune/requests.hpp"

namespace cutune::python {

namespace {

struct SpaceHandle {
  SpaceRequest request;
  CountedSpace counted;
  std::string summary;
  Shard shard;

  bool held() const { return !counted.lazily; }
  // The count of a space not held, in this part: exact, or the estimate's share.
  double part_count() const {
    const SpaceCount& n = *counted.lazily;
    if (n.exact) return static_cast<double>(shard_size(static_cast<std::uint64_t>(n.value), shard));
    return n.value / static_cast<double>(shard.count);
  }
  std::string too_many() const {
    return "the space of " + counted.spec.name + " has " + (counted.lazily->exact ? "" : "about ") +
           count_text(part_count()) + " valid configurations, more than cutune holds in memory";
  }
  std::size_t size() const {
    if (held()) return counted.space.size();
    if (!counted.lazily->exact)
      throw InputError(too_many() + " and too many to count exactly: counts[\"valid\"] is an estimate "
                                    "(counts[\"exact\"] is False); iterate over it or sample() from it");
    return static_cast<std::size_t>(part_count());
  }
  const Config& at(std::size_t i) const {
    if (!held()) throw InputError(too_many() + ": it cannot be indexed; iterate over it or sample() from it");
    if (i >= counted.space.size()) throw nb::index_error("configuration index out of range");
    return counted.space.configs()[i];
  }
  // Calls `visit` with each configuration of this part in enumeration order; returns how many.
  std::uint64_t walk(const nb::callable& visit) const {
    if (held()) {
      for (const Config& c : counted.space.configs()) visit(config_dict(counted.spec, c));
      return counted.space.size();
    }
    const auto to_python = [&](const Config& c) { visit(config_dict(counted.spec, c)); };
    return shard_size(walk_lazily(request, counted, to_python), shard);
  }

  // Whether `text` ("BM=128,...") names a valid configuration of this part: a space held is searched; one not held
  // asks the constraints and limits (LazySpace::valid), and, for a part of a shard, walks to its position.
  bool contains(const std::string& text) const {
    std::optional<Config> c;
    try {
      c = counted.spec.parse_config(text);
    } catch (const InputError&) {
      return false;  // an unknown name or a value outside the parameter's list: not in the space
    }
    if (held()) return std::find(counted.space.configs().begin(), counted.space.configs().end(), *c) !=
                       counted.space.configs().end();
    const LazySpace space(counted.spec, counted.shape, arch_limits(request.arch));
    if (!space.valid(*c)) return false;
    if (shard.whole()) return true;
    struct Found {};
    std::uint64_t position = 0;
    try {
      space.for_each([&](const Config& other) {
        if (other == *c) throw Found{};
        ++position;
      });
    } catch (const Found&) {
      return shard.holds(position);
    }
    return false;
  }

  // Up to n distinct configurations drawn uniformly, in enumeration order where held (else in the order drawn).
  nb::list sample(std::size_t n, std::uint64_t seed) const {
    nb::list out;
    std::mt19937_64 rng(seed);
    if (held()) {
      std::vector<std::size_t> all(counted.space.size()), picked;
      std::iota(all.begin(), all.end(), std::size_t{0});
      std::sample(all.begin(), all.end(), std::back_inserter(picked), n, rng);
      for (std::size_t i : picked) out.append(config_dict(counted.spec, counted.space.configs()[i]));
      return out;
    }
    if (!shard.whole())
      throw InputError(too_many() + ": sample() draws from a whole space only, not from part " + shard.str());
    const LazySpace space(counted.spec, counted.shape, arch_limits(request.arch));
    std::set<std::string> seen;
    std::uint64_t starts_left = kSampleStarts;
    // A space not held has over kEnumerateUpTo valid configurations: n distinct ones are found unless n is close to
    // that, where the draws run out of starts first and fewer come back.
    while (seen.size() < n && starts_left > 0) {
      std::uint64_t starts = 0;
      const auto c = space.draw(rng, starts_left, &starts);
      starts_left -= std::min(starts, starts_left);
      if (!c) break;
      if (seen.insert(counted.spec.format(*c)).second) out.append(config_dict(counted.spec, *c));
    }
    return out;
  }

  nb::dict counts() const {
    nb::dict d;
    if (!held()) {
      const SpaceCount& n = *counted.lazily;
      const double share = n.exact ? 1.0 : 1.0 / static_cast<double>(shard.count);
      d["valid"] = static_cast<std::uint64_t>(std::llround(part_count()));
      d["exact"] = n.exact;
      d["valid_low"] = static_cast<std::uint64_t>(n.exact ? part_count() : std::floor(n.low * share));
      d["valid_high"] = static_cast<std::uint64_t>(n.exact ? part_count() : std::ceil(n.high * share));
      d["combinations"] = counted.combinations;
      return d;
    }
    const Space& space = counted.space;
    d["valid"] = space.size();
    d["exact"] = true;
    d["combinations"] = space.cartesian_size();
    d["removed_by_constraints"] = space.removed_by_constraints();
    d["removed_by_device"] = space.removed_by_device();
    d["removed_by_target"] = space.removed_by_target();
    d["removed_by_shard"] = space.removed_by_shard();
    return d;
  }
};

}  // namespace

void bind_space(nb::module_& m) {
  nb::class_<SpaceHandle>(m, "_Space")
      .def("__len__", &SpaceHandle::size)
      .def("config", [](const SpaceHandle& s, std::size_t i) { return config_dict(s.counted.spec, s.at(i)); })
      .def("config_text", [](const SpaceHandle& s, std::size_t i) { return s.counted.spec.format(s.at(i)); })
      .def("walk", &SpaceHandle::walk, nb::arg("visit"))
      .def("contains", &SpaceHandle::contains, nb::arg("text"))
      .def("sample", &SpaceHandle::sample, nb::arg("n"), nb::arg("seed"))
      .def_prop_ro("held", &SpaceHandle::held)
      .def_prop_ro("summary", [](const SpaceHandle& s) { return s.summary; })
      .def_prop_ro("kernel", [](const SpaceHandle& s) { return s.counted.spec.name; })
      .def_prop_ro("shape", [](const SpaceHandle& s) -> std::optional<std::string> {
        return s.counted.shape ? std::optional(s.counted.shape->str()) : std::nullopt;
      })
      .def_prop_ro("parameters", [](const SpaceHandle& s) {
        std::vector<std::string> names;
        for (const auto& p : s.counted.spec.parameters) names.push_back(p.name);
        return names;
      })
      .def_prop_ro("counts", &SpaceHandle::counts);

  m.def(
      "space",
      [](const std::string& kernel, const std::string& spec, const std::string& problem, const std::string& shape,
         const std::vector<std::string>& where, const std::string& shard, const std::string& arch) {
        SpaceRequest args;
        args.kernel = kernel;
        args.spec = spec;
        args.problem = problem;
        args.shape = shape;
        args.where = where;
        args.shard = shard;
        args.arch = arch;
        args.count_lazily = true;  // as `tune space`: a space too large to hold is counted, not refused
        auto handle = std::make_unique<SpaceHandle>(SpaceHandle{args, count_space(args), {}, parse_shard(shard)});
        handle->summary = space_summary(args, handle->counted);
        return handle.release();
      },
      nb::arg("kernel"), nb::arg("spec"), nb::arg("problem"), nb::arg("shape"), nb::arg("where"), nb::arg("shard"),
      nb::arg("arch"), nb::rv_policy::take_ownership);
}

}  // namespace cutune::python
