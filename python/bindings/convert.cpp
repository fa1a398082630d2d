// Plain Python objects from cutune's values, and cutune's errors as the package's exceptions.
#include "convert.hpp"

#include <nanobind/stl/string.h>

#include "cutune/error.hpp"
#include "cutune/result_fields.hpp"

namespace cutune::python {

nb::object to_python(const Value& v) {
  if (v.is_float()) return nb::float_(v.as_double());
  return nb::int_(v.as_int());
}

nb::dict config_dict(const KernelSpec& spec, const Config& config) {
  nb::dict out;
  for (std::size_t i = 0; i < spec.parameters.size() && i < config.values.size(); ++i) {
    out[spec.parameters[i].name.c_str()] = to_python(config.values[i]);
  }
  return out;
}

nb::dict config_dict(const KernelSpec& spec, const std::string& text) {
  try {
    return config_dict(spec, spec.parse_config(text));
  } catch (const Error&) {
    return {};
  }
}

nb::dict result_dict(const KernelSpec& spec, const Result& r) {
  nb::dict d;
  d["config"] = config_dict(spec, r.config);
  d["config_text"] = r.config;
  d["status"] = std::string(to_string(r.status));
  d["message"] = r.message;
  nb::list samples;
  for (double s : r.samples_ms) samples.append(s);
  d["samples_ms"] = samples;
  d["metric_unit"] = std::string(spec.metric.unit());
  for (const ResultField& f : kResultFields) {
    const std::string name(f.name);
    if (is_integer(f)) {
      d[name.c_str()] = integer_value(r, f);
    } else {
      d[name.c_str()] = field_value(r, f);
    }
  }
  return d;
}

nb::dict device_dict(const DeviceIdentity& device) {
  nb::dict d;
  d["name"] = device.name;
  d["arch"] = device.arch();
  d["sm_count"] = device.sm_count;
  return d;
}

nb::dict shape_report_dict(const KernelSpec& spec, const ShapeReport& r) {
  nb::dict d;
  d["shape"] = r.shape.str();
  d["kernel"] = spec.name;
  d["flush"] = std::string(to_string(r.flush));
  d["space_size"] = r.space_size;
  d["evaluated"] = r.evaluated;
  d["resumed"] = r.resumed;
  d["failed"] = r.failed;
  d["interrupted"] = r.interrupted;
  d["best"] = r.best ? nb::object(result_dict(spec, *r.best)) : nb::none();
  d["verify_stop"] = r.verify_stop;
  d["cache_hits"] = r.cache_hits;
  d["compiled_ahead"] = r.compiled_ahead;
  d["seconds"] = r.seconds;
  d["measure_seconds"] = r.measure_seconds;
  d["idle_seconds"] = r.idle_seconds;
  d["verify_seconds"] = r.verify_seconds;
  d["benchmark_seconds"] = r.benchmark_seconds;
  nb::dict phases;
  for (const auto& [name, field] : kPhaseTimeFields) phases[std::string(name).c_str()] = r.phases.*field;
  d["phases"] = phases;
  nb::list devices;
  for (const auto& share : r.devices) {
    nb::dict s;
    s["name"] = share.name;
    s["ordinal"] = share.ordinal;
    s["measured"] = share.measured;
    s["left"] = share.left;
    devices.append(s);
  }
  d["devices"] = devices;
  return d;
}

namespace {

// The Python classes of cutune.errors, by C++ class; set once by the Python layer (_set_error_classes).
nb::dict& error_classes() {
  static nb::dict* classes = new nb::dict();  // never destroyed: may be used during interpreter shutdown
  return *classes;
}

// The class for a C++ error kind; RuntimeError before the Python layer handed its classes over.
PyObject* class_of(const char* kind) {
  nb::dict& classes = error_classes();
  return classes.contains(kind) ? nb::object(classes[kind]).ptr() : PyExc_RuntimeError;
}

}  // namespace

void register_errors(nb::module_& m) {
  m.def("_set_error_classes", [](nb::dict classes) { error_classes().update(classes); });
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const Interrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const NoDeviceError& e) {
      PyErr_SetString(class_of("NoDeviceError"), e.what());
    } catch (const CudaError& e) {
      PyErr_SetString(class_of("CudaError"), e.what());
    } catch (const SpecError& e) {
      PyErr_SetString(class_of("SpecError"), e.what());
    } catch (const InputError& e) {
      PyErr_SetString(class_of("InputError"), e.what());
    } catch (const DatabaseError& e) {
      PyErr_SetString(class_of("DatabaseError"), e.what());
    } catch (const Error& e) {
      PyErr_SetString(class_of("Error"), e.what());
    }
  });
}

}  // namespace cutune::python
