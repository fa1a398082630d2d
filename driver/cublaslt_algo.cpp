// cuBLASLt algorithms configured by attribute: decoding a configuration family's parameters, the capability checks,
// and LtGemm::configure (cublasLtMatmulAlgoInit, cublasLtMatmulAlgoConfigSetAttribute, cublasLtMatmulAlgoCheck).
#include "cublaslt_algo.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cutune/error.hpp"
#include "driver/cublaslt_gemm.hpp"

namespace cutune::detail {
namespace {

constexpr cublasLtMatmulAlgoConfigAttributes_t kAttributeIds[kLibraryAttributes] = {
    CUBLASLT_ALGO_CONFIG_TILE_ID,       CUBLASLT_ALGO_CONFIG_STAGES_ID,     CUBLASLT_ALGO_CONFIG_SPLITK_NUM,
    CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION,
    CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID};

// The attribute values of `c` in kLibraryAttributeNames' order, widened.
std::array<std::int64_t, kLibraryAttributes> attribute_values(const LtAlgoConfig& c) {
  return {c.tile, c.stages, c.splitk, c.scheme, c.swizzle, c.custom, c.cluster};
}

template <typename T>
cublasStatus_t set_attribute(const CublasLtApi& lt, cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t a,
                             T value) {
  return lt.cublasLtMatmulAlgoConfigSetAttribute(&algo, a, &value, sizeof value);
}

// A scalar configuration attribute or capability of `algo` through `get` (cublasLtMatmulAlgoConfigGetAttribute or
// cublasLtMatmulAlgoCapGetAttribute), at its width T; 0 when it cannot be read.
template <typename T, typename Get, typename Attribute>
T read_scalar(Get get, const cublasLtMatmulAlgo_t& algo, Attribute a) {
  T value{};
  std::size_t written = 0;
  return get(&algo, a, &value, sizeof value, &written) == CUBLAS_STATUS_SUCCESS ? value : T{};
}

template <typename T>
T get_attribute(const CublasLtApi& lt, const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t a) {
  return read_scalar<T>(lt.cublasLtMatmulAlgoConfigGetAttribute, algo, a);
}

template <typename T>
T get_capability(const CublasLtApi& lt, const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoCapAttributes_t a) {
  return read_scalar<T>(lt.cublasLtMatmulAlgoCapGetAttribute, algo, a);
}

// An array capability (tile or stages ids): its size asked first, as the header says.
std::vector<std::uint32_t> get_ids(const CublasLtApi& lt, const cublasLtMatmulAlgo_t& algo,
                                   cublasLtMatmulAlgoCapAttributes_t a) {
  std::size_t bytes = 0;
  if (lt.cublasLtMatmulAlgoCapGetAttribute(&algo, a, nullptr, 0, &bytes) != CUBLAS_STATUS_SUCCESS) return {};
  std::vector<std::uint32_t> ids(bytes / sizeof(std::uint32_t));
  if (ids.empty()) return ids;
  std::size_t written = 0;
  if (lt.cublasLtMatmulAlgoCapGetAttribute(&algo, a, ids.data(), ids.size() * sizeof ids[0], &written) !=
      CUBLAS_STATUS_SUCCESS) {
    return {};
  }
  ids.resize(written / sizeof(std::uint32_t));
  // A list of only "undefined" is the header's way of saying there are none.
  if (ids.size() == 1 && ids[0] == 0) ids.clear();
  return ids;
}

bool listed(const std::vector<std::uint32_t>& ids, std::uint32_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

LtAlgoConfig lt_algo_config(const KernelSpec& spec, const Config& config) {
  const LibraryAlgoParameters& p = *spec.library->algo;
  const auto value = [&](std::size_t attribute, std::int64_t otherwise) {
    const auto& at = p.attributes[attribute];
    return at ? config.values[*at].as_int() : otherwise;
  };
  LtAlgoConfig c;
  c.algo = static_cast<std::int32_t>(config.values[p.algo].as_int());
  c.tile = static_cast<std::uint32_t>(value(0, c.tile));
  c.stages = static_cast<std::uint32_t>(value(1, c.stages));
  c.splitk = static_cast<std::int32_t>(value(2, c.splitk));
  c.scheme = static_cast<std::uint32_t>(value(3, c.scheme));
  c.swizzle = static_cast<std::uint32_t>(value(4, c.swizzle));
  c.custom = static_cast<std::uint32_t>(value(5, c.custom));
  c.cluster = static_cast<std::uint16_t>(value(6, c.cluster));
  return c;
}

std::string lt_config_text(const KernelSpec& spec, const LtAlgoConfig& config) {
  const LibraryAlgoParameters& p = *spec.library->algo;
  const auto values = attribute_values(config), defaults = attribute_values(LtAlgoConfig{});
  std::vector<std::string> items(spec.parameters.size());
  items[p.algo] = std::string(kLibraryAlgoName) + "=" + std::to_string(config.algo);
  for (std::size_t a = 0; a < kLibraryAttributes; ++a) {
    const std::string name(kLibraryAttributeNames[a]);
    if (p.attributes[a]) {
      items[*p.attributes[a]] = name + "=" + std::to_string(values[a]);
    } else if (values[a] != defaults[a]) {
      throw InputError(spec.name + " has no parameter " + name + " for the value " + std::to_string(values[a]));
    }
  }
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

std::string describe(const LtAlgoConfig& c) {
  std::string split = std::to_string(c.splitk);
  if (c.splitk != 1) split += fmt::format(" (reduction scheme {})", c.scheme);
  return fmt::format("cuBLASLt algorithm {}, tile {}, stages {}, split-K {}, swizzle {}, custom {}, cluster {}", c.algo,
                     c.tile, c.stages, split, c.swizzle, c.custom, c.cluster);
}

std::optional<std::string> capability_refusal(const LtCapabilities& caps, const LtAlgoConfig& c) {
  const auto ids_text = [](const std::vector<std::uint32_t>& ids) {
    return ids.empty() ? std::string("none") : fmt::format("{}", fmt::join(ids, " "));
  };
  const std::string algo = "cuBLASLt algorithm " + std::to_string(c.algo);
  if (c.tile != 0 && !listed(caps.tiles, c.tile)) {
    return fmt::format("{} has no tile {} (its tiles: {})", algo, c.tile, ids_text(caps.tiles));
  }
  if (c.stages != 0 && !listed(caps.stages, c.stages)) {
    return fmt::format("{} has no stages {} (its stages: {})", algo, c.stages, ids_text(caps.stages));
  }
  if (c.splitk != 1 && !caps.splitk) return algo + " does not split K";
  if (c.splitk == 1 && c.scheme != 0) return "a reduction scheme (" + std::to_string(c.scheme) + ") needs K split";
  if (c.scheme != 0 && (caps.reduction_mask & c.scheme) != c.scheme) {
    return fmt::format("{} has no reduction scheme {} (its mask: {})", algo, c.scheme, caps.reduction_mask);
  }
  if (c.swizzle != 0 && !caps.swizzle) return algo + " has no CTA swizzling";
  if (static_cast<std::int64_t>(c.custom) > caps.custom_max) {
    return fmt::format("{} has no custom option {} (at most {})", algo, c.custom, caps.custom_max);
  }
  return std::nullopt;
}

LtCapabilities read_capabilities(const CublasLtApi& lt, const cublasLtMatmulAlgo_t& algo) {
  LtCapabilities caps;
  caps.tiles = get_ids(lt, algo, CUBLASLT_ALGO_CAP_TILE_IDS);
  caps.stages = get_ids(lt, algo, CUBLASLT_ALGO_CAP_STAGES_IDS);
  caps.splitk = get_capability<std::int32_t>(lt, algo, CUBLASLT_ALGO_CAP_SPLITK_SUPPORT) != 0;
  caps.reduction_mask = get_capability<std::uint32_t>(lt, algo, CUBLASLT_ALGO_CAP_REDUCTION_SCHEME_MASK);
  caps.swizzle = get_capability<std::uint32_t>(lt, algo, CUBLASLT_ALGO_CAP_CTA_SWIZZLING_SUPPORT) == 1;
  caps.custom_max = get_capability<std::int32_t>(lt, algo, CUBLASLT_ALGO_CAP_CUSTOM_OPTION_MAX);
  return caps;
}

LtAlgoConfig read_config(const CublasLtApi& lt, const cublasLtMatmulAlgo_t& algo) {
  LtAlgoConfig c;
  c.algo = get_attribute<std::int32_t>(lt, algo, CUBLASLT_ALGO_CONFIG_ID);
  c.tile = get_attribute<std::uint32_t>(lt, algo, CUBLASLT_ALGO_CONFIG_TILE_ID);
  c.stages = get_attribute<std::uint32_t>(lt, algo, CUBLASLT_ALGO_CONFIG_STAGES_ID);
  c.splitk = get_attribute<std::int32_t>(lt, algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM);
  c.scheme = get_attribute<std::uint32_t>(lt, algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME);
  c.swizzle = get_attribute<std::uint32_t>(lt, algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING);
  c.custom = get_attribute<std::uint32_t>(lt, algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION);
  c.cluster = get_attribute<std::uint16_t>(lt, algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID);
  return c;
}

std::vector<int> lt_algorithm_ids(const CublasLtApi& lt, cublasLtHandle_t handle, const LtTypes& t, int most) {
  std::vector<int> ids(static_cast<std::size_t>(most));
  int found = 0;
  const cublasStatus_t s =
      lt.cublasLtMatmulAlgoGetIds(handle, t.compute, t.scale, t.a, t.b, t.c, t.d, most, ids.data(), &found);
  if (s != CUBLAS_STATUS_SUCCESS) throw CudaError(describe(s, "cublasLtMatmulAlgoGetIds"));
  ids.resize(static_cast<std::size_t>(std::max(found, 0)));
  return ids;
}

LtConfigured LtGemm::configure(const LtAlgoConfig& config) const {
  LtConfigured out;
  const LtTypes& t = types_;
  cublasStatus_t s = lt_.cublasLtMatmulAlgoInit(handle_, t.compute, t.scale, t.a, t.b, t.c, t.d, config.algo, &out.algo);
  if (s != CUBLAS_STATUS_SUCCESS) {
    out.refusal = fmt::format("{}: cuBLASLt has no algorithm {} for these types ({})", name_, config.algo,
                              describe(s, "cublasLtMatmulAlgoInit"));
    return out;
  }
  if (auto why = capability_refusal(read_capabilities(lt_, out.algo), config)) {
    out.refusal = name_ + ": " + *why;
    return out;
  }
  const auto values = attribute_values(config);
  for (std::size_t a = 0; a < kLibraryAttributes && s == CUBLAS_STATUS_SUCCESS; ++a) {
    // Each attribute at the width cuBLASLt stores it: the cluster shape 16 bits, split-K signed, the others unsigned.
    if (kAttributeIds[a] == CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID) {
      s = set_attribute(lt_, out.algo, kAttributeIds[a], static_cast<std::uint16_t>(values[a]));
    } else if (kAttributeIds[a] == CUBLASLT_ALGO_CONFIG_SPLITK_NUM) {
      s = set_attribute(lt_, out.algo, kAttributeIds[a], static_cast<std::int32_t>(values[a]));
    } else {
      s = set_attribute(lt_, out.algo, kAttributeIds[a], static_cast<std::uint32_t>(values[a]));
    }
    if (s != CUBLAS_STATUS_SUCCESS) {
      out.refusal = fmt::format("{}: {} {} cannot be set ({})", name_, kLibraryAttributeNames[a], values[a],
                                describe(s, "cublasLtMatmulAlgoConfigSetAttribute"));
      return out;
    }
  }
  cublasLtMatmulHeuristicResult_t checked{};
  s = lt_.cublasLtMatmulAlgoCheck(handle_, desc_, a_, b_, c_, c_, &out.algo, &checked);
  if (s != CUBLAS_STATUS_SUCCESS) {
    out.refusal = name_ + ": " + describe(config) + " is refused for this problem (" +
                  describe(s, "cublasLtMatmulAlgoCheck") + ")";
    return out;
  }
  out.workspace = checked.workspaceSize;
  if (out.workspace > workspace_bytes_) {
    out.refusal = fmt::format("{}: {} needs {} bytes of workspace, the spec's workspace holds {}", name_,
                              describe(config), out.workspace, workspace_bytes_);
  }
  return out;
}

}  // namespace cutune::detail
