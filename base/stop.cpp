// The stop request's flag (a lock-free atomic, so that setting it is safe in a signal handler) and the SIGTERM handler
// that says what is stored before asking for the stop.
#include "cutune/stop.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>

namespace cutune {
namespace {
std::atomic<bool> stop_flag{false};
std::atomic<bool> announced{false};
// Written before the handler is installed and only read by it: write(2) is async-signal-safe, a std::string is not.
char announcement[1024];
std::size_t announcement_bytes = 0;

extern "C" void announce_and_stop(int) {
  if (!announced.exchange(true)) {
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, announcement, announcement_bytes);
  }
  stop_flag.store(true);
}
}  // namespace

void request_stop() { stop_flag.store(true); }
bool stop_requested() { return stop_flag.load(); }
void reset_stop() { stop_flag.store(false); }

void announce_on_terminate(const std::string& message) {
  announcement_bytes = std::min(message.size(), sizeof(announcement) - 1);
  std::memcpy(announcement, message.data(), announcement_bytes);
  std::signal(SIGTERM, announce_and_stop);
}
bool termination_announced() { return announced.load(); }

}  // namespace cutune
