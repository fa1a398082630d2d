// cublasLtMatmul on cutune's row-major GEMM layouts: cuBLASLt is column-major, so it computes C^T = op(B)^T A^T with
// its A operand our B and its B operand our A, and C^T column-major is C row-major.
#include "cublaslt_gemm.hpp"

#include <fmt/format.h>

#include <cstring>

#include "cutune/error.hpp"

namespace cutune::detail {
namespace {

cudaDataType_t data_type(ElementType t) {
  switch (t) {
    case ElementType::BFloat16: return CUDA_R_16BF;
    case ElementType::Float16: return CUDA_R_16F;
    case ElementType::Float8E4M3: return CUDA_R_8F_E4M3;
    case ElementType::Float8E5M2: return CUDA_R_8F_E5M2;
    default: return CUDA_R_32F;  // the spec reader admits no other type
  }
}

void check_lt(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw CudaError(describe(status, call));
}

}  // namespace

LtOperands lt_operands(const LibrarySpec& library, const std::function<const void*(std::size_t)>& address) {
  const auto pointer = [&](std::size_t i) {
    void* p = nullptr;
    std::memcpy(&p, address(i), sizeof p);
    return p;
  };
  const auto scalar = [&](std::size_t i) {
    float v = 0.0f;
    std::memcpy(&v, address(i), sizeof v);
    return v;
  };
  LtOperands o;
  o.a = pointer(library.a);
  o.b = pointer(library.b);
  o.c = pointer(library.c);
  o.alpha = scalar(library.alpha);
  o.beta = scalar(library.beta);
  if (library.workspace) o.workspace = pointer(*library.workspace);
  if (library.scale_a) o.scale_a = pointer(*library.scale_a);
  if (library.scale_b) o.scale_b = pointer(*library.scale_b);
  if (library.bias) o.bias = pointer(*library.bias);
  return o;
}

std::size_t lt_workspace_bytes(const KernelSpec& spec, const Shape& shape) {
  if (!spec.library->workspace) return 0;
  const Argument& w = spec.arguments[*spec.library->workspace];
  const std::int64_t count = w.size.eval(spec.scope(spec.default_config(), &shape)).as_int();
  return static_cast<std::size_t>(count) * element_size(w.type);
}

LtChoice lt_choice(const KernelSpec& spec, const Config& config) {
  const LibrarySpec& library = *spec.library;
  LtChoice c;
  c.rank = static_cast<std::size_t>(config.values[library.rank_parameter].as_int());
  c.any_reduction = library.reduction_parameter && config.values[*library.reduction_parameter].as_int() == 1;
  return c;
}

LtGemm::LtGemm(const KernelSpec& spec, const Shape& shape, bool with_bias, bool any_reduction)
    : lt_(cublaslt(spec.name)), name_(spec.name), with_bias_(with_bias) {
  const LibrarySpec& library = *spec.library;
  const ElementType a = spec.arguments[library.a].type, c = spec.arguments[library.c].type;
  fp8_ = a == ElementType::Float8E4M3 || a == ElementType::Float8E5M2;
  const auto m = static_cast<std::uint64_t>(shape.dims[0]), n = static_cast<std::uint64_t>(shape.dims[1]),
             k = static_cast<std::uint64_t>(shape.dims[2]);
  check_lt(lt_.cublasLtCreate(&handle_), "cublasLtCreate");
  const cudaDataType_t b_type = data_type(spec.arguments[library.b].type);
  types_ = {library.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F, b_type, data_type(a),
            data_type(c), data_type(c)};
  check_lt(lt_.cublasLtMatmulDescCreate(&desc_, types_.compute, types_.scale), "cublasLtMatmulDescCreate");
  set_operation(library, with_bias ? std::optional(data_type(c)) : std::nullopt);
  // cuBLASLt's A is our B: N x K column-major (ld N) as it is, or, when B is N x K row-major, K x N transposed.
  if (library.b_transposed) {
    check_lt(lt_.cublasLtMatrixLayoutCreate(&a_, b_type, k, n, static_cast<std::int64_t>(k)), "cublasLtMatrixLayoutCreate");
  } else {
    check_lt(lt_.cublasLtMatrixLayoutCreate(&a_, b_type, n, k, static_cast<std::int64_t>(n)), "cublasLtMatrixLayoutCreate");
  }
  check_lt(lt_.cublasLtMatrixLayoutCreate(&b_, data_type(a), k, m, static_cast<std::int64_t>(k)),
           "cublasLtMatrixLayoutCreate");
  check_lt(lt_.cublasLtMatrixLayoutCreate(&c_, data_type(c), n, m, static_cast<std::int64_t>(n)),
           "cublasLtMatrixLayoutCreate");
  workspace_bytes_ = lt_workspace_bytes(spec, shape);
  find_answers(workspace_bytes_, any_reduction);
}

LtGemm::~LtGemm() {
  for (auto* l : {a_, b_, c_})
    if (l != nullptr) lt_.cublasLtMatrixLayoutDestroy(l);
  if (desc_ != nullptr) lt_.cublasLtMatmulDescDestroy(desc_);
  if (handle_ != nullptr) lt_.cublasLtDestroy(handle_);
}

void LtGemm::set_operation(const LibrarySpec& library, std::optional<cudaDataType_t> bias) {
  const auto set = [&](cublasLtMatmulDescAttributes_t attribute, const auto& value) {
    check_lt(lt_.cublasLtMatmulDescSetAttribute(desc_, attribute, &value, sizeof value), "cublasLtMatmulDescSetAttribute");
  };
  set(CUBLASLT_MATMUL_DESC_TRANSA, library.b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N);
  set(CUBLASLT_MATMUL_DESC_TRANSB, CUBLAS_OP_N);
  if (bias) {
    set(CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_BIAS);
    set(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, *bias);
  }
}

void LtGemm::find_answers(std::size_t workspace_bytes, bool any_reduction) {
  cublasLtMatmulPreference_t preference = nullptr;
  check_lt(lt_.cublasLtMatmulPreferenceCreate(&preference), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t bytes = workspace_bytes;
  cublasStatus_t s = lt_.cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                              &bytes, sizeof bytes);
  // Unless asked for any: split-K partial sums reduced in FP32 only, as the templates reduce theirs. The in-place and
  // output-type schemes add rounded 16-bit partials, several units in the last place off at odd shapes (measured on an
  // H200), which the operation's tolerance refuses there.
  const std::uint32_t reductions = any_reduction ? CUBLASLT_REDUCTION_SCHEME_MASK : CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = lt_.cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reductions,
                                                 sizeof reductions);
  }
  answers_.resize(kLibraryMaxRank);
  int found = 0;
  if (s == CUBLAS_STATUS_SUCCESS) {
    s = lt_.cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_, b_, c_, c_, preference, kLibraryMaxRank,
                                           answers_.data(), &found);
  }
  lt_.cublasLtMatmulPreferenceDestroy(preference);
  answers_.resize(s == CUBLAS_STATUS_SUCCESS ? static_cast<std::size_t>(found) : 0);
  if (answers_.empty()) refusal_ = describe(s, "cublasLtMatmulAlgoGetHeuristic");
}

