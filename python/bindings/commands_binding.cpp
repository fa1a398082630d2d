// best and the database commands: the same functions as `tune best` and `tune db`, so the answers and the error
// messages are the command's (space_binding.cpp: `tune space`).
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <sstream>

#include "cutune/requests.hpp"
#include "convert.hpp"
#include "cutune/error.hpp"

namespace cutune::python {

namespace {

nb::dict import_summary_dict(const ImportSummary& s) {
  nb::dict d;
  d["runs"] = s.runs;
  d["new_runs"] = s.new_runs;
  d["measurements"] = s.measurements;
  d["new_measurements"] = s.new_measurements;
  return d;
}

}  // namespace

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
