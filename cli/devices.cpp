// `tune --devices`: opens the chosen GPUs and checks that one run measures on one model only.
#include "commands.hpp"

#include "cutune/error.hpp"

namespace cutune::cli {


}  // namespace cutune::cli
