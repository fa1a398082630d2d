// A kernel family implemented by a vendor library instead of a CUDA source: the spec's "library" section. Its
// parameters are the library's own configuration (cuBLASLt: the rank among its heuristic's answers, or an algorithm
// id and its configuration attributes), its launch a library call with the spec's arguments; its reference, verification,
// space, database rows and runtime API are those of any spec.
#pragma once

#include <array>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace cutune {

struct KernelSpec;

/// The parameter of a library family that picks the heuristic's answer: 0 its first (the library's own choice).
inline constexpr std::string_view kLibraryRankName = "RANK";
/// The optional parameter that lets the heuristic answer with split-K algorithms whose partial sums are reduced in the
/// output type or in place (1), not only in FP32 (0, the default): cuBLAS's own choice may be among them, and
/// verification keeps those that meet the tolerance at the shape.
inline constexpr std::string_view kLibraryReductionName = "REDUCTION";
/// Answers asked of cuBLASLt's heuristic at most; RANK takes values below it.
inline constexpr int kLibraryMaxRank = 32;

/// The parameters of a configuration family (a cublasLt family with ALGO instead of RANK): the algorithm id
/// (cublasLtMatmulAlgoGetIds) and its CUBLASLT_ALGO_CONFIG_* attributes, as cuBLASLt numbers them.
inline constexpr std::string_view kLibraryAlgoName = "ALGO";
/// The attributes after ALGO, in the order of LibraryAlgoParameters::attributes: tile (cublasLtMatmulTile_t), stages
/// (cublasLtMatmulStages_t), split-K count, reduction scheme (cublasLtReductionScheme_t: 0 none, 1 in place, 2 in the
/// compute type, 4 in the output type), CTA swizzle (0 or 1), custom option, cluster shape (cublasLtClusterShape_t,
/// 0 automatic). An attribute the spec leaves out takes cuBLASLt's default (tile and stages undefined, split-K 1,
/// scheme none, swizzle 0, custom 0, cluster automatic).
inline constexpr std::string_view kLibraryAttributeNames[] = {"TILE",    "STAGES", "SPLITK", "SCHEME",
                                                               "SWIZZLE", "CUSTOM", "CLUSTER"};
inline constexpr std::size_t kLibraryAttributes = std::size(kLibraryAttributeNames);

/// Where a configuration family's parameters are in KernelSpec::parameters.
struct LibraryAlgoParameters {
  std::size_t algo = 0;  ///< ALGO
  /// TILE, STAGES, SPLITK, SCHEME, SWIZZLE, CUSTOM, CLUSTER (kLibraryAttributeNames' order), where the spec has them.
  std::array<std::optional<std::size_t>, kLibraryAttributes> attributes;
};

/// A GEMM through cublasLtMatmul, D = alpha * op(A) * op(B) + beta * C in place of C, row-major (read from the spec's
/// arguments by name: M, N and K the shape, alpha and beta scalars, A, B and C buffers; workspace, scale_a, scale_b
/// and bias when the spec has them).
struct LibrarySpec {
  std::string name;            ///< "cublasLt"
  bool b_transposed = false;   ///< B is N x K with K contiguous (the FP8 GEMMs' layout), else K x N row-major
  bool tf32 = false;           ///< 32-bit float inputs multiplied on the tensor cores as TF32
  /// Positions in KernelSpec::arguments.
  std::size_t a = 0, b = 0, c = 0, alpha = 0, beta = 0;
  std::optional<std::size_t> workspace;  ///< cuBLASLt's workspace: the buffer's bytes are what it may use
  std::optional<std::size_t> scale_a, scale_b;  ///< FP8: device pointers to one float each
  std::optional<std::size_t> bias;              ///< FP8: a vector of N added to every row; a null pointer: none
  std::size_t rank_parameter = 0;               ///< position of RANK in KernelSpec::parameters (a family by rank)
  std::optional<std::size_t> reduction_parameter;  ///< position of REDUCTION, when the spec has it
  /// A configuration family's parameters: the algorithm and its attributes, checked at each shape by
  /// cublasLtMatmulAlgoCheck; nullopt for a family by the heuristic's rank.
  std::optional<LibraryAlgoParameters> algo;
};

/// The libraries a "library" section may name, for messages.
inline constexpr std::string_view kLibraryNames = "cublasLt";

}  // namespace cutune
