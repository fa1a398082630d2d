// Enqueues one run of a host pipeline on a set of streams: the tuner's worker and the runtime API share it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cuda_driver.hpp"
#include "cutune/pipeline.hpp"
#include "cutune/spec.hpp"

namespace cutune::detail {

/// Streams and the events that tie them into one run, created once and kept (CUDA objects are not free to make).
class PipelineStreams {
 public:
  /// `own` streams created here (non-blocking), or none when the caller brings its own.
  explicit PipelineStreams(int own);
  ~PipelineStreams();
  PipelineStreams(const PipelineStreams&) = delete;
  PipelineStreams& operator=(const PipelineStreams&) = delete;
  const std::vector<CUstream>& streams() const { return streams_; }
  CUevent start() const { return events_[0]; }
  CUevent stop() const { return events_[1]; }
  /// One per stream: recorded at the end of stream i's work (i >= 1), for stream 0 to wait on.
  std::span<const CUevent> joins() const { return {events_.data() + 2, events_.size() - 2}; }

 private:
  void release();

  std::vector<CUstream> streams_;
  std::vector<CUevent> events_;  // start, stop, then one join per stream (timing events: CU_EVENT_DEFAULT)
};

/// Whether a host buffer is copied to the device per chunk: inputs, and outputs that start with data (y = a*x + y).
inline bool copied_in(const Argument& a) { return !a.output || a.fill != Fill::Poison; }

/// What a run reads and writes: the host arrays, the device buffers that are not host buffers, the scalars.
struct PipelineArgs {
  std::vector<unsigned char*> host;                   ///< per PipelineSpec::host entry: the whole host array
  std::vector<CUdeviceptr> device;                    ///< per argument: a device buffer (0 for host buffers, scalars)
  std::vector<std::array<unsigned char, 8>> scalars;  ///< per argument: a scalar's bytes (replaced per chunk where
                                                      ///< the pipeline says)
};

/// Pinned host memory (cuMemHostAlloc), freed on destruction; movable.
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t bytes);
  unsigned char* get() const { return static_cast<unsigned char*>(memory_.get()); }
  std::size_t bytes() const { return bytes_; }

 private:
  struct FreeHost {
    void operator()(void* p) const noexcept;
  };
  std::unique_ptr<void, FreeHost> memory_;
  std::size_t bytes_ = 0;
};

/// Where the first failing driver call of an enqueue was, if any.
struct EnqueueStatus {
  CUresult code = CUDA_SUCCESS;
  const char* call = "";
  explicit operator bool() const { return code == CUDA_SUCCESS; }
};

/// A configuration's pipeline at a shape, with each chunk's launch and scalars worked out once.
class PipelineRunner {
 public:
  PipelineRunner(const KernelSpec& spec, const Config& config, const Shape& shape);

  const PipelinePlan& plan() const { return plan_; }
  const Launch& launch(std::size_t chunk) const { return launches_[chunk]; }
  /// Bytes of device memory for the ring: one chunk of every host buffer per stream used.
  std::size_t ring_bytes() const { return slot_bytes_ * static_cast<std::size_t>(plan_.streams_used()); }

  /// Enqueues one run of `f`: `start` recorded on streams[0] and waited on by the others; per chunk, on stream
  /// (index mod streams used), the copies in of its inputs into that stream's ring slot, the launch, the copies out;
  /// each other stream's end joined back into streams[0], then `stop` recorded there. `streams` holds at least
  /// plan().streams_used() streams; `ring` ring_bytes() of device memory. Never throws for the driver's failures:
  /// the first one stops the enqueue and is returned.
  EnqueueStatus enqueue(CUfunction f, const PipelineArgs& args, std::span<const CUstream> streams, CUdeviceptr ring,
                        CUevent start, std::span<const CUevent> joins, CUevent stop) const;

 private:
  struct HostBuffer {
    std::size_t argument = 0;
    std::size_t item_bytes = 0;  // bytes per pipeline item
    std::size_t offset = 0;      // within a stream's ring slot
    bool copy_in = false;
    bool copy_out = false;
  };

  const KernelSpec& spec_;
  PipelinePlan plan_;
  std::vector<HostBuffer> host_;
  std::size_t slot_bytes_ = 0;
  std::vector<Launch> launches_;
  // Per chunk, the scalars the pipeline replaces: (argument index, bytes).
  std::vector<std::vector<std::pair<std::size_t, std::array<unsigned char, 8>>>> chunk_scalars_;
};

}  // namespace cutune::detail
