// Enqueues a host pipeline's chunks over streams: copy in, launch, copy out, each stream through its own ring slot.
#include "pipeline_runner.hpp"

#include "cutune/error.hpp"
#include "cluster_launch.hpp"
#include "device_memory.hpp"
#include "scalar_bytes.hpp"

namespace cutune::detail {
namespace {

constexpr std::size_t kSlotAlignment = 256;  // every chunk buffer starts as cuMemAlloc would align it

std::size_t aligned(std::size_t bytes) { return (bytes + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment; }

}  // namespace

PinnedBuffer::PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
  void* p = nullptr;
  CU_CHECK(cuMemHostAlloc, &p, bytes == 0 ? 1 : bytes, 0);
  memory_.reset(p);
}

void PinnedBuffer::FreeHost::operator()(void* p) const noexcept { driver().cuMemFreeHost(p); }

PipelineStreams::PipelineStreams(int own) {
  try {
    for (int i = 0; i < own; ++i) CU_CHECK(cuStreamCreate, &streams_.emplace_back(), CU_STREAM_NON_BLOCKING);
    events_.resize(2 + static_cast<std::size_t>(PipelineSpec::kMaxStreams), nullptr);
    for (auto& e : events_) CU_CHECK(cuEventCreate, &e, CU_EVENT_DEFAULT);
  } catch (...) {
    release();
    throw;
  }
}

PipelineStreams::~PipelineStreams() { release(); }

void PipelineStreams::release() {
  for (CUstream s : streams_)
    if (s != nullptr) driver().cuStreamDestroy(s);
  for (CUevent e : events_)
    if (e != nullptr) driver().cuEventDestroy(e);
  streams_.clear();
  events_.clear();
}

PipelineRunner::PipelineRunner(const KernelSpec& spec, const Config& config, const Shape& shape)
    : spec_(spec), plan_(plan_pipeline(spec, config, shape)) {
  for (std::size_t h = 0; h < spec.pipeline->host.size(); ++h) {
    const std::size_t index = spec.pipeline->host[h];
    const Argument& a = spec.arguments[index];
    HostBuffer b;
    b.argument = index;
    b.item_bytes = static_cast<std::size_t>(plan_.per_item[h]) * element_size(a.type);
    b.offset = slot_bytes_;
    b.copy_in = copied_in(a);
    b.copy_out = a.output;
    slot_bytes_ += aligned(b.item_bytes * static_cast<std::size_t>(plan_.chunk));
    host_.push_back(b);
  }
  for (const PipelineChunk& chunk : plan_.chunks) {
    launches_.push_back(chunk_launch(spec, config, shape, chunk));
    const std::vector<Value> values = chunk_scalars(spec, config, shape, chunk);
    auto& replaced = chunk_scalars_.emplace_back();
    for (const auto& [index, e] : spec.pipeline->scalars) {
      replaced.emplace_back(index, scalar_bytes(spec.arguments[index].type, values[index]));
    }
  }
}

EnqueueStatus PipelineRunner::enqueue(CUfunction f, const PipelineArgs& args, std::span<const CUstream> streams,
                                      CUdeviceptr ring, CUevent start, std::span<const CUevent> joins,
                                      CUevent stop) const {
  const DriverApi& api = driver();
  const auto used = static_cast<std::size_t>(plan_.streams_used());
  if (streams.size() < used || joins.size() < used) return {CUDA_ERROR_INVALID_VALUE, "pipeline streams"};
  EnqueueStatus status;
  auto call = [&status](CUresult code, const char* name) {
    if (code != CUDA_SUCCESS && status) status = {code, name};
    return code == CUDA_SUCCESS;
  };
  if (!call(api.cuEventRecord(start, streams[0]), "cuEventRecord(start)")) return status;
  for (std::size_t s = 1; s < used; ++s) {
    if (!call(api.cuStreamWaitEvent(streams[s], start, 0), "cuStreamWaitEvent(start)")) return status;
  }
  // cuLaunchKernel copies the arguments before it returns, so one parameter array serves every chunk.
  std::vector<std::array<unsigned char, 8>> values = args.scalars;
  std::vector<CUdeviceptr> pointers = args.device;
  values.resize(spec_.arguments.size());
  pointers.resize(spec_.arguments.size());
  std::vector<void*> params(spec_.arguments.size());
  for (std::size_t a = 0; a < params.size(); ++a) {
    params[a] = spec_.arguments[a].is_buffer ? static_cast<void*>(&pointers[a]) : static_cast<void*>(values[a].data());
  }
  for (std::size_t c = 0; c < plan_.chunks.size(); ++c) {
    const PipelineChunk& chunk = plan_.chunks[c];
    const CUstream stream = streams[static_cast<std::size_t>(chunk.stream)];
    const CUdeviceptr slot = ring + static_cast<std::size_t>(chunk.stream) * slot_bytes_;
    for (std::size_t h = 0; h < host_.size(); ++h) {
      const HostBuffer& b = host_[h];
      pointers[b.argument] = slot + b.offset;
      const std::size_t bytes = b.item_bytes * static_cast<std::size_t>(chunk.length);
      const unsigned char* from = args.host[h] + b.item_bytes * static_cast<std::size_t>(chunk.start);
      if (b.copy_in && !call(api.cuMemcpyHtoDAsync(slot + b.offset, from, bytes, stream), "cuMemcpyHtoDAsync")) {
        return status;
      }
    }
    for (const auto& [index, bytes] : chunk_scalars_[c]) values[index] = bytes;
    const Launch& l = launches_[c];
    const CUresult launched = api.cuLaunchKernel(
        f, static_cast<unsigned>(l.grid[0]), static_cast<unsigned>(l.grid[1]), static_cast<unsigned>(l.grid[2]),
        static_cast<unsigned>(l.block[0]), static_cast<unsigned>(l.block[1]), static_cast<unsigned>(l.block[2]),
        static_cast<unsigned>(l.shared_memory), stream, params.data(), nullptr);
    if (!call(launched, "cuLaunchKernel")) return status;
    for (std::size_t h = 0; h < host_.size(); ++h) {
      const HostBuffer& b = host_[h];
      if (!b.copy_out) continue;
      unsigned char* to = args.host[h] + b.item_bytes * static_cast<std::size_t>(chunk.start);
      const std::size_t bytes = b.item_bytes * static_cast<std::size_t>(chunk.length);
      if (!call(api.cuMemcpyDtoHAsync(to, slot + b.offset, bytes, stream), "cuMemcpyDtoHAsync")) return status;
    }
  }
  for (std::size_t s = 1; s < used; ++s) {
    if (!call(api.cuEventRecord(joins[s], streams[s]), "cuEventRecord(join)")) return status;
    if (!call(api.cuStreamWaitEvent(streams[0], joins[s], 0), "cuStreamWaitEvent(join)")) return status;
  }
  if (stop != nullptr) call(api.cuEventRecord(stop, streams[0]), "cuEventRecord(stop)");
  return status;
}

}  // namespace cutune::detail
