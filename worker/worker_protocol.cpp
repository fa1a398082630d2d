// Frames and (de)serialises the worker messages, and runs the worker's request loop.
#include "worker_protocol.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <variant>

#include "cutune/cubin_cache.hpp"
#include "cutune/device.hpp"
#include "cutune/error.hpp"
#include "cutune/result_fields.hpp"
#include "worker/kept_benches.hpp"

namespace cutune::detail {
namespace {

constexpr std::uint32_t kMaxFrame = 1u << 30;

bool write_all(int fd, const std::uint8_t* data, std::size_t size) {
  while (size > 0) {
    // send() with MSG_NOSIGNAL: a peer that died must be an error here, not a SIGPIPE that kills this process.
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Reads exactly `size` bytes, polling so that a deadline or a stop request can interrupt the wait.
ReadOutcome read_all(int fd, std::uint8_t* data, std::size_t size, std::chrono::steady_clock::time_point deadline,
                     bool forever, const std::function<bool()>& stop) {
  while (size > 0) {
    if (stop && stop()) return ReadOutcome::Stopped;
    int wait_ms = 100;
    if (!forever) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return ReadOutcome::TimedOut;
      wait_ms = static_cast<int>(std::min<long long>(left.count(), 100));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno != EINTR) return ReadOutcome::Closed;
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadOutcome::Closed;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return ReadOutcome::Message;
}

}  // namespace

bool write_message(int fd, const Message& message) {
  const std::vector<std::uint8_t> body = Message::to_cbor(message);
  const auto size = static_cast<std::uint32_t>(body.size());
  std::uint8_t header[4];
  std::memcpy(header, &size, sizeof header);
  return write_all(fd, header, sizeof header) && write_all(fd, body.data(), body.size());
}

ReadOutcome read_message(int fd, double timeout_s, const std::function<bool()>& stop, Message& out) {
  const bool forever = timeout_s < 0;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(forever ? 0.0 : timeout_s));
  std::uint8_t header[4];
  ReadOutcome r = read_all(fd, header, sizeof header, deadline, forever, stop);
  if (r != ReadOutcome::Message) return r;
  std::uint32_t size = 0;
  std::memcpy(&size, header, sizeof size);
  if (size > kMaxFrame) return ReadOutcome::Closed;
  std::vector<std::uint8_t> body(size);
  r = read_all(fd, body.data(), body.size(), deadline, forever, stop);
  if (r != ReadOutcome::Message) return r;
  try {
    out = Message::from_cbor(body);
  } catch (const Message::exception&) {
    return ReadOutcome::Closed;
  }
  return ReadOutcome::Message;
}

Message to_message(const Result& r) {
  Message disagreement = nullptr;
  if (const auto& d = r.disagreement) {
    disagreement = {{"output", d->output}, {"count", d->count}, {"first", d->first}, {"compared", d->compared}};
  }
  Message m = {{"disagreement", disagreement},
                {"config", r.config},
                {"status", std::string(to_string(r.status))},
                {"message", r.message},
                {"samples_ms", r.samples_ms}};
  for (const ResultField& f : kResultFields) {
    m[std::string(f.name)] = is_integer(f) ? Message(integer_value(r, f)) : Message(field_value(r, f));
  }
  return m;
}

Result result_from_message(const Message& m) {
  Result r;
  r.config = m.at("config").get<std::string>();
  r.status = status_from_string(m.at("status").get<std::string>());
  r.message = m.at("message").get<std::string>();
  r.samples_ms = m.at("samples_ms").get<std::vector<double>>();
  for (const ResultField& f : kResultFields) {
    const Message& value = m.at(std::string(f.name));
    set_field(r, f, is_integer(f) ? static_cast<double>(value.get<std::int64_t>()) : value.get<double>());
  }
  if (const Message& d = m.at("disagreement"); !d.is_null()) {
    r.disagreement = Disagreement{d.at("output").get<std::string>(), d.at("count").get<std::uint64_t>(),
                                  d.at("first").get<std::uint64_t>(), d.at("compared").get<std::uint64_t>()};
  }
  return r;
}

Message to_message(const CompileOutput& c) {
  return {{"ok", c.ok},
          {"cubin", Message::binary(std::vector<std::uint8_t>(c.cubin.begin(), c.cubin.end()))},
          {"lowered_name", c.lowered_name},
          {"log", c.log},
          {"registers", c.registers},
          {"spill_bytes", c.spill_bytes},
          {"ms", c.ms},
          {"interrupted", c.interrupted}};
}

CompileOutput compile_output_from_message(const Message& m) {
  CompileOutput c;
  c.ok = m.at("ok").get<bool>();
  const auto& bytes = m.at("cubin").get_binary();
  c.cubin.assign(bytes.begin(), bytes.end());
  c.lowered_name = m.at("lowered_name").get<std::string>();
  c.log = m.at("log").get<std::string>();
  c.registers = m.at("registers").get<int>();
  c.spill_bytes = m.at("spill_bytes").get<int>();
  c.ms = m.at("ms").get<double>();
  c.interrupted = m.value("interrupted", false);  // absent from an older rank's messages
  return c;
}

Message to_message(const MeasureOptions& o) {
  Message m = {{"seed", o.seed},
               {"verify", o.verify ? Message(std::string(to_string(*o.verify))) : Message(nullptr)},
               {"atol", o.atol ? Message(*o.atol) : Message(nullptr)},
               {"rtol", o.rtol ? Message(*o.rtol) : Message(nullptr)}};
  for (const auto& f : kMeasureOptionFields) {
    std::visit([&](auto member) { m[std::string(f.name)] = o.*member; }, f.member);
  }
  return m;
}

MeasureOptions measure_options_from_message(const Message& m) {
  MeasureOptions o;
  for (const auto& f : kMeasureOptionFields) {
    std::visit([&](auto member) { m.at(std::string(f.name)).get_to(o.*member); }, f.member);
  }
  o.seed = m.at("seed").get<std::uint64_t>();
  if (const Message& verify = m.at("verify"); !verify.is_null()) {
    o.verify = parse_verify_mode(verify.get<std::string>());
    if (!o.verify) {
      throw InputError("unknown verification mode '" + verify.get<std::string>() + "' in a worker request");
    }
  }
  if (const Message& atol = m.at("atol"); !atol.is_null()) o.atol = atol.get<double>();
  if (const Message& rtol = m.at("rtol"); !rtol.is_null()) o.rtol = rtol.get<double>();
  return o;
}

L2Flush l2_flush_from_message(const Message& m) {
  const auto flush = parse_l2_flush(m.get<std::string>());
  if (!flush) throw InputError("unknown L2 convention '" + m.get<std::string>() + "' in a worker request");
  return *flush;
}

int worker_main(int in, int out) {
  std::unique_ptr<Device> device;
  KeptBenches benches;
  for (;;) {
    Message request;
    if (read_message(in, -1.0, {}, request) != ReadOutcome::Message) return 0;  // the tuner is gone
    Message reply;
    bool exit_after_reply = false;
    try {
      const std::string op = request.at("op").get<std::string>();
      if (op == "hello") {
        device = std::make_unique<Device>(request.at("device").get<int>());
        device->block_while_waiting();  // the compile pool needs every core; this process mostly waits on the GPU
        reply = {{"ok", true}};
      } else if (op == "bench") {
        if (!device) throw Error("a set-up request before the worker's hello");
        benches.select(request, *device);
        reply = {{"ok", true}};
      } else if (op == "evaluate") {
        Workbench& bench = benches.bench();
        const Config config = benches.spec().parse_config(request.at("config").get<std::string>());
        const CompileOutput compiled = compile_output_from_message(request.at("compiled"));
        const int repeats = request.at("retime").get<int>();
        const Result r = repeats > 0 ? bench.retime(config, compiled, repeats)
                                     : bench.evaluate(config, compiled, request.at("best_ms").get<double>());
        exit_after_reply = !bench.usable();  // the context is poisoned: the tuner starts a fresh worker
        reply = {{"result", to_message(r)}};
      } else if (op == "copy") {
        reply = {{"gbs", benches.bench().copy_bandwidth(request.at("bytes").get<std::int64_t>())}};
      } else {
        reply = {{"error", "unknown worker request '" + op + "'"}};
      }
    } catch (const std::exception& e) {
      reply = {{"error", e.what()}};
    }
    if (!write_message(out, reply)) return 0;
    if (exit_after_reply) return 0;
  }
}

}  // namespace cutune::detail
