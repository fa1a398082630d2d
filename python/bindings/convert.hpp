// From cutune's C++ values to the plain Python objects the package's Python layer wraps (dicts, lists, numbers).
#pragma once

#include <nanobind/nanobind.h>

#include "cutune/database.hpp"
#include "cutune/spec.hpp"
#include "cutune/tuner.hpp"

namespace cutune::python {

namespace nb = nanobind;

/// A number of a configuration or scope: int or float.
nb::object to_python(const Value& v);
/// {"BM": 128, ...} in the spec's parameter order.
nb::dict config_dict(const KernelSpec& spec, const Config& config);
/// The same from a stored configuration text; an unparsable text (another version of the spec) gives an empty dict.
nb::dict config_dict(const KernelSpec& spec, const std::string& text);
/// One measured configuration: config, status, times, metric, resources.
nb::dict result_dict(const KernelSpec& spec, const Result& r);
/// One shape's outcome of a tuning run.
nb::dict shape_report_dict(const KernelSpec& spec, const ShapeReport& r);
nb::dict device_dict(const DeviceIdentity& d);

/// Makes every cutune::Error thrown through a binding raise the package's own exception classes (cutune.errors),
/// which the Python layer hands over once at import.
void register_errors(nb::module_& m);

void bind_space(nb::module_& m);
void bind_tune(nb::module_& m);
void bind_best(nb::module_& m);
void bind_runtime(nb::module_& m);
void bind_prepared_launch(nb::module_& m);
void bind_db(nb::module_& m);
void bind_run_once(nb::module_& m);

}  // namespace cutune::python
