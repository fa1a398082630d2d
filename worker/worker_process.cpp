// Spawning a worker process on a socket pair, and telling how it ended.
#include "worker_process.hpp"

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#include "cutune/error.hpp"
#include "cutune/stop.hpp"

extern char** environ;

namespace cutune::detail {
namespace {

// Whether the process is on its way out already (a zombie, or PF_EXITING in /proc/PID/stat's flags). A process killed
// from outside closes its socket before it can be reaped, and one with a CUDA context may take seconds to release the
// GPU in between: killing it then would make the outside kill look like cutune's own.
bool exiting(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  const std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const std::size_t name_end = stat.rfind(')');  // the command name may hold spaces and parentheses
  if (name_end == std::string::npos) return false;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string state;
  long skipped = 0;  // ppid, pgrp, session, tty_nr, tpgid
  unsigned long flags = 0;
  fields >> state >> skipped >> skipped >> skipped >> skipped >> skipped >> flags;
  constexpr unsigned long kPfExiting = 0x4;
  return state == "Z" || state == "X" || (fields && (flags & kPfExiting) != 0);
}

}  // namespace

bool ProcessEnd::killed_from_outside() const { return !killed_here && (signal == SIGKILL || signal == SIGTERM); }

WorkerProcess::WorkerProcess(const std::string& executable, const std::vector<std::string>& arguments,
                             std::string noun)
    : noun_(std::move(noun)) {
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) {
    throw Error("cannot create a socket pair for " + noun_ + ": " + std::strerror(errno));
  }
  // It talks through its standard input and output, both its end of the pair.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], 0);
  posix_spawn_file_actions_adddup2(&actions, sockets[1], 1);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // Its own process group: Ctrl-C reaches the tuner, which then stops the worker itself.
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> argv{const_cast<char*>(executable.c_str())};
  for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int failed = ::posix_spawn(&pid_, executable.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(sockets[1]);
  socket_ = sockets[0];
  if (failed != 0) {
    ::close(socket_);
    throw Error("cannot start " + noun_ + " " + executable + ": " + std::strerror(failed));
  }
}

WorkerProcess::~WorkerProcess() {
  ::close(socket_);
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

bool WorkerProcess::send(const Message& m) { return write_message(socket_, m); }

ReadOutcome WorkerProcess::receive(double timeout_s, Message& out, bool interruptible) {
  return read_message(socket_, timeout_s, interruptible ? std::function<bool()>(stop_requested) : nullptr, out);
}

ProcessEnd WorkerProcess::end() {
  ProcessEnd out;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == 0) {
    // It closed its socket but lives on, or hangs: give it a moment, then kill it, unless it is dying already (of
    // whatever ended it, which is what it is to be judged by).
    ::usleep(100000);
    r = ::waitpid(pid_, &status, WNOHANG);
    if (r == 0 && !exiting(pid_)) {
      ::kill(pid_, SIGKILL);
      out.killed_here = true;
    }
    if (r == 0) r = ::waitpid(pid_, &status, 0);
  }
  reaped_ = true;
  if (r <= 0) {
    out.text = noun_ + " vanished";
  } else if (WIFSIGNALED(status)) {
    out.signal = WTERMSIG(status);
    out.text = noun_ + " died of signal " + std::to_string(out.signal) + " (" + strsignal(out.signal) + ")";
  } else {
    out.text = noun_ + " exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return out;
}

}  // namespace cutune::detail
