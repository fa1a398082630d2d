// The runtime API of host pipelines: a tuned pipeline run on the application's pinned host arrays and streams.
//
//   cutune::Runtime runtime({.database = "cutune.db"});
//   cutune::RuntimePipeline saxpy = runtime.pipeline("saxpy_pipeline", "268435456");
//   void* streams[] = {s0, s1, s2, s3};
//   saxpy(streams, y_pinned, x_pinned, 0.75f, 0.5f, n);   // the spec's arguments, in its order
//   cudaStreamSynchronize(s0);                              // every stream's work is joined into streams[0]
#pragma once

#include <array>
#include <memory>
#include <vector>
#if __cplusplus >= 202002L
#include <span>
#endif

#include "cutune/pipeline.hpp"
#include "cutune/runtime.hpp"

namespace cutune {

/// A spec's host pipeline at its tuned configuration for one shape: chunk size and stream count from the
/// configuration the database chose (RuntimeKernel::choice()), device chunk buffers (a ring: one chunk of every
/// host array per stream) owned here. Use it while its Runtime lives. Thread-safe; movable, not copyable.
class RuntimePipeline {
 public:
  struct Impl;
  explicit RuntimePipeline(std::unique_ptr<Impl> impl);
  ~RuntimePipeline();
  RuntimePipeline(RuntimePipeline&&) noexcept;
  RuntimePipeline& operator=(RuntimePipeline&&) noexcept;

  /// The kernel with its configuration, the rule that chose it, and the spec.
  const RuntimeKernel& kernel() const;
  /// The chunks and streams of the tuned configuration at this shape.
  const PipelinePlan& plan() const;

  /// Enqueues the pipeline and returns: per chunk, copies of its inputs from the host arrays, the kernel on the
  /// chunk, copies of its outputs back into the host arrays. Chunk i goes to the pipeline's stream i % STREAMS,
  /// which is streams[(i % STREAMS) % streams.size()]: fewer streams than tuned share them, more are left idle.
  /// Every stream starts after what streams[0] held before the call (and after this pipeline's previous run) and
  /// ends joined into streams[0]: synchronise streams[0] before reading the outputs. Arguments are the spec's, in
  /// its order, as for RuntimeKernel::launch(): host arrays as host pointers into pinned (page-locked) memory,
  /// other buffers as device pointers, scalars by value (a scalar the pipeline sets per chunk, such as a chunk's
  /// length, is passed too and replaced). Throws InputError on a wrong count or size, no streams, or a host array
  /// that is not pinned memory for all of its bytes; CudaError when the driver refuses the work.
  void run(void* const* streams, std::size_t stream_count, const KernelArg* args, std::size_t count) const;
  /// run() with the values themselves: pipeline(streams, y, x, a, b, n).
  template <typename... Args>
  void operator()(const std::vector<void*>& streams, const Args&... args) const {
    const std::array<KernelArg, sizeof...(Args)> list{KernelArg{&args, sizeof(Args)}...};
    run(streams.data(), streams.size(), list.data(), list.size());
  }
#if __cplusplus >= 202002L
  void run(std::span<void* const> streams, std::span<const KernelArg> args) const {
    run(streams.data(), streams.size(), args.data(), args.size());
  }
  template <typename... Args>
  void operator()(std::span<void* const> streams, const Args&... args) const {
    const std::array<KernelArg, sizeof...(Args)> list{KernelArg{&args, sizeof(Args)}...};
    run(streams.data(), streams.size(), list.data(), list.size());
  }
#endif

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cutune
