// cutune.tune: the `tune` command's run (tune_on_this_machine, cutune/requests.hpp), with progress handed to a Python callable and
// each shape's report returned instead of printed.
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>

#include "cutune/requests.hpp"
#include "convert.hpp"
#include "cutune/error.hpp"
#include "cutune/stop.hpp"

namespace cutune::python {

namespace {

struct TuneCall {
  TuneRequest args;
  nb::object progress;  // None or a callable(shape, done, total, resumed, elapsed_s, best_ms)
};

nb::list run(TuneCall& call) {
  TuneRequest& args = call.args;
  const TunePlan job = prepare_tune(args);  // checks the options, as for `tune`
  TuneHooks hooks;
  hooks.progress = [&call](const Shape& shape, const Progress& p) {
    nb::gil_scoped_acquire gil;
    // Ctrl-C: Python's handler only flags it; stop the run after this configuration, everything measured is stored.
    if (PyErr_CheckSignals() != 0) {
      PyErr_Clear();
      request_stop();
    }
    if (call.progress.is_none()) return;
    call.progress(shape.str(), p.done, p.total, p.resumed, p.elapsed_s,
                  p.best ? nb::object(nb::float_(p.best->median_ms)) : nb::none());
  };
  std::vector<ShapeReport> reports;
  reset_stop();
  {
    nb::gil_scoped_release release;
    try {
      reports = tune_on_this_machine(args, job, hooks);
    } catch (const Interrupted&) {
      reset_stop();
      throw Interrupted("interrupted: every configuration measured so far is stored in " + args.db +
                        "; run the same call again to resume");
    }
  }
  nb::list out;
  for (const auto& r : reports) out.append(shape_report_dict(job.spec, r));
  return out;
}

// The keywords of cutune.tune() that kMeasureOptionFields describes ({"repeats": 5, ...}), checked as `tune` checks
// its options.
void set_measure_numbers(MeasureOptions& measure, const nb::dict& numbers) {
  for (const auto& [key, value] : numbers) {
    const std::string name = nb::cast<std::string>(key);
    if (nb::isinstance<nb::bool_>(value) || !(nb::isinstance<nb::int_>(value) || nb::isinstance<nb::float_>(value))) {
      throw InputError(name + " must be a number, not " + nb::cast<std::string>(nb::str(value.type().attr("__name__"))));
    }
    set_measure_number(measure, name, nb::cast<double>(value));
  }
}

// [{"name", "default", "help"}] of the measurement numbers: what cutune.tune() documents and accepts.
nb::list measure_option_list() {
  nb::list out;
  const MeasureOptions defaults;
  for (const auto& f : kMeasureOptionFields) {
    nb::dict d;
    d["name"] = std::string(f.name);
    d["default"] = is_integer(f) ? nb::object(nb::int_(static_cast<long long>(option_value(defaults, f))))
                                 : nb::object(nb::float_(option_value(defaults, f)));
    d["help"] = std::string(f.help);
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_tune(nb::module_& m) {
  m.def(
      "tune",
      [](const std::string& kernel, const std::string& spec, const std::string& problem, const std::string& shapes,
         const std::vector<std::string>& where, const std::string& db, const std::string& devices,
         const std::string& strategy, std::uint64_t seed, const std::vector<std::string>& start, std::size_t budget,
         double time_budget, unsigned jobs, const std::string& verify, std::optional<double> atol,
         std::optional<double> rtol, const std::string& flush, const nb::dict& measure, bool cache,
         const std::string& cache_dir, bool isolate, bool prior, const std::string& command, nb::object progress) {
        TuneCall call;
        TuneRequest& a = call.args;
        a.kernel = kernel;
        a.spec = spec;
        a.problem = problem;
        a.shapes = shapes;
        a.where = where;
        a.db = db;
        a.devices = devices;
        a.strategy = strategy;
        a.seed = seed;
        a.start = start;
        a.budget = budget;
        a.time_budget_s = time_budget;
        a.jobs = jobs;
        a.measure.atol = atol;
        a.measure.rtol = rtol;
        set_measure_numbers(a.measure, measure);
        a.use_cache = cache;
        a.cache_dir = cache_dir;
        a.isolate = isolate;
        a.prior = prior;
        a.command_line = command;
        a.verify = verify;
        a.flush = flush;
        call.progress = std::move(progress);
        return run(call);
      },
      nb::arg("kernel"), nb::arg("spec"), nb::arg("problem"), nb::arg("shapes"), nb::arg("where"), nb::arg("db"),
      nb::arg("devices"), nb::arg("strategy"), nb::arg("seed"), nb::arg("start"), nb::arg("budget"),
      nb::arg("time_budget"), nb::arg("jobs"), nb::arg("verify"), nb::arg("atol").none(), nb::arg("rtol").none(),
      nb::arg("flush"), nb::arg("measure"), nb::arg("cache"), nb::arg("cache_dir"),
      nb::arg("isolate"), nb::arg("prior"), nb::arg("command"), nb::arg("progress").none());
  m.def("measure_options", &measure_option_list);
}

}  // namespace cutune::python
