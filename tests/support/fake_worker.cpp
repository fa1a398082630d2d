// A stand-in for cutune-worker in host tests: speaks the real protocol, and fails when the configuration says so
// (MODE=1 aborts, MODE=2 hangs, MODE=3 exits without answering, MODE=4 reports an environment error, MODE=5 and MODE=6
// kill it with SIGKILL and SIGTERM as an operator or the OOM killer would, MODE=7 raises SIGSEGV, MODE=8 closes its
// socket and lives on). A compile the tuner marks interrupted is answered as the real worker does: Interrupted.
// For tests on several "GPUs" (the device ordinal of its hello), environment variables make it:
//   CUTUNE_FAKE_LOG=FILE        append "DEVICE evaluate|retime CONFIG" per configuration it is sent
//   CUTUNE_FAKE_SLEEP_MS=N      take N ms per configuration (half verifying, half timing, as its result reports);
//                               CUTUNE_FAKE_SLOW=D:N takes N ms on device D instead
//   CUTUNE_FAKE_START_MS=N      take N ms to start (a CUDA context), CUTUNE_FAKE_PREPARE_MS=N to prepare a shape
//   CUTUNE_FAKE_DEAD=D          abort on every configuration on device D (a GPU whose worker keeps dying)
//   CUTUNE_FAKE_TIMES=1         report a median that depends on the configuration (distinct times, a clear best);
//                               =2: 1 ms plus 0.01 ms per unit of the sum of the integer values it sets (a smooth
//                               landscape whose best is every parameter at its smallest value)
//   CUTUNE_FAKE_GATE=FILE       with CUTUNE_FAKE_DEAD: the other devices answer nothing before FILE exists, and the dead
//                               device creates it at its eighth configuration (so it gets those eight, whatever the pace)
//   CUTUNE_FAKE_KILL_LOG=FILE   append the signal's number per kill of MODE=5/6 or -DKILL_COMPILER (every process)
//   CUTUNE_FAKE_KILLS=N         with CUTUNE_FAKE_KILL_LOG: only the first N kills happen; unset: every one
// With --compiler it is a real compiler process (worker/compiler_processes.hpp), which aborts instead when a compile's
// options hold -DCRASH_COMPILER=1 (NVRTC crashing on a source), and kills itself with signal S on -DKILL_COMPILER=S.
#include <fcntl.h>
#include <unistd.h>

#include <csignal>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "worker/compiler_processes.hpp"
#include "worker/worker_protocol.hpp"

using cutune::detail::Message;

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

// CUTUNE_FAKE_SLOW=D:N on device D, else CUTUNE_FAKE_SLEEP_MS.
int sleep_ms(int device) {
  if (const char* slow = std::getenv("CUTUNE_FAKE_SLOW"); slow != nullptr) {
    const std::string text = slow;
    const auto colon = text.find(':');
    if (colon != std::string::npos && std::atoi(text.substr(0, colon).c_str()) == device) {
      return std::atoi(text.substr(colon + 1).c_str());
    }
  }
  return env_int("CUTUNE_FAKE_SLEEP_MS", 0);
}

void log_line(int device, bool retime, const std::string& config) {
  const char* path = std::getenv("CUTUNE_FAKE_LOG");
  if (path == nullptr) return;
  const std::string line = std::to_string(device) + (retime ? " retime " : " evaluate ") + config + "\n";
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  if (::write(fd, line.data(), line.size()) < 0) {}  // one write: lines of several workers never interleave
  ::close(fd);
}

// How many configurations the log says `device` was sent.
int logged_for(int device) {
  const char* path = std::getenv("CUTUNE_FAKE_LOG");
  std::ifstream in(path != nullptr ? path : "");
  const std::string prefix = std::to_string(device) + " ";
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0;
  return n;
}

