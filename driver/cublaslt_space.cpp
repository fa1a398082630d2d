// The heuristic's answers as configurations, and what cuBLASLt runs, of a configuration family
// (cublaslt_space.hpp).
#include "cublaslt_space.hpp"

#include <array>
#include <map>
#include <memory>
#include <optional>

#include "cutune/error.hpp"
#include "driver/cublaslt_gemm.hpp"

namespace cutune::detail {

std::vector<Config> heuristic_start(const KernelSpec& spec, const Shape& shape, std::size_t most, std::string& why) {
  std::vector<Config> out;
  try {
    const LtGemm gemm(spec, shape, spec.library->bias.has_value());
    if (auto none = gemm.unavailable(0)) why = *none;
    for (std::size_t rank = 0; rank < std::min(most, gemm.answers()); ++rank) {
      const LtAlgoConfig answer = read_config(cublaslt(spec.name), gemm.answer(rank));
      try {
        out.push_back(spec.parse_config(lt_config_text(spec, answer)));
      } catch (const Error&) {  // a value outside the spec's lists: not a configuration of this family
      }
    }
  } catch (const Error& e) {
    why = e.what();
  }
  return out;
}

namespace {

// A rank family runs the ranks below the number of answers the heuristic gives for the configuration's reduction
// choice; with no answer for either, every rank is measured and refused there with the heuristic's reason.
std::function<bool(const Config&)> rank_filter(const KernelSpec& spec, const Shape& shape, std::string& why) {
  std::array<std::size_t, 2> answers{};
  try {
    for (const bool any : {false, true}) {
      const LtGemm gemm(spec, shape, spec.library->bias.has_value(), any);
      answers[any] = gemm.answers();
      if (answers[any] == 0) why = gemm.unavailable(0).value_or("no answer");
    }
  } catch (const Error& e) {
    why = e.what();
    return {};
  }
  if (answers[0] == 0 && answers[1] == 0) return {};
  return [&spec, answers](const Config& config) {
    const LtChoice c = lt_choice(spec, config);
    return c.rank < answers[c.any_reduction ? 1 : 0];
  };
}

}  // namespace

std::function<bool(const Config&)> library_filter(const KernelSpec& spec, const Shape& shape, std::string& why) {
  if (!spec.library->algo) return rank_filter(spec, shape, why);
  std::shared_ptr<const LtGemm> gemm;
  try {
    gemm = std::make_shared<const LtGemm>(spec, shape, spec.library->bias.has_value());  // as the bench plans it
  } catch (const Error& e) {
    why = e.what();
    return {};
  }
  // The capabilities of each algorithm id met, nullopt for one cublasLtMatmulAlgoInit refuses.
  auto known = std::make_shared<std::map<std::int32_t, std::optional<LtCapabilities>>>();
  const CublasLtApi& lt = cublaslt(spec.name);
  return [&spec, gemm, known, &lt](const Config& config) {
    const LtAlgoConfig c = lt_algo_config(spec, config);
    auto it = known->find(c.algo);
    if (it == known->end()) {
      cublasLtMatmulAlgo_t algo{};
      const LtTypes& t = gemm->types();
      const bool exists = lt.cublasLtMatmulAlgoInit(gemm->handle(), t.compute, t.scale, t.a, t.b, t.c, t.d, c.algo,
                                                    &algo) == CUBLAS_STATUS_SUCCESS;
      it = known->emplace(c.algo, exists ? std::optional(read_capabilities(lt, algo)) : std::nullopt).first;
    }
    return it->second && !capability_refusal(*it->second, c) && !gemm->configure(c).refusal;
  };
}

}  // namespace cutune::detail
