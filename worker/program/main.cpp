// cutune-worker: measures configurations for the tuner in a process of its own, so that a candidate that faults
// or hangs takes down only this process; with --compiler, compiles for one of the tuner's
// compile threads instead (worker/compiler_processes.hpp). The tuner starts it; it is not run by hand.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstring>

#include "worker/compiler_processes.hpp"
#include "worker/worker_protocol.hpp"

int main(int argc, char** argv) {
  const bool compiler = argc > 1 && std::strcmp(argv[1], "--compiler") == 0;
  // A worker must not outlive its tuner (kill -9 of the tuner included), even in the middle of a measurement. A
  // compiler process outlives the thread that started it (the next compile thread takes it over): it ends when its
  // socket closes, which the tuner's death does too.
  if (!compiler) {
    const pid_t parent = ::getppid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) return 0;  // the tuner died before the line above took effect
  }
  // The protocol owns the socket on fds 0 and 1; anything else printed to stdout must not corrupt it.
  const int channel = ::dup(1);
  ::dup2(2, 1);
  return compiler ? cutune::detail::compiler_main(0, channel) : cutune::detail::worker_main(0, channel);
}
