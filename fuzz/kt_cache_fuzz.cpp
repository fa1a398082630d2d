// libFuzzer target for the Kernel Tuner cache importer: cache files (complete or cut off) into a database.
#include "import_fuzz.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  cutune::fuzz::import_one(cutune::detail::kt_cache_exchange_format, data, size);
  return 0;
}