// CUTUNE_FAKE_GATE: the dead device opens it at its eighth configuration; the others wait for it (20 s at most).
void pass_gate(int device, bool dead) {
  const char* gate = std::getenv("CUTUNE_FAKE_GATE");
  if (gate == nullptr) return;
  if (dead) {
    if (logged_for(device) >= 8) std::ofstream{gate};
    return;
  }
  for (int i = 0; i < 2000 && !std::filesystem::exists(gate); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

// Lines in a file (0 when there is none).
int lines_in(const char* path) {
  std::ifstream in(path != nullptr ? path : "");
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Dies of `signal` as if sent from outside, unless CUTUNE_FAKE_KILLS' count is spent.
void kill_self(int signal) {
  const char* limit = std::getenv("CUTUNE_FAKE_KILLS");
  const char* log = std::getenv("CUTUNE_FAKE_KILL_LOG");
  if (log != nullptr) {
    if (limit != nullptr && lines_in(log) >= std::atoi(limit)) return;
    std::ofstream(log, std::ios::app) << signal << "\n";
  }
  std::raise(signal);
}

void sleep_for_ms(int ms) {
  if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// A median in [1, 2) ms from the configuration text (FNV-1a), the same in every process.
double hashed_time_of(const std::string& config) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : config) h = (h ^ c) * 1099511628211ull;
  return 1.0 + static_cast<double>(h % 1000) / 1000.0;
}

// 1 ms plus 0.01 ms per unit of the sum of the values after each '=' of "A=3,B=1,...".
double summed_time_of(const std::string& config) {
  long sum = 0;
  for (std::size_t at = config.find('='); at != std::string::npos; at = config.find('=', at + 1))
    sum += std::atol(config.c_str() + at + 1);
  return 1.0 + 0.01 * static_cast<double>(sum);
}

// CUTUNE_FAKE_TIMES' median of a configuration.
double time_of(const std::string& config, int times) {
  if (times == 2) return summed_time_of(config);
  return times != 0 ? hashed_time_of(config) : 2.0;
}

// What the real worker's Workbench makes of a compile whose process was killed from outside.
cutune::Result interrupted(const std::string& config, const Message& compiled) {
  cutune::Result r;
  r.config = config;
  r.status = cutune::Status::Interrupted;
  r.message = compiled.at("log").get<std::string>();
  return r;
}

}  // namespace

int compiler(int channel) {
  for (;;) {
    Message request;
    if (cutune::detail::read_message(0, -1.0, {}, request) != cutune::detail::ReadOutcome::Message) return 0;
    for (const auto& option : request.value("options", Message::array())) {
      if (option == "-DCRASH_COMPILER=1") std::abort();
      const std::string text = option.is_string() ? option.get<std::string>() : "";
      if (text.rfind("-DKILL_COMPILER=", 0) == 0 && text != "-DKILL_COMPILER=0") kill_self(std::atoi(text.c_str() + 16));
    }
    if (!cutune::detail::write_message(channel, cutune::detail::answer_compile_request(request))) return 0;
  }
}

int main(int argc, char** argv) {
  const int channel = ::dup(1);
  ::dup2(2, 1);
  if (argc > 1 && std::string(argv[1]) == "--compiler") return compiler(channel);
  int device = 0;
  for (;;) {
    Message request;
    if (cutune::detail::read_message(0, -1.0, {}, request) != cutune::detail::ReadOutcome::Message) return 0;
    const std::string op = request.at("op").get<std::string>();
    Message reply = {{"ok", true}};
    if (op == "hello") {
      device = request.value("device", 0);
      sleep_for_ms(env_int("CUTUNE_FAKE_START_MS", 0));
    }
    if (op == "bench") sleep_for_ms(env_int("CUTUNE_FAKE_PREPARE_MS", 0));
    if (op == "copy") reply = {{"gbs", 123.0}};
    if (op == "evaluate") {
      const std::string config = request.at("config").get<std::string>();
      log_line(device, request.value("retime", 0) > 0, config);
      const bool dead = env_int("CUTUNE_FAKE_DEAD", -1) == device;
      pass_gate(device, dead);
      if (dead) std::abort();
      const int ms = sleep_ms(device);
      const auto verifying = std::chrono::steady_clock::now();
      sleep_for_ms(ms / 2);
      const double verify_ms = ms_since(verifying);
      const auto timing = std::chrono::steady_clock::now();
      sleep_for_ms(ms - ms / 2);
      const double benchmark_ms = ms_since(timing);
      if (config.find("MODE=1") != std::string::npos) std::abort();
      if (config.find("MODE=2") != std::string::npos)
        for (;;) ::pause();
      if (config.find("MODE=3") != std::string::npos) ::_exit(3);
      if (config.find("MODE=5") != std::string::npos) kill_self(SIGKILL);
      if (config.find("MODE=6") != std::string::npos) kill_self(SIGTERM);
      if (config.find("MODE=7") != std::string::npos) std::raise(SIGSEGV);
      if (config.find("MODE=8") != std::string::npos) {
        ::close(channel);
        ::close(0);
        for (;;) ::pause();
      }
      if (request.at("compiled").value("interrupted", false)) {
        reply = {{"result", cutune::detail::to_message(interrupted(config, request.at("compiled")))}};
      } else if (config.find("MODE=4") != std::string::npos) {
        reply = {{"error", "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"}};
      } else {
        cutune::Result r;
        r.config = config;
        r.samples_ms = {1.0, 2.0, 3.0};
        r.median_ms = time_of(config, env_int("CUTUNE_FAKE_TIMES", 0));
        r.min_ms = 1.0;
        r.max_ms = 3.0;
        r.compile_ms = request.at("compiled").at("ms").get<double>();
        r.verify_ms = verify_ms;
        r.benchmark_ms = benchmark_ms;
        reply = {{"result", cutune::detail::to_message(r)}};
      }
    }
    if (!cutune::detail::write_message(channel, reply)) return 0;
  }
}
