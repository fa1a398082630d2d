// A CUDA device: its identity for the database and its launch limits for the space.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "cutune/result.hpp"
#include "cutune/space.hpp"

namespace cutune {

/// A GPU: its identity and limits at once, its primary context on first make_current(). Not copyable.
class Device {
 public:
  /// Number of CUDA devices; 0 when there is no driver or no GPU.
  static int count();
  /// Why no device can be used ("no CUDA device: ..."), or an empty string when one can.
  static std::string unavailable_reason();

  /// Opens device `ordinal`. Throws NoDeviceError without a driver or device, InputError for a bad ordinal.
  explicit Device(int ordinal = 0);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  int ordinal() const { return ordinal_; }
  const DeviceIdentity& identity() const { return identity_; }
  const DeviceLimits& limits() const { return limits_; }
  std::int64_t l2_bytes() const { return l2_bytes_; }
  /// The SM clock the driver calls typical, kHz (0 when it does not say): the clock of the FP32 peak.
  int clock_khz() const { return clock_khz_; }
  /// Makes this device's context current on the calling thread (retaining it first, once).
  void make_current() const;
  /// Retains the device's primary context (once; released when this object dies) without making it current, so
  /// that it is not created and destroyed again around every use.
  void retain_context() const;
  /// Before the first make_current(): host threads waiting on this GPU sleep instead of spinning, which leaves
  /// their core to other work (a measuring worker beside the compile pool). GPU timings are unaffected.
  void block_while_waiting() const;

 private:
  int ordinal_ = 0;
  int handle_ = 0;                    // CUdevice
  mutable void* context_ = nullptr;   // CUcontext (primary), retained by the first make_current() or retain_context()
  mutable std::once_flag context_once_;
  DeviceIdentity identity_;
  DeviceLimits limits_;
  std::int64_t l2_bytes_ = 0;
  int clock_khz_ = 0;
};

}  // namespace cutune
