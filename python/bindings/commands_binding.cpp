// space, best and the database commands: the same functions as `tune space`, `tune best` and `tune db`, so the
// answers and the error messages are the command's.
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sstream>

#include "cutune/requests.hpp"
#include "convert.hpp"
#include "cutune/error.hpp"

namespace cutune::python {

namespace {

// A counted space that Python indexes without copying every configuration out.
struct SpaceHandle {
  CountedSpace counted;
  std::string summary;
  const Config& at(std::size_t i) const {
    if (i >= counted.space.size()) throw nb::index_error("configuration index out of range");
    return counted.space.configs()[i];
  }
};

nb::dict import_summary_dict(const ImportSummary& s) {
  nb::dict d;
  d["runs"] = s.runs;
  d["new_runs"] = s.new_runs;
  d["measurements"] = s.measurements;
  d["new_measurements"] = s.new_measurements;
  return d;
}

}  // namespace

void bind_space(nb::module_& m) {
  nb::class_<SpaceHandle>(m, "_Space")
      .def("__len__", [](const SpaceHandle& s) { return s.counted.space.size(); })
      .def("config", [](const SpaceHandle& s, std::size_t i) { return config_dict(s.counted.spec, s.at(i)); })
      .def("config_text", [](const SpaceHandle& s, std::size_t i) { return s.counted.spec.format(s.at(i)); })
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
      .def_prop_ro("counts", [](const SpaceHandle& s) {
        const Space& space = s.counted.space;
        nb::dict d;
        d["valid"] = space.size();
        d["combinations"] = space.cartesian_size();
        d["removed_by_constraints"] = space.removed_by_constraints();
        d["removed_by_device"] = space.removed_by_device();
        d["removed_by_target"] = space.removed_by_target();
        d["removed_by_shard"] = space.removed_by_shard();
        return d;
      });

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
        auto handle = std::make_unique<SpaceHandle>(SpaceHandle{count_space(args), {}});
        handle->summary = space_summary(args, handle->counted);
        return handle.release();
      },
      nb::arg("kernel"), nb::arg("spec"), nb::arg("problem"), nb::arg("shape"), nb::arg("where"), nb::arg("shard"),
      nb::arg("arch"), nb::rv_policy::take_ownership);
}

void bind_best(nb::module_& m) {
  m.def(
      "best",
      [](const std::string& kernel, const std::string& shape, const std::string& db, const std::string& gpu, bool exact,
         const std::string& flush) {
        BestRequest args;
        args.kernel = kernel;
        args.shape = shape;
        args.db = db;
        args.gpu = gpu;
        args.exact = exact;
        args.flush = flush;
        const FoundBest best = find_best(args);
        nb::dict d;
        d["kernel"] = best.spec.name;
        d["version"] = best.found.kernel.hash;
        d["device"] = device_dict(best.found.device);
        d["shape"] = best.found.shape;
        d["rule"] = std::string(to_string(best.found.match));
        d["rule_text"] = best.rule;
        d["flush"] = std::string(to_string(best.flush));
        d["measured"] = best.found.match != Match::Default;
        d["result"] = result_dict(best.spec, best.found.result);
        return d;
      },
      nb::arg("kernel"), nb::arg("shape"), nb::arg("db"), nb::arg("gpu"), nb::arg("exact"), nb::arg("flush"));
}

void bind_db(nb::module_& m) {
  m.def(
      "db_merge",
      [](const std::vector<std::string>& inputs, const std::string& output) {
        const MergeSummary s = merge_command(inputs, output);
        nb::dict d = import_summary_dict(s.added);
        d["inputs"] = s.inputs;
        return d;
      },
      nb::arg("inputs"), nb::arg("output"));
  m.def(
      "db_export",
      [](const std::string& db, const std::string& format, const std::string& output, const std::string& kernel,
         const std::string& device, const std::string& shape, const std::string& flush) {
        std::ostringstream out;
        export_command(db, format, output, out, {kernel, device, shape, flush_from_option(flush)});
        return out.str();
      },
      nb::arg("db"), nb::arg("format"), nb::arg("output"), nb::arg("kernel"), nb::arg("device"), nb::arg("shape"),
      nb::arg("flush"));
  m.def(
      "db_import",
      [](const std::string& file, const std::string& db, const std::string& format, const std::string& device,
         const std::string& kernel, const std::string& shape) {
        return import_summary_dict(import_command(file, db, format, ForeignContext{device, kernel, shape}));
      },
      nb::arg("file"), nb::arg("db"), nb::arg("format"), nb::arg("device"), nb::arg("kernel"), nb::arg("shape"));
  m.def("db_formats", [] {
    nb::list out;
    for (const auto& f : exchange_formats()) out.append(f.name);
    return out;
  });
}

}  // namespace cutune::python
