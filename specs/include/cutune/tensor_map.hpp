// TMA tensor-map arguments: the numbers cuTensorMapEncodeTiled gets for one configuration and shape.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "cutune/spec.hpp"

namespace cutune {

/// A tensor map's encoding parameters in cuTensorMapEncodeTiled's terms (interleave none, element strides 1).
struct TensorMapLayout {
  ElementType type = ElementType::Float32;
  std::uint32_t rank = 0;
  std::array<std::uint64_t, 5> dims{};     ///< elements per dimension, innermost first
  std::array<std::uint64_t, 4> strides{};  ///< bytes from one index of dims[i + 1] to the next
  std::array<std::uint32_t, 5> box{};      ///< elements per dimension of the box copied to shared memory
  int swizzle = 0;                         ///< bytes: 0 (none), 32, 64 or 128
  int l2_promotion = 128;                  ///< bytes: 0 (none), 64, 128 or 256
  bool oob_nan = false;
  std::size_t buffer_index = 0;            ///< the argument whose device pointer is the tensor's address
  /// Bytes one box fills in shared memory (what an mbarrier expects a load to deliver).
  std::uint64_t box_bytes() const;
};

/// The layout of tensor-map argument `a` of `spec` at a configuration and shape. Throws InputError naming the
/// argument and the limit when a number is outside what the driver accepts (the space's constraints remove such
/// configurations; this catches configurations given directly).
TensorMapLayout tensor_map_layout(const KernelSpec& spec, const Argument& a, const Config& config, const Shape& shape);

/// Whether a configuration reads tensor-map argument `a`: its "when" holds (`scope` as KernelSpec::scope()), or it has
/// none. False for an argument that is not a tensor map. Unread maps are passed as zero bytes and never encoded.
bool tensor_map_used(const Argument& a, const std::vector<Value>& scope);
bool tensor_map_used(const KernelSpec& spec, const Argument& a, const Config& config);

/// The spec's tensor-map arguments, as positions in KernelSpec::arguments.
std::vector<std::size_t> tensor_map_arguments(const KernelSpec& spec);

}  // namespace cutune
