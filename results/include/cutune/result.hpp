// A configuration's outcome as a value: "did it run" (status) apart from "was it right" (verified), with its timings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cutune {

/// How far a configuration's evaluation got. Only Ok and Unverified results have a time that may count.
enum class Status {
  Ok,            ///< compiled, ran, verified, timed
  CompileError,  ///< NVRTC rejected it (message holds the log)
  LaunchError,   ///< could not be loaded or launched (resources, launch configuration)
  RuntimeError,  ///< faulted while running (illegal address, trap, ...)
  WrongResult,   ///< ran but the output differs from the reference
  Timeout,       ///< ran past its deadline
  Unverified,    ///< compiled, ran and timed, its output compared with nothing (the user chose --verify none)
  Interrupted,   ///< its worker or compiler process was killed from outside twice: not its fault; a resume retries it
  NoReference,   ///< not run: the reference it is compared with (the reference configuration at its followed values) is
                 ///< not valid or does not run; message says why
};
std::string_view to_string(Status s);
/// Whether a result's time may count: Ok, or Unverified (which a verified result of the same key outranks).
inline bool usable(Status s) { return s == Status::Ok || s == Status::Unverified; }
/// Inverse of to_string(); throws DatabaseError on an unknown name.
Status status_from_string(std::string_view s);

/// The items of a configuration's canonical form: "BM=128,BN=64" -> {{"BM", "128"}, {"BN", "64"}}, in order; an
/// item without '=' is a name with an empty value.
std::vector<std::pair<std::string, std::string>> config_items(std::string_view config);

/// Where a wrong result's output differs from the reference: what the tuner compares across configurations to tell a
/// disagreement of every configuration (the reference, the inputs, the tolerance) from one configuration's bug.
struct Disagreement {
  std::string output;          ///< the first output buffer that differs
  std::uint64_t count = 0;     ///< its elements that differ
  std::uint64_t first = 0;     ///< the first index that differs
  std::uint64_t compared = 0;  ///< its elements compared (all, or those of its "verify" region)
};

/// One configuration tried on one device, kernel version and shape.
struct Result {
  std::string config;                ///< canonical "NAME=VALUE,..." form
  Status status = Status::Ok;
  std::string message;               ///< compile log or error, empty when Ok
  std::vector<double> samples_ms;    ///< every timed run, in order, milliseconds
  double median_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  double spread = 0.0;               ///< interquartile range over the median (0.01 = 1%)
  double metric = 0.0;               ///< GB/s or GFLOP/s at the median time
  double max_error = 0.0;            ///< largest |out - ref| seen in verification
  std::optional<Disagreement> disagreement;  ///< WrongResult after a comparison: where; not kept in the database
  int registers = 0;                 ///< per thread, after compile (0 when unknown)
  double compile_ms = 0.0;
  // Where the evaluation's wall time went besides compiling, ms, as Kernel Tuner keeps it (verification_time,
  // benchmark_time, framework_time, strategy_time). 0: none spent (a configuration that failed before that step);
  // NaN: unknown (results stored by an older cutune, foreign results without the figure).
  double verify_ms = 0.0;     ///< the first run on reset outputs and its comparison with the reference
  double benchmark_ms = 0.0;  ///< the timed runs after verification, warm-up included
  double framework_ms = 0.0;  ///< the rest of the evaluation: loading the module, launch set-up, the worker's round trip
  double search_ms = 0.0;     ///< the strategy's own time for it: its share of the proposal, and hearing the outcome

  // What the configuration asks of the GPU, measured with it (0 where unknown: failures before the figure existed,
  // results of older cutune versions and foreign tools). Waves, occupancy and the fraction of the peak are derived
  // from these and the device key at read time (resources.hpp), so stored figures can never contradict them.
  int spill_bytes = 0;               ///< per thread: bytes of spill stores plus spill loads, as ptxas reports them
  int static_smem_bytes = 0;         ///< per block: __shared__ arrays of the compiled kernel
  int dynamic_smem_bytes = 0;        ///< per block: the spec's launch geometry at this shape
  int threads_per_block = 0;         ///< the spec's block size at this shape
  std::int64_t blocks = 0;           ///< in the grid (product of its dimensions)
  int blocks_per_sm = 0;             ///< resident at once, by the driver's occupancy calculator
  double peak = 0.0;                 ///< the device's peak in the metric's unit (GB/s or GFLOP/s) that `metric` is
                                     ///< a fraction of: measured copy bandwidth, or the FP32 FMA rate (resources.hpp)
};

/// Device identity: name, compute capability and SM count are the key; the rest is provenance.
struct DeviceIdentity {
  std::string name;            ///< as the driver reports it, e.g. "NVIDIA H200"
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int memory_clock_khz = 0;
  int memory_bus_bits = 0;
  std::int64_t total_memory = 0;  ///< bytes
  std::string uuid;
  int driver_version = 0;      ///< as cuDriverGetVersion, e.g. 13000
  int nvrtc_version = 0;       ///< major * 1000 + minor * 10, e.g. 13000
  /// The vendor library a library family's run called (cublasLtGetVersion, e.g. 130100); 0 for a run of a kernel.
  int library_version = 0;
  std::string arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }
};

/// Kernel identity: the family name and the hash of its source and spec (its version).
struct KernelIdentity {
  std::string name;
  std::string hash;
};

}  // namespace cutune