std::optional<std::string> LtGemm::unavailable(std::size_t rank) const {
  if (rank < answers_.size()) return std::nullopt;
  if (answers_.empty()) return name_ + ": cuBLASLt has no algorithm for this problem (" + refusal_ + ")";
  return fmt::format("{}: cuBLASLt's heuristic gave {} answer(s) for this problem, none of rank {}", name_,
                     answers_.size(), rank);
}

std::string LtGemm::describe_answer(std::size_t rank) const {
  return fmt::format("{}, workspace {} B", describe(read_config(lt_, answers_.at(rank).algo)),
                     answers_.at(rank).workspaceSize);
}

cublasStatus_t LtGemm::enqueue(const cublasLtMatmulAlgo_t& algo, const LtOperands& o, CUstream stream) const {
  const auto matmul = [&](const void* c_in) {
    return lt_.cublasLtMatmul(handle_, desc_, &o.alpha, o.b, a_, o.a, b_, &o.beta, c_in, c_, o.c, c_, &algo,
                              o.workspace, workspace_bytes_,
                              reinterpret_cast<cudaStream_t>(stream));
  };
  if (!fp8_) return matmul(o.c);
  // The scales and the bias are pointers in the descriptor; its A is our B, so its A scale is ours of B. C is read
  // in place when beta is not 0 and left out otherwise (FP8 matmuls refuse an unread C that aliases D).
  const std::lock_guard lock(pointers_);
  const auto set = [&](cublasLtMatmulDescAttributes_t attribute, const void* value) {
    return lt_.cublasLtMatmulDescSetAttribute(desc_, attribute, &value, sizeof value);
  };
  cublasStatus_t s = set(CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, o.scale_b);
  if (s == CUBLAS_STATUS_SUCCESS) s = set(CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, o.scale_a);
  if (s == CUBLAS_STATUS_SUCCESS && with_bias_) s = set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, o.bias);
  if (s != CUBLAS_STATUS_SUCCESS) return s;
  return matmul(o.beta != 0.0f ? o.c : nullptr);
}

}  // namespace cutune::detail
