// cuBLASLt's configuration space beyond its heuristic: an algorithm id with its CUBLASLT_ALGO_CONFIG_* attributes,
// what the algorithm's capability attributes admit, and (LtGemm::configure) whether cublasLtMatmulAlgoCheck accepts
// the combination for a problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cutune/library.hpp"
#include "cutune/spec.hpp"
#include "driver/cublaslt.hpp"

namespace cutune::detail {

/// The data types a matmul is described with (cublasLtMatmulAlgoGetIds and cublasLtMatmulAlgoInit take them), in
/// cuBLASLt's operand order: its A is cutune's B.
struct LtTypes {
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale = CUDA_R_32F, a = CUDA_R_32F, b = CUDA_R_32F, c = CUDA_R_32F, d = CUDA_R_32F;
};

/// One configuration of a cuBLASLt algorithm, the attributes' widths as cublasLtMatmulAlgoConfigSetAttribute takes
/// them. The defaults are cuBLASLt's.
struct LtAlgoConfig {
  std::int32_t algo = 0;
  std::uint32_t tile = 0;     ///< cublasLtMatmulTile_t; 0 undefined
  std::uint32_t stages = 0;   ///< cublasLtMatmulStages_t; 0 undefined
  std::int32_t splitk = 1;    ///< K split in this many parts; -1 the algorithm's own split (some sm_90 answers)
  std::uint32_t scheme = 0;   ///< cublasLtReductionScheme_t of the split-K partial sums; 0 none
  std::uint32_t swizzle = 0;  ///< CTA swizzling, 0 or 1
  std::uint32_t custom = 0;   ///< the algorithm's custom option
  std::uint16_t cluster = 0;  ///< cublasLtClusterShape_t; 0 automatic
  bool operator==(const LtAlgoConfig&) const = default;
};

/// A configuration family's configuration (spec.library->algo set) in cuBLASLt's terms; attributes the spec has no
/// parameter for take cuBLASLt's defaults.
LtAlgoConfig lt_algo_config(const KernelSpec& spec, const Config& config);

/// The same configuration in the family's canonical form, "ALGO=66,TILE=24,...": the parameters the spec has, in its
/// order (the heuristic's answer as a configuration of the family). Throws InputError naming an attribute that differs
/// from cuBLASLt's default where the spec has no parameter for it.
std::string lt_config_text(const KernelSpec& spec, const LtAlgoConfig& config);

/// "algorithm 66, tile 24, stages 20, split-K 1, swizzle 1, custom 0, cluster 2" (and the scheme when split).
std::string describe(const LtAlgoConfig& config);

/// What an initialized algorithm supports (cublasLtMatmulAlgoCapGetAttribute).
struct LtCapabilities {
  std::vector<std::uint32_t> tiles;   ///< CUBLASLT_ALGO_CAP_TILE_IDS; empty: undefined only
  std::vector<std::uint32_t> stages;  ///< CUBLASLT_ALGO_CAP_STAGES_IDS; empty: undefined only
  bool splitk = false;                ///< CUBLASLT_ALGO_CAP_SPLITK_SUPPORT
  std::uint32_t reduction_mask = 0;   ///< CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK
  bool swizzle = false;               ///< CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT
  std::int32_t custom_max = 0;        ///< CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX
};

/// Why an algorithm of capabilities `caps` cannot take `config` ("algorithm 66 has no tile 17"), or nullopt. A tile or
/// stages id of 0 (undefined) is left to cublasLtMatmulAlgoCheck, as is the cluster shape (no capability lists them).
std::optional<std::string> capability_refusal(const LtCapabilities& caps, const LtAlgoConfig& config);

/// The capabilities of an algorithm cublasLtMatmulAlgoInit initialized; a capability that cannot be read counts as
/// unsupported.
LtCapabilities read_capabilities(const CublasLtApi& lt, const cublasLtMatmulAlgo_t& algo);

/// The configuration an algorithm holds (a heuristic's answer, or one configured); unreadable attributes read 0.
LtAlgoConfig read_config(const CublasLtApi& lt, const cublasLtMatmulAlgo_t& algo);

/// An algorithm configured for one problem, or why cuBLASLt refuses it there.
struct LtConfigured {
  cublasLtMatmulAlgo_t algo{};
  std::optional<std::string> refusal;  ///< nullopt: cublasLtMatmulAlgoCheck accepted it
  std::size_t workspace = 0;           ///< bytes of workspace it needs (cublasLtMatmulAlgoCheck's answer)
};

/// The algorithm ids cuBLASLt has for the types (cublasLtMatmulAlgoGetIds), at most `most`.
std::vector<int> lt_algorithm_ids(const CublasLtApi& lt, cublasLtHandle_t handle, const LtTypes& types, int most = 256);

}  // namespace cutune::detail
