// A cutune-worker process with a socket to it: spawned, talked to in protocol frames, and killed and reaped.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "worker_protocol.hpp"

namespace cutune::detail {

/// How a process ended, as WorkerProcess::end() found it.
struct ProcessEnd {
  std::string text;          ///< "the worker died of signal 9 (Killed)", "... exited with status 3"
  int signal = 0;            ///< the signal it died of; 0 when it exited (or vanished)
  bool killed_here = false;  ///< this process sent that signal (it lived on after closing its socket)
  /// Died of SIGKILL or SIGTERM that cutune did not send: an operator, the OOM killer, a job's end. Not the fault of
  /// the work it held, whose own faults show as other signals (SIGSEGV, SIGABRT) or as CUDA errors in its answer.
  bool killed_from_outside() const;
};

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

  /// Kills it (if still running and not already dying) and says how it ended.
  ProcessEnd end();

 private:
  pid_t pid_ = -1;
  int socket_ = -1;
  bool reaped_ = false;
  std::string noun_;
};

}  // namespace cutune::detail
