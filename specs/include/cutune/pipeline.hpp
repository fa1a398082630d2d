// A spec's host pipeline: pinned host arrays copied in, computed and copied out in chunks over several streams.
//
// A spec with a "pipeline" section describes, besides its kernel on device-resident data, how the kernel runs over
// arrays that live in pinned host memory: they are cut into chunks, and chunk i goes to stream i % streams as a
// host-to-device copy of its inputs, one launch of the kernel on the chunk and a device-to-host copy of its outputs.
// Each stream owns one device buffer per host array, one chunk long (a ring of per-stream chunk buffers), so device
// memory is bounded by streams x chunk, not by the array:
//
//   "pipeline": {
//     "length": "N",                        // items of the host arrays (shape names only)
//     "chunk": "CHUNK",                     // items per chunk, at most 2^20 chunks (a constraint the reader adds);
//                                           // the last chunk is shorter when it does not divide
//     "streams": "STREAMS",                 // 1 to 16 (a constraint the reader adds)
//     "host": ["y", "x"],                   // buffer arguments in pinned host memory; the others stay on the device
//     "grid": ["ceil_div(CHUNK_LEN, BLOCK * ITEMS)"],  // the launch grid of one chunk
//     "scalars": {"n": "CHUNK_LEN"}         // scalar arguments whose value differs per chunk
//   }
//
// Per chunk, the names CHUNK_LEN (its items) and CHUNK_START (its first item) are bound in "grid" and "scalars"
// besides the parameters and the shape. A host buffer of `size` elements holds size / length elements per item
// (a whole number), and a chunk of it is that many times the chunk's items. Outputs are copied back; inputs, and
// outputs that start with data (a fill other than poison), are copied in. The top-level "grid" and "arguments"
// still describe the kernel over the whole array on the device: the reference runs that way, and so does a serial
// copy-compute-copy baseline.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cutune/expr.hpp"
#include "cutune/spec.hpp"

namespace cutune {

struct PipelineSpec {
  static constexpr std::int64_t kMaxStreams = 16;  ///< more streams than this are refused by a constraint
  static constexpr std::int64_t kMaxChunks = 1 << 20;  ///< so are more chunks (a plan holds each one's launch)
  Expr length;                   ///< items of the host arrays, over shape names
  Expr chunk;                    ///< items per chunk, over parameters and shape names
  Expr streams;                  ///< streams, over parameters and shape names
  std::vector<std::size_t> host; ///< indices into KernelSpec::arguments of the host buffers, in the spec's order
  std::array<Expr, 3> grid;      ///< one chunk's grid, over pipeline_scope_names()
  std::vector<std::pair<std::size_t, Expr>> scalars;  ///< per-chunk values of scalar arguments, by argument index
  /// Parameters that only "chunk" and "streams" use: not passed to the compiler, so that configurations which
  /// differ only in them share one binary (and one cubin cache entry).
  std::vector<std::string> host_parameters;
};

/// The names pipeline expressions are bound to: the spec's scope_names(), then CHUNK_LEN and CHUNK_START.
std::vector<std::string> pipeline_scope_names(const KernelSpec& spec);

/// One chunk of a plan: items [start, start + length) on stream `stream`.
struct PipelineChunk {
  std::int64_t start = 0;
  std::int64_t length = 0;
  int stream = 0;
};

/// A pipeline in numbers for one configuration and shape.
struct PipelinePlan {
  std::int64_t length = 0;  ///< items
  std::int64_t chunk = 0;   ///< items per chunk (at most `length`: a chunk larger than the array is the array)
  int streams = 0;          ///< streams asked for; chunks go round-robin, so at most chunks.size() are used
  std::vector<PipelineChunk> chunks;
  /// Per PipelineSpec::host entry: elements per item, and the buffer's whole size in elements.
  std::vector<std::int64_t> per_item;
  std::vector<std::int64_t> elements;
  int streams_used() const { return static_cast<int>(std::min<std::size_t>(chunks.size(), static_cast<std::size_t>(streams))); }
};

/// The plan of `spec`'s pipeline (which must exist) at a configuration and shape. Throws InputError when the
/// length, chunk or streams are out of range (length or chunk below 1, streams outside 1..16, more than 2^20
/// chunks) or a host buffer's size is not a whole number of elements per item.
PipelinePlan plan_pipeline(const KernelSpec& spec, const Config& config, const Shape& shape);

/// One chunk's launch: the block and shared memory of the spec's launch, the pipeline's grid.
Launch chunk_launch(const KernelSpec& spec, const Config& config, const Shape& shape, const PipelineChunk& chunk);

/// The value of every scalar argument for one chunk, in argument order (buffers get a 0 placeholder): the
/// pipeline's per-chunk expression where it has one, else the argument's own value.
std::vector<Value> chunk_scalars(const KernelSpec& spec, const Config& config, const Shape& shape,
                                 const PipelineChunk& chunk);

}  // namespace cutune
