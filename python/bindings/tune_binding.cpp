// cutune.tune: the `tune` command's run (tune_on_this_machine, cutune/requests.hpp), with progress handed to a Python callable and
// each shape's report returned instead of printed.
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <string>

#include "cutune/requests.hpp"
#include "convert.hpp"
#include "cutune/error.hpp"
#include "cutune/stop.hpp"

namespace cutune::python {

namespace {

// The run of a checked request, its progress handed to `progress` (None or a callable(shape, done, total, resumed,
// elapsed_s, best_ms)); a report dict per shape.
nb::list run(const TuneRequest& request, const nb::object& progress) {
  const TunePlan plan = prepare_tune(request);  // checks the options, as for `tune`
  TuneHooks hooks;
  // Per report, the spec it is of: an operation's reports are its implementations' (hooks.implementation says whose).
  std::vector<const KernelSpec*> specs;
  const KernelSpec* tuning = &plan.spec;
  hooks.implementation = [&tuning](const KernelSpec& spec) { tuning = &spec; };
  hooks.report = [&specs, &tuning](const DeviceIdentity&, const ShapeReport&) { specs.push_back(tuning); };
  hooks.progress = [&progress](const Shape& shape, const Progress& p) {
    nb::gil_scoped_acquire gil;
    // Ctrl-C: Python's handler only flags it; stop the run after this configuration, everything measured is stored.
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();
      request_stop();
    }
    if (progress.is_none()) return;
    progress(shape.str(), p.done, p.total, p.resumed, p.elapsed_s,
             p.best ? nb::object(nb::float_(p.best->median_ms)) : nb::none());
  };
  std::vector<ShapeReport> reports;
  reset_stop();
  {
    nb::gil_scoped_release release;
    try {
      reports = tune_on_this_machine(request, plan, hooks);
    } catch (const Interrupted&) {
      reset_stop();
      throw Interrupted("interrupted: every configuration measured so far is stored in " + request.db +
                        "; run the same call again to resume");
    }
  }
  nb::list out;
  for (std::size_t i = 0; i < reports.size(); ++i) {
    out.append(shape_report_dict(i < specs.size() ? *specs[i] : plan.spec, reports[i]));
  }
  return out;
}

// A keyword of cutune.tune() that a row of kTuneOptionFields or kMeasureOptionFields describes ("budget", "repeats",
// ...), checked as `tune` checks its options.
void set_keyword(TuneOptions& options, const std::string& name, const nb::handle& value) {
  if (nb::isinstance<nb::bool_>(value) || !(nb::isinstance<nb::int_>(value) || nb::isinstance<nb::float_>(value))) {
    throw InputError(name + " must be a number, not " + nb::cast<std::string>(nb::str(value.type().attr("__name__"))));
  }
  set_number(options, name, nb::cast<double>(value));
}

// {"name", "default", "help"} of a row: what cutune.tune() documents and accepts.
template <typename Options, typename Field>
nb::dict field_dict(const Options& defaults, const Field& f) {
  nb::dict d;
  d["name"] = std::string(f.name);
  d["default"] = is_integer(f) ? nb::object(nb::int_(static_cast<long long>(option_value(defaults, f))))
                               : nb::object(nb::float_(option_value(defaults, f)));
  d["help"] = std::string(f.help);
  return d;
}

// The numbers cutune.tune() takes as keywords by their rows: the run's, then the measurement's.
nb::list option_field_list() {
  nb::list out;
  const TuneOptions defaults;
  for (const auto& f : kTuneOptionFields) out.append(field_dict(defaults, f));
  for (const auto& f : kMeasureOptionFields) out.append(field_dict(defaults.measure, f));
  return out;
}

// An optional number as Python sees it: None or a float (set only to a float).
nb::object optional_float(const std::optional<double>& value) {
  return value ? nb::object(nb::float_(*value)) : nb::none();
}

}  // namespace

void bind_tune(nb::module_& m) {
  // The run's settings (TuneOptions) as cutune.tune() fills them in; its numbers by name through set().
  nb::class_<TuneOptions>(m, "TuneOptions")
      .def(nb::init<>())
      .def_rw("strategy", &TuneOptions::strategy)
      .def_rw("seed", &TuneOptions::seed)
      .def_rw("start", &TuneOptions::start)
      .def_rw("prior", &TuneOptions::prior)
      .def_rw("time_budget_s", &TuneOptions::time_budget_s)
      .def_rw("compile_threads", &TuneOptions::compile_threads)
      .def_rw("use_cache", &TuneOptions::use_cache)
      .def_rw("cache_dir", &TuneOptions::cache_dir)
      .def_rw("isolate", &TuneOptions::isolate)
      .def_rw("command", &TuneOptions::command)
      .def_prop_rw(
          "atol", [](const TuneOptions& o) { return optional_float(o.measure.atol); },
          [](TuneOptions& o, double value) { o.measure.atol = value; })
      .def_prop_rw(
          "rtol", [](const TuneOptions& o) { return optional_float(o.measure.rtol); },
          [](TuneOptions& o, double value) { o.measure.rtol = value; })
      .def("set", &set_keyword, nb::arg("name"), nb::arg("value"));
  // A tuning request: the texts that name the kernel, shapes, database and GPUs, and its settings.
  nb::class_<TuneRequest>(m, "TuneRequest")
      .def(nb::init<>())
      .def_rw("kernel", &TuneRequest::kernel)
      .def_rw("spec", &TuneRequest::spec)
      .def_rw("problem", &TuneRequest::problem)
      .def_rw("shapes", &TuneRequest::shapes)
      .def_rw("where", &TuneRequest::where)
      .def_rw("follow", &TuneRequest::follow)
      .def_rw("db", &TuneRequest::db)
      .def_rw("devices", &TuneRequest::devices)
      .def_rw("verify", &TuneRequest::verify)
      .def_rw("flush", &TuneRequest::flush)
      .def_rw("options", &TuneRequest::options);
  m.def("tune", &run, nb::arg("request"), nb::arg("progress").none());
  m.def("option_fields", &option_field_list);
}

}  // namespace cutune::python
