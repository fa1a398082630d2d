// A stand-in for cutune-worker in host tests: speaks the real protocol, and fails when the configuration says so
// (MODE=1 aborts, MODE=2 hangs, MODE=3 exits without answering, MODE=4 reports an environment error).
#include <unistd.h>

#include <cstdlib>

#include "measure/worker_protocol.hpp"

using cutune::detail::Message;

int main() {
  const int channel = ::dup(1);
  ::dup2(2, 1);
  for (;;) {
    Message request;
    if (cutune::detail::read_message(0, -1.0, {}, request) != cutune::detail::ReadOutcome::Message) return 0;
    const std::string op = request.at("op").get<std::string>();
    Message reply = {{"ok", true}};
    if (op == "copy") reply = {{"gbs", 123.0}};
    if (op == "evaluate") {
      const std::string config = request.at("config").get<std::string>();
      if (config.find("MODE=1") != std::string::npos) std::abort();
      if (config.find("MODE=2") != std::string::npos)
        for (;;) ::pause();
      if (config.find("MODE=3") != std::string::npos) ::_exit(3);
      if (config.find("MODE=4") != std::string::npos) {
        reply = {{"error", "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"}};
      } else {
        cutune::Result r;
        r.config = config;
        r.samples_ms = {1.0, 2.0, 3.0};
        r.median_ms = 2.0;
        r.min_ms = 1.0;
        r.max_ms = 3.0;
        reply = {{"result", cutune::detail::to_message(r)}};
      }
    }
    if (!cutune::detail::write_message(channel, reply)) return 0;
  }
}
