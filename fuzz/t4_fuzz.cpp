// libFuzzer target for the T4 importer: T4 result files (cutune's, Kernel Tuner's and KTT's dialects) into a database.
#include "import_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cutune::fuzz::import_one(cutune::detail::t4_exchange_format, data, size);
  return 0;
}
