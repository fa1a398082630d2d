// Measuring in this process: a Workbench per shape.
#include "evaluator.hpp"

#include <optional>

#include "cutune/cubin_cache.hpp"
#include "cutune/error.hpp"

namespace cutune::detail {
namespace {

class InProcessEvaluator final : public Evaluator {
 public:
  InProcessEvaluator(const Device& device, const MeasureOptions& options, CubinCache* cache)
      : device_(device), options_(options), cache_(cache) {}

  void prepare(const KernelSpec& spec, const Shape& shape, L2Flush flush) override {
    bench_.reset();
    bench_.emplace(device_, spec, shape, options_, flush);
    bench_->prepare(cache_);
  }

  Result evaluate(const Config& config, const CompileOutput& compiled, double best_ms) override {
    check_usable();
    return bench_->evaluate(config, compiled, best_ms);
  }

  Result retime(const Config& config, const CompileOutput& compiled, int repeats) override {
    check_usable();
    return bench_->retime(config, compiled, repeats);
  }

  double copy_bandwidth(std::int64_t bytes) override {
    check_usable();
    return bench_->copy_bandwidth(bytes);
  }

 private:
  // The faulting configuration's own result was returned (and stored); only what comes after cannot run.
  void check_usable() const {
    if (bench_ && !bench_->usable()) {
      throw CudaError("a faulting configuration left the CUDA context unusable; its result is stored: run the same "
                      "command again to resume (measuring in a worker process avoids this)");
    }
  }

  const Device& device_;
  MeasureOptions options_;
  CubinCache* cache_;
  std::optional<Workbench> bench_;
};

}  // namespace

std::unique_ptr<Evaluator> make_in_process_evaluator(const Device& device, const MeasureOptions& options,
                                                     CubinCache* cache) {
  return std::make_unique<InProcessEvaluator>(device, options, cache);
}

}  // namespace cutune::detail
