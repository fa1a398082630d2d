// The stop request's flag: a lock-free atomic, so that setting it is safe in a signal handler.
#include "cutune/stop.hpp"

#include <atomic>

namespace cutune {
namespace {
std::atomic<bool> stop_flag{false};
}  // namespace

void request_stop() { stop_flag.store(true); }
bool stop_requested() { return stop_flag.load(); }
void reset_stop() { stop_flag.store(false); }

}  // namespace cutune
