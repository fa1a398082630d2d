// Verifies and times one configuration of a host pipeline: from pinned host arrays, end to end over all streams.
#include "pipeline_workbench.hpp"

#include <algorithm>
#include <optional>

#include "cutune/error.hpp"

namespace cutune::detail {

PipelineWorkbench::PipelineWorkbench(Workbench::Impl& bench)
    : w_(bench), streams_(static_cast<int>(PipelineSpec::kMaxStreams)) {
  for (const std::size_t index : w_.spec.pipeline->host) {
    const DeviceArgument& arg = w_.args[index];
    PinnedBuffer& host = host_.emplace_back(arg.buffer.bytes());
    // Inputs, and outputs' initial content: the data the device buffers were filled with, so that the reference
    // (computed on the device) saw the same.
    CU_CHECK(cuMemcpyDtoHAsync, host.get(), arg.buffer.get(), arg.buffer.bytes(), w_.stream);
  }
  CU_CHECK(cuStreamSynchronize, w_.stream);
  bound_ms_ = std::max(time_copies(true), time_copies(false));
}

double PipelineWorkbench::bound_gbs() const {
  return bound_ms_ > 0 ? w_.spec.metric_amount(w_.shape) / (bound_ms_ * 1e-3) / 1e9 : 0.0;
}

double PipelineWorkbench::time_copies(bool to_device) {
  const auto& host = w_.spec.pipeline->host;
  const auto copy = [&] {
    for (std::size_t h = 0; h < host.size(); ++h) {
      const DeviceArgument& arg = w_.args[host[h]];
      if (to_device && copied_in(*arg.spec)) {
        CU_CHECK(cuMemcpyHtoDAsync, arg.buffer.get(), host_[h].get(), arg.buffer.bytes(), w_.stream);
      } else if (!to_device && arg.spec->output) {
        CU_CHECK(cuMemcpyDtoHAsync, host_[h].get(), arg.buffer.get(), arg.buffer.bytes(), w_.stream);
      }
    }
  };
  copy();  // warm-up: the first copy after an allocation pays for mapping it
  std::vector<double> samples;
  for (int i = 0; i < 3; ++i) {
    CU_CHECK(cuEventRecord, streams_.start(), w_.stream);
    copy();
    CU_CHECK(cuEventRecord, streams_.stop(), w_.stream);
    CU_CHECK(cuEventSynchronize, streams_.stop());
    float ms = 0.0f;
    CU_CHECK(cuEventElapsedTime, &ms, streams_.start(), streams_.stop());
    samples.push_back(ms);
  }
  return summarize(samples).median;
}

PipelineArgs PipelineWorkbench::arguments(const Config& config) const {
  PipelineArgs args;
  for (const PinnedBuffer& h : host_) args.host.push_back(h.get());
  const std::vector<Value> scope = w_.spec.scope(config, &w_.shape);
  const auto& host = w_.spec.pipeline->host;
  for (std::size_t a = 0; a < w_.args.size(); ++a) {
    const Argument& spec = *w_.args[a].spec;
    const bool on_host = std::find(host.begin(), host.end(), a) != host.end();
    args.device.push_back(spec.is_buffer && !on_host ? w_.args[a].buffer.get() : 0);
    args.scalars.push_back(spec.is_buffer ? std::array<unsigned char, 8>{} : scalar_bytes(spec.type, spec.value.eval(scope)));
  }
  return args;
}

EnqueueStatus PipelineWorkbench::run_once(const PipelineRunner& runner, CUfunction f, const PipelineArgs& args,
                                          double& ms) {
  EnqueueStatus status = runner.enqueue(f, args, streams_.streams(), ring_.get(), streams_.start(), streams_.joins(),
                                        streams_.stop());
  if (!status) {
    driver().cuCtxSynchronize();  // what was enqueued before the failure must not outlive this configuration
    return status;
  }
  if (CUresult e = driver().cuEventSynchronize(streams_.stop()); e != CUDA_SUCCESS) return {e, "pipeline execution"};
  float elapsed = 0.0f;
  CU_CHECK(cuEventElapsedTime, &elapsed, streams_.start(), streams_.stop());
  ms = elapsed;
  return status;
}

Result PipelineWorkbench::evaluate(const Config& config, CUfunction f, Result r, double best_ms, int exact_repeats) {
  const KernelSpec& spec = w_.spec;
  auto fail = [&](Status status, const EnqueueStatus& e) {
    r.status = is_sticky(e.code) ? Status::RuntimeError : status;
    r.message = describe(e.code, e.call);
    if (is_sticky(e.code)) w_.usable = false;
    r.samples_ms.clear();
    return r;
  };
  std::optional<PipelineRunner> runner;
  try {
    runner.emplace(spec, config, w_.shape);
  } catch (const Error& e) {  // a plan out of range (a spec without the usual constraints)
    r.status = Status::LaunchError;
    r.message = e.what();
    return r;
  }
  record_launch_resources(r, f, runner->launch(0));
  if (ring_.bytes() < runner->ring_bytes()) {
    ring_ = DeviceBuffer();  // the old ring first: both at once may not fit
    try {
      ring_ = DeviceBuffer(runner->ring_bytes());
    } catch (const CudaError& e) {
      r.status = Status::LaunchError;
      r.message = std::string("the pipeline's chunk buffers (") + std::to_string(runner->ring_bytes()) + " bytes): " + e.what();
      return r;
    }
  }
  const PipelineArgs args = arguments(config);

  // Verification: host outputs start as the device outputs do (poison, or their initial data), the pipeline runs
  // once (timed like the others), and what landed in host memory goes back to the device to meet the reference.
  // The ring is poisoned too: an item the kernel skips must not pass on what an earlier configuration left there.
  const Stopwatch verifying;
  w_.reset_outputs();
  CU_CHECK(cuMemsetD8Async, ring_.get(), 0xff, ring_.bytes(), w_.stream);
  const auto& host = spec.pipeline->host;
  for (std::size_t h = 0; h < host.size(); ++h) {
    const DeviceArgument& arg = w_.args[host[h]];
    if (arg.spec->output) CU_CHECK(cuMemcpyDtoHAsync, host_[h].get(), arg.buffer.get(), arg.buffer.bytes(), w_.stream);
  }
  CU_CHECK(cuStreamSynchronize, w_.stream);
  double first_ms = 0.0;
  if (const EnqueueStatus e = run_once(*runner, f, args, first_ms); !e) return fail(Status::LaunchError, e);
  for (std::size_t h = 0; h < host.size(); ++h) {
    const DeviceArgument& arg = w_.args[host[h]];
    if (arg.spec->output) CU_CHECK(cuMemcpyHtoDAsync, arg.buffer.get(), host_[h].get(), arg.buffer.bytes(), w_.stream);
  }
  const bool verified = w_.verify_outputs(r);
  r.verify_ms = verifying.ms();
  if (!verified) return r;

  const Stopwatch benchmarking;
  const auto timed = [&](int warm, int runs) -> bool {
    for (int i = 0; i < warm + runs; ++i) {
      double ms = 0.0;
      if (const EnqueueStatus e = run_once(*runner, f, args, ms); !e) {
        fail(Status::LaunchError, e);
        return false;
      }
      if (i >= warm) r.samples_ms.push_back(ms);
    }
    return true;
  };
  bool timed_all = false;
  if (exact_repeats > 0) {
    timed_all = timed(std::max(1, w_.options.warmup), exact_repeats);
  } else {
    r.samples_ms = {first_ms};
    timed_all = timed(w_.options.warmup, adaptive_more_runs(w_.options, first_ms, best_ms));
  }
  r.benchmark_ms = benchmarking.ms();
  if (!timed_all) return r;
  record_timing(r, spec.metric_amount(w_.shape));
  return r;
}

}  // namespace cutune::detail
