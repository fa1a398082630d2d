// A cutune-worker process with a socket to it: spawned, talked to in protocol frames, and killed and reaped.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "worker_protocol.hpp"

namespace cutune::detail {

class WorkerProcess {
 public:
  /// Starts `executable` with `arguments`, in a process group of its own (Ctrl-C reaches the tuner only). `noun` names
  /// it in end()'s message ("the worker", "the compiler process"). Throws Error when it cannot start.
  WorkerProcess(const std::string& executable, const std::vector<std::string>& arguments = {},
                std::string noun = "the worker");
  ~WorkerProcess();  // kills it, unless end() reaped it
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  bool send(const Message& m);
  /// Waits for a reply at most `timeout_s` (negative: forever); with `interruptible`, gives up on a stop request.
  ReadOutcome receive(double timeout_s, Message& out, bool interruptible = true);

  /// Kills it (if still running) and says how it ended.
  std::string end();

 private:
  pid_t pid_ = -1;
  int socket_ = -1;
  bool reaped_ = false;
  std::string noun_;
};

}  // namespace cutune::detail
