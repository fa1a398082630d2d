// The runtime API of host pipelines: checks the application's host arrays are pinned, then enqueues the chunks.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>

#include "cutune/error.hpp"
#include "cutune/runtime_pipeline.hpp"
#include "cutune/templates.hpp"
#include "driver/device_memory.hpp"
#include "driver/pipeline_runner.hpp"

namespace cutune {
namespace {

// Why the host range [p, p + bytes) is not usable for asynchronous copies, or nullopt. Only page-locked memory
// (cudaMallocHost, cudaHostAlloc, cuMemHostAlloc, or registered with cudaHostRegister) copies asynchronously;
// pageable memory would make every copy synchronous, and device or managed memory is not a host array at all.
// Both ends are checked, and that they lie in one allocation, so that an allocation shorter than the array is caught
// even where another pinned one follows it.
std::optional<std::string> not_pinned(const unsigned char* p, std::size_t bytes) {
  const detail::DriverApi& api = detail::driver();
  std::array<unsigned long long, 2> ids{};
  std::array<CUresult, 2> id_found{};
  const std::array<const unsigned char*, 2> ends = {p, p + (bytes > 0 ? bytes - 1 : 0)};
  for (std::size_t i = 0; i < 2; ++i) {
    const auto at = reinterpret_cast<CUdeviceptr>(ends[i]);
    unsigned int type = 0;
    if (api.cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, at) != CUDA_SUCCESS) {
      return i == 0 ? "is not pinned (page-locked) host memory" : "is pinned for fewer than these bytes";
    }
    if (type == CU_MEMORYTYPE_DEVICE) return "is device memory, not a host array";
    if (type != CU_MEMORYTYPE_HOST) return "is not pinned (page-locked) host memory";
    id_found[i] = api.cuPointerGetAttribute(&ids[i], CU_POINTER_ATTRIBUTE_BUFFER_ID, at);
  }
  if (id_found[0] == CUDA_SUCCESS && id_found[1] == CUDA_SUCCESS && ids[0] != ids[1]) {
    return "is pinned for fewer than these bytes (its end lies in another allocation)";
  }
  return std::nullopt;
}

std::string address(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

}  // namespace

struct RuntimePipeline::Impl {
  const RuntimeKernel* kernel = nullptr;
  std::optional<detail::PipelineRunner> runner;
  detail::PipelineStreams events{0};  // start, stop and joins; the streams are the application's
  detail::DeviceBuffer ring;
  std::vector<std::size_t> host_bytes;  // per PipelineSpec::host entry
  bool ran = false;                     // `stop` holds the end of the previous run
  mutable std::mutex mutex;
};

RuntimePipeline::RuntimePipeline(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RuntimePipeline::~RuntimePipeline() = default;
RuntimePipeline::RuntimePipeline(RuntimePipeline&&) noexcept = default;
RuntimePipeline& RuntimePipeline::operator=(RuntimePipeline&&) noexcept = default;
const RuntimeKernel& RuntimePipeline::kernel() const { return *impl_->kernel; }
const PipelinePlan& RuntimePipeline::plan() const { return impl_->runner->plan(); }

RuntimePipeline Runtime::pipeline(std::string_view name_or_spec, std::string_view shape) {
  const RuntimeKernel& k = kernel(name_or_spec, shape);
  const KernelSpec& spec = k.spec();
  if (!spec.pipeline) {
    throw InputError("kernel " + spec.name + " has no pipeline section: launch it with Runtime::kernel() instead");
  }
  k.make_current();
  auto impl = std::make_unique<RuntimePipeline::Impl>();
  impl->kernel = &k;
  impl->runner.emplace(spec, k.config(), k.shape());
  impl->ring = detail::DeviceBuffer(impl->runner->ring_bytes());
  const PipelinePlan& plan = impl->runner->plan();
  for (std::size_t h = 0; h < spec.pipeline->host.size(); ++h) {
    const Argument& a = spec.arguments[spec.pipeline->host[h]];
    impl->host_bytes.push_back(static_cast<std::size_t>(plan.elements[h]) * element_size(a.type));
  }
  return RuntimePipeline(std::move(impl));
}

void RuntimePipeline::run(void* const* stream_data, std::size_t stream_count, const KernelArg* arg_data,
                          std::size_t count) const {
  const std::span<void* const> streams(stream_data, stream_count);
  const std::span<const KernelArg> args(arg_data, count);
  Impl& p = *impl_;
  const KernelSpec& spec = p.kernel->spec();
  const auto& host = spec.pipeline->host;
  if (streams.empty()) throw InputError("the pipeline " + spec.name + " needs at least one stream");
  if (args.size() != spec.arguments.size()) {
    throw InputError(spec.name + " takes " + std::to_string(spec.arguments.size()) + " arguments, got " +
                     std::to_string(args.size()));
  }
  detail::PipelineArgs values;
  values.device.resize(args.size(), 0);
  values.scalars.resize(args.size());
  values.host.resize(host.size(), nullptr);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Argument& a = spec.arguments[i];
    const std::size_t expected = a.is_buffer ? sizeof(void*) : element_size(a.type);
    const std::string which = "argument " + std::to_string(i + 1) + " (" + a.name + ") of " + spec.name;
    if (args[i].bytes != expected) {
      throw InputError(which + " takes " + std::to_string(expected) + " bytes, got " + std::to_string(args[i].bytes));
    }
    if (!a.is_buffer) {
      std::memcpy(values.scalars[i].data(), args[i].address, expected);
      continue;
    }
    void* pointer = nullptr;
    std::memcpy(&pointer, args[i].address, sizeof pointer);
    const auto h = static_cast<std::size_t>(std::find(host.begin(), host.end(), i) - host.begin());
    if (h == host.size()) {
      values.device[i] = reinterpret_cast<CUdeviceptr>(pointer);
      continue;
    }
    auto* bytes = static_cast<unsigned char*>(pointer);
    if (bytes == nullptr) throw InputError(which + " is a null pointer");
    if (auto why = not_pinned(bytes, p.host_bytes[h])) {
      throw InputError(which + ": the host array at " + address(pointer) + " (" + std::to_string(p.host_bytes[h]) +
                       " bytes) " + *why + "; allocate it with cudaMallocHost or cuMemHostAlloc, or register it with "
                       "cudaHostRegister");
    }
    values.host[h] = bytes;
  }

  const std::lock_guard lock(p.mutex);
  p.kernel->make_current();
  // Logical stream s of the plan is the application's stream s % given.
  const auto used = static_cast<std::size_t>(p.runner->plan().streams_used());
  std::vector<CUstream> mapped;
  for (std::size_t s = 0; s < used; ++s) mapped.push_back(static_cast<CUstream>(streams[s % streams.size()]));
  // The ring is reused: this run's first copies wait for the previous run's end, whatever streams it used.
  if (p.ran) CU_CHECK(cuStreamWaitEvent, mapped[0], p.events.stop(), 0);
  const detail::EnqueueStatus status = p.runner->enqueue(static_cast<CUfunction>(p.kernel->function()), values, mapped,
                                                         p.ring.get(), p.events.start(), p.events.joins(),
                                                         p.events.stop());
  if (!status) throw CudaError(spec.name + " pipeline: " + detail::describe(status.code, status.call));
  p.ran = true;
}

}  // namespace cutune
