// PreparedLaunch (prepared_launch.hpp) and its binding, cutune._cutune._PreparedLaunch.
#include "prepared_launch.hpp"

#include <array>
#include <string>

#include "convert.hpp"
#include "cutune/error.hpp"

namespace cutune::python {

PreparedLaunch::PreparedLaunch(const RuntimeKernel& kernel, std::vector<std::uint64_t> packed,
                               std::vector<std::size_t> bytes, std::vector<std::vector<std::size_t>> targets)
    : kernel_(&kernel), packed_(std::move(packed)), bytes_(std::move(bytes)), targets_(std::move(targets)) {}

void PreparedLaunch::launch(std::uintptr_t stream, nb::args addresses) const {
  if (addresses.size() != targets_.size()) {
    throw InputError(kernel_->spec().name + "'s prepared launch takes " + std::to_string(targets_.size()) +
                     " addresses, got " + std::to_string(addresses.size()));
  }
  // A copy per call: launches from several threads at once share nothing.
  constexpr std::size_t kSmall = 32;
  const std::size_t count = packed_.size();
  std::array<std::uint64_t, kSmall> small{};
  std::array<KernelArg, kSmall> small_args{};
  std::vector<std::uint64_t> large(count > kSmall ? count : 0);
  std::vector<KernelArg> large_args(count > kSmall ? count : 0);
  std::uint64_t* storage = count > kSmall ? large.data() : small.data();
  KernelArg* args = count > kSmall ? large_args.data() : small_args.data();
  std::copy(packed_.begin(), packed_.end(), storage);
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    std::uint64_t address = 0;
    if (!nb::try_cast<std::uint64_t>(addresses[i], address)) {
      throw InputError(kernel_->spec().name + "'s prepared launch: address " + std::to_string(i + 1) +
                       " is not an unsigned integer");
    }
    for (std::size_t t : targets_[i]) storage[t] = address;
  }
  for (std::size_t i = 0; i < count; ++i) args[i] = KernelArg{&storage[i], bytes_[i]};
  kernel_->launch(reinterpret_cast<void*>(stream), args, count);
}

void bind_prepared_launch(nb::module_& m) {
  nb::class_<PreparedLaunch>(m, "_PreparedLaunch")
      .def("__call__", &PreparedLaunch::launch)
      .def_prop_ro("slots", &PreparedLaunch::slots);
}

}  // namespace cutune::python
