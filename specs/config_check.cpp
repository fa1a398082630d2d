// Whether a configuration read from somewhere else (a database, a file) is one of a spec's valid configurations.
#include "cutune/error.hpp"
#include "cutune/spec.hpp"

namespace cutune {

std::optional<std::string> invalid_config(const KernelSpec& spec, std::string_view config, std::string_view shape) {
  try {
    const Config parsed = spec.parse_config(config);
    const Shape dims = spec.parse_shape(shape);
    const auto scope = spec.scope(parsed, &dims);
    for (const Expr& c : spec.constraints) {
      if (!c.eval(scope).truthy()) return "it violates the constraint '" + c.text() + "' of " + spec.name;
    }
  } catch (const Error& e) {
    return e.what();
  }
  return std::nullopt;
}

}  // namespace cutune
