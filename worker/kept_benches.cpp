// The workbenches a worker keeps prepared (kept_benches.hpp).
#include "worker/kept_benches.hpp"

#include <algorithm>

#include "cutune/error.hpp"
#include "driver/cuda_driver.hpp"

namespace cutune::detail {

void KeptBenches::select(const Message& request, const Device& device) {
  current_ = false;
  std::string text = request.dump();
  const auto same = std::find_if(kept_.begin(), kept_.end(), [&](const Kept& k) { return k.request == text; });
  if (same != kept_.end()) {
    Kept k = std::move(*same);
    kept_.erase(same);
    kept_.push_back(std::move(k));
    current_ = kept_.back().bench->usable();
    if (current_) return;
    kept_.pop_back();  // a fault poisoned the context: the worker ends after the faulting answer, never reaches this
  }
  Kept k;
  k.request = std::move(text);
  k.spec = std::make_unique<KernelSpec>(KernelSpec::from_json(request.at("spec").get<std::string>(),
                                                              request.at("source").get<std::string>(),
                                                              request.at("source_name").get<std::string>(),
                                                              request.value("folder", std::string())));
  const Shape shape{request.at("shape").get<std::vector<std::int64_t>>()};
  const std::string cache_dir = request.at("cache_dir").get<std::string>();
  k.cache = cache_dir.empty() ? nullptr : std::make_unique<CubinCache>(cache_dir);
  const MeasureOptions options = measure_options_from_message(request.at("options"));
  const L2Flush flush = l2_flush_from_message(request.at("flush"));
  const auto prepare = [&] {
    k.bench = std::make_unique<Workbench>(device, *k.spec, shape, options, flush);
    k.bench->prepare(k.cache.get());
  };
  trim();  // before the new one allocates
  try {
    prepare();
  } catch (const CudaError&) {
    if (kept_.empty()) throw;
    k.bench.reset();
    kept_.clear();  // what they hold may be what the new one lacked (its allocations): once more without them
    prepare();
  }
  kept_.push_back(std::move(k));
  current_ = true;
  trim();
}

Workbench& KeptBenches::bench() {
  if (!current_) throw Error("the worker has no kernel and shape set up");
  return *kept_.back().bench;
}

const KernelSpec& KeptBenches::spec() {
  if (!current_) throw Error("the worker has no kernel and shape set up");
  return *kept_.back().spec;
}

void KeptBenches::trim() {
  const std::size_t current = current_ ? 1 : 0;
  const auto short_of_memory = [] {
    std::size_t free = 0, total = 0;
    return driver().cuMemGetInfo(&free, &total) != CUDA_SUCCESS || free < total / 4;
  };
  while (kept_.size() > current && (kept_.size() - current > kKept || short_of_memory())) kept_.pop_front();
}

}  // namespace cutune::detail
