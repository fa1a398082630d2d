// Evaluates one configuration: load, verify against the reference, then time with CUDA events after L2 flushes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "driver/cluster_launch.hpp"
#include "cutune/error.hpp"
#include "library_workbench.hpp"
#include "pipeline_workbench.hpp"
#include "workbench.hpp"

namespace cutune {
namespace {

// Pairs of events around each timed launch, recorded back to back and read after one synchronisation.
class EventPairs {
 public:
  explicit EventPairs(int n) : events_(2 * static_cast<std::size_t>(n), nullptr) {
    for (auto& e : events_) CU_CHECK(cuEventCreate, &e, CU_EVENT_DEFAULT);
  }
  ~EventPairs() {
    for (auto e : events_)
      if (e != nullptr) detail::driver().cuEventDestroy(e);
  }
  CUevent start(int i) const { return events_[2 * static_cast<std::size_t>(i)]; }
  CUevent stop(int i) const { return events_[2 * static_cast<std::size_t>(i) + 1]; }
  std::vector<double> elapsed_ms(int n) const {
    std::vector<double> out;
    for (int i = 0; i < n; ++i) {
      float ms = 0.0f;
      CU_CHECK(cuEventElapsedTime, &ms, start(i), stop(i));
      out.push_back(ms);
    }
    return out;
  }

 private:
  std::vector<CUevent> events_;
};

}  // namespace

Result Workbench::evaluate(const Config& config, const CompileOutput& compiled, double best_ms) {
  return impl_->evaluate(config, compiled, best_ms, 0);
}

Result Workbench::retime(const Config& config, const CompileOutput& compiled, int repeats) {
  return impl_->evaluate(config, compiled, 0.0, std::max(1, repeats));
}

int detail::adaptive_more_runs(const MeasureOptions& options, double first_ms, double best_ms) {
  const bool clearly_slower =
      best_ms > 0 && options.early_stop_ratio > 0 && first_ms > options.early_stop_ratio * best_ms;
  const int most = std::max(1, options.repeats);
  if (clearly_slower || most <= 1) return 0;
  // As many runs as the time budget allows at this speed, but never fewer than min_repeats.
  int more = most - 1;
  if (options.max_measure_ms > 0 && first_ms > 0) {
    const int affordable = static_cast<int>(options.max_measure_ms / first_ms);
    more = std::clamp(affordable - 1, std::max(0, options.min_repeats - 1), most - 1);
  }
  return more;
}

void detail::record_timing(Result& r, double metric_amount) {
  const Timing t = summarize(r.samples_ms);
  r.median_ms = t.median;
  r.min_ms = t.min;
  r.max_ms = t.max;
  r.spread = t.spread;
  r.metric = metric_amount / (t.median * 1e-3) / 1e9;
  if (r.status != Status::Unverified) r.status = Status::Ok;  // verify_outputs() marks what it did not compare
}

std::vector<double> Workbench::Impl::timed_runs(const std::function<void(void*)>& enqueue, int warm, int runs) {
  for (int i = 0; i < warm; ++i) enqueue(stream);
  EventPairs events(runs);
  for (int i = 0; i < runs; ++i) {
    flush_l2();
    CU_CHECK(cuEventRecord, events.start(i), stream);
    enqueue(stream);
    CU_CHECK(cuEventRecord, events.stop(i), stream);
  }
  CU_CHECK(cuStreamSynchronize, stream);
  return events.elapsed_ms(runs);
}

Result Workbench::Impl::failed(Result& r, Status status, CUresult code, const char* call) {
  r.status = status;
  r.message = detail::describe(code, call);
  if (detail::is_sticky(code)) {
    usable = false;
    r.status = Status::RuntimeError;
  }
  return r;
}

Result Workbench::Impl::evaluate(const Config& config, const CompileOutput& compiled, double best_ms, int exact_repeats) {
  prepare(nullptr);
  Result r;
  r.config = spec.format(config);
  r.registers = compiled.registers;
  r.compile_ms = compiled.ms;
  if (!usable) {
    r.status = Status::RuntimeError;
    r.message = "not run: an earlier fault left the CUDA context unusable";
    return r;
  }
  if (!compiled.ok) {
    r.status = compiled.interrupted ? Status::Interrupted : Status::CompileError;
    r.message = compiled.log;
    return r;
  }
  device.make_current();
  if (!follow_reference(config, r)) return r;
  if (library) {
    r.peak = peak;
    return library->evaluate(config, std::move(r), best_ms, exact_repeats);
  }
  // Any failure from here on is this configuration's: a status and the driver's words for it (failed()).
  detail::Module module;
  if (CUresult e = module.load(compiled.cubin); e != CUDA_SUCCESS) return failed(r, Status::LaunchError, e, "cuModuleLoadData");
  CUfunction f = nullptr;
  if (CUresult e = module.function(compiled.lowered_name, &f); e != CUDA_SUCCESS) {
    return failed(r, Status::LaunchError, e, "cuModuleGetFunction");
  }
  // The driver knows the register count of what it loaded; NVRTC's ptxas report is not always there.
  if (int regs = 0; detail::driver().cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_SUCCESS) {
    r.registers = regs;
  }
  const Launch launch = spec.resolve(spec.launch, config, shape, device.limits().sm_count);
  if (launch.shared_memory > 0) {  // opt in: static shared memory may push the total past 48 KiB
    CUresult e = detail::driver().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                     static_cast<int>(launch.shared_memory));
    if (e != CUDA_SUCCESS) return failed(r, Status::LaunchError, e, "cuFuncSetAttribute(max dynamic shared memory)");
  }
  detail::record_launch_resources(r, f, launch);
  r.spill_bytes = compiled.spill_bytes;
  r.peak = peak;
  if (pipeline) return pipeline->evaluate(config, f, std::move(r), best_ms, exact_repeats);
  return run_kernel(config, module, f, launch, std::move(r), best_ms, exact_repeats);
}

