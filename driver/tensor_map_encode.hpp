// Encodes a spec's tensor-map arguments with the driver (cuTensorMapEncodeTiled), for the workbench and the runtime.
#pragma once

#include "cuda_driver.hpp"
#include "cutune/tensor_map.hpp"

namespace cutune::detail {

/// cuTensorMapEncodeTiled's enumerations for a layout.
struct TensorMapEncoding {
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  CUtensorMapFloatOOBfill oob_fill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
};
TensorMapEncoding tensor_map_encoding(const TensorMapLayout& layout);

/// Encodes `layout` over the tensor at `address` into `out`; the driver's result (CUDA_ERROR_INVALID_VALUE for
/// what it rejects, e.g. an address not 16-byte aligned).
CUresult encode_tensor_map(const TensorMapLayout& layout, CUdeviceptr address, CUtensorMap* out);

}  // namespace cutune::detail
