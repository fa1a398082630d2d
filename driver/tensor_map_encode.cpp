// Maps a tensor map's layout onto cuTensorMapEncodeTiled's enumerations and calls it.
#include "tensor_map_encode.hpp"

namespace cutune::detail {

TensorMapEncoding tensor_map_encoding(const TensorMapLayout& layout) {
  TensorMapEncoding e;
  switch (layout.type) {
    case ElementType::Float32: e.type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; break;
    case ElementType::Float64: e.type = CU_TENSOR_MAP_DATA_TYPE_FLOAT64; break;
    case ElementType::Int32: e.type = CU_TENSOR_MAP_DATA_TYPE_INT32; break;
    case ElementType::Int64: e.type = CU_TENSOR_MAP_DATA_TYPE_INT64; break;
    case ElementType::UInt32: e.type = CU_TENSOR_MAP_DATA_TYPE_UINT32; break;
    case ElementType::BFloat16: e.type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; break;
    case ElementType::Float16: e.type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; break;
    // One-byte and 16-bit integers move as bytes and 16-bit words; the driver has no signed 8-bit or 16-bit type.
    case ElementType::Int8: case ElementType::UInt8: case ElementType::Bool:
    case ElementType::Float8E4M3: case ElementType::Float8E5M2: e.type = CU_TENSOR_MAP_DATA_TYPE_UINT8; break;  // bytes
    case ElementType::Int16: case ElementType::UInt16: e.type = CU_TENSOR_MAP_DATA_TYPE_UINT16; break;
    case ElementType::UInt64: e.type = CU_TENSOR_MAP_DATA_TYPE_INT64; break;
  }
  switch (layout.swizzle) {
    case 32: e.swizzle = CU_TENSOR_MAP_SWIZZLE_32B; break;
    case 64: e.swizzle = CU_TENSOR_MAP_SWIZZLE_64B; break;
    case 128: e.swizzle = CU_TENSOR_MAP_SWIZZLE_128B; break;
    default: e.swizzle = CU_TENSOR_MAP_SWIZZLE_NONE; break;
  }
  switch (layout.l2_promotion) {
    case 0: e.l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE; break;
    case 64: e.l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_64B; break;
    case 256: e.l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B; break;
    default: e.l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B; break;
  }
  e.oob_fill = layout.oob_nan ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  return e;
}

CUresult encode_tensor_map(const TensorMapLayout& layout, CUdeviceptr address, CUtensorMap* out) {
  const TensorMapEncoding e = tensor_map_encoding(layout);
  // Element strides are all 1: every element of the box is loaded.
  const cuuint32_t element_strides[5] = {1, 1, 1, 1, 1};
  return driver().cuTensorMapEncodeTiled(out, e.type, layout.rank, reinterpret_cast<void*>(address), layout.dims.data(),
                                         layout.strides.data(), layout.box.data(), element_strides,
                                         CU_TENSOR_MAP_INTERLEAVE_NONE, e.swizzle, e.l2_promotion, e.oob_fill);
}

}  // namespace cutune::detail