Result Workbench::Impl::run_kernel(const Config& config, const detail::Module& module, CUfunction f, const Launch& launch,
                                   Result r, double best_ms, int exact_repeats) {
  // A cluster that cannot be scheduled, or a tensor map the driver refuses, fails this configuration's launch.
  std::optional<std::string> unlaunchable = detail::prepare_cluster_launch(f, launch);
  if (!unlaunchable) unlaunchable = encode_tensor_maps(config);
  if (!unlaunchable) unlaunchable = detail::copy_constants(module, args, stream);
  if (unlaunchable) {
    r.status = Status::LaunchError;
    r.message = *unlaunchable;
    return r;
  }
  std::vector<void*> params = parameters(config);
  const char* call = launch.cluster_size() > 1 ? "cuLaunchKernelEx" : "cuLaunchKernel";
  const detail::Enqueue run = [&]() -> std::optional<detail::LaunchFailure> {
    if (CUresult e = this->launch(f, launch, params); e != CUDA_SUCCESS) return detail::LaunchFailure{e, detail::describe(e, call)};
    return std::nullopt;
  };
  return run_verified(run, std::move(r), best_ms, exact_repeats);
}

Result Workbench::Impl::run_verified(const detail::Enqueue& run, Result r, double best_ms, int exact_repeats,
                                     bool warm_first) {
  rest();
  if (warm_first) {
    if (auto failure = run()) return launch_failed(r, *failure);
    if (CUresult e = detail::driver().cuStreamSynchronize(stream); e != CUDA_SUCCESS) {
      return failed(r, Status::RuntimeError, e, "kernel execution");
    }
  }
  const std::optional<double> first_ms = verified_run(run, r);
  if (!first_ms) return r;
  Result out = timed(run, *first_ms, best_ms, exact_repeats, std::move(r));
  rested_after(out.samples_ms);
  return out;
}

Result Workbench::Impl::launch_failed(Result& r, const detail::LaunchFailure& failure) {
  r.status = Status::LaunchError;
  r.message = failure.message;
  if (detail::is_sticky(failure.code)) {
    usable = false;
    r.status = Status::RuntimeError;
  }
  return r;
}

