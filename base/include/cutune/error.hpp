// The exception hierarchy for misuse and environment failures.
#pragma once

#include <stdexcept>
#include <string>

namespace cutune {

/// Base of every exception cutune throws; the message is one line meant for a user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A kernel spec or an expression in it is malformed.
class SpecError : public Error {
 public:
  using Error::Error;
};

/// The user asked for something that does not exist or cannot be parsed (kernel name, shape, option).
class InputError : public Error {
 public:
  using Error::Error;
};

/// A CUDA driver, runtime or NVRTC call failed outside a single candidate's evaluation.
class CudaError : public Error {
 public:
  using Error::Error;
};

/// No CUDA driver or no CUDA device on this machine.
class NoDeviceError : public CudaError {
 public:
  using CudaError::CudaError;
};

/// The database file cannot be opened, created, read or written.
class DatabaseError : public Error {
 public:
  using Error::Error;
};

/// The user asked the run to stop (Ctrl-C); what was measured is stored.
class Interrupted : public Error {
 public:
  using Error::Error;
};

}  // namespace cutune
