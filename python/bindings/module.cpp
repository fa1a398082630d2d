// The extension module cutune._cutune: thin bindings over the `tune` command's library (cli/commands.hpp) and the
// runtime API. The Python layer (python/cutune/) turns what they return into the package's classes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "convert.hpp"
#include "cutune/strategy.hpp"
#include "cutune/templates.hpp"

namespace {

// As `tune` does: warnings and errors on stderr, SPDLOG_LEVEL=info shows what the tuner is doing.
void setup_logging() {
  auto logger = std::make_shared<spdlog::logger>("cutune", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  logger->set_pattern("cutune %^%l%$: %v");
  logger->set_level(spdlog::level::warn);
  spdlog::register_logger(logger);
  spdlog::set_default_logger(logger);
  spdlog::cfg::load_env_levels();
}

}  // namespace

NB_MODULE(_cutune, m) {
  namespace nb = nanobind;
  using namespace cutune::python;
  setup_logging();
  m.attr("__version__") = CUTUNE_VERSION;
  register_errors(m);

  m.def("kernels", [] {
    nb::list out;
    for (const auto& name : cutune::builtin_kernels()) {
      const cutune::KernelSpec spec = cutune::load_kernel(name);
      nb::dict d;
      d["name"] = spec.name;
      d["description"] = spec.description;
      d["version"] = spec.hash;
      d["shape"] = spec.shape_names;
      nb::list parameters;
      for (const auto& p : spec.parameters) parameters.append(p.name);
      d["parameters"] = parameters;
      out.append(d);
    }
    return out;
  });
  m.def("default_strategy", [] { return std::string(cutune::kDefaultStrategy); });
  m.def("strategies", [] { return cutune::strategy_names(); });
  bind_space(m);
  bind_best(m);
  bind_tune(m);
  bind_runtime(m);
  bind_prepared_launch(m);
  bind_db(m);
  bind_run_once(m);
}