// The first run is timed like the others (after the L2 convention's flush) and verified on reset outputs: its time
// counts only if the output is right. One launch fewer per configuration matters when a run takes milliseconds.
std::optional<double> Workbench::Impl::verified_run(const detail::Enqueue& run, Result& r) {
  const detail::Stopwatch verifying;
  reset_outputs();
  flush_l2();
  EventPairs first_run(1);
  CU_CHECK(cuEventRecord, first_run.start(0), stream);
  if (auto failure = run()) {
    launch_failed(r, *failure);
    return std::nullopt;
  }
  CU_CHECK(cuEventRecord, first_run.stop(0), stream);
  if (CUresult e = detail::driver().cuStreamSynchronize(stream); e != CUDA_SUCCESS) {
    failed(r, Status::RuntimeError, e, "kernel execution");
    return std::nullopt;
  }
  const double first_ms = first_run.elapsed_ms(1).front();
  const bool verified = verify_outputs(r);
  r.verify_ms = verifying.ms();
  if (!verified) return std::nullopt;
  return first_ms;
}

// Timing: each timed launch follows the L2 convention's flush (none for None), outside its events.
Result Workbench::Impl::timed(const detail::Enqueue& run, double first_ms, double best_ms, int exact_repeats, Result r) {
  std::optional<detail::LaunchFailure> launch_error;
  const auto enqueue = [&](void*) {
    auto e = run();
    if (!launch_error) launch_error = std::move(e);
  };
  const detail::Stopwatch benchmarking;
  try {
    r.samples_ms = samples(enqueue, first_ms, best_ms, exact_repeats);
  } catch (const CudaError& e) {
    // A fault while timing: the verification run passed, so it depends on the inputs' history or the timing.
    r.status = Status::RuntimeError;
    r.message = e.what();
    usable = !detail::is_sticky(detail::driver().cuCtxSynchronize());
    r.samples_ms.clear();
    r.benchmark_ms = benchmarking.ms();
    return r;
  }
  r.benchmark_ms = benchmarking.ms();
  if (launch_error) return launch_failed(r, *launch_error);
  detail::record_timing(r, spec.metric_amount(shape));
  return r;
}

std::vector<double> Workbench::Impl::samples(const std::function<void(void*)>& enqueue, double first_ms, double best_ms,
                                             int exact_repeats) {
  if (exact_repeats > 0) return timed_runs(enqueue, std::max(1, options.warmup), exact_repeats);
  std::vector<double> out = {first_ms};
  if (const int more = detail::adaptive_more_runs(options, first_ms, best_ms); more > 0) {
    const auto rest = timed_runs(enqueue, options.warmup, more);
    out.insert(out.end(), rest.begin(), rest.end());
  }
  return out;
}

std::vector<double> Workbench::time(const std::function<void(void* stream)>& enqueue) {
  impl_->device.make_current();
  impl_->prepare(nullptr);
  return impl_->timed_runs(enqueue, impl_->options.warmup, std::max(1, impl_->options.repeats));
}

double Workbench::copy_bandwidth(std::int64_t bytes) {
  impl_->device.make_current();
  impl_->prepare(nullptr);
  if (impl_->pipeline) return impl_->peak;
  return impl_->copy_bandwidth(bytes);
}

double Workbench::Impl::copy_bandwidth(std::int64_t bytes) {
  detail::DeviceBuffer from(static_cast<std::size_t>(bytes)), to(static_cast<std::size_t>(bytes));
  CU_CHECK(cuMemsetD8Async, from.get(), 0x3c, from.bytes(), stream);
  const Timing t = summarize(timed_runs([&](void* s) {
    CU_CHECK(cuMemcpyDtoDAsync, to.get(), from.get(), from.bytes(), static_cast<CUstream>(s));
  }, options.warmup, std::max(1, options.repeats)));
  return 2.0 * static_cast<double>(bytes) / (t.median * 1e-3) / 1e9;
}

}  // namespace cutune
