// The tuner's own device source (support.cu), embedded like the templates.
#pragma once

#include <string_view>

namespace cutune::detail {

std::string_view support_source();

}  // namespace cutune::detail
