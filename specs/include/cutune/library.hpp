// A kernel family implemented by a vendor library instead of a CUDA source: the spec's "library" section. Its
// parameters are the library's own configuration (cuBLASLt: the rank among its heuristic's answers), its launch a
// library call with the spec's arguments; its reference, verification, space, database rows and runtime API are
// those of any spec.
#pragma once

#include <cstddef>
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
  std::size_t rank_parameter = 0;               ///< position of RANK in KernelSpec::parameters
  std::optional<std::size_t> reduction_parameter;  ///< position of REDUCTION, when the spec has it
};

/// The libraries a "library" section may name, for messages.
inline constexpr std::string_view kLibraryNames = "cublasLt";

}  // namespace cutune
