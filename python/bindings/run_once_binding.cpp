// cutune._cutune._RunOnce: a spec's kernel at one shape on one GPU, launched once per configuration with every buffer
// read back (Workbench::run_once), for cutune.kernel_tuner's run_kernel and verify functions; and the version of a
// spec file, which selects its results in a database.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "convert.hpp"
#include "cutune/cubin_cache.hpp"
#include "cutune/device.hpp"
#include "cutune/measure.hpp"

namespace cutune::python {

namespace {

// Members in the order they are built: the workbench refers to the spec, the shape and the device.
class RunOnce {
 public:
  RunOnce(const std::string& spec_path, const std::string& shape, int ordinal)
      : spec_(KernelSpec::load(std::filesystem::path(spec_path))),
        shape_(spec_.parse_shape(shape)),
        device_(ordinal),
        bench_(device_, spec_, shape_, options(), L2Flush::None) {}

  // Each kernel parameter's contents after one launch of `config` (text "name=value,..."): bytes, or None for a
  // scalar and for a buffer whose entry of `read_back` is false (empty: every buffer).
  nb::list run(const std::string& config_text, const std::vector<bool>& read_back) {
    const Config config = spec_.parse_config(config_text);
    std::vector<std::vector<unsigned char>> contents;
    {
      nb::gil_scoped_release release;
      const CompileOutput compiled =
          compile_config_cached(&cache_, spec_, config, device_.identity().arch(), &shape_);
      contents = bench_.run_once(config, compiled, read_back);
    }
    nb::list out;
    std::size_t i = 0;
    for (const Argument& a : spec_.arguments) {
      if (!a.is_parameter()) continue;
      const bool wanted = i >= read_back.size() || read_back[i];
      const auto& bytes = contents.at(i++);
      out.append(a.is_buffer && wanted ? nb::object(nb::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size()))
                             : nb::none());
    }
    return out;
  }

  nb::dict device() const { return device_dict(device_.identity()); }

 private:
  // Nothing compared (the caller checks), the inputs from the spec's fills.
  static MeasureOptions options() {
    MeasureOptions o;
    o.verify = VerifyMode::None;
    return o;
  }

  KernelSpec spec_;
  Shape shape_;
  Device device_;
  Workbench bench_;
  CubinCache cache_;
};

}  // namespace

void bind_run_once(nb::module_& m) {
  nb::class_<RunOnce>(m, "_RunOnce")
      .def(nb::init<const std::string&, const std::string&, int>(), nb::arg("spec"), nb::arg("shape"),
           nb::arg("device"))
      .def("run", &RunOnce::run, nb::arg("config"), nb::arg("read_back"))
      .def_prop_ro("device", &RunOnce::device);
  m.def("_spec_version", [](const std::string& path) { return KernelSpec::load(std::filesystem::path(path)).hash; });
}

}  // namespace cutune::python
