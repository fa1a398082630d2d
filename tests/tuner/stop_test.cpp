// Host tests of the stop request's SIGTERM answer (cutune/stop.hpp): the message goes out at once, once, and the stop is
// requested, in a child process so that the test's own signal handlers stay as they were.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "cutune/stop.hpp"

namespace cutune {
namespace {

// Runs `body` in a child whose stderr is a pipe; returns what it wrote there and its exit status.
template <typename Body>
std::pair<std::string, int> in_child(Body body) {
  int fds[2];
  if (::pipe(fds) != 0) return {"pipe failed", -1};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], STDERR_FILENO);
    ::_exit(body());
  }
  ::close(fds[1]);
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {text, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

TEST(StopTest, SigtermWritesTheMessageOnceAndRequestsAStop) {
  const auto [text, code] = in_child([] {
    announce_on_terminate("stopped: results are stored\n");
    if (stop_requested() || termination_announced()) return 3;  // nothing before the signal
    std::raise(SIGTERM);
    std::raise(SIGTERM);  // a second SIGTERM (a launcher that repeats it) says nothing more
    return stop_requested() && termination_announced() ? 0 : 4;
  });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(text, "stopped: results are stored\n");
}

TEST(StopTest, WithoutASigtermNothingIsWritten) {
  const auto [text, code] = in_child([] {
    announce_on_terminate("stopped\n");
    request_stop();  // a stop for another reason (Ctrl-C, a lane lost) leaves the report to the caller
    return termination_announced() ? 5 : 0;
  });
  EXPECT_EQ(code, 0);
  EXPECT_EQ(text, "");
}

}  // namespace
}  // namespace cutune
